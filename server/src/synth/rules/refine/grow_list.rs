//! IndexError: a list (or numpy array literal) the line reads gets more
//! items.

use crate::synth::prefix::{Binding, Candidate};
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct GrowList;

impl Rule for GrowList {
    fn name(&self) -> &'static str {
        "grow-list"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("IndexError"))
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        fail.edit_each_name_on_line(grow)
    }
}

fn grow(b: &mut Binding) -> bool {
    // An array literal of ours: more elements (columns, for a 2-D one).
    if let Candidate::Value(v @ (Value::Call { .. } | Value::Expr { .. })) = b.current_mut() {
        // Ours are calls; a library table's recipe is spelled the same way.
        let (two_d, imports) = match &*v {
            Value::Call { func, args, imports, .. } if func == "np.array" => match args.first() {
                Some(Value::List(rows)) => (matches!(rows.first(), Some(Value::List(_))), imports),
                _ => return false,
            },
            Value::Expr { code, imports } if code.starts_with("np.array([") => (code.starts_with("np.array([["), imports),
            _ => return false,
        };
        let bigger = if two_d { "np.arange(1, 31).reshape(3, 10)" } else { "np.arange(1, 11)" };
        *v = Value::Expr { code: bigger.to_string(), imports: imports.clone() };
        return true;
    }
    let Candidate::Value(Value::List(items)) = b.current_mut() else { return false };
    if items.len() >= 10 {
        return false;
    }
    let first = items.first().cloned().unwrap_or(Value::Int(1));
    while items.len() < 10 {
        items.push(first.clone());
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn a_list_indexed_past_its_end_grows() {
        refine_with(&super::GrowList, "print(items[5])\n", |p| { *p.binding_mut("items").unwrap() = Binding::new("items", vec![Candidate::Value(Value::List(vec![Value::Int(1), Value::Int(2)]))]); }, raised("IndexError", r#"list index out of range"#, 1), expect![[r#"
            ## 1
            items = [1, 2, 1, 1, 1, 1, 1, 1, 1, 1]
        "#]]);
    }

    #[test]
    fn an_array_of_ours_gets_more_columns() {
        let ints = |r: std::ops::RangeInclusive<i64>| Value::List(r.map(Value::Int).collect());
        let array = crate::synth::value::call("np.array", vec![Value::List(vec![ints(1..=3), ints(4..=6)])], "import numpy as np");
        refine_with(&super::GrowList, "print(grid[0, 5])\n", |p| { *p.binding_mut("grid").unwrap() = Binding::new("grid", vec![Candidate::Value(array)]); }, raised("IndexError", r#"index 5 is out of bounds for axis 1 with size 3"#, 1), expect![[r#"
            ## 1
            import numpy as np


            grid = np.arange(1, 31).reshape(3, 10)
        "#]]);
    }
}
