//! What exception messages say, read as data: a quoted name, a key's
//! repr, the labels a pandas KeyError lists.
//!
//! A message is not Python source, but what it quotes often is: a key's
//! or a rejected value's `repr` (`KeyError: 'x'`, `... base 10: 'abc'`), a
//! printed list. Those are parsed by the analysis (`analysis::expression`,
//! tree-sitter), never by scanning quotes. What is not source, the names
//! Python's own messages put in single quotes (`name 'x' is not
//! defined`), is read by the one helper [`quoted_parts`].

use super::value::Value;
use crate::analysis::{expression, Condition, Constant};
use crate::exec::ExceptionInfo;

/// The names a message puts in single quotes, in order (`cannot import
/// name 'a' from 'm'` -> `a`, `m`); a quote left open ends nothing.
pub(crate) fn quoted_parts(msg: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = msg.split('\'').collect();
    // An odd number of quotes leaves the last part open: not quoted.
    if parts.len() % 2 == 0 {
        parts.pop();
    }
    parts.into_iter().skip(1).step_by(2).collect()
}

/// The first single-quoted part of a message.
pub(crate) fn quoted(msg: &str) -> Option<String> {
    quoted_parts(msg).first().map(|s| s.to_string())
}

/// The string a `repr` of a `str` at the end of a message spells, after
/// its last `": "` that starts one (`invalid literal for int() with base
/// 10: 'abc'` -> `abc`).
pub(crate) fn trailing_str(msg: &str) -> Option<String> {
    msg.match_indices(": ").find_map(|(at, _)| match expression(&msg[at + 2..]) {
        Some(Condition::Constant { value: Constant::Str(s) }) => Some(s),
        _ => None,
    })
}

/// A message that is itself a `repr` of a string (a KeyError's message
/// is the repr of its argument), decoded; any other message as it is.
fn unquoted(msg: &str) -> String {
    match expression(msg) {
        Some(Condition::Constant { value: Constant::Str(s) }) => s,
        _ => msg.to_string(),
    }
}

/// The key a KeyError is about: its repr, or pandas groupby's
/// `Column not found: amount`.
pub(super) fn key_error_key(e: &ExceptionInfo) -> Option<KeyLit> {
    match unquoted(&e.message).strip_prefix("Column not found: ") {
        Some(col) => Some(KeyLit::Str(col.to_string())),
        None => e.key.as_deref().and_then(parse_literal_key),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum KeyLit {
    Str(String),
    Int(i64),
}

/// A key as its `repr` prints it: an int or a string.
pub(super) fn parse_literal_key(repr: &str) -> Option<KeyLit> {
    key_of(&expression(repr)?)
}

fn key_of(c: &Condition) -> Option<KeyLit> {
    match c {
        Condition::Constant { value: Constant::Int(i) } => Some(KeyLit::Int(*i)),
        Condition::Constant { value: Constant::Str(s) } => Some(KeyLit::Str(s.clone())),
        _ => None,
    }
}

/// The labels a pandas KeyError lists: `"['a', 'b'] not in index"` or
/// `"None of [Index([0, 3], dtype='int64')] are in the [columns]"`.
pub(super) fn pandas_missing_labels(message: &str) -> Vec<KeyLit> {
    let m = unquoted(message);
    let list = if let Some(rest) = m.strip_prefix("None of [") {
        // `Index([...], dtype=...)`: its first argument.
        rest.rsplit_once("] are in the").and_then(|(index, _)| match expression(index)? {
            Condition::Call { mut args, .. } if !args.is_empty() => Some(args.swap_remove(0)),
            _ => None,
        })
    } else {
        // `df[['a']]` says "not in index", `df.drop(columns=['a'])` "not found in axis".
        // `dropna(subset=['a'])`, `drop_duplicates(subset='a')` raise the
        // list itself (a list is never a mapping's key, so it lists labels).
        m.strip_suffix(" not in index").or_else(|| m.strip_suffix(" not found in axis")).or_else(|| m.starts_with('[').then_some(m.as_str())).and_then(expression)
    };
    match list {
        Some(Condition::Other { node, parts, .. }) if node == "list" => parts.iter().filter_map(key_of).collect(),
        _ => Vec::new(),
    }
}

/// The value a key literal stands for.
pub(super) fn key_value(key: &KeyLit) -> Value {
    match key {
        KeyLit::Str(s) => Value::Str(s.clone()),
        KeyLit::Int(i) => Value::Int(*i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandas_key_errors_list_their_labels() {
        let labels = pandas_missing_labels("\"None of [Index([0, 3], dtype='int64')] are in the [columns]\"");
        assert_eq!(labels, vec![KeyLit::Int(0), KeyLit::Int(3)]);
        let labels = pandas_missing_labels("\"['a, b', 'c'] not in index\"");
        assert_eq!(labels, vec![KeyLit::Str("a, b".into()), KeyLit::Str("c".into())]);
        // A label with a quote in it: the repr switches quotes.
        let labels = pandas_missing_labels("\"[\\\"it's\\\"] not in index\"");
        assert_eq!(labels, vec![KeyLit::Str("it's".into())]);
        assert!(pandas_missing_labels("'plain'").is_empty());
        // `dropna(subset=[...])` raises the missing labels as the key.
        assert_eq!(pandas_missing_labels("['email', 'id']"), vec![KeyLit::Str("email".into()), KeyLit::Str("id".into())]);
    }

    #[test]
    fn key_reprs_parse() {
        assert_eq!(parse_literal_key("'a'"), Some(KeyLit::Str("a".into())));
        assert_eq!(parse_literal_key("\"it's\""), Some(KeyLit::Str("it's".into())));
        assert_eq!(parse_literal_key("3"), Some(KeyLit::Int(3)));
        assert_eq!(parse_literal_key("(1, 2)"), None);
    }

    #[test]
    fn quoted_names_and_trailing_reprs() {
        assert_eq!(quoted_parts("cannot import name 'load' from 'tools' (/x/tools.py)"), ["load", "tools"]);
        assert_eq!(quoted_parts("name 'x' is not defined, 'open"), ["x"]);
        assert_eq!(quoted("no quotes"), None);
        assert_eq!(trailing_str("invalid literal for int() with base 10: 'The quick'").as_deref(), Some("The quick"));
        assert_eq!(trailing_str("could not convert string to float: \"it's: 1\"").as_deref(), Some("it's: 1"));
        assert_eq!(trailing_str("math domain error"), None);
    }
}
