//! The coverage metric's statement table, reproducing `statement_lines` in
//! `shared/bench/measure.py` (which walks Python's `ast`) on the tree-sitter
//! tree. The mapping that matters:
//! - `elif` is an `If` nested in `orelse`: its own statement, with its own
//!   body lines as firsts, never feeding the outer `if`'s firsts;
//! - only `body` (and `match` cases) feed a compound's firsts, never
//!   `orelse`, handlers or `finally`, and a def/class docstring still counts
//!   as a first even though it is not a statement;
//! - a decorated definition is at its `def`/`class` line;
//! - one entry per line: a compound header wins over simple statements that
//!   share its line (`if a: b` — measure.py assigns compounds, `setdefault`s
//!   simple ones).

use super::facts::Statement;
use super::literal::is_plain_str;
use super::tree::Node;
use std::collections::BTreeMap;

pub(crate) fn statement_table(root: Node, text: &str) -> Vec<Statement> {
    let mut table: BTreeMap<u32, Option<Vec<u32>>> = BTreeMap::new();
    // (block, whether its first statement may be a docstring)
    let mut work: Vec<(Node, bool)> = vec![(root, true)];
    while let Some((block, docstring_slot)) = work.pop() {
        for (i, stmt) in statements_of(block).into_iter().enumerate() {
            if i == 0 && docstring_slot && is_docstring(stmt, text) {
                continue;
            }
            let stmt = definition_of(stmt);
            let line = line_of(stmt);
            match compound_parts(stmt) {
                Some(parts) => {
                    table.insert(line, Some(firsts(&parts.body)));
                    for (b, doc) in parts.blocks {
                        work.push((b, doc));
                    }
                    for elif in parts.elifs {
                        let body: Vec<Node> = elif
                            .child_by_field_name("consequence")
                            .into_iter()
                            .collect();
                        table.insert(line_of(elif), Some(firsts(&body)));
                        work.extend(body.into_iter().map(|b| (b, false)));
                    }
                }
                None => {
                    table.entry(line).or_insert(None);
                }
            }
        }
    }
    table
        .into_iter()
        .map(|(line, body_first_lines)| Statement {
            line,
            body_first_lines,
        })
        .collect()
}

struct Parts<'t> {
    /// Blocks whose statements are the compound's firsts.
    body: Vec<Node<'t>>,
    /// Every nested block to visit, with its docstring flag.
    blocks: Vec<(Node<'t>, bool)>,
    elifs: Vec<Node<'t>>,
}

fn field<'t>(n: Node<'t>, f: &str) -> Option<Node<'t>> {
    n.child_by_field_name(f)
}

fn compound_parts(stmt: Node) -> Option<Parts> {
    let mut parts = Parts {
        body: Vec::new(),
        blocks: Vec::new(),
        elifs: Vec::new(),
    };
    let body_field = match stmt.kind() {
        "if_statement" => "consequence",
        "for_statement"
        | "while_statement"
        | "with_statement"
        | "try_statement"
        | "function_definition"
        | "class_definition"
        | "match_statement" => "body",
        _ => return None,
    };
    let is_def = matches!(stmt.kind(), "function_definition" | "class_definition");
    if stmt.kind() == "match_statement" {
        for case in field(stmt, "body").into_iter().flat_map(named_children) {
            if let Some(b) = field(case, "consequence") {
                parts.body.push(b);
                parts.blocks.push((b, false));
            }
        }
        return Some(parts);
    }
    if let Some(b) = field(stmt, body_field) {
        parts.body.push(b);
        parts.blocks.push((b, is_def));
    }
    for child in named_children(stmt) {
        match child.kind() {
            "elif_clause" => parts.elifs.push(child),
            "else_clause" => parts
                .blocks
                .extend(field(child, "body").map(|b| (b, false))),
            "except_clause" | "finally_clause" => parts.blocks.extend(
                named_children(child)
                    .into_iter()
                    .filter(|c| c.kind() == "block")
                    .map(|b| (b, false)),
            ),
            _ => {}
        }
    }
    Some(parts)
}

