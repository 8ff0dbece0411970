//! pandas' KeyError lists every missing label at once
//! (`"['a', 'b'] not in index"`): each mapping or DataFrame the line reads
//! gets all of them.

use crate::synth::additions::add_key;
use crate::synth::error_text::pandas_missing_labels;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct PandasMissingLabels;

impl Rule for PandasMissingLabels {
    fn name(&self) -> &'static str {
        "pandas-missing-labels"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("KeyError") && !pandas_missing_labels(&fail.error.message).is_empty())
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let labels = pandas_missing_labels(&fail.error.message);
        fail.edit_each_name_on_line(|b| labels.iter().rev().fold(false, |acc, c| add_key(b, c) || acc))
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn every_label_pandas_lists_is_added() {
        refine_with(&super::PandasMissingLabels, "print(frame[['price', 'qty']])\n", |p| { *p.binding_mut("frame").unwrap() = Binding::new("frame", vec![Candidate::Value(Value::Dict(vec![]))]); }, raised("KeyError", r#""['price', 'qty'] not in index""#, 1), expect![[r#"
            ## 1
            frame = {'qty': 1, 'price': 1}
        "#]]);
    }

    #[test]
    fn labels_a_drop_did_not_find_are_added() {
        refine_with(&super::PandasMissingLabels, "print(frame.drop(columns='tmp'))\n", |p| { *p.binding_mut("frame").unwrap() = Binding::new("frame", vec![Candidate::Value(Value::Dict(vec![]))]); }, raised("KeyError", r#""['tmp'] not found in axis""#, 1), expect![[r#"
            ## 1
            frame = {'tmp': 1}
        "#]]);
    }
}
