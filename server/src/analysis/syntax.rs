//! Syntax errors, in CPython's terms: tree-sitter's ERROR and MISSING nodes
//! (described by their likely cause), plus what tree-sitter accepts but
//! CPython 3 rejects (misindented blocks, Python 2 constructs).

use super::facts::SyntaxIssue;
use super::parse::indent_len;
use super::statements::is_statement;
use super::tree::Node;
use tree_sitter::Point;

/// ERROR / MISSING nodes plus Python 2 constructs tree-sitter accepts but
/// CPython 3 rejects. Columns are shifted back by the dedent width so they
/// point into the original text.
pub(crate) fn syntax_errors(root: Node, text: &str, indent: usize) -> Vec<SyntaxIssue> {
    let mut out = Vec::new();
    let mut at = |p: Point, message: String| {
        out.push(SyntaxIssue {
            line: p.row as u32 + 1,
            column: (p.column + indent) as u32,
            message,
        });
    };

    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() {
            for (p, message) in describe_error(node, text) {
                at(p, message);
            }
            continue;
        }
        if node.is_missing() {
            let what = if node.is_named() {
                node.kind().replace('_', " ")
            } else {
                format!("`{}`", node.kind())
            };
            at(node.start_position(), format!("missing {what}"));
            continue;
        }
        let mut issue = |message: &str| at(node.start_position(), message.to_string());
        match node.kind() {
            "module" | "block" => {
                for (p, message) in run_together(node) {
                    at(p, message.to_string());
                }
                for (stmt, message) in misindented(node, text) {
                    at(
                        Point {
                            row: stmt.start_position().row,
                            column: 0,
                        },
                        message.to_string(),
                    );
                }
            }
            // `print >> f, x` is a valid (if useless) Python 3 expression.
            "print_statement" if !node.named_children().any(|c| c.kind() == "chevron") => {
                issue("Python 2 print statement: use print(...)")
            }
            "exec_statement" => issue("Python 2 exec statement: use exec(...)"),
            "<>" => issue("Python 2 operator `<>`: use `!=`"),
            "integer" => {
                if let Some(message) = python2_integer(&text[node.byte_range()]) {
                    issue(message);
                }
            }
            "string_start"
                if text[node.byte_range()]
                    .to_ascii_lowercase()
                    .starts_with("ur") =>
            {
                issue("Python 2 string prefix `ur`: use `r`")
            }
            "raise_statement" if node.named_children().any(|c| c.kind() == "expression_list") => {
                issue("Python 2 `raise E, msg`: use `raise E(msg)`")
            }
            "parameters" | "lambda_parameters" => {
                for c in node
                    .named_children()
                    .filter(|c| c.kind() == "tuple_pattern")
                {
                    at(
                        c.start_position(),
                        "Python 2 tuple parameter: unpack in the body instead".into(),
                    );
                }
            }
            "argument_list" => {
                let mut keyword = false;
                for arg in node.named_children() {
                    match arg.kind() {
                        "keyword_argument" | "dictionary_splat" => keyword = true,
                        "list_splat" | "comment" | "line_continuation" => {}
                        _ if keyword => {
                            at(
                                arg.start_position(),
                                "positional argument follows keyword argument".into(),
                            );
                            break;
                        }
                        _ => {}
                    }
                }
            }
            "except_clause" => {
                let values = node.children_by_field_name("value").count();
                if values > 1 {
                    issue("Python 2 `except E, e`: use `except E as e`");
                }
            }
            _ => {}
        }
        if node.has_error() || node.child_count() > 0 {
            stack.extend(node.children().rev());
        }
    }
    for (p, message) in broken_lines(root, text) {
        at(p, message.to_string());
    }
    out.sort_by_key(|i| (i.line, i.column));
    out
}

/// `a = f(x)return y`: tree-sitter accepts two statements on one line
/// without a `;` between them.
fn run_together(block: Node) -> Vec<(Point, &'static str)> {
    let mut out = Vec::new();
    let mut previous_end: Option<usize> = None;
    for child in block.children() {
        if child.kind() == ";" {
            previous_end = None;
        } else if is_statement(child.kind()) {
            if previous_end == Some(child.start_position().row) {
                out.push((
                    child.start_position(),
                    "missing newline or `;` before this statement",
                ));
            }
            previous_end = Some(child.end_position().row);
        }
    }
    out
}

