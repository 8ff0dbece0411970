//! `try` statements: the lines of the body and each `except` clause with
//! the exception types it names, from the tree (so a rule reads which
//! handler catches what without finding `except` lines by indentation).

use super::defs::end_line;
use super::literal::{line, text};
use super::tree::Node;
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TryBlock {
    /// The `try:` line.
    pub line: u32,
    /// The last line of its body.
    pub body_end: u32,
    pub handlers: Vec<Handler>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Handler {
    /// The `except` line and the last line of its block.
    pub line: u32,
    pub end_line: u32,
    /// The types it names, dotted, in order (`except (ValueError, os.error)`);
    /// empty for a bare `except:`.
    pub types: Vec<String>,
}

/// Every `try` statement under `root`, in source order.
pub(crate) fn try_blocks(root: Node, src: &str) -> Vec<TryBlock> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "try_statement" {
            let body_end = node.child_by_field_name("body").map_or(line(node), end_line);
            let handlers = node.named_children().filter(|c| matches!(c.kind(), "except_clause" | "except_group_clause")).map(|c| handler(c, src)).collect();
            out.push(TryBlock { line: line(node), body_end, handlers });
        }
        stack.extend(node.named_children().rev());
    }
    out.sort_by_key(|t| t.line);
    out
}

fn handler(clause: Node, src: &str) -> Handler {
    let mut types = Vec::new();
    if let Some(first) = clause.named_children().find(|c| !matches!(c.kind(), "block" | "comment")) {
        // `except E as e`: the type is the pattern's first part.
        let tested = if first.kind() == "as_pattern" { first.named_children().next().unwrap_or(first) } else { first };
        let parts: Vec<Node> = match tested.kind() {
            "tuple" | "parenthesized_expression" => tested.named_children().collect(),
            _ => vec![tested],
        };
        for p in parts {
            let p = if p.kind() == "parenthesized_expression" { p.named_children().next().unwrap_or(p) } else { p };
            if matches!(p.kind(), "identifier" | "attribute") {
                types.push(text(p, src).split_whitespace().collect::<String>());
            }
        }
    }
    Handler { line: line(clause), end_line: end_line(clause), types }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;

    #[test]
    fn handlers_with_the_types_they_catch() {
        let a = analyze("try:\n    import yaml\n    x = 1\nexcept (ImportError, os.error) as e:\n    yaml = None\nexcept ValueError:\n    pass\nexcept:\n    raise\n");
        let t = &a.try_blocks[0];
        assert_eq!((t.line, t.body_end), (1, 3));
        let hs: Vec<(u32, u32, Vec<&str>)> = t.handlers.iter().map(|h| (h.line, h.end_line, h.types.iter().map(String::as_str).collect())).collect();
        assert_eq!(hs, [(4, 5, vec!["ImportError", "os.error"]), (6, 7, vec!["ValueError"]), (8, 9, vec![])]);
    }
}
