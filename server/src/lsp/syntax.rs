//! The Python syntax tree of a document, kept in step with its rope:
//! `document` edits the tree (`Tree::edit`, with the byte offsets and points
//! that `position::input_edit` computes) for every incremental change and
//! re-parses with the old tree, so tree-sitter re-lexes only what changed.
//! `regions` (the statement around the cursor) and `chunks` (the top-level
//! statements re-analysed one by one) read the tree instead of re-parsing.

use ropey::Rope;
use tree_sitter::{Parser, Tree};

fn parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).ok()?;
    Some(parser)
}

/// Parse a rope (read chunk by chunk, not copied), reusing the unchanged
/// parts of `old` when given: `old` must already carry the edits that
/// turned its text into `rope`.
pub fn parse_rope(rope: &Rope, old: Option<&Tree>) -> Option<Tree> {
    let mut read = |byte: usize, _: tree_sitter::Point| -> &[u8] {
        if byte >= rope.len_bytes() {
            return &[];
        }
        let (chunk, start, _, _) = rope.chunk_at_byte(byte);
        &chunk.as_bytes()[byte - start..]
    };
    parser()?.parse_with_options(&mut read, old, None)
}

/// Parse a text from scratch (Markdown fences, texts without a kept tree).
pub fn parse_text(text: &str) -> Option<Tree> {
    parser()?.parse(text, None)
}

/// The top-level statements (functions, classes, decorated definitions,
/// `if`/`try` with all their clauses, ...) of `text`, whose tree `tree` is,
/// as inclusive 0-based spans of `\n`-separated lines, in order. Comments
/// are not statements. Lines are read from byte offsets, which stay exact
/// whatever the line endings. `at_line_start` tells whether the statement
/// begins its line (not after a `;`).
pub fn top_level_statements(tree: &Tree, text: &str) -> Vec<Statement> {
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let line_of = |byte: usize| starts.partition_point(|&s| s <= byte).saturating_sub(1);
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment" && n.end_byte() > n.start_byte())
        .map(|n| {
            let first = line_of(n.start_byte());
            let indent = &text.as_bytes()[starts[first]..n.start_byte()];
            Statement { first, last: line_of(n.end_byte() - 1).max(first), at_line_start: indent.is_empty() }
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Statement {
    pub first: usize,
    pub last: usize,
    pub at_line_start: bool,
}
