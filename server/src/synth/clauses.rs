//! Clauses of a condition's text and the truth of plain values.

use super::value::Value;

/// A clause cut out of `(a and b.strip())` without the parenthesis the cut
/// left unmatched: `(a` → `a`, `b.strip())` → `b.strip()`.
pub(super) fn unbalanced_parens_trimmed(clause: &str) -> &str {
    let mut c = clause.trim();
    let count = |c: &str, p: char| c.matches(p).count();
    while c.starts_with('(') && count(c, '(') > count(c, ')') {
        c = c[1..].trim_start();
    }
    while c.ends_with(')') && count(c, ')') > count(c, '(') {
        c = c[..c.len() - 1].trim_end();
    }
    c
}

/// Whether a value is true in a test, when that is plain from it.
pub(super) fn truthy(v: &Value) -> Option<bool> {
    Some(match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::List(x) | Value::Tuple(x) | Value::Set(x) => !x.is_empty(),
        Value::Dict(x) => !x.is_empty(),
        Value::Object { .. } | Value::Function { .. } | Value::Class { .. } => true,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_lose_only_the_parentheses_a_split_left_unmatched() {
        assert_eq!(unbalanced_parens_trimmed(" (not a"), "not a");
        assert_eq!(unbalanced_parens_trimmed("not b.strip())"), "not b.strip()");
        assert_eq!(unbalanced_parens_trimmed("not text.strip()"), "not text.strip()");
    }
}
