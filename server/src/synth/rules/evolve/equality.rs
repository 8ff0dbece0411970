//! `a == b` comparisons in a condition where one side is a value the prefix
//! defines (`leaf.type == token.COLON`): variants where they hold, each
//! alone and all together, and through the items of a loop variable.

use crate::synth::alternatives::{alternatives, Tests};
use crate::synth::library_names::import_binding;
use crate::analysis::{CompareOp, Condition, Constant};
use crate::synth::paths::{grow_loop, value_at_mut, value_through_call, value_through_item};
use crate::synth::prefix::{Binding, Candidate};
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct Equality;

impl Rule for Equality {
    fn name(&self) -> &'static str {
        "equality"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        equality_variants(ctx, b.best, b.line, b.condition)
    }
}

/// `a == b` comparisons in a condition, where `a` is a value the prefix
/// defines (`leaf.type == token.COLON`): variants where they hold, each alone
/// and all together.
fn equality_variants(ctx: &Context, best: &Attempt, line: u32, condition: &Condition) -> Vec<Prefix> {
    // Either side may be the one to change (`src == dst` where `dst` is
    // what a prefix helper returned); each `==`/`!=` of a chain is a pair.
    let mut pairs: Vec<(String, &Condition)> = Vec::new();
    for leaf in condition.leaves() {
        let Condition::Compare { left, ops, comparators } = leaf else { continue };
        let operands: Vec<&Condition> = std::iter::once(&**left).chain(comparators).collect();
        for (i, op) in ops.iter().enumerate() {
            if !matches!(op, CompareOp::Eq | CompareOp::NotEq) {
                continue;
            }
            let (l, r) = (operands[i], operands[i + 1]);
            if let Some(path) = l.path() {
                pairs.push((path, r));
            }
            if let Some(path) = r.path() {
                pairs.push((path, l));
            }
        }
    }
    let resolve = |p: &mut Prefix, rhs: &Condition| -> Option<Value> {
        match rhs {
            Condition::Constant { value: Constant::Int(i) } => return Some(Value::Int(*i)),
            Condition::Constant { value: Constant::Str(s) } => return Some(Value::Str(s.clone())),
            // `path[i]`: an element of a list the prefix defines.
            Condition::Subscript { value, index } => {
                let Condition::Constant { value: Constant::Int(i) } = **index else { return None };
                if let Some(Value::List(items)) = value_at_mut(p, &value.path()?) {
                    let n = items.len() as i64;
                    let at = if i < 0 { n + i } else { i };
                    return (0..n).contains(&at).then(|| items[at as usize].clone());
                }
                return None;
            }
            _ => {}
        }
        let rhs = rhs.path()?;
        if let Some(v) = value_through_call(ctx, p, &rhs, line) {
            return Some(v.clone());
        }
        let root = rhs.split('.').next()?;
        let imported = import_binding(ctx, root).is_some() || p.binding(root).is_some_and(|b| matches!(b.current(), Candidate::Import(_)));
        imported.then(|| Value::Expr { code: rhs.to_string(), imports: vec![] })
    };
    // A display of constants (`{"a": 1}`, `(1, 5)`) is its own value.
    let display = |rhs: &Condition| -> Option<Value> {
        let code = rhs.to_string();
        (rhs.is_constant_display() && code.len() < 200).then_some(Value::Expr { code, imports: vec![] })
    };
    let mut out = Vec::new();
    let mut all = best.prefix.clone();
    let mut changed_all = 0;
    for (lhs, rhs) in &pairs {
        let mut p = best.prefix.clone();
        let Some(v) = resolve(&mut p, rhs).or_else(|| display(rhs)) else { continue };
        // A value that fails the test.
        let other = alternatives(&Binding::new(lhs.clone(), vec![Candidate::Value(v.clone())]), &Tests::default()).into_iter().next();
        if let Some(slot) = value_through_call(ctx, &mut p, lhs, line) {
            if *slot != v {
                *slot = v.clone();
                out.push(p);
            } else if let Some(other) = &other {
                // Already equal: the branch on the other side of the test.
                *slot = other.clone();
                out.push(p);
            }
        }
        if let Some(slot) = value_through_call(ctx, &mut all, lhs, line) {
            *slot = v.clone();
            changed_all += 1;
        }
        // A loop variable: a later item (or one more) takes this arm, the
        // first keeps its own (`for n in nodes: if n.type == A: ... elif n.type == B:`).
        let root = lhs.split('.').next().unwrap_or_default();
        if lhs.contains('.') && best.prefix.binding(root).is_none() {
            let mut grown = best.prefix.clone();
            let extra = grow_loop(ctx, &mut grown, root, line);
            // ... or, one more item, none of them (the `else:` of the chain).
            if let (Some(i), Some(other)) = (extra, other) {
                let mut grown_other = grown.clone();
                if let Some(slot) = value_through_item(ctx, &mut grown_other, lhs, line, i) {
                    *slot = other;
                    out.push(grown_other);
                }
            }
            for (i, mut q) in (1..extra.unwrap_or(0)).map(|i| (i, best.prefix.clone())).chain(extra.map(|i| (i, grown))) {
                if let Some(slot) = value_through_item(ctx, &mut q, lhs, line, i).filter(|s| **s != v) {
                    *slot = v.clone();
                    out.push(q);
                }
            }
        }
    }
    if changed_all > 1 {
        out.insert(0, all);
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_compared_member_takes_the_compared_value() {
        branch(&super::Equality, "if job.mode == 'fast':\n    print('fast')\n", 1, &[1], expect![[r#"
            ## 1
            class Job:
                mode = ''


            job = Job()
        "#]]);
    }

    #[test]
    fn a_string_holding_and_or_equals_is_one_constant() {
        branch(&super::Equality, "if job.mode == 'fast and == loud' or job.level == 3:\n    print('fast')\n", 1, &[1], expect![[r#"
            ## 1
            class Job:
                level = 3
                mode = 'fast and == loud'


            job = Job()
            ## 2
            class Job:
                level = 3
                mode = ''


            job = Job()
            ## 3
            class Job:
                level = 0
                mode = 'fast and == loud'


            job = Job()
        "#]]);
    }

    #[test]
    fn each_equality_of_a_chain_is_a_pair() {
        branch(&super::Equality, "if 0 < job.level == 3:\n    print('three')\n", 1, &[1], expect![[r#"
            ## 1
            class Job:
                level = 3


            job = Job()
        "#]]);
    }
}