const COMPOUND: &[&str] = &[
    "if_statement",
    "for_statement",
    "while_statement",
    "try_statement",
    "with_statement",
    "function_definition",
    "class_definition",
    "match_statement",
    "decorated_definition",
    "elif_clause",
    "else_clause",
    "except_clause",
    "finally_clause",
    "case_clause",
];

/// A logical line continues onto the next physical line only inside
/// brackets or after `\`; tree-sitter glues lines together regardless
/// (`ele:` followed by an indented line parses as an annotation).
fn broken_lines(root: Node, text: &str) -> Vec<(Point, &'static str)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        if node.is_error() {
            continue;
        }
        if kind == "module" || kind == "block" {
            stack.extend(node.named_children());
            continue;
        }
        if COMPOUND.contains(&kind) {
            let mut header = Vec::new();
            for c in node.children() {
                if c.kind() == "block" || COMPOUND.contains(&c.kind()) {
                    stack.push(c);
                } else if c.kind() == "decorator" {
                    out.extend(line_break(&[c], text));
                } else {
                    header.push(c);
                }
            }
            out.extend(line_break(&header, text));
        } else if is_statement(kind) {
            out.extend(line_break(&[node], text));
        }
    }
    out
}

/// The first line break between the tokens of `parts` that is outside
/// brackets and not escaped; `None` when the tokens contain a syntax error
/// already reported. The `\` is looked for in the text between tokens:
/// tree-sitter does not always keep a `line_continuation` node for it.
fn line_break(parts: &[Node], text: &str) -> Option<(Point, &'static str)> {
    let mut depth = 0usize;
    let mut previous: Option<Node> = None;
    for part in parts {
        for leaf in leaves(*part, usize::MAX) {
            if leaf.is_error() || leaf.is_missing() {
                return None;
            }
            if let Some(p) = previous {
                let escaped = || text[p.end_byte()..leaf.start_byte()].contains('\\');
                if depth == 0 && leaf.start_position().row > p.end_position().row && !escaped() {
                    return Some((
                        p.end_position(),
                        "line break inside a statement: use brackets or end the line with `\\`",
                    ));
                }
            }
            match leaf.kind() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                _ => {}
            }
            previous = Some(leaf);
        }
    }
    None
}

/// `0777` and `10L` are Python 2 integer literals.
fn python2_integer(t: &str) -> Option<&'static str> {
    let digits = t.replace('_', "");
    if digits.ends_with(['l', 'L']) {
        return Some("Python 2 long literal: drop the `L` suffix");
    }
    let b = digits.as_bytes();
    let leading_zero =
        b.len() > 1 && b[0] == b'0' && b[1].is_ascii_digit() && digits.bytes().any(|c| c != b'0');
    leading_zero
        .then_some("leading zeros in a decimal literal are not permitted: use `0o` for octal")
}

/// tree-sitter accepts statements of one block at different indentations
/// (and an indented first line), which CPython rejects.
fn misindented<'t>(block: Node<'t>, text: &str) -> Vec<(Node<'t>, &'static str)> {
    let mut out = Vec::new();
    let mut expected = (block.kind() == "module").then_some(0);
    for stmt in block.named_children().filter(|c| is_statement(c.kind())) {
        let column = stmt.start_position().column;
        let line_start = stmt.start_byte() - column;
        // Only statements that begin their line (not after `;` or `if x:`).
        if !text[line_start..stmt.start_byte()]
            .bytes()
            .all(|b| b == b' ' || b == b'\t')
        {
            continue;
        }
        match expected {
            None => expected = Some(column),
            Some(col) if col != column => {
                let dedent = previous_indent(text, line_start).is_some_and(|prev| column < prev);
                out.push((
                    stmt,
                    if dedent {
                        "unindent does not match any outer indentation level"
                    } else {
                        "unexpected indent"
                    },
                ));
            }
            Some(_) => {}
        }
    }
    out
}

/// Indentation of the closest code line before the line starting at `line_start`.
fn previous_indent(text: &str, line_start: usize) -> Option<usize> {
    text[..line_start]
        .lines()
        .rev()
        .map(|l| (l, indent_len(l)))
        .find(|(l, n)| *n < l.len() && !l[*n..].starts_with('#'))
        .map(|(_, n)| n)
}

