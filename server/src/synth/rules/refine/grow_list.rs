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
        let base = fail.base;
        let names_on_line = &fail.names_on_line;
        let mut out = Vec::new();
        for n in names_on_line {
            let mut p = base.clone();
            if grow(p.binding_mut(n).unwrap()) {
                out.push(p);
            }
        }
        out
    }
}

fn grow(b: &mut Binding) -> bool {
    // An array literal of ours: more elements (columns, for a 2-D one).
    if let Candidate::Value(Value::Expr { code, .. }) = b.current_mut() {
        let bigger = match code.as_str() {
            c if c.starts_with("np.array([[") => "np.arange(1, 31).reshape(3, 10)",
            c if c.starts_with("np.array([") => "np.arange(1, 11)",
            _ => return false,
        };
        *code = bigger.to_string();
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
}
