//! Reading Python literals (strings, numbers, constants) and subscript keys
//! out of tree-sitter nodes, and node-text helpers shared by the passes.

use super::facts::{Key, Literal};
use super::tree::Node;

pub(crate) fn text<'s>(node: Node, src: &'s str) -> &'s str {
    &src[node.byte_range()]
}

pub(crate) fn line(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

/// Named children without the extras that can sit anywhere (comments, `\`).
pub(crate) fn named<'t>(node: Node<'t>) -> impl DoubleEndedIterator<Item = Node<'t>> + 't {
    node.named_children()
        .filter(|n| !matches!(n.kind(), "comment" | "line_continuation"))
}

/// Peel redundant parentheses: `((x))` -> `x`.
pub(crate) fn unparen(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match named(node).collect::<Vec<_>>().as_slice() {
            [inner] => node = *inner,
            _ => break,
        }
    }
    node
}

/// A `str` constant to Python: a string or implicit concatenation without
/// `f` or `b` prefixes.
pub(crate) fn is_plain_str(node: Node, src: &str) -> bool {
    match node.kind() {
        "string" => prefix(node, src).is_some_and(|p| !p.contains(['f', 'F', 'b', 'B'])),
        "concatenated_string" => named(node).all(|s| is_plain_str(s, src)),
        _ => false,
    }
}

fn prefix<'s>(string: Node, src: &'s str) -> Option<&'s str> {
    let start = string.child(0).filter(|c| c.kind() == "string_start")?;
    Some(text(start, src).trim_end_matches(['"', '\'']))
}

