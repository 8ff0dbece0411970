//! Regular expressions the fragment compiles and names (`logpat =
//! re.compile(logpats)`, the pattern a string literal or a name assigned
//! one): what the text a fragment matches with them must look like, so a
//! file whose lines go to `logpat.match` holds lines it matches. Pure.

use super::literal::{literal, named, text};
use super::tree::Node;
use super::Literal;
use std::collections::BTreeMap;

/// Name -> pattern text of each name assigned `re.compile(<pattern>)`.
pub(crate) fn compiled_patterns(root: Node, src: &str) -> BTreeMap<String, String> {
    let mut strings = BTreeMap::new();
    let mut calls = Vec::new();
    visit(root, src, &mut strings, &mut calls);
    calls
        .into_iter()
        .filter_map(|(name, arg)| {
            let pattern = match arg {
                Pattern::Text(t) => t,
                Pattern::Name(n) => strings.get(&n)?.clone(),
            };
            Some((name, pattern))
        })
        .collect()
}

enum Pattern {
    Text(String),
    Name(String),
}

fn visit(node: Node, src: &str, strings: &mut BTreeMap<String, String>, calls: &mut Vec<(String, Pattern)>) {
    for child in named(node) {
        if child.kind() == "assignment" {
            assignment(child, src, strings, calls);
        }
        visit(child, src, strings, calls);
    }
}

fn assignment(node: Node, src: &str, strings: &mut BTreeMap<String, String>, calls: &mut Vec<(String, Pattern)>) {
    let (Some(left), Some(right)) = (node.child_by_field_name("left"), node.child_by_field_name("right")) else { return };
    if left.kind() != "identifier" {
        return;
    }
    let name = text(left, src).to_string();
    if let Some(Literal::Str(s)) = literal(right, src) {
        strings.entry(name).or_insert(s);
        return;
    }
    if right.kind() != "call" || right.child_by_field_name("function").map(|f| text(f, src)) != Some("re.compile") {
        return;
    }
    let Some(first) = right.child_by_field_name("arguments").and_then(|a| named(a).next()) else { return };
    let pattern = match (literal(first, src), first.kind()) {
        (Some(Literal::Str(s)), _) => Pattern::Text(s),
        (_, "identifier") => Pattern::Name(text(first, src).to_string()),
        _ => return,
    };
    calls.push((name, pattern));
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;

    #[test]
    fn a_compiled_pattern_is_read_through_the_name_of_its_text() {
        let a = analyze("import re\npats = r'(\\S+) ' \\\n       r'\\[(.*?)\\]'\npat = re.compile(pats)\nword = re.compile(r'\\w+', re.I)\nother = compile(x)\n");
        assert_eq!(a.compiled_patterns.get("pat").map(String::as_str), Some(r"(\S+) \[(.*?)\]"));
        assert_eq!(a.compiled_patterns.get("word").map(String::as_str), Some(r"\w+"));
        assert_eq!(a.compiled_patterns.len(), 2);
    }
}
