//! String literals of the fragment that name paths: relative paths,
//! file extensions, glob patterns (the literals themselves come from the
//! one lexer, `analysis::tokens`).

use crate::analysis::tokens::{line_string_literals, string_literals, tokens, TokenKind};

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

/// The folders f-strings name before their first replacement field
/// (`f'./tmp/{n}'` -> `./tmp/`): the file or folder under it is made at run
/// time, the folder itself must exist.
fn fstring_folders(fragment: &str) -> Vec<String> {
    tokens(fragment)
        .into_iter()
        .filter(|t| t.kind == TokenKind::Str)
        .filter_map(|t| {
            let lit = &fragment[t.start..t.end];
            let prefix = lit.find(['\'', '"'])?;
            if !lit[..prefix].contains(['f', 'F']) {
                return None;
            }
            let body = lit[prefix..].trim_start_matches(['\'', '"']);
            let head = &body[..body.find('{')?];
            Some(head[..head.rfind('/')? + 1].to_string())
        })
        .collect()
}

/// String literals that are relative paths (`'./python'`, `'data/in.csv'` is not: only `./`).
pub(super) fn relative_path_literals(fragment: &str) -> Vec<String> {
    let values = string_literals(fragment).into_iter().map(|l| l.value).chain(fstring_folders(fragment));
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

/// File suffixes the fragment names (`f.endswith('.log')`, `('.txt',
/// '.pdf')`), as the glob patterns of files that have them (`*.log`).
pub(super) fn suffix_patterns(fragment: &str) -> Vec<String> {
    let values = string_literals(fragment).into_iter().map(|l| l.value);
    let suffix = |s: &str| s.len() >= 2 && s.len() <= 6 && s.starts_with('.') && s[1..].chars().all(|c| c.is_ascii_alphanumeric());
    distinct(values, suffix).into_iter().map(|s| format!("*{s}")).collect()
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

    #[test]
    fn an_fstring_names_the_folder_before_its_fields() {
        assert_eq!(relative_path_literals("d = f'./tmp/{n}'\nos.mkdir(d)\np = './out'"), ["./out", "./tmp/"]);
        // No folder before the first field, or not an f-string: nothing.
        assert!(relative_path_literals("d = f'{root}/x'\ne = './{n}'").iter().all(|p| p != "./"));
    }
}