/// What went wrong inside one ERROR node. The first token alone is often
/// misleading (`f(a, b` is an ERROR starting at `f`), so look for the usual
/// culprits first: a block header without its `:`, unbalanced brackets.
fn describe_error(node: Node, text: &str) -> Vec<(Point, String)> {
    const HEADERS: &[&str] = &[
        "if", "elif", "else", "for", "while", "def", "class", "with", "try", "except", "finally",
        "async",
    ];
    let leaves = leaves(node, 4096);
    let mut out = Vec::new();
    if let Some(first) = leaves.first().filter(|l| HEADERS.contains(&l.kind())) {
        let row = first.start_position().row;
        let header: Vec<&Node> = leaves
            .iter()
            .take_while(|l| l.start_position().row == row)
            .collect();
        if !header.iter().any(|l| l.kind() == ":") {
            let end = header
                .last()
                .map_or(first.end_position(), |l| l.end_position());
            out.push((
                end,
                format!("missing `:` after the `{}` header", first.kind()),
            ));
        }
    }
    let mut open: Vec<Node> = Vec::new();
    for leaf in &leaves {
        match leaf.kind() {
            "(" | "[" | "{" => open.push(*leaf),
            ")" | "]" | "}" if open.pop().is_none() => {
                out.push((
                    leaf.start_position(),
                    format!("unexpected `{}`", leaf.kind()),
                ));
                break;
            }
            _ => {}
        }
    }
    if let Some(b) = open.first() {
        out.push((b.start_position(), format!("unclosed `{}`", b.kind())));
    }
    // `a = 1 +` at the end of a line: tree-sitter glues the next line on.
    if out.is_empty() {
        let mut depth = 0usize;
        for (i, leaf) in leaves.iter().enumerate() {
            match leaf.kind() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.saturating_sub(1),
                k if depth == 0 && DANGLING.contains(&k) => {
                    let ends_line = leaves
                        .get(i + 1)
                        .is_none_or(|n| n.start_position().row > leaf.end_position().row);
                    if ends_line {
                        out.push((
                            leaf.end_position(),
                            format!("expected an expression after `{k}`"),
                        ));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    if out.is_empty() {
        out.push(match leaves.first() {
            Some(first) => {
                let t = text[first.byte_range()].lines().next().unwrap_or("");
                let t: String = t.chars().take(24).collect();
                (first.start_position(), format!("unexpected `{t}`"))
            }
            None => (node.start_position(), "unexpected end of input".into()),
        });
    }
    out
}

/// Tokens that cannot end a logical line.
const DANGLING: &[&str] = &[
    "+", "-", "*", "/", "//", "%", "**", "@", "|", "&", "^", "<<", ">>", "<", ">", "<=", ">=",
    "==", "!=", "=", "+=", "-=", "*=", "/=", "and", "or", "not", "in", "is", ".", "lambda",
    "await",
];

fn leaves(node: Node<'_>, cap: usize) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if out.len() >= cap {
            break;
        }
        // A string is one token to the user.
        if n.child_count() == 0 || n.kind() == "string" || (n.is_error() && n != node) {
            if n.kind() != "comment" && n.end_byte() > n.start_byte() {
                out.push(n);
            }
            continue;
        }
        stack.extend(n.children().rev());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::{dedent, parse};

    fn errors(src: &str) -> Vec<SyntaxIssue> {
        let (text, indent) = dedent(src);
        syntax_errors(parse(&text).root(), &text, indent)
    }

    #[test]
    fn clean_code_has_no_errors() {
        assert!(errors("import os\nfor x in y:\n    print(x)\n").is_empty());
        assert!(errors("return x\n").is_empty());
    }

    #[test]
    fn unclosed_and_unexpected_brackets() {
        let e = errors("x = f(a, b\ny = 2\n");
        assert!(!e.is_empty());
        assert!(e.iter().any(|i| i.message.contains('(')), "{e:?}");
        let e = errors("x = 1)\n");
        assert_eq!(e[0].message, "unexpected `)`", "{e:?}");
        assert_eq!((e[0].line, e[0].column), (1, 5));
    }

    #[test]
    fn missing_colon() {
        let e = errors("if x\n    y = 1\n");
        assert!(
            e.iter()
                .any(|i| i.message.starts_with("missing `:`") && i.line == 1 && i.column == 4),
            "{e:?}"
        );
        let e = errors("for i in range(3)\n    print(i)\nx = f(a,\n");
        assert!(
            e.iter()
                .any(|i| i.message.starts_with("missing `:`") && i.line == 1),
            "{e:?}"
        );
        assert!(
            e.iter().any(|i| i.message == "unclosed `(`" && i.line == 3),
            "{e:?}"
        );
    }

    #[test]
    fn columns_point_into_the_original() {
        let e = errors("    x = 1)\n    y = 2\n");
        assert_eq!((e[0].line, e[0].column), (1, 9), "{e:?}");
    }

    #[test]
    fn indentation() {
        let e = errors("    def f(self):\n        return 1\n   y = 2\n");
        assert_eq!(
            e.iter()
                .map(|i| (i.line, i.message.as_str()))
                .collect::<Vec<_>>(),
            vec![(1, "unexpected indent")]
        );
        let e = errors("if x:\n    a = 1\n  b = 2\n");
        assert_eq!(
            e.iter()
                .map(|i| (i.line, i.message.as_str()))
                .collect::<Vec<_>>(),
            vec![(3, "unindent does not match any outer indentation level")]
        );
        let e = errors("if x:\n    a = 1\n        b = 2\n");
        assert_eq!(
            e.iter()
                .map(|i| (i.line, i.message.as_str()))
                .collect::<Vec<_>>(),
            vec![(3, "unexpected indent")]
        );
        assert!(errors("if x: a = 1; b = 2\nx = (1,\n  2)\ny = 3\n").is_empty());
        assert!(errors("    a = 1\n    if a:\n        b = 2\n").is_empty());
    }

    #[test]
    fn dangling_operator() {
        let e = errors("a = 1 +\nb = 2\n");
        assert_eq!(
            (e[0].line, e[0].message.as_str()),
            (1, "expected an expression after `+`"),
            "{e:?}"
        );
    }

    #[test]
    fn lines_glued_by_tree_sitter() {
        let e = errors("if a:\n    x = 1\nele:\n    y = 2\n");
        assert!(
            e.iter()
                .any(|i| i.line == 3 && i.message.starts_with("line break")),
            "{e:?}"
        );
        let e = errors("a = f(x)return 3\n");
        assert_eq!((e[0].line, e[0].column), (1, 8), "{e:?}");
        assert!(e[0].message.starts_with("missing newline"), "{e:?}");
        let fine = "x = (1 +\n     2)\ny = 1 + \\\n    2\ns = \"\"\"a\nb\"\"\"\n@dec(\n  1)\ndef f(a,\n      b): pass\nif (a and\n    b):\n    pass\nz = 1; w = 2\ng(\n    1,\n)\n";
        assert!(errors(fine).is_empty(), "{:?}", errors(fine));
    }

    #[test]
    fn keyword_then_positional() {
        let e = errors("f(a=1, b)\n");
        assert_eq!(e[0].message, "positional argument follows keyword argument");
        assert!(errors("f(a, *b, c=1, *d, **e)\n").is_empty());
    }

    #[test]
    fn python2_constructs() {
        let e = errors("print \"hello\"\n");
        assert!(e[0].message.contains("print"), "{e:?}");
        let e = errors("try:\n    pass\nexcept ValueError, e:\n    pass\n");
        assert!(e.iter().any(|i| i.message.contains("except")), "{e:?}");
        assert!(errors("print(\"hello\")\n").is_empty());
        assert!(errors("print >> sys.stderr, \"x\"\n").is_empty());
        let e =
            errors("x = 0777\ny = 10L\nraise E, \"m\"\ndef f((a, b)):\n    pass\ns = ur\"a\"\n");
        let lines: Vec<u32> = e.iter().map(|i| i.line).collect();
        assert_eq!(lines, [1, 2, 3, 4, 6], "{e:?}");
        assert!(errors("a = 0\nb = 00\nc = 0x1F\nd = 1_000\ne = 0.5\nf = 0e0\n").is_empty());
    }
}