/// The value of a plain string literal (escapes decoded), else `None`.
pub(crate) fn str_value(node: Node, src: &str) -> Option<String> {
    let node = unparen(node);
    if !is_plain_str(node, src) {
        return None;
    }
    if node.kind() == "concatenated_string" {
        return named(node).map(|s| str_value(s, src)).collect();
    }
    let count = node.child_count();
    let start = node.child(0)?;
    let end = node.child(count.checked_sub(1)?)?;
    if end.kind() != "string_end" {
        return None;
    }
    let raw = &src[start.end_byte()..end.start_byte()];
    let is_raw = prefix(node, src)?.contains(['r', 'R']);
    Some(if is_raw {
        raw.to_string()
    } else {
        unescape(raw)
    })
}

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' => out.push(e),
            'x' => out.extend(hex(2, &mut chars)),
            'u' => out.extend(hex(4, &mut chars)),
            'U' => out.extend(hex(8, &mut chars)),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(v));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn hex(n: usize, chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<char> {
    let digits: String = (0..n).filter_map(|_| chars.next()).collect();
    u32::from_str_radix(&digits, 16)
        .ok()
        .and_then(char::from_u32)
}

pub(crate) fn int_value(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    let (digits, radix) = match lower.get(..2) {
        Some("0x") => (&lower[2..], 16),
        Some("0o") => (&lower[2..], 8),
        Some("0b") => (&lower[2..], 2),
        _ => (lower.as_str(), 10),
    };
    i64::from_str_radix(digits, radix).ok()
}

/// A dotted name that reads a constant (`token.LPAR`, `Color.RED`): an
/// attribute chain on a plain name, with a last part that is not a call.
pub(crate) fn dotted_constant(node: Node, src: &str) -> Option<String> {
    let node = unparen(node);
    if node.kind() != "attribute" {
        return None;
    }
    let t = text(node, src);
    let parts: Vec<&str> = t.split('.').collect();
    let ident = |p: &str| p.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && p.chars().all(|c| c.is_alphanumeric() || c == '_');
    (parts.len() >= 2 && parts.iter().all(|p| ident(p)) && parts[0] != "self").then(|| t.to_string())
}

/// A constant expression as a [`Literal`]: numbers (with unary minus),
/// plain strings, `True`/`False`/`None`; displays of constants, bytes,
/// complex numbers and `...` become `Other(source text)`.
pub(crate) fn literal(node: Node, src: &str) -> Option<Literal> {
    let node = unparen(node);
    let t = capped(text(node, src));
    match node.kind() {
        "integer" => Some(int_value(t).map_or_else(|| Literal::Other(t.into()), Literal::Int)),
        "float" => {
            if t.ends_with(['j', 'J']) {
                return Some(Literal::Other(t.into()));
            }
            Some(
                t.replace('_', "")
                    .parse()
                    .map_or_else(|_| Literal::Other(t.into()), Literal::Float),
            )
        }
        "true" => Some(Literal::Bool(true)),
        "false" => Some(Literal::Bool(false)),
        "none" => Some(Literal::None),
        "ellipsis" => Some(Literal::Other(t.into())),
        "string" | "concatenated_string" => match str_value(node, src) {
            Some(s) => Some(Literal::Str(s)),
            None if is_constant(node) => Some(Literal::Other(t.into())),
            None => None,
        },
        "unary_operator" => {
            let arg = node.child_by_field_name("argument")?;
            let op = node.child_by_field_name("operator")?.kind();
            match (op, literal(arg, src)?) {
                ("-", Literal::Int(i)) => Some(Literal::Int(-i)),
                ("-", Literal::Float(f)) => Some(Literal::Float(-f)),
                ("+", l @ (Literal::Int(_) | Literal::Float(_))) => Some(l),
                (_, Literal::Other(_)) => Some(Literal::Other(t.into())),
                _ => None,
            }
        }
        "tuple" | "list" | "set" | "dictionary" if is_constant(node) => {
            Some(Literal::Other(t.into()))
        }
        _ => None,
    }
}

/// Built only from constants (no names, calls, f-string interpolations).
fn is_constant(node: Node) -> bool {
    match node.kind() {
        "string" => !named(node).any(|c| c.kind() == "interpolation"),
        "concatenated_string"
        | "tuple"
        | "list"
        | "set"
        | "dictionary"
        | "pair"
        | "parenthesized_expression" => named(node).all(is_constant),
        "unary_operator" => node
            .child_by_field_name("argument")
            .is_some_and(|a| is_constant(a)),
        "integer" | "float" | "true" | "false" | "none" | "ellipsis" => true,
        _ => false,
    }
}

/// Source text kept in facts is cut so a huge display cannot bloat them.
fn capped(t: &str) -> &str {
    const MAX: usize = 200;
    if t.len() <= MAX {
        return t;
    }
    let cut = (0..=MAX)
        .rev()
        .find(|i| t.is_char_boundary(*i))
        .unwrap_or(0);
    &t[..cut]
}

/// The key of a subscript node `x[...]`.
pub(crate) fn subscript_key(subscript: Node, src: &str) -> Key {
    let keys: Vec<Node> = subscript.children_by_field_name("subscript").collect();
    match keys.as_slice() {
        [k] if k.kind() == "slice" => Key::Slice,
        [k] => match literal(*k, src) {
            Some(Literal::Int(i)) => Key::Int(i),
            Some(Literal::Str(s)) => Key::Str(s),
            _ => Key::Expr(capped(text(*k, src)).to_string()),
        },
        _ => Key::Expr(
            capped(
                &keys
                    .iter()
                    .map(|k| text(*k, src))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
            .to_string(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse;

    /// The literal of the expression statement `src`.
    fn lit(src: &str) -> Option<Literal> {
        let tree = parse(src);
        let stmt = tree.root().named_children().next().unwrap();
        let e = stmt.named_children().next().unwrap();
        literal(e, src)
    }

    #[test]
    fn numbers() {
        assert_eq!(lit("42"), Some(Literal::Int(42)));
        assert_eq!(lit("-0x10"), Some(Literal::Int(-16)));
        assert_eq!(lit("1_000"), Some(Literal::Int(1000)));
        assert_eq!(lit("2.5"), Some(Literal::Float(2.5)));
        assert_eq!(lit("-1e3"), Some(Literal::Float(-1000.0)));
        assert_eq!(lit("3j"), Some(Literal::Other("3j".into())));
        assert_eq!(
            lit("99999999999999999999"),
            Some(Literal::Other("99999999999999999999".into()))
        );
    }

    #[test]
    fn strings() {
        assert_eq!(lit("'a\\tb'"), Some(Literal::Str("a\tb".into())));
        assert_eq!(lit("r'a\\tb'"), Some(Literal::Str("a\\tb".into())));
        assert_eq!(lit("'a' \"b\""), Some(Literal::Str("ab".into())));
        assert_eq!(lit("'''x\ny'''"), Some(Literal::Str("x\ny".into())));
        assert_eq!(lit("'\\x41\\u00e9\\101'"), Some(Literal::Str("AéA".into())));
        assert_eq!(lit("b'x'"), Some(Literal::Other("b'x'".into())));
        assert_eq!(lit("f'{x}'"), None);
        assert_eq!(lit("f'x'"), Some(Literal::Other("f'x'".into())));
    }

    #[test]
    fn constants_and_displays() {
        assert_eq!(lit("None"), Some(Literal::None));
        assert_eq!(lit("True"), Some(Literal::Bool(true)));
        assert_eq!(lit("(1, 'a')"), Some(Literal::Other("(1, 'a')".into())));
        assert_eq!(lit("[1, x]"), None);
        assert_eq!(lit("x"), None);
    }

    fn key(src: &str) -> Key {
        let tree = parse(src);
        let stmt = tree.root().named_children().next().unwrap();
        let e = stmt.named_children().next().unwrap();
        subscript_key(e, src)
    }

    #[test]
    fn keys() {
        assert_eq!(key("x['a']"), Key::Str("a".into()));
        assert_eq!(key("x[0]"), Key::Int(0));
        assert_eq!(key("x[-1]"), Key::Int(-1));
        assert_eq!(key("x[1:]"), Key::Slice);
        assert_eq!(key("x[i]"), Key::Expr("i".into()));
        assert_eq!(key("x[i, 0]"), Key::Expr("i, 0".into()));
    }
}
