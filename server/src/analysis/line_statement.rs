//! One line of Python read alone (a line a rule looks back at: an
//! assertion, an assignment before a branch) as trees, from tree-sitter:
//! the expressions its statement holds and the plain names it assigns.
//! Rules read these instead of the line's text. Pure.

use super::condition::{Condition, Constant};
use super::literal::named;
use super::parse::parse;
use super::tokens::code_end;
use super::tree::Node;

/// The statement on one line, as trees.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineStatement {
    /// Every expression of the statement, in source order: an assignment's
    /// targets and value, the test of an `if`/`elif`/`while`/`assert` (and
    /// an assertion's message), a `for`'s target and iterable, an
    /// expression statement. What does not parse is one `Other` tree whose
    /// parts keep its names and constants.
    pub expressions: Vec<Condition>,
    /// `NAME = value` (each name of `a = b = value`): plain names with the
    /// value they are given.
    pub assigns: Vec<(String, Condition)>,
}

/// The statement on `line`, read alone: dedented, without its comment, a
/// block header given a body so that it parses (`elif` read as `if`).
pub fn line_statement(line: &str) -> LineStatement {
    let text = line_source(line);
    let tree = parse(&text);
    let mut out = LineStatement::default();
    for statement in named(tree.root()) {
        collect(statement, &text, &mut out, 0);
    }
    out
}

/// The text a line is parsed as: dedented, without its comment, a block
/// header given a body (`elif` read as `if`).
fn line_source(line: &str) -> String {
    let code = line[..code_end(line)].trim_start();
    let code = code.strip_prefix("elif ").map_or_else(|| code.to_string(), |rest| format!("if {rest}"));
    if code.ends_with(':') {
        format!("{code}\n    pass\n")
    } else {
        format!("{code}\n")
    }
}

/// The source of what the first assignment on `line` assigns (the value
/// of `a = b = value`, of `x: int = value`, of `if c: y = value`): each
/// item of a bare tuple (`1, 'x'`) and then the whole, else the whole;
/// empty when the line assigns nothing with `=`.
pub fn assigned_source(line: &str) -> Vec<String> {
    let text = line_source(line);
    let tree = parse(&text);
    // Pre-order with an explicit stack: the first assignment in source order.
    let mut stack = vec![tree.root()];
    while let Some(node) = stack.pop() {
        if node.kind() == "assignment" {
            let Some(right) = node.child_by_field_name("right") else { return Vec::new() };
            let right = assigned_value(right);
            let whole = super::literal::text(right, &text).trim().to_string();
            if right.kind() != "expression_list" {
                return vec![whole];
            }
            let mut parts: Vec<String> = named(right).filter(|c| c.kind() != "comment").map(|c| super::literal::text(c, &text).to_string()).collect();
            parts.push(whole);
            return parts;
        }
        // Not into what only looks like one: a lambda's or call's `x=1`.
        if !matches!(node.kind(), "lambda" | "argument_list" | "parameters" | "lambda_parameters") {
            stack.extend(node.named_children().rev());
        }
    }
    Vec::new()
}

/// `text` read as one Python expression (a value's `repr`, which Python
/// prints as source), when it is exactly one and parses cleanly.
pub fn expression(text: &str) -> Option<Condition> {
    let source = format!("{}\n", text.trim());
    let tree = parse(&source);
    let root = tree.root();
    if root.has_error() {
        return None;
    }
    let mut statements = named(root);
    let statement = statements.next().filter(|s| s.kind() == "expression_statement")?;
    let mut exprs = named(statement);
    let e = exprs.next().filter(|e| !matches!(e.kind(), "assignment" | "augmented_assignment" | "yield"))?;
    (statements.next().is_none() && exprs.next().is_none()).then(|| super::condition_tree::build(e, &source))
}

/// The strings of a list display of string constants (`['a', 'b']`, a
/// subscript key such as `df[['a', 'b']]`), else empty.
pub fn string_list(text: &str) -> Vec<String> {
    match expression(text) {
        Some(Condition::Other { node, parts, .. }) if node == "list" => {
            let strs: Vec<String> = parts.iter().filter_map(|p| if let Condition::Constant { value: Constant::Str(s) } = p { Some(s.clone()) } else { None }).collect();
            if strs.len() == parts.len() { strs } else { Vec::new() }
        }
        _ => Vec::new(),
    }
}

/// Deeper statement nesting than this is taken whole (stack safety).
const MAX_DEPTH: usize = 20;

