//! Members a condition tests through a name the fragment assigned (`p =
//! leaf.parent`; `if not p.parent`): the value each lands on, varied.

use crate::synth::alternatives::{alternatives, Tests};
use crate::analysis::Condition;
use crate::synth::paths::value_through_call;
use crate::synth::prefix::{Binding, Candidate};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct TestedPaths;

impl Rule for TestedPaths {
    fn name(&self) -> &'static str {
        "tested-paths"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        path_variants(ctx, b.best, b.line, b.condition)
    }
}

/// Members a condition tests through a name the fragment assigned (`p =
/// leaf.parent`; `if not p.parent`): the value each lands on, varied.
fn path_variants(ctx: &Context, best: &Attempt, line: u32, condition: &Condition) -> Vec<Prefix> {
    let mut out = Vec::new();
    let tests = Tests::of(condition);
    for path in condition.dotted_paths() {
        let root = path.split('.').next().unwrap_or_default();
        if best.prefix.binding(root).is_some() {
            // A prefix value's members vary with the value itself.
            continue;
        }
        let mut p = best.prefix.clone();
        let Some(slot) = value_through_call(ctx, &mut p, &path, line) else { continue };
        let here = Binding::new(path.clone(), vec![Candidate::Value(slot.clone())]);
        for alt in alternatives(&here, &tests).into_iter().take(4) {
            let mut q = best.prefix.clone();
            if let Some(slot) = value_through_call(ctx, &mut q, &path, line) {
                *slot = alt;
                out.push(q);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_member_tested_through_an_assigned_name_varies() {
        branch(&super::TestedPaths, "p = leaf.parent\nif not p.parent:\n    print('root')\n", 2, &[1, 2], expect![[r#"
            ## 1
            class Parent:
                parent = False


            class Leaf:
                parent = Parent()


            leaf = Leaf()
        "#]]);
    }
}
