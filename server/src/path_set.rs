//! Sets of folders, for deciding what to mount or bind: pure.

use std::path::PathBuf;

/// Sorted, deduplicated, without paths inside another path of the set
/// (binding `/a` already binds `/a/b`).
pub fn outermost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    paths.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        if !out.iter().any(|q| p.starts_with(q)) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_repeated_paths_are_dropped() {
        let v = outermost(vec!["/a/b".into(), "/a".into(), "/c".into(), "/a/b/c".into(), "/c".into(), "/ab".into()]);
        assert_eq!(v, vec![PathBuf::from("/a"), PathBuf::from("/ab"), PathBuf::from("/c")]);
    }
}