fn collect(node: Node, src: &str, out: &mut LineStatement, depth: usize) {
    match node.kind() {
        "block" | "comment" | "line_continuation" => {}
        _ if depth > MAX_DEPTH => out.expressions.push(super::condition_tree::build(node, src)),
        "assignment" => {
            let (left, right) = (node.child_by_field_name("left"), node.child_by_field_name("right"));
            if let Some(left) = left {
                out.expressions.push(super::condition_tree::build(left, src));
            }
            let Some(right) = right else { return };
            if left.is_some_and(|l| l.kind() == "identifier") {
                let value = assigned_value(right);
                let value = super::condition_tree::build(value, src);
                let name = super::literal::text(left.expect("checked above"), src).to_string();
                out.assigns.push((name, value));
            }
            collect(right, src, out, depth + 1);
        }
        "expression_statement" | "augmented_assignment" | "if_statement" | "while_statement" | "for_statement" | "assert_statement"
        | "return_statement" | "with_statement" | "with_clause" | "with_item" | "delete_statement" | "print_statement" => {
            for c in named(node) {
                collect(c, src, out, depth + 1);
            }
        }
        // A `def` or `class` line is no expression a test reads.
        "function_definition" | "class_definition" | "decorated_definition" | "import_statement" | "import_from_statement" => {}
        _ => out.expressions.push(super::condition_tree::build(node, src)),
    }
}

/// The value at the end of a chain `a = b = value`.
fn assigned_value(mut right: Node) -> Node {
    while right.kind() == "assignment" {
        match right.child_by_field_name("right") {
            Some(r) => right = r,
            None => break,
        }
    }
    right
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(s: &LineStatement) -> Vec<String> {
        s.expressions.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn an_assignment_has_its_targets_values_and_named_assignments() {
        let s = line_statement("    sep = limit = 'a # b'  # the separator");
        assert_eq!(shown(&s), ["sep", "limit", "\"a # b\""]);
        let names: Vec<&str> = s.assigns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["sep", "limit"]);
        assert!(s.assigns.iter().all(|(_, v)| *v == Condition::Constant { value: Constant::Str("a # b".into()) }));
        let s = line_statement("h = self.find(e)");
        assert_eq!(shown(&s), ["h", "self.find(e)"]);
        assert_eq!(s.assigns[0].1.to_string(), "self.find(e)");
        // A tuple target is no plain name.
        assert!(line_statement("a, b = pair").assigns.is_empty());
    }

    #[test]
    fn headers_and_assertions_give_their_tests() {
        assert_eq!(shown(&line_statement("elif len(parts) == 2:")), ["len(parts) == 2"]);
        assert_eq!(shown(&line_statement("assert x in ok, 'bad x'")), ["x in ok", "\"bad x\""]);
        assert_eq!(shown(&line_statement("for k, v in d.items():")), ["k, v", "d.items()"]);
        assert!(line_statement("def f(x=1):").expressions.is_empty());
    }

    #[test]
    fn the_source_an_assignment_gives() {
        assert_eq!(assigned_source("    a, b = 1, 'x'  # two"), ["1", "'x'", "1, 'x'"]);
        assert_eq!(assigned_source("pair = (1, 2)"), ["(1, 2)"]);
        assert_eq!(assigned_source("x: int = y == 2"), ["y == 2"]);
        assert_eq!(assigned_source("s = t = 'a = b'"), ["'a = b'"]);
        assert_eq!(assigned_source("if x == 4: y = f(x)"), ["f(x)"]);
        assert!(assigned_source("f(key=1)").is_empty());
        assert!(assigned_source("n += 1").is_empty());
        assert!(assigned_source("for line in fh:").is_empty());
    }

    #[test]
    fn a_repr_reads_as_one_expression() {
        assert_eq!(expression("'it\\'s'"), Some(Condition::Constant { value: Constant::Str("it's".into()) }));
        assert_eq!(expression(" -3 "), Some(Condition::Constant { value: Constant::Int(-3) }));
        assert!(matches!(expression("Index([0, 3], dtype='int64')"), Some(Condition::Call { .. })));
        assert_eq!(expression("'a' 'b' ("), None);
        assert_eq!(expression("1), (2"), None);
        assert_eq!(expression("x = 1"), None);
    }

    #[test]
    fn a_list_of_strings() {
        assert_eq!(string_list("['a', \"b, c\"]"), ["a", "b, c"]);
        assert!(string_list("['a', b]").is_empty());
        assert!(string_list("('a', 'b')").is_empty());
        assert!(string_list("[]").is_empty());
    }

    #[test]
    fn an_unclosed_line_keeps_its_names_and_constants() {
        let s = line_statement("total = compute(items, 'x',");
        let names: Vec<&str> = s.expressions.iter().flat_map(|e| e.names()).collect();
        assert!(names.contains(&"items"), "{s:?}");
        assert!(s.expressions.iter().flat_map(|e| e.constants()).any(|c| *c == Constant::Str("x".into())), "{s:?}");
    }
}
