//! Strings shaped by the tests a branch condition makes on them: the first
//! or last character compared (`s[0] == "#"`), a prefix or suffix
//! (`s.startswith("http")`), a character class (`s.isupper()`).
//!
//! The condition text may carry the fragment's own assignments after it (one
//! per line, see `with_assignments`), so a name compared with
//! (`s[0] == NBSP`, `NBSP = "\xa0"`) resolves to the literal it was given.

/// Other strings for `name` (now `current`) that pass each test `condition`
/// makes on it, in the order the tests appear.
pub(crate) fn shaped(name: &str, current: &str, condition: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if s != current && !out.contains(&s) {
            out.push(s);
        }
    };
    for (at, _) in condition.match_indices(name) {
        if condition[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let rest = &condition[at + name.len()..];
        let compared = |after: &str| -> Option<String> {
            let after = after.trim_start();
            let after = after.strip_prefix("==").or_else(|| after.strip_prefix("!="))?;
            operand(after.trim_start(), condition)
        };
        if let Some(r) = rest.strip_prefix("[0]") {
            if let Some(c) = compared(r) {
                push(format!("{c}{current}"));
            }
        } else if let Some(r) = rest.strip_prefix("[-1]") {
            if let Some(c) = compared(r) {
                push(format!("{current}{c}"));
            }
        } else if let Some(r) = rest.strip_prefix(".startswith(") {
            if let Some(c) = operand(r.trim_start().trim_start_matches('('), condition) {
                push(format!("{c}{current}"));
            }
        } else if let Some(r) = rest.strip_prefix(".endswith(") {
            if let Some(c) = operand(r.trim_start().trim_start_matches('('), condition) {
                push(format!("{current}{c}"));
            }
        } else if let Some(r) = rest.strip_prefix('.') {
            let method: String = r.chars().take_while(|c| c.is_alphanumeric() || c == &'_').collect();
            if !r[method.len()..].starts_with("()") {
                continue;
            }
            let letters = if current.chars().any(char::is_alphabetic) { current } else { "Text" };
            match method.as_str() {
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

/// The string a literal at the start of `text` spells, or the one a name
/// there was assigned on a line of `condition` (`NAME = "..."`).
fn operand(text: &str, condition: &str) -> Option<String> {
    if let Some(s) = string_literal(text) {
        return Some(s);
    }
    let ident: String = text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    condition.lines().skip(1).find_map(|l| {
        let value = l.trim().strip_prefix(ident.as_str())?.trim_start().strip_prefix('=')?;
        if value.starts_with('=') {
            return None;
        }
        string_literal(value.trim())
    })
}

/// A plain (not raw, not byte, not f-) single-line string literal at the
/// start of `text`, with its common escapes decoded.
fn string_literal(text: &str) -> Option<String> {
    let q = text.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut chars = text[1..].chars();
    while let Some(c) = chars.next() {
        match c {
            c if c == q => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'x' => {
                    let hex: String = chars.by_ref().take(2).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                _ => return None,
            },
            '\n' => return None,
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_and_last_characters_take_the_compared_literal() {
        assert_eq!(shaped("s", "abc", "s[0] == \"#\""), vec!["#abc"]);
        assert_eq!(shaped("s", "abc", "s[-1] != ':'"), vec!["abc:"]);
        // `xs[0]` is another name's item.
        assert!(shaped("s", "abc", "xs[0] == '#'").is_empty());
    }

    #[test]
    fn a_compared_name_resolves_through_its_assignment() {
        let cond = "content and content[0] == NBSP\nNBSP = \"\u{a0}\"";
        assert_eq!(shaped("content", "abc", cond), vec!["\u{a0}abc"]);
        assert_eq!(shaped("content", "abc", "content[0] == SEP\nSEP = '\\x2c'"), vec![",abc"]);
    }

    #[test]
    fn prefixes_suffixes_and_character_classes() {
        assert_eq!(shaped("self.url", "x", "self.url.startswith(('http', 'ftp'))"), vec!["httpx"]);
        assert_eq!(shaped("name", "x", "name.endswith('.py')"), vec!["x.py"]);
        assert_eq!(shaped("w", "Word", "w.isupper() or w.isdigit()"), vec!["WORD", "42"]);
        assert_eq!(shaped("w", "Word", "w.istitle()"), Vec::<String>::new());
    }
}
