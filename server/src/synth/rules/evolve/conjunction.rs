//! `not fast and not mode.is_ipynb`: a variant where every clause holds at
//! once (one name at a time never enters such a branch).

use crate::synth::alternatives::falsy;
use crate::analysis::{CompareOp, Condition, Constant};
use crate::synth::clauses::truthy;
use crate::synth::paths::value_through_call;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct Conjunction;

const NONE: Condition = Condition::Constant { value: Constant::None };

impl Rule for Conjunction {
    fn name(&self) -> &'static str {
        "conjunction"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        conjunction_variants(ctx, b.best, b.line, b.condition)
    }
}

/// `not fast and not mode.is_ipynb`: a variant where every clause holds at
/// once (one name at a time never enters such a branch). Clauses are tested
/// paths (`x`, `not x`, `x is None`), or a string method's result
/// (`not text.strip()`).
fn conjunction_variants(ctx: &Context, best: &Attempt, line: u32, condition: &Condition) -> Vec<Prefix> {
    if condition.has_or() {
        return Vec::new();
    }
    let mut p = best.prefix.clone();
    let mut changed = 0;
    for clause in condition.conjuncts() {
        // `isinstance(e, HTTPException)`: an instance of a subclass of that type too.
        if let Condition::IsInstance { subject, types } = clause {
            let ([ty], Some(path)) = (types.as_slice(), subject.path()) else { return Vec::new() };
            let Some(ty) = ty.dotted().filter(|t| !crate::analysis::is_builtin(t)) else { return Vec::new() };
            let Some(Value::Object { class, .. }) = value_through_call(ctx, &mut p, &path, line) else { return Vec::new() };
            *class = match class.split_once('(') {
                Some((_, bases)) if bases.trim_end_matches(')').split(',').any(|b| b.trim() == ty) => continue,
                Some((name, bases)) => format!("{name}({}, {ty})", bases.trim_end_matches(')')),
                None => format!("{class}({ty})"),
            };
            changed += 1;
            continue;
        }
        let (tested, want_truthy, none_test) = match clause {
            Condition::Not { operand } => (&**operand, false, false),
            Condition::Compare { left, ops, comparators } if ops == &[CompareOp::Is] && comparators == &[NONE] => (&**left, false, true),
            c => (c, true, false),
        };
        // `text.strip()`: the string itself decides.
        let tested = match tested {
            Condition::Call { func, args, keywords } if args.is_empty() && keywords.is_empty() => match &**func {
                Condition::Attribute { value, attr } if ["strip", "lstrip", "rstrip"].contains(&attr.as_str()) => &**value,
                _ => tested,
            },
            _ => tested,
        };
        // `self.trap(e)`: what the method returns decides.
        let (path, called) = match tested {
            Condition::Call { func, .. } => (func.dotted(), true),
            t => (t.path(), false),
        };
        let Some(path) = path else { return Vec::new() };
        let Some(slot) = value_through_call(ctx, &mut p, &path, line) else { return Vec::new() };
        let slot = match (called, slot) {
            (false, slot) => slot,
            (true, Value::Function { returns, is_async: false }) => &mut **returns,
            (true, _) => return Vec::new(),
        };
        let wanted = match (truthy(slot), want_truthy) {
            (Some(t), w) if t == w && !(none_test && *slot != Value::None) => continue,
            (Some(true), false) if none_test => Value::None,
            (Some(true), false) => falsy(slot).unwrap_or(Value::None),
            (Some(false), true) => match slot {
                Value::Bool(_) => Value::Bool(true),
                Value::Int(_) => Value::Int(1),
                Value::Float(_) => Value::Float(1.5),
                Value::Str(_) => Value::Str("text".into()),
                Value::List(_) => Value::List(vec![Value::Int(1)]),
                _ => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        *slot = wanted;
        changed += 1;
    }
    if changed >= 2 { vec![p] } else { Vec::new() }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn every_clause_of_a_conjunction_holds_at_once() {
        branch(&super::Conjunction, "if not quiet and not options.dry_run:\n    print('go')\n", 1, &[1], expect![[r#"
            ## 1
            quiet = False


            class Options:
                dry_run = False


            options = Options()
        "#]]);
    }

    #[test]
    fn a_condition_over_several_lines_is_one_conjunction() {
        branch(&super::Conjunction, "if (not config.force\n        and not cache.hits):\n    print('cold')\n", 1, &[1], expect![[r#"
            ## 1
            class Config:
                force = False


            config = Config()


            class Cache:
                hits = []


            cache = Cache()
        "#]]);
    }

    #[test]
    fn an_or_anywhere_in_the_tree_leaves_the_conjunction_alone() {
        branch(&super::Conjunction, "if not quiet and (verbose or not options.dry_run):\n    print('go')\n", 1, &[1], expect![[r#"
            (nothing)
        "#]]);
    }
}
