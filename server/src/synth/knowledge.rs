//! The synthesiser's tables (`data/*.txt`), parsed once.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

/// The lines of a table that are not blank or comments.
pub(crate) fn lines(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Kind name -> attributes its Python type has.
pub fn kinds() -> &'static [(String, BTreeSet<String>)] {
    static K: OnceLock<Vec<(String, BTreeSet<String>)>> = OnceLock::new();
    K.get_or_init(|| {
        lines(include_str!("data/kinds.txt"))
            .filter_map(|l| {
                let (k, attrs) = l.split_once(':')?;
                Some((k.trim().to_string(), attrs.split_whitespace().map(str::to_string).collect()))
            })
            .collect()
    })
}

pub fn kind_attrs(kind: &str) -> Option<&'static BTreeSet<String>> {
    kinds().iter().find(|(k, _)| k == kind).map(|(_, a)| a)
}

/// A table of `key: value` lines as a map.
fn colon_map(text: &'static str) -> HashMap<&'static str, &'static str> {
    lines(text).filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim(), v.trim()))).collect()
}

/// A free name commonly used without its import -> that import statement.
pub fn well_known_import(name: &str) -> Option<&'static str> {
    static M: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    M.get_or_init(|| colon_map(include_str!("data/well_known_names.txt"))).get(name).copied()
}

/// What an argument must be, from its callee and position.
pub fn argument_kind(callee: &str, position: Option<usize>, keyword: Option<&str>) -> Option<&'static str> {
    static M: OnceLock<Vec<(&'static str, &'static str, &'static str)>> = OnceLock::new();
    let table = M.get_or_init(|| {
        lines(include_str!("data/callee_kinds.txt"))
            .filter_map(|l| {
                let (lhs, kind) = l.split_once(':')?;
                let (callee, pos) = lhs.trim().rsplit_once(' ')?;
                Some((callee, pos, kind.trim()))
            })
            .collect()
    });
    let pos_text = position.map(|p| p.to_string());
    table
        .iter()
        .find_map(|(c, p, k)| {
            let callee_ok = *c == callee || callee.ends_with(&format!(".{c}")) && !c.contains('.');
            let pos_ok = *p == "*" || Some(*p) == pos_text.as_deref() || Some(*p) == keyword;
            (callee_ok && pos_ok).then_some(*k)
        })
        .or_else(|| parameter_kind(super::stdlib_index::parameter_name(callee, position, keyword)?))
}

/// What an argument is from the name the standard library gives the
/// parameter it binds (`data/parameter_kinds.txt`).
fn parameter_kind(parameter: &str) -> Option<&'static str> {
    static M: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    M.get_or_init(|| colon_map(include_str!("data/parameter_kinds.txt"))).get(parameter).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_parse() {
        assert!(kind_attrs("str").unwrap().contains("split"));
        assert!(kind_attrs("dataframe").unwrap().contains("groupby"));
        assert_eq!(well_known_import("np"), None, "aliases live in crate::knowledge");
        assert_eq!(well_known_import("defaultdict"), Some("from collections import defaultdict"));
        assert_eq!(argument_kind("open", Some(0), None), Some("path"));
        // A method named like a builtin is not the builtin: an image reader.
        assert_eq!(argument_kind("Image.open", Some(0), None), Some("image-path"));
        assert_eq!(argument_kind("cv2.imread", Some(0), None), Some("image-path"));
        assert_eq!(argument_kind("re.sub", Some(2), None), Some("str"));
        assert_eq!(argument_kind("re.sub", Some(0), None), None);
        assert_eq!(argument_kind("print", Some(3), None), Some("any"));
        assert_eq!(argument_kind("self.helper", Some(0), None), None);
        // Not in the table: the library's own parameter names tell.
        assert_eq!(argument_kind("tee", Some(0), None), Some("iterable"));
        assert_eq!(argument_kind("textwrap.dedent", Some(0), None), Some("str"));
        assert_eq!(argument_kind("tee", Some(1), None), None, "`n` says nothing sure");
    }
}
