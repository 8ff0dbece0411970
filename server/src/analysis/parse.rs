//! Dedent, parse, and whether the fragment only runs inside a function.

use super::facts::Wrap;
use super::tree::{language, Flat, Node};
use tree_sitter::Parser;

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

pub(crate) fn indent_len(line: &str) -> usize {
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