fn firsts(blocks: &[Node]) -> Vec<u32> {
    let mut out: Vec<u32> = blocks
        .iter()
        .flat_map(|b| statements_of(*b))
        .map(|s| line_of(definition_of(s)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Statements directly in a block (or the module). ERROR children are
/// searched for statements so a broken line does not hide its neighbours.
pub(crate) fn statements_of(block: Node) -> Vec<Node> {
    let mut out = Vec::new();
    for child in named_children(block) {
        match child.kind() {
            "comment" | "case_clause" => {}
            "ERROR" => out.extend(
                named_children(child)
                    .into_iter()
                    .filter(|c| is_statement(c.kind())),
            ),
            k if is_statement(k) => out.push(child),
            _ => {}
        }
    }
    out
}

pub(crate) fn is_statement(kind: &str) -> bool {
    kind.ends_with("_statement")
        || matches!(
            kind,
            "function_definition" | "class_definition" | "decorated_definition"
        )
}

fn definition_of(stmt: Node) -> Node {
    if stmt.kind() == "decorated_definition" {
        stmt.child_by_field_name("definition").unwrap_or(stmt)
    } else {
        stmt
    }
}

/// `ast.Expr` whose value is a `str` constant: plain or implicitly
/// concatenated strings, possibly parenthesised, without `f`/`b` prefixes.
fn is_docstring(stmt: Node, text: &str) -> bool {
    if stmt.kind() != "expression_statement" {
        return false;
    }
    let children = named_children(stmt);
    let [mut e] = children.as_slice() else {
        return false;
    };
    while e.kind() == "parenthesized_expression" {
        match named_children(e).as_slice() {
            [inner] => e = *inner,
            _ => return false,
        }
    }
    is_plain_str(e, text)
}

fn line_of(n: Node) -> u32 {
    n.start_position().row as u32 + 1
}

fn named_children(n: Node) -> Vec<Node> {
    n.named_children()
        .filter(|c| c.kind() != "comment")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::{dedent, parse};

    /// (line, firsts) pairs; `None` firsts for simple statements.
    fn table(src: &str) -> Vec<(u32, Option<Vec<u32>>)> {
        let (text, _) = dedent(src);
        let tree = parse(&text);
        statement_table(tree.root(), &text)
            .into_iter()
            .map(|s| (s.line, s.body_first_lines))
            .collect()
    }

    #[test]
    fn simple_statements_and_semicolons() {
        assert_eq!(
            table("a = 1; b = 2\nprint(a)\n"),
            vec![(1, None), (2, None)]
        );
        assert_eq!(
            table("x = (1,\n     2)\ndel x\n"),
            vec![(1, None), (3, None)]
        );
    }

    #[test]
    fn module_docstring_is_not_a_statement() {
        assert_eq!(table("# c\n\"\"\"doc\"\"\"\nreturn 1\n"), vec![(3, None)]);
        assert_eq!(table("(\"doc\"\n \"more\")\nx\n"), vec![(3, None)]);
        // f-strings and bytes are not docstrings; nor is a second string.
        assert_eq!(table("f\"doc\"\n"), vec![(1, None)]);
        assert_eq!(table("b\"doc\"\n"), vec![(1, None)]);
        assert_eq!(table("x = 1\n\"not doc\"\n"), vec![(1, None), (2, None)]);
    }

    #[test]
    fn if_elif_else() {
        let src = "if a:\n    x = 1\n    y = 2\nelif b:\n    z = 3\nelse:\n    w = 4\n";
        assert_eq!(
            table(src),
            vec![
                (1, Some(vec![2, 3])),
                (2, None),
                (3, None),
                (4, Some(vec![5])),
                (5, None),
                (7, None)
            ]
        );
        assert_eq!(table("if a: b = 1\n"), vec![(1, Some(vec![1]))]);
        assert_eq!(
            table("if a:\n    pass\nelse:\n    if b:\n        c\n"),
            vec![(1, Some(vec![2])), (2, None), (4, Some(vec![5])), (5, None)]
        );
    }

    #[test]
    fn loops_with_else() {
        let src = "for i in x:\n    a\nelse:\n    b\nwhile c:\n    d\nelse:\n    e\n";
        assert_eq!(
            table(src),
            vec![
                (1, Some(vec![2])),
                (2, None),
                (4, None),
                (5, Some(vec![6])),
                (6, None),
                (8, None)
            ]
        );
        assert_eq!(
            table("async def f():\n    async for a in b:\n        pass\n"),
            vec![(1, Some(vec![2])), (2, Some(vec![3])), (3, None)]
        );
    }

    #[test]
    fn try_feeds_only_its_body() {
        let src =
            "try:\n    a\nexcept E as e:\n    b\nexcept:\n    c\nelse:\n    d\nfinally:\n    f\n";
        assert_eq!(
            table(src),
            vec![
                (1, Some(vec![2])),
                (2, None),
                (4, None),
                (6, None),
                (8, None),
                (10, None)
            ]
        );
        let star = "try:\n    a\nexcept* E:\n    b\n";
        assert_eq!(table(star), vec![(1, Some(vec![2])), (2, None), (4, None)]);
    }

    #[test]
    fn with_statement() {
        assert_eq!(
            table("with open(p) as f, g:\n    r = f.read()\n"),
            vec![(1, Some(vec![2])), (2, None)]
        );
    }

    #[test]
    fn defs_classes_decorators_and_docstrings() {
        let src = "@dec\ndef f(a):\n    \"\"\"doc\"\"\"\n    return a\n\nclass C(B):\n    \"doc\"\n    x = 1\n    @property\n    def p(self): return 1\n";
        assert_eq!(
            table(src),
            vec![
                (2, Some(vec![3, 4])),
                (4, None),
                (6, Some(vec![7, 8, 10])),
                (8, None),
                (10, Some(vec![10]))
            ]
        );
    }

    #[test]
    fn match_cases_feed_the_match() {
        let src = "match p:\n    case [x, y]:\n        a\n    case {'k': v} if v:\n        b\n        c\n    case _:\n        pass\n";
        assert_eq!(
            table(src),
            vec![
                (1, Some(vec![3, 5, 6, 8])),
                (3, None),
                (5, None),
                (6, None),
                (8, None)
            ]
        );
    }

    #[test]
    fn nested_blocks_and_one_liners() {
        let src = "while 1: a; b\nclass A: pass\n";
        assert_eq!(table(src), vec![(1, Some(vec![1])), (2, Some(vec![2]))]);
    }

    #[test]
    fn broken_line_keeps_neighbours() {
        let t = table("a = 1\nb = (\nc = 3\n");
        assert!(t.iter().any(|(l, _)| *l == 1), "{t:?}");
    }
}
