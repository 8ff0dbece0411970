//! `if end is None:` where `end` is a member of a prefix value or an item a
//! loop walks (`for begin, end in self.ranges:`): a variant where that
//! value is `None`, so the arm the placeholder skipped runs. A loop gets
//! one more item for it, so the items before keep the other arm.

use crate::analysis::{CompareOp, Condition, Constant};
use crate::synth::paths::{grow_loop, value_through_call, value_through_item};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};
use crate::synth::value::Value;

pub struct NoneTests;

impl Rule for NoneTests {
    fn name(&self) -> &'static str {
        "none-tests"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        none_variants(ctx, b.best, b.line, b.condition)
    }
}

/// The paths a condition tests with `is None` / `is not None`.
fn tested_for_none(condition: &Condition) -> Vec<String> {
    let mut out = Vec::new();
    for leaf in condition.leaves() {
        let Condition::Compare { left, ops, comparators } = leaf else { continue };
        let ([CompareOp::Is | CompareOp::IsNot], [right]) = (ops.as_slice(), comparators.as_slice()) else { continue };
        let none = |c: &Condition| matches!(c, Condition::Constant { value: Constant::None });
        let tested = if none(right) { left.path() } else if none(left) { right.path() } else { None };
        out.extend(tested.filter(|p| !out.contains(p)));
    }
    out
}

fn none_variants(ctx: &Context, best: &Attempt, line: u32, condition: &Condition) -> Vec<Prefix> {
    let mut out = Vec::new();
    for path in tested_for_none(condition) {
        let root = path.split('.').next().unwrap_or_default();
        let bound = best.prefix.binding(root).is_some();
        // A plain prefix name takes `None` among its other values already.
        if bound && path == root {
            continue;
        }
        // A loop variable: one more item holds `None`, so the items before
        // keep the other arm; else the value itself (a member, or what a
        // prefix call returned) becomes `None`.
        let mut p = best.prefix.clone();
        let grown = if bound { None } else { grow_loop(ctx, &mut p, root, line) };
        let slot = match grown {
            Some(i) => value_through_item(ctx, &mut p, &path, line, i),
            None => value_through_call(ctx, &mut p, &path, line),
        };
        if let Some(slot) = slot.filter(|s| **s != Value::None) {
            *slot = Value::None;
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn an_unpacked_loop_item_tested_for_none_gets_an_item_holding_none() {
        branch(
            &super::NoneTests,
            "for begin, end in self.ranges:\n    if end is None:\n        print(begin)\n    else:\n        print(end - 1)\n",
            2,
            &[1, 2, 5],
            expect![[r#"
                ## 1
                class Self:
                    ranges = [('The quick brown fox jumps over the lazy dog', 3), ('The quick brown fox jumps over the lazy dog 2', 4), ('The quick brown fox jumps over the lazy dog 3', 5), ('The quick brown fox jumps over the lazy dog 3', None)]


                self = Self()
            "#]],
        );
    }

    #[test]
    fn a_member_tested_for_none_becomes_none() {
        branch(&super::NoneTests, "if job.owner is not None:\n    print(job.owner)\nelse:\n    print('nobody')\n", 1, &[1, 2], expect![[r#"
            ## 1
            class Job:
                owner = None


            job = Job()
        "#]]);
    }
}
