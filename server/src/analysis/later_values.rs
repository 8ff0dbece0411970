//! Values the fragment itself gives a name later on (`print(x)` on line 1,
//! `x = 5` on line 9): a right-hand side made only of literals, displays and
//! calls of dotted names with such arguments (`pd.DataFrame({'A': [1, 2]})`)
//! is the value a person would move up to define the name.

use super::bindings::Bindings;
use super::imports::bound_names;
use super::literal::{named, text};
use super::tree::Node;
use std::collections::BTreeMap;

/// Longer right-hand sides do not read well as a prefix line.
const MAX_LEN: usize = 600;

/// Name -> source text of its first top-level self-contained assignment.
pub(crate) fn literal_assignments(root: Node, src: &str, binds: &Bindings) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    // A fragment name other than an import is not there yet when the prefix runs.
    let local = |n: &str| binds.names.contains_key(n) && !binds.imports.iter().any(|i| bound_names(i).iter().any(|b| b == n));
    visit(root, src, &local, &mut out);
    out
}

fn visit(node: Node, src: &str, local: &dyn Fn(&str) -> bool, out: &mut BTreeMap<String, String>) {
    for child in named(node) {
        match child.kind() {
            "function_definition" | "class_definition" | "decorated_definition" | "lambda" => {}
            "assignment" => assignment(child, src, local, out),
            _ => visit(child, src, local, out),
        }
    }
}

fn assignment(node: Node, src: &str, local: &dyn Fn(&str) -> bool, out: &mut BTreeMap<String, String>) {
    let (Some(left), Some(right)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else { return };
    let pairs: Vec<(Node, Node)> = match (left.kind(), right.kind()) {
        ("identifier", _) => vec![(left, right)],
        ("pattern_list" | "tuple_pattern", "expression_list" | "tuple") => {
            let (targets, values): (Vec<Node>, Vec<Node>) = (named(left).collect(), named(right).collect());
            if targets.len() != values.len() {
                return;
            }
            targets.into_iter().zip(values).collect()
        }
        _ => return,
    };
    for (target, value) in pairs {
        let name = text(target, src);
        let code = text(value, src);
        if target.kind() == "identifier" && !out.contains_key(name) && code.len() <= MAX_LEN && contained(value, src, local) {
            out.insert(name.to_string(), code.to_string());
        }
    }
}

/// Whether the expression needs nothing the fragment defines.
fn contained(node: Node, src: &str, local: &dyn Fn(&str) -> bool) -> bool {
    match node.kind() {
        "integer" | "float" | "true" | "false" | "none" | "string_content" | "string_start" | "string_end" | "escape_sequence" => true,
        "string" | "concatenated_string" => named(node).all(|c| c.kind() != "interpolation" && contained(c, src, local)),
        "list" | "tuple" | "set" | "dictionary" | "pair" | "parenthesized_expression" | "unary_operator" | "binary_operator"
        | "list_splat" | "dictionary_splat" | "argument_list" => named(node).all(|c| contained(c, src, local)),
        "keyword_argument" => node.child_by_field_name("value").is_some_and(|v| contained(v, src, local)),
        "call" => {
            node.child_by_field_name("function").is_some_and(|f| dotted_from_outside(f, src, local))
                && node.child_by_field_name("arguments").is_none_or(|a| contained(a, src, local))
        }
        // `app = current_app`: a name from outside, the library's own object.
        "attribute" | "identifier" => dotted_from_outside(node, src, local),
        "comment" => true,
        _ => false,
    }
}

/// `pd.DataFrame`, `datetime`: a dotted name whose root the fragment does not bind itself.
fn dotted_from_outside(node: Node, src: &str, local: &dyn Fn(&str) -> bool) -> bool {
    match node.kind() {
        "identifier" => !local(text(node, src)),
        "attribute" => node.child_by_field_name("object").is_some_and(|o| dotted_from_outside(o, src, local)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;

    #[test]
    fn self_contained_assignments_are_kept_first_come() {
        let src = "print(df, rows, n, total)\ndf = pd.DataFrame({'A': [1, 2], 'B': [*'xy']})\nrows, cols = ['A'], ['B']\nn = -3\nn = 4\ntotal = helper(1)\ndef helper(x):\n    return x\nlabel = f'{n}'\n";
        let a = analyze(src);
        let v = &a.literal_assignments;
        assert_eq!(v["df"], "pd.DataFrame({'A': [1, 2], 'B': [*'xy']})");
        assert_eq!(v["rows"], "['A']");
        assert_eq!(v["n"], "-3");
        assert!(!v.contains_key("total"), "helper is the fragment's own");
        assert!(!v.contains_key("label"), "an f-string reads names");
    }
}
