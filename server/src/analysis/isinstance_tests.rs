//! `isinstance` tests anywhere in a piece of Python text, read from the
//! tree (`condition_tree` builds each call as a [`Condition::IsInstance`]),
//! never by splitting the text on commas and parentheses. Pure.

use super::condition::Condition;
use super::parse::{dedent, parse};

/// `isinstance(path, T)` and `isinstance(path, (A, B))` calls in `text`, in
/// source order: the tested dotted path and each type that is a dotted name.
pub fn isinstance_calls(text: &str) -> Vec<(String, Vec<String>)> {
    let (text, _) = dedent(text);
    let tree = parse(&text);
    let mut out = Vec::new();
    let mut stack = vec![tree.root()];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            if let Condition::IsInstance { subject, types } = super::condition_tree::build(node, &text) {
                let types: Vec<String> = types.iter().filter_map(Condition::dotted).collect();
                if let (Some(path), false) = (subject.dotted(), types.is_empty()) {
                    out.push((path, types));
                }
            }
        }
        stack.extend(node.named_children().rev());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tested_paths_with_their_dotted_types() {
        let calls = isinstance_calls("if isinstance(node.value, (ast.Call, str)) and not isinstance(x, type(y)):\n    f(isinstance(z, Path))\n");
        assert_eq!(calls, [("node.value".to_string(), vec!["ast.Call".to_string(), "str".to_string()]), ("z".to_string(), vec!["Path".to_string()])]);
        assert!(isinstance_calls("s = 'isinstance(a, B)'").is_empty());
        assert_eq!(isinstance_calls("    return isinstance(item, dict)\n"), [("item".to_string(), vec!["dict".to_string()])]);
    }
}
