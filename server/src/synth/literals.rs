//! String literals of the fragment that name paths: relative paths,
//! file extensions, glob patterns (the literals themselves come from the
//! one lexer, `analysis::tokens`).

use crate::analysis::tokens::{line_string_literals, string_literals};

/// Each distinct value that `keep` accepts, in order.
fn distinct(values: impl Iterator<Item = String>, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if keep(&v) && !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// String literals that are relative paths (`'./python'`, `'data/in.csv'` is not: only `./`).
pub(super) fn relative_path_literals(fragment: &str) -> Vec<String> {
    let values = string_literals(fragment).into_iter().map(|l| l.value);
    distinct(values, |part| part.starts_with("./") && part.len() > 2 && part.len() < 60 && !part.contains(' ') && !part.contains('*'))
}

/// Extension literals (`'.py'`).
pub(super) fn extension_literals(fragment: &str) -> Vec<String> {
    let values = string_literals(fragment).into_iter().map(|l| l.value);
    distinct(values, |part| part.starts_with('.') && part.len() > 1 && part.len() < 8 && part[1..].chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Glob patterns written as string literals (`'*.csv'`).
pub(super) fn glob_patterns(fragment: &str) -> Vec<String> {
    let values = string_literals(fragment).into_iter().map(|l| l.value);
    distinct(values, |part| part.starts_with("*.") && part.len() < 12)
}

/// String literals of a line that look like relative paths (`"out/data"`,
/// `'report.csv'`): no spaces, no absolute or parent paths.
pub(super) fn path_literals(line: &str) -> Vec<String> {
    line_string_literals(line)
        .into_iter()
        .map(|l| l.value)
        .filter(|s| !s.is_empty() && s.len() < 80 && !s.starts_with('/') && !s.contains("..") && (s.contains('/') || s.contains('.')))
        .filter(|s| s.chars().all(|c| c.is_alphanumeric() || "._-/".contains(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_literals_are_relative_paths_in_quotes() {
        assert_eq!(path_literals(r#"    os.makedirs("path/to/dir", exist_ok=True)  # 'a b'"#), ["path/to/dir"]);
        assert_eq!(path_literals("open('report.csv', 'w'); open('/etc/passwd'); x = '..'"), ["report.csv"]);
    }
}
