//! A text that a regular expression matches, for data the fragment tests
//! against its own pattern (the lines of a log it parses with `logpat.match`):
//! the issue's "a regex's subject matches it". The pattern is parsed by
//! `regex-syntax` (Python's syntax and Rust's agree on what fragments use:
//! classes, groups, named groups, repetition, alternation, anchors); a
//! pattern it cannot read (look-around, back-references) gives nothing.
//! Each piece yields plain content: a word where letters fit, digits where
//! only digits do, the first alternative, one repetition more than needed
//! never. The sample is checked against the pattern before it is used. Pure.

use crate::analysis::{Analysis, Usage};
use regex_syntax::hir::{Class, Hir, HirKind};

/// Letters and digits a class's characters are picked from, in order, so
/// `\S+` reads `example` and `\d{4}` reads `2024`.
const WORD: &str = "example";
const DIGITS: &str = "2024";

/// A text `pattern` (Python `re` syntax) matches from its start, when the
/// pattern can be read and its sample checked.
pub fn sample(pattern: &str) -> Option<String> {
    // Python's `\Z` is Rust's `\z`.
    let pattern = pattern.replace(r"\Z", r"\z");
    let hir = regex_syntax::ParserBuilder::new().build().parse(&pattern).ok()?;
    let mut out = String::new();
    write(&hir, &mut out)?;
    let anchored = regex::Regex::new(&format!("^(?:{pattern})")).ok()?;
    anchored.is_match(&out).then_some(out)
}

/// A text the fragment's own compiled pattern matches, for a value used as
/// `u`: passed first to that pattern's `match`, `search` or `fullmatch`
/// (`logpat.match(line)` with `logpat = re.compile(...)` in the fragment).
pub fn subject(analysis: &Analysis, u: &Usage) -> Option<String> {
    u.passed_to.iter().filter(|a| a.position == Some(0)).find_map(|a| {
        let (name, method) = a.callee.rsplit_once('.')?;
        super::regex_patterns::ONE_MATCH.contains(&method).then_some(())?;
        sample(analysis.compiled_patterns.get(name)?)
    })
}

fn write(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).ok()?),
        HirKind::Class(class) => out.push(pick(class, 0)?),
        HirKind::Capture(c) => write(&c.sub, out)?,
        HirKind::Concat(parts) => {
            for p in parts {
                write(p, out)?;
            }
        }
        // The first alternative that is not empty reads best.
        HirKind::Alternation(alts) => write(alts.iter().find(|a| !matches!(a.kind(), HirKind::Empty)).unwrap_or(&alts[0]), out)?,
        HirKind::Repetition(rep) => {
            let wanted = match (rep.max, rep.sub.kind()) {
                // As long as the word or the number it reads as.
                (None, HirKind::Class(class)) => rep.min.max(if pick(class, 0) == WORD.chars().next() { WORD.len() as u32 } else { DIGITS.len() as u32 }),
                _ => rep.min.max(1),
            };
            let n = wanted.min(rep.max.unwrap_or(u32::MAX)).min(64);
            for i in 0..n {
                match rep.sub.kind() {
                    HirKind::Class(class) => out.push(pick(class, i as usize)?),
                    _ => write(&rep.sub, out)?,
                }
            }
        }
    }
    Some(())
}

/// The `i`-th character of a class: from the word when the class holds
/// its letters, else from the digits, else the first printable one.
fn pick(class: &Class, i: usize) -> Option<char> {
    let has = |c: char| match class {
        Class::Unicode(u) => u.ranges().iter().any(|r| r.start() <= c && c <= r.end()),
        Class::Bytes(b) => u8::try_from(c).is_ok_and(|c| b.ranges().iter().any(|r| r.start() <= c && c <= r.end())),
    };
    for source in [WORD, DIGITS] {
        let c = source.chars().cycle().nth(i)?;
        if has(c) {
            return Some(c);
        }
    }
    (' '..='~').chain(std::iter::once('é')).find(|&c| has(c) && !c.is_whitespace()).or_else(|| (' '..='~').find(|&c| has(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_pattern_gets_a_line_it_matches() {
        let line = sample(r#"(\S+) (\S+) (\S+) \[(.*?)\] "(\S+) (\S+) (\S+)" (\S+) (\S+)"#).unwrap();
        assert_eq!(line, r#"example example example [example] "example example example" example example"#);
    }

    #[test]
    fn digits_groups_and_alternatives_read_plainly() {
        assert_eq!(sample(r"(?P<year>\d{4})-(\d{2})").as_deref(), Some("2024-20"));
        assert_eq!(sample(r"^(GET|POST) /\w*$").as_deref(), Some("GET /example"));
        assert_eq!(sample(r"[A-Z]{2}\s?\d+").as_deref(), Some("AA 2024"));
    }

    #[test]
    fn a_value_matched_with_the_fragments_pattern_is_a_text_it_matches() {
        let a = crate::analysis::analyze("import re\nDATE = re.compile(r'(\\d{4})-(\\d{2})')\nm = DATE.match(stamp)\nprint(m.group(1))\n");
        let stamp = a.free_names.iter().find(|f| f.name == "stamp").unwrap();
        assert_eq!(subject(&a, &stamp.usage).as_deref(), Some("2024-20"));
    }

    #[test]
    fn what_the_syntax_cannot_read_gives_nothing() {
        assert_eq!(sample(r"(\w+)(?=\.)"), None);
        assert_eq!(sample(r"(a)\1"), None);
    }
}
