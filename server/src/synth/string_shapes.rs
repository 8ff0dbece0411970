//! Strings shaped by the tests a branch condition makes on them: the first
//! or last character compared (`s[0] == "#"`), a prefix or suffix
//! (`s.startswith("http")`), a character class (`s.isupper()`).
//!
//! Read from the condition's tree ([`Tests`]); a name compared with
//! (`s[0] == NBSP`, `NBSP = "\xa0"` before it) resolves to the string the
//! statements before the test assign it.

use super::tested::Tests;
use crate::analysis::{CompareOp, Condition, Constant};

/// Other strings for the value at `name` (now `current`) that pass each
/// test `tests` make on it, in the order the tests appear.
pub(crate) fn shaped(name: &str, current: &str, tests: &Tests) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if s != current && !out.contains(&s) {
            out.push(s);
        }
    };
    let is_name = |c: &Condition| c.path().as_deref() == Some(name);
    for node in tests.nodes() {
        match node {
            // `s[0] == '#'`, `s[-1] != ':'`
            Condition::Compare { left, ops, comparators } if matches!(ops.first(), Some(CompareOp::Eq | CompareOp::NotEq)) => {
                let Condition::Subscript { value, index } = &**left else { continue };
                let (Some(c), true) = (comparators.first().and_then(|c| operand(c, tests)), is_name(value)) else { continue };
                match &**index {
                    Condition::Constant { value: Constant::Int(0) } => push(format!("{c}{current}")),
                    Condition::Constant { value: Constant::Int(-1) } => push(format!("{current}{c}")),
                    _ => {}
                }
            }
            Condition::Call { func, args, keywords } => {
                let Condition::Attribute { value, attr } = &**func else { continue };
                if !is_name(value) {
                    continue;
                }
                match (attr.as_str(), args.first()) {
                    // `s.startswith(('http', 'ftp'))`: the first of a tuple.
                    ("startswith" | "endswith", Some(arg)) => {
                        let arg = match arg {
                            Condition::Other { node, parts, .. } if node == "tuple" => parts.first(),
                            a => Some(a),
                        };
                        let Some(c) = arg.and_then(|a| operand(a, tests)) else { continue };
                        push(if attr == "startswith" { format!("{c}{current}") } else { format!("{current}{c}") });
                    }
                    (method, None) if keywords.is_empty() => {
                        let letters = if current.chars().any(char::is_alphabetic) { current } else { "Text" };
                        match method {
                            "isupper" => push(letters.to_uppercase()),
                            "islower" => push(letters.to_lowercase()),
                            "istitle" => push(title(letters)),
                            "isdigit" | "isdecimal" | "isnumeric" => push("42".into()),
                            "isalpha" => push(letters.chars().filter(|c| c.is_alphabetic()).collect()),
                            "isalnum" => push(letters.chars().filter(|c| c.is_alphanumeric()).collect()),
                            "isspace" => push(" ".into()),
                            "isidentifier" => push("name".into()),
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}

fn title(s: &str) -> String {
    let mut out = String::new();
    let mut start = true;
    for c in s.chars() {
        if start {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        start = !c.is_alphabetic();
    }
    out
}

/// The string a compared expression stands for: a string constant, or a
/// name the statements before the test assign a string constant.
fn operand(c: &Condition, tests: &Tests) -> Option<String> {
    match c {
        Condition::Constant { value: Constant::Str(s) } => Some(s.clone()),
        Condition::Name { id } => tests.assigned_str(id).map(str::to_string),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::tested::tests_of;

    fn shaped_by(name: &str, current: &str, test: &str, before: &[&str]) -> Vec<String> {
        shaped(name, current, &tests_of(test, before))
    }

    #[test]
    fn first_and_last_characters_take_the_compared_literal() {
        assert_eq!(shaped_by("s", "abc", "s[0] == \"#\"", &[]), vec!["#abc"]);
        assert_eq!(shaped_by("s", "abc", "s[-1] != ':'", &[]), vec!["abc:"]);
        // `xs[0]` is another name's item; `s[1]` no end of it.
        assert!(shaped_by("s", "abc", "xs[0] == '#' or s[1] == '#'", &[]).is_empty());
        // A `==` inside a string is no comparison.
        assert!(shaped_by("s", "abc", "print('s[0] == \"#\"')", &[]).is_empty());
    }

    #[test]
    fn a_compared_name_resolves_through_its_assignment() {
        assert_eq!(shaped_by("content", "abc", "content and content[0] == NBSP", &["NBSP = \"\u{a0}\""]), vec!["\u{a0}abc"]);
        assert_eq!(shaped_by("content", "abc", "content[0] == SEP", &["SEP = '\\x2c'"]), vec![",abc"]);
        // A name given no string stays unknown.
        assert!(shaped_by("content", "abc", "content[0] == SEP", &["SEP = sep()"]).is_empty());
    }

    #[test]
    fn prefixes_suffixes_and_character_classes() {
        assert_eq!(shaped_by("self.url", "x", "self.url.startswith(('http', 'ftp'))", &[]), vec!["httpx"]);
        assert_eq!(shaped_by("name", "x", "name.endswith('.py')", &[]), vec!["x.py"]);
        assert_eq!(shaped_by("w", "Word", "w.isupper() or w.isdigit()", &[]), vec!["WORD", "42"]);
        assert_eq!(shaped_by("w", "Word", "w.istitle()", &[]), Vec::<String>::new());
        // `url` alone is not `self.url`.
        assert!(shaped_by("url", "x", "self.url.startswith('http')", &[]).is_empty());
    }
}
