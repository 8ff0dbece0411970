//! Everything a run reports is checked here before the engine sees it.
//!
//! The report comes from a process the fragment controls: it can write any
//! bytes to the report pipe, or raise exceptions whose attributes it chose.
//! Names that later become code (a `NameError`'s name becomes `name = ...`
//! in a prefix, a module becomes `import module`) must be identifiers;
//! dotted names must be identifiers joined by dots; free text is cut to a
//! size. A field that fails its check is dropped, as if the run had not
//! said it: the search then treats the run like one without that detail.
//! Keys and paths are kept as text and always rendered as literals
//! (`render::py_str`), never pasted into code.

use super::types::{ExceptionInfo, RunOutcome};

/// Longest identifier taken (CPython has no limit; real names are short).
const MAX_NAME: usize = 200;
const MAX_DOTTED: usize = 500;
const MAX_MESSAGE: usize = 4000;
const MAX_KEY: usize = 1000;
const MAX_PATH: usize = 4096;
const MAX_REPR: usize = 1000;
const MAX_BASES: usize = 64;
/// Output kept per program line, and lines with output (the harness's caps).
const MAX_PRINTED: usize = 4000;
const MAX_PRINTED_LINES: usize = 200;

/// Python's hard keywords: never a name a program can be missing.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// A Python identifier (letters, digits and `_`, not starting with a digit)
/// that is not a keyword.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    let Some(first) = chars.next() else { return false };
    s.len() <= MAX_NAME
        && (first.is_alphabetic() || first == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&s)
}

/// Identifiers joined by dots (`pandas.core.frame`).
pub fn is_dotted_name(s: &str) -> bool {
    s.len() <= MAX_DOTTED && s.split('.').all(is_identifier)
}

/// A type's qualified name as the harness prints it: dotted, where a part
/// may also be `<locals>` (`f.<locals>.Error`). Shown to people; rules
/// that would turn one into code check [`is_dotted_name`] themselves.
fn is_qualified_type(s: &str) -> bool {
    s.len() <= MAX_DOTTED && s.split('.').all(|p| p == "<locals>" || is_identifier(p))
}

fn keep(v: Option<String>, ok: impl Fn(&str) -> bool) -> Option<String> {
    v.filter(|s| ok(s))
}

/// `s` cut to at most `max` bytes, at a character boundary.
pub fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

pub fn sanitize_exception(e: ExceptionInfo) -> ExceptionInfo {
    let type_name = if is_qualified_type(&e.type_name) { e.type_name } else { "<unnamed exception>".to_string() };
    let no_nul = |max: usize| move |s: &str| s.len() <= max && !s.contains('\0');
    ExceptionInfo {
        type_name,
        message: cut(e.message, MAX_MESSAGE),
        line: e.line,
        name: keep(e.name, is_identifier),
        obj_type: keep(e.obj_type, is_qualified_type),
        key: keep(e.key, no_nul(MAX_KEY)),
        module: keep(e.module, is_dotted_name),
        path: keep(e.path, no_nul(MAX_PATH)),
        bases: e.bases.into_iter().filter(|b| is_qualified_type(b)).take(MAX_BASES).collect(),
        raised_in: keep(e.raised_in, is_dotted_name),
        origin: keep(e.origin, is_dotted_name),
        raised_file: keep(e.raised_file, no_nul(MAX_PATH)),
    }
}

/// The whole outcome: exceptions checked, probed names identifiers, text
/// cut to the sizes the harness promises.
pub fn sanitize_outcome(mut o: RunOutcome, output_bytes: usize) -> RunOutcome {
    o.exception = o.exception.map(sanitize_exception);
    o.caught = o.caught.map(sanitize_exception);
    o.limit = o.limit.map(|l| cut(l, MAX_MESSAGE));
    o.stdout = cut(o.stdout, output_bytes);
    o.stderr = cut(o.stderr, output_bytes);
    for row in o.values.values_mut() {
        row.retain(|(name, _)| is_identifier(name));
        for (_, repr) in row.iter_mut() {
            *repr = cut(std::mem::take(repr), MAX_REPR);
        }
    }
    o.values.retain(|_, row| !row.is_empty());
    // Shown to people only (as plain text or in a code block), never code.
    let printed = std::mem::take(&mut o.printed);
    o.printed = printed.into_iter().take(MAX_PRINTED_LINES).map(|(line, text)| (line, cut(text, MAX_PRINTED))).collect();
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exc() -> ExceptionInfo {
        ExceptionInfo { type_name: "NameError".into(), message: "name 'x' is not defined".into(), ..Default::default() }
    }

    #[test]
    fn printed_output_is_capped_per_line_and_in_lines() {
        let mut o = crate::exec::worker::test_outcome();
        o.printed = (1..=500).map(|l| (l, "é".repeat(5000))).collect();
        let o = sanitize_outcome(o, 1000);
        assert_eq!(o.printed.len(), MAX_PRINTED_LINES);
        assert!(o.printed.values().all(|t| t.len() <= MAX_PRINTED && t.chars().all(|c| c == 'é')));
    }

    #[test]
    fn names_that_would_be_code_are_dropped() {
        for bad in ["x; import os", "os.system('id')", "a b", "1abc", "", "class", "x\n= 1", "é = 1"] {
            let e = sanitize_exception(ExceptionInfo { name: Some(bad.into()), ..exc() });
            assert_eq!(e.name, None, "{bad:?} was kept");
        }
        for good in ["x", "_private", "données", "CamelCase2"] {
            let e = sanitize_exception(ExceptionInfo { name: Some(good.into()), ..exc() });
            assert_eq!(e.name.as_deref(), Some(good));
        }
    }

    #[test]
    fn modules_must_be_dotted_identifiers() {
        for bad in ["os; import sys", "/abs/mod", "..rel", "a..b", "a.b ", "a.\nb"] {
            let e = sanitize_exception(ExceptionInfo { module: Some(bad.into()), ..exc() });
            assert_eq!(e.module, None, "{bad:?}");
        }
        let e = sanitize_exception(ExceptionInfo { module: Some("pandas.core.frame".into()), ..exc() });
        assert_eq!(e.module.as_deref(), Some("pandas.core.frame"));
    }

    #[test]
    fn a_forged_type_name_is_replaced_and_bases_filtered() {
        let e = sanitize_exception(ExceptionInfo {
            type_name: "X\nimport os".into(),
            bases: vec!["KeyError".into(), "evil()".into(), "f.<locals>.E".into()],
            ..exc()
        });
        assert_eq!(e.type_name, "<unnamed exception>");
        assert_eq!(e.bases, ["KeyError", "f.<locals>.E"]);
    }

    #[test]
    fn text_is_cut_at_a_char_boundary() {
        let e = sanitize_exception(ExceptionInfo { message: "é".repeat(5000), ..exc() });
        assert!(e.message.len() <= MAX_MESSAGE && e.message.chars().all(|c| c == 'é'));
        let long_key = sanitize_exception(ExceptionInfo { key: Some("'a\0'".into()), ..exc() });
        assert_eq!(long_key.key, None);
    }
}
