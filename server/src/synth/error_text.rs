//! What exception messages say, read as data: a quoted name, a key's
//! repr, the labels a pandas KeyError lists.

use super::value::Value;
use crate::exec::ExceptionInfo;

/// The key a KeyError is about: its repr, or pandas groupby's
/// `Column not found: amount`.
pub(super) fn key_error_key(e: &ExceptionInfo) -> Option<KeyLit> {
    match e.message.trim_matches(['\'', '"']).strip_prefix("Column not found: ") {
        Some(col) => Some(KeyLit::Str(col.to_string())),
        None => e.key.as_deref().and_then(parse_literal_key),
    }
}

/// The first single-quoted part of a message.
pub(super) fn quoted(msg: &str) -> Option<String> {
    let start = msg.find('\'')? + 1;
    let end = start + msg[start..].find('\'')?;
    Some(msg[start..end].to_string())
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum KeyLit {
    Str(String),
    Int(i64),
}

/// A key as its `repr` prints it: an int or a quoted string.
pub(super) fn parse_literal_key(repr: &str) -> Option<KeyLit> {
    let r = repr.trim();
    if let Ok(i) = r.parse::<i64>() {
        return Some(KeyLit::Int(i));
    }
    let q = r.chars().next()?;
    if (q == '\'' || q == '"') && r.ends_with(q) && r.len() >= 2 {
        return Some(KeyLit::Str(r[1..r.len() - 1].replace("\\'", "'")));
    }
    None
}

/// The labels a pandas KeyError lists: `"['a', 'b'] not in index"` or
/// `"None of [Index([0, 3], dtype='int64')] are in the [columns]"`.
pub(super) fn pandas_missing_labels(message: &str) -> Vec<KeyLit> {
    let m = message.trim_matches(['\'', '"']);
    let list = if let Some(rest) = m.strip_prefix("None of [Index([") {
        rest.split_once(']').map(|(items, _)| items)
    } else if let Some(head) = m.strip_suffix(" not in index") {
        head.strip_prefix('[').and_then(|h| h.strip_suffix(']'))
    } else {
        None
    };
    let Some(list) = list else { return Vec::new() };
    split_items(list).iter().filter_map(|item| parse_literal_key(item)).collect()
}

/// Split a printed list's items at the commas outside quotes.
pub(super) fn split_items(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quote) = (0, None);
    for (i, c) in list.char_indices() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            (',', None) => {
                items.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(list[start..].trim());
    items.retain(|i| !i.is_empty());
    items
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
        assert!(pandas_missing_labels("'plain'").is_empty());
    }

    #[test]
    fn key_reprs_parse() {
        assert_eq!(parse_literal_key("'a'"), Some(KeyLit::Str("a".into())));
        assert_eq!(parse_literal_key("3"), Some(KeyLit::Int(3)));
        assert_eq!(parse_literal_key("(1, 2)"), None);
    }
}
