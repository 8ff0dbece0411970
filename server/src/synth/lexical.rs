//! Lexical questions about one line of Python, answered by the one lexer
//! (`analysis::tokens`, tree-sitter's leaves): used where the synthesiser
//! reads the fragment's or a prefix's text line by line.

pub use crate::analysis::tokens::{dotted_paths, identifiers};

/// A dotted name (`node.value.func`): parts of identifier characters joined
/// by dots, none of them empty.
pub fn is_dotted(text: &str) -> bool {
    text.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_names_are_identifier_parts_joined_by_dots() {
        assert!(is_dotted("node.value.func") && is_dotted("x"));
        assert!(!is_dotted("") && !is_dotted("a..b") && !is_dotted("a.b()") && !is_dotted("d[k]"));
    }
}
