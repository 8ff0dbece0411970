//! Pure static analysis of a Python fragment (tree-sitter-python). No I/O.
//!
//! Everything the synthesiser and the coverage metric need to know about a
//! fragment before it runs: syntax errors, whether it must be wrapped in a
//! function to run, the statement table of the published coverage metric,
//! imports, free names with their usage facts, literal file paths, and which
//! names each line assigns (for value hints).
//!
//! All line numbers are 1-based and relative to the fragment text given to
//! [`analyze`]; columns are 0-based UTF-8 byte offsets within the line.

mod facts;
mod literal;
mod parse;
mod statements;

pub use facts::*;

/// Analyse a fragment. Never fails: syntax errors are reported in
/// [`Analysis::syntax_errors`] and the rest is computed on a best-effort basis.
pub fn analyze(source: &str) -> Analysis {
    let (text, common_indent) = parse::dedent(source);
    let tree = parse::parse(&text);
    let root = tree.root_node();
    Analysis {
        syntax_errors: parse::syntax_errors(&tree, &text, common_indent),
        wrap: parse::wrap(&tree),
        common_indent,
        statements: statements::statement_table(root, &text),
        ..Analysis::default()
    }
}
