//! `invalid literal for int() with base 10: 'The quick ...'`: the quoted
//! text is a string the prefix gave; strings of the kind the message names
//! replace it (a number, a date, a version).

use crate::synth::prefix::Candidate;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::error_text::trailing_str;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct RejectedText;

impl Rule for RejectedText {
    fn name(&self) -> &'static str {
        "rejected-text"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is("ValueError"))
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let mut out = Vec::new();
        if let Some(text) = trailing_str(&e.message).filter(|t| t.len() >= 3) {
            let text = text.as_str();
            for replacement in texts_for(&e.message) {
                let mut p = base.clone();
                let mut changed = false;
                for b in p.bindings.iter_mut() {
                    if let Candidate::Value(v) = b.current_mut() {
                        changed |= replace_text(v, text, replacement, 0);
                    }
                }
                if changed {
                    out.push(p);
                }
            }
        }
        out
    }
}

/// Texts of other kinds for a string a ValueError rejected, the kind its
/// message names first (a number for `int()`, a date for a format, a
/// version for a version parser).
fn texts_for(message: &str) -> Vec<&'static str> {
    let m = message.to_lowercase();
    let mut out = Vec::new();
    if m.contains("version") {
        out.push("1.2.3");
    }
    if m.contains("date") || m.contains("time") || m.contains("format") {
        out.push("2024-01-15");
    }
    out.extend(["42", "3.5", "2024-01-15", "1.2.3"]);
    let mut seen = Vec::new();
    out.retain(|t| if seen.contains(t) { false } else { seen.push(*t); true });
    out.truncate(3);
    out
}

/// Replace the string `from` wherever it is in `v` (items, values,
/// members, what functions return).
fn replace_text(v: &mut Value, from: &str, to: &str, depth: usize) -> bool {
    if depth > 5 {
        return false;
    }
    match v {
        Value::Str(s) if s == from => {
            *s = to.to_string();
            true
        }
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter_mut().fold(false, |acc, x| replace_text(x, from, to, depth + 1) || acc),
        Value::Dict(kv) => kv.iter_mut().fold(false, |acc, (_, x)| replace_text(x, from, to, depth + 1) || acc),
        Value::Function { returns, .. } => replace_text(returns, from, to, depth + 1),
        Value::Object { attrs, methods, .. } | Value::Derived { attrs, methods, .. } | Value::Class { attrs, methods } => {
            attrs.iter_mut().chain(methods.iter_mut()).fold(false, |acc, (_, x)| replace_text(x, from, to, depth + 1) || acc)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn text_a_parser_rejected_becomes_a_number() {
        refine_with(&super::RejectedText, "print(int(amount))\n", |p| { *p.binding_mut("amount").unwrap() = Binding::new("amount", vec![Candidate::Value(Value::Str("The quick".into()))]); }, raised("ValueError", r#"invalid literal for int() with base 10: 'The quick'"#, 1), expect![[r#"
            ## 1
            amount = '42'
            ## 2
            amount = '3.5'
            ## 3
            amount = '2024-01-15'
        "#]]);
    }
}
