//! `a in b` with both sides dotted paths: a variant where `b` holds `a`
//! (a mapping when the fragment then looks `b[a]` up; a fragment variable
//! holds what the best run saw it hold first). With a literal item
//! (`"@" in netloc`, `3 in ids`) the container flips: it gets the item when
//! it lacked it, loses it when it had it, so the other side runs.

use crate::synth::error_text::{key_value, parse_literal_key};
use crate::analysis::{Condition, Constant};
use crate::synth::paths::value_at_mut;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct Membership;

impl Rule for Membership {
    fn name(&self) -> &'static str {
        "membership"
    }
    fn stage(&self) -> Stage {
        Stage::Branch
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(b) = t.branch() else { return Vec::new() };
        membership_variants(ctx, b.best, b.condition)
    }
}

/// `a in b` with both sides dotted paths: a variant where `b` holds `a`
/// (the first such test among the clauses that must all hold).
fn membership_variants(ctx: &Context, best: &Attempt, condition: &Condition) -> Vec<Prefix> {
    let tests = condition.conjuncts().into_iter().map(|c| match c {
        Condition::Not { operand } => &**operand,
        c => c,
    });
    let tests: Vec<&Condition> = tests.collect();
    let Some((a, b)) = tests.iter().find_map(|c| match c {
        Condition::Membership { item, container, .. } => Some((item.dotted()?, container.dotted()?)),
        _ => None,
    }) else {
        return tests.iter().find_map(|c| literal_membership(best, c)).into_iter().collect();
    };
    let mut p = best.prefix.clone();
    // A fragment variable (`for name in chain(bps, (None,))`) holds what the
    // best run saw it hold first.
    let Some(element) = value_at_mut(&mut p, &a).map(|v| v.clone()).or_else(|| observed_value(best, &a)) else { return Vec::new() };
    // Looked up by it afterwards (`funcs[name]`): a mapping.
    let keyed = ctx.fragment.contains(&format!("{b}[{a}]"));
    match value_at_mut(&mut p, &b) {
        Some(Value::Dict(kv)) => {
            if kv.iter().any(|(k, _)| *k == element) {
                return Vec::new();
            }
            insert_key(kv, element);
            vec![p]
        }
        Some(container @ Value::List(_)) if keyed => {
            let Value::List(items) = container else { return Vec::new() };
            let v = items.first().cloned().unwrap_or(Value::Int(1));
            *container = Value::Dict(vec![(element, v)]);
            vec![p]
        }
        Some(container) => {
            *container = Value::List(vec![element]);
            vec![p]
        }
        None => Vec::new(),
    }
}

/// `"@" in s` / `3 in ids` / `"debug" in opts` with the container a value of
/// the prefix: a variant where the container holds the item if it did not,
/// and does not if it did.
fn literal_membership(best: &Attempt, test: &Condition) -> Option<Prefix> {
    let Condition::Membership { item, container, .. } = test else { return None };
    let Condition::Constant { value } = &**item else { return None };
    let item = match value {
        Constant::Str(s) => Value::Str(s.clone()),
        Constant::Int(i) => Value::Int(*i),
        _ => return None,
    };
    let mut p = best.prefix.clone();
    let held = value_at_mut(&mut p, &container.dotted()?)?;
    match (held, &item) {
        (Value::Str(s), Value::Str(c)) if !c.is_empty() => {
            *s = if s.contains(c.as_str()) { s.replace(c.as_str(), "") } else { with_inside(s, c) };
        }
        (Value::List(items) | Value::Set(items) | Value::Tuple(items), _) => {
            if items.contains(&item) {
                items.retain(|v| *v != item);
            } else {
                items.insert(0, item);
            }
        }
        (Value::Dict(kv), _) => {
            if kv.iter().any(|(k, _)| *k == item) {
                kv.retain(|(k, _)| *k != item);
            } else {
                insert_key(kv, item);
            }
        }
        _ => return None,
    }
    Some(p)
}

/// `key` first in a mapping, with a value like the mapping's others.
fn insert_key(kv: &mut Vec<(Value, Value)>, key: Value) {
    let v = kv.first().map_or(Value::Int(1), |(_, v)| v.clone());
    kv.insert(0, (key, v));
}

/// `text` with `sep` inside it, where a separator goes (`user@host`,
/// `key=value`): after its first word, or between two copies of a single word.
fn with_inside(text: &str, sep: &str) -> String {
    match text.split_once(' ') {
        Some((head, rest)) => format!("{head}{sep}{rest}"),
        None if text.is_empty() => format!("a{sep}b"),
        None => format!("{text}{sep}{text}"),
    }
}

/// The first value the best run saw a fragment variable take (a probe), when
/// its repr is a plain constant.
fn observed_value(best: &Attempt, name: &str) -> Option<Value> {
    let repr = best.outcome.values.values().flatten().find(|(n, _)| n == name).map(|(_, r)| r.as_str())?;
    Some(match repr {
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        // Escapes would need decoding to give the same string back.
        r if r.contains('\\') => return None,
        r => key_value(&parse_literal_key(r)?),
    })
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_container_gets_the_element_tested_in_it() {
        branch(&super::Membership, "if key in table:\n    print(table[key])\n", 1, &[1], expect![[r#"
            ## 1
            key = 'apple'
            table = {'apple': 'The quick brown fox jumps over the lazy dog'}
        "#]]);
    }

    #[test]
    fn a_membership_test_after_other_clauses_or_in_an_assert_counts() {
        branch(&super::Membership, "if ready and key not in table:\n    print(key)\n", 1, &[1], expect![[r#"
            ## 1
            ready = True
            key = 'apple'
            table = ['apple']
        "#]]);
        branch(&super::Membership, "assert key in table\nprint(table[key])\n", 1, &[1], expect![[r#"
            ## 1
            key = 'apple'
            table = {'apple': 'The quick brown fox jumps over the lazy dog'}
        "#]]);
    }

    #[test]
    fn a_literal_tested_in_a_container_is_put_in_or_taken_out() {
        branch(&super::Membership, "if '@' not in netloc:\n    print(netloc)\nuser, host = netloc.split('@')\n", 1, &[1], expect![[r#"
            ## 1
            netloc = 'applebanana'
        "#]]);
        branch(&super::Membership, "if 3 in ids:\n    print(ids)\n", 1, &[1], expect![[r#"
            ## 1
            ids = [4, 5]
        "#]]);
    }
}
