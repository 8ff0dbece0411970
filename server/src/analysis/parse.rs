//! Dedent, parse, and the two whole-tree verdicts that do not need scopes:
//! syntax errors and whether the fragment only runs inside a function.

use super::facts::{SyntaxIssue, Wrap};
use super::statements::is_statement;
use super::tree::{language, Flat, Node};
use tree_sitter::{Parser, Point};

/// `textwrap.dedent`: strip the longest whitespace prefix shared by all lines
/// that have non-whitespace content; whitespace-only lines become empty.
/// Lines are split on `\n` only, as Python's `re` `^` does, so line numbers
/// never move. Returns the text and the width (bytes) of the stripped prefix.
pub(crate) fn dedent(source: &str) -> (String, usize) {
    let mut margin: Option<&str> = None;
    for line in source.split('\n') {
        let indent = indent_len(line);
        if indent == line.len() {
            continue;
        }
        let ind = &line[..indent];
        margin = Some(match margin {
            None => ind,
            Some(m) => {
                let common = m
                    .bytes()
                    .zip(ind.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &m[..common]
            }
        });
    }
    let width = margin.map_or(0, str::len);
    let mut out = String::with_capacity(source.len());
    for (i, line) in source.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if indent_len(line) < line.len() {
            out.push_str(&line[width..]);
        }
    }
    (out, width)
}

fn indent_len(line: &str) -> usize {
    line.bytes()
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count()
}

pub(crate) fn parse(text: &str) -> Flat {
    Flat::new(&parse_raw(text))
}

pub(crate) fn parse_raw(text: &str) -> tree_sitter::Tree {
    let mut parser = Parser::new();
    parser
        .set_language(language())
        .expect("tree-sitter-python matches the tree-sitter ABI");
    parser
        .parse(text, None)
        .expect("no timeout or cancellation is set")
}

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
    out.sort_by_key(|i| (i.line, i.column));
    out
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
        if n.child_count() == 0 || n.kind() == "string" {
            if n.kind() != "comment" && n.end_byte() > n.start_byte() {
                out.push(n);
            }
            continue;
        }
        stack.extend(n.children().rev());
    }
    out
}

/// Top-level `return`/`yield`/`await`/`nonlocal`/`async for`/`async with`
/// (outside any def, class or lambda) make the fragment a function body.
pub(crate) fn wrap(root: Node) -> Wrap {
    let (mut needs, mut is_async, mut is_generator) = (false, false, false);
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "function_definition" | "class_definition" | "lambda" => continue,
            "return_statement" | "nonlocal_statement" => needs = true,
            "yield" => (needs, is_generator) = (true, true),
            "await" => (needs, is_async) = (true, true),
            "for_statement" | "with_statement" | "for_in_clause" if starts_with_async(node) => {
                (needs, is_async) = (true, true)
            }
            _ => {}
        }
        stack.extend(node.named_children());
    }
    if needs {
        Wrap::Function {
            is_async,
            is_generator,
        }
    } else {
        Wrap::None
    }
}

fn starts_with_async(node: Node) -> bool {
    node.child(0).is_some_and(|c| c.kind() == "async")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(src: &str) -> Vec<SyntaxIssue> {
        let (text, indent) = dedent(src);
        syntax_errors(parse(&text).root(), &text, indent)
    }

    fn wrap_of(src: &str) -> Wrap {
        wrap(parse(&dedent(src).0).root())
    }

    #[test]
    fn dedent_follows_textwrap() {
        assert_eq!(
            dedent("    a\n      b\n\n    c\n"),
            ("a\n  b\n\nc\n".to_string(), 4)
        );
        assert_eq!(dedent("  a\n  \n b"), (" a\n\nb".to_string(), 1));
        assert_eq!(dedent("\ta\n    b"), ("\ta\n    b".to_string(), 0));
        assert_eq!(dedent("\ta\n\t\tb\n \n"), ("a\n\tb\n\n".to_string(), 1));
        assert_eq!(dedent(""), (String::new(), 0));
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
    fn python2_constructs() {
        let e = errors("print \"hello\"\n");
        assert!(e[0].message.contains("print"), "{e:?}");
        let e = errors("try:\n    pass\nexcept ValueError, e:\n    pass\n");
        assert!(e.iter().any(|i| i.message.contains("except")), "{e:?}");
        assert!(errors("print(\"hello\")\n").is_empty());
        assert!(errors("print >> sys.stderr, \"x\"\n").is_empty());
    }

    #[test]
    fn wrap_detection() {
        assert_eq!(wrap_of("x = 1\n"), Wrap::None);
        assert_eq!(wrap_of("def f():\n    return 1\n"), Wrap::None);
        assert_eq!(wrap_of("f = lambda: (yield)\n"), Wrap::None);
        assert_eq!(
            wrap_of("return 1\n"),
            Wrap::Function {
                is_async: false,
                is_generator: false
            }
        );
        assert_eq!(
            wrap_of("if a:\n    yield 1\n"),
            Wrap::Function {
                is_async: false,
                is_generator: true
            }
        );
        assert_eq!(
            wrap_of("x = await y\n"),
            Wrap::Function {
                is_async: true,
                is_generator: false
            }
        );
        assert_eq!(
            wrap_of("async for a in b:\n    pass\n"),
            Wrap::Function {
                is_async: true,
                is_generator: false
            }
        );
        assert_eq!(
            wrap_of("async with a:\n    pass\n"),
            Wrap::Function {
                is_async: true,
                is_generator: false
            }
        );
        assert_eq!(
            wrap_of("nonlocal n\nn += 1\n"),
            Wrap::Function {
                is_async: false,
                is_generator: false
            }
        );
        assert_eq!(
            wrap_of("class A:\n    def f(self):\n        yield 1\n"),
            Wrap::None
        );
    }
}
