//! The `ast` module's node classes, introspected from the interpreter by
//! `scripts/gen-ast-nodes` (`data/ast_nodes.txt`): their fields with the
//! kind the grammar gives each, and their position attributes. An object a
//! fragment type-tests against one (`isinstance(node.value, ast.Call)`) is
//! a real node built with them, never a hand-written subclass. Pure.

use super::knowledge::lines;
use super::value::Value;
use std::collections::HashMap;
use std::sync::OnceLock;

struct Node {
    /// (field, grammar type, `*` list / `?` optional / `` one).
    fields: Vec<(&'static str, &'static str, char)>,
    attributes: Vec<&'static str>,
}

fn table() -> &'static HashMap<&'static str, Node> {
    static T: OnceLock<HashMap<&'static str, Node>> = OnceLock::new();
    T.get_or_init(|| {
        lines(include_str!("data/ast_nodes.txt"))
            .filter_map(|l| {
                let (head, attributes) = l.split_once('|')?;
                let mut w = head.split_whitespace();
                let class = w.next()?;
                let fields = w
                    .filter_map(|f| {
                        let (name, ty) = f.split_once(':')?;
                        Some(match ty.strip_suffix(['*', '?']) {
                            Some(t) => (name, t, ty.chars().last().unwrap_or(' ')),
                            None => (name, ty, ' '),
                        })
                    })
                    .collect();
                Some((class, Node { fields, attributes: attributes.split_whitespace().collect() }))
            })
            .collect()
    })
}

/// A real `ast.<class>` node (spelled through `module`, the name the prefix
/// imports `ast` by, with `import`) holding `attrs` where they are its
/// fields or positions: a field not given is an empty list when it holds
/// many, a `Load()` context, else `None`; a position not given as a number
/// is line 1, column 0. `None` when the class is no node class or an attribute is
/// none of its own (the object is something else the fragment reads).
pub fn node(module: &str, import: &str, class: &str, attrs: &[(String, Value)]) -> Option<Value> {
    let n = table().get(class)?;
    if attrs.iter().any(|(a, _)| !n.fields.iter().any(|(f, _, _)| f == a) && !n.attributes.contains(&a.as_str())) {
        return None;
    }
    let given = |name: &str| attrs.iter().find(|(a, _)| a == name).map(|(_, v)| v.clone());
    let mut kwargs: Vec<(String, Value)> = n
        .fields
        .iter()
        .map(|&(f, ty, card)| {
            let v = given(f).unwrap_or_else(|| match (card, ty) {
                ('*', _) => Value::List(Vec::new()),
                (_, "expr_context") => Value::Call { func: format!("{module}.Load"), args: vec![], kwargs: vec![], imports: vec![import.to_string()] },
                _ => Value::None,
            });
            (f.to_string(), v)
        })
        .collect();
    for &a in &n.attributes {
        // Positions are numbers whatever the first guess for the name was.
        let v = given(a).filter(|v| matches!(v, Value::Int(_))).unwrap_or(Value::Int(if a.ends_with("lineno") { 1 } else { 0 }));
        kwargs.push((a.to_string(), v));
    }
    Some(Value::Call { func: format!("{module}.{class}"), args: vec![], kwargs, imports: vec![import.to_string()] })
}

/// Whether a call (`func` with `imports`) builds an `ast` node: its root
/// is the name an import binds the `ast` module to, its last part a node
/// class. Its keyword arguments are then the node's attributes.
pub fn is_node_call(func: &str, imports: &[String]) -> bool {
    let Some((root, class)) = func.rsplit_once('.') else { return false };
    table().contains_key(class) && imports.iter().any(|i| i == &format!("import ast as {root}") || root == "ast" && i == "import ast")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_is_built_with_its_fields_and_positions() {
        let call = node("ast", "import ast", "Call", &[("args".into(), Value::List(vec![Value::Str("x".into())]))]).unwrap();
        assert_eq!(
            call,
            Value::Call {
                func: "ast.Call".into(),
                args: vec![],
                kwargs: vec![
                    ("func".into(), Value::None),
                    ("args".into(), Value::List(vec![Value::Str("x".into())])),
                    ("keywords".into(), Value::List(vec![])),
                    ("lineno".into(), Value::Int(1)),
                    ("col_offset".into(), Value::Int(0)),
                    ("end_lineno".into(), Value::Int(1)),
                    ("end_col_offset".into(), Value::Int(0)),
                ],
                imports: vec!["import ast".into()],
            }
        );
    }

    #[test]
    fn a_name_gets_a_load_context_and_foreign_attributes_refuse() {
        let Some(Value::Call { kwargs, .. }) = node("ast", "import ast", "Name", &[("id".into(), Value::Str("x".into()))]) else { panic!() };
        assert!(matches!(&kwargs[1].1, Value::Call { func, .. } if func == "ast.Load"));
        assert_eq!(node("ast", "import ast", "Name", &[("children".into(), Value::None)]), None);
        assert_eq!(node("ast", "import ast", "NoSuchNode", &[]), None);
    }

    #[test]
    fn only_the_ast_module_s_classes_build_nodes() {
        assert!(is_node_call("ast.Call", &["import ast".into()]));
        assert!(!is_node_call("sympy.Tuple", &["import sympy".into()]));
    }
}
