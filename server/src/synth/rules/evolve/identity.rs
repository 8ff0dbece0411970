//! `ctx.app is not self.app`: a variant where one side is the very object
//! the other names, so that `is` holds.

use crate::analysis::{CompareOp, Condition};
use crate::synth::paths::{value_at_mut, value_through_call};
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct Identity;

impl Rule for Identity {
    fn name(&self) -> &'static str {
        "identity"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        identity_variants(ctx, b.best, b.line, b.condition)
    }
}

/// `ctx.app is not self.app`: a variant where one side is the very object
/// the other names (`app = self.app` in its class), so that `is` holds.
fn identity_variants(ctx: &Context, best: &Attempt, line: u32, condition: &Condition) -> Vec<Prefix> {
    let mut out = Vec::new();
    for leaf in condition.leaves() {
        let Condition::Compare { left, ops, comparators } = leaf else { continue };
        let ([CompareOp::Is | CompareOp::IsNot], [right]) = (ops.as_slice(), comparators.as_slice()) else { continue };
        // Dotted names on both sides (`None` is a constant, not a name).
        let (Some(l), Some(r)) = (left.dotted(), right.dotted()) else { continue };
        for (lhs, rhs) in [(&l, &r), (&r, &l)] {
            let (lroot, rroot) = (lhs.split('.').next().unwrap_or_default(), rhs.split('.').next().unwrap_or_default());
            // The other side must already exist when this one is defined.
            let mut p = best.prefix.clone();
            if lroot == rroot || value_at_mut(&mut p, rhs).is_none() {
                continue;
            }
            let Some(slot) = value_through_call(ctx, &mut p, lhs, line) else { continue };
            let same = Value::Expr { code: rhs.to_string(), imports: vec![] };
            if *slot != same {
                *slot = same;
                out.push(p);
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
    fn one_side_of_is_becomes_the_other() {
        branch(&super::Identity, "if current.owner is session.user:\n    print('mine')\n", 1, &[1], expect![[r#"
            ## 1
            class Session:
                user = 3


            session = Session()


            class Current:
                owner = session.user


            current = Current()
            ## 2
            class Current:
                owner = 3


            current = Current()


            class Session:
                user = current.owner


            session = Session()
        "#]]);
    }

    #[test]
    fn is_none_and_a_string_holding_is_are_no_identity_between_names() {
        branch(&super::Identity, "if current.owner is None and current.name == 'x is y':\n    print('none')\n", 1, &[1], expect![[r#"
            (nothing)
        "#]]);
    }
}
