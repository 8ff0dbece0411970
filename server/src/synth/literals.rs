//! String literals of the fragment that name paths: relative paths,
//! file extensions, glob patterns.

/// String literals that are relative paths (`'./python'`, `'data/in.csv'` is not: only `./`).
pub(super) fn relative_path_literals(fragment: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, part) in fragment.split(['\'', '"']).enumerate() {
        let ok = i % 2 == 1 && part.starts_with("./") && part.len() > 2 && part.len() < 60 && !part.contains(' ') && !part.contains('*');
        if ok && !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// Extension literals (`'.py'`).
pub(super) fn extension_literals(fragment: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, part) in fragment.split(['\'', '"']).enumerate() {
        let ok = i % 2 == 1 && part.starts_with('.') && part.len() > 1 && part.len() < 8 && part[1..].chars().all(|c| c.is_ascii_alphanumeric());
        if ok && !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// Glob patterns written as string literals (`'*.csv'`).
pub(super) fn glob_patterns(fragment: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in fragment.split(['\'', '"']) {
        if part.starts_with("*.") && part.len() < 12 && !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// String literals of a line that look like relative paths (`"out/data"`,
/// `'report.csv'`): no spaces, no absolute or parent paths.
pub(super) fn path_literals(line: &str) -> Vec<String> {
    line.split(['\'', '"'])
        .skip(1)
        .step_by(2)
        .filter(|s| !s.is_empty() && s.len() < 80 && !s.starts_with('/') && !s.contains("..") && (s.contains('/') || s.contains('.')))
        .filter(|s| s.chars().all(|c| c.is_alphanumeric() || "._-/".contains(c)))
        .map(str::to_string)
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
