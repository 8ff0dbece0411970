//! Where a prefix goes in the document, and which of its imports the code
//! already has (pure).
//!
//! A module docstring, `from __future__` imports and the fragment's own
//! leading imports stay first: Python requires the first two there, and a
//! reader expects the imports on top. The prefix goes after them (its
//! values may use what they import), and an import it repeats (`import os`
//! when the fragment has it) is left out.

use super::syntax;
use std::collections::BTreeSet;
use tree_sitter::Node;

/// How a fragment begins: the lines its leading docstring, `__future__`
/// imports and imports take, and what those imports bind.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Leading {
    /// Lines (from the fragment's first) the prefix goes after: 0 when the
    /// fragment does not begin with a docstring or an import.
    pub lines: u32,
    /// Each import as one statement of one name (`import a, b` is
    /// `import a` and `import b`), whitespace normalised.
    pub imports: BTreeSet<String>,
}

/// `import a, b as c` -> {`import a`, `import b as c`}; `from m import (x, y)`
/// -> {`from m import x`, `from m import y`}; empty for any other statement.
fn single_imports(node: Node, src: &[u8]) -> Vec<String> {
    let text = |n: Node| n.utf8_text(src).unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cursor = node.walk();
    match node.kind() {
        "import_statement" => node.children_by_field_name("name", &mut cursor).map(|n| format!("import {}", text(n))).collect(),
        "import_from_statement" | "future_import_statement" => {
            let module = match node.child_by_field_name("module_name") {
                Some(m) => text(m),
                None => "__future__".to_string(),
            };
            let names: Vec<String> = node.children_by_field_name("name", &mut cursor).map(|n| format!("from {module} import {}", text(n))).collect();
            if names.is_empty() {
                // `from m import *`
                vec![text(node)]
            } else {
                names
            }
        }
        _ => Vec::new(),
    }
}

fn is_docstring(node: Node) -> bool {
    node.kind() == "expression_statement" && node.named_child_count() == 1 && node.named_child(0).is_some_and(|c| c.kind() == "string")
}

/// How `text` (the fragment, dedented) begins.
pub fn leading(text: &str) -> Leading {
    let mut out = Leading::default();
    let Some(tree) = syntax::parse_text(text) else { return out };
    let root = tree.root_node();
    let src = text.as_bytes();
    let mut cursor = root.walk();
    let mut first = true;
    for child in root.named_children(&mut cursor) {
        if child.kind() == "comment" {
            continue;
        }
        let imports = single_imports(child, src);
        if imports.is_empty() && !(first && is_docstring(child)) {
            break;
        }
        if child.has_error() {
            break;
        }
        first = false;
        out.imports.extend(imports);
        out.lines = child.end_position().row as u32 + 1;
    }
    out
}

/// `prefix` without the import statements whose every name is already
/// imported by `have` (and each kept import added to `have`, so the
/// prefix never repeats itself either).
pub fn without_repeated_imports(prefix: &str, have: &mut BTreeSet<String>) -> String {
    let Some(tree) = syntax::parse_text(prefix) else { return prefix.to_string() };
    let root = tree.root_node();
    let src = prefix.as_bytes();
    let mut drop_rows = BTreeSet::new();
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        let imports = single_imports(child, src);
        if imports.is_empty() || child.has_error() || child.start_position().row != child.end_position().row {
            continue;
        }
        if imports.iter().all(|i| have.contains(i)) && !imports.iter().any(|i| i.ends_with('*')) {
            // Only a statement alone on its line is dropped.
            let line = prefix.lines().nth(child.start_position().row).unwrap_or("");
            let stmt = child.utf8_text(src).unwrap_or("");
            let rest = line.trim().strip_prefix(stmt).unwrap_or("#").trim();
            if rest.is_empty() || rest.starts_with('#') {
                drop_rows.insert(child.start_position().row);
            }
        } else {
            have.extend(imports);
        }
    }
    prefix.split_inclusive('\n').enumerate().filter(|(row, _)| !drop_rows.contains(row)).map(|(_, l)| l).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_goes_after_the_docstring_future_and_imports() {
        let l = leading("\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nimport os\nfrom x import (a,\n    b)\n# why\nrows = load()\n");
        assert_eq!(l.lines, 5);
        assert!(l.imports.contains("import os"), "{:?}", l.imports);
        assert!(l.imports.contains("from x import a") && l.imports.contains("from x import b"), "{:?}", l.imports);
        assert!(l.imports.contains("from __future__ import annotations"), "{:?}", l.imports);
    }

    #[test]
    fn code_that_begins_otherwise_gets_the_prefix_on_top() {
        assert_eq!(leading("rows = load()\nimport os\n").lines, 0);
        assert_eq!(leading("x = \"not a docstring\" + y\n").lines, 0);
        assert_eq!(leading("try:\n    import ujson as json\nexcept ImportError:\n    import json\n").lines, 0);
    }

    #[test]
    fn an_import_the_code_has_is_not_added_again() {
        let mut have = leading("import os, sys\n").imports;
        let kept = without_repeated_imports("import os\nimport json\nimport json\ndata = json.loads('{}')\n", &mut have);
        assert_eq!(kept, "import json\ndata = json.loads('{}')\n");
        let mut have = BTreeSet::from(["import os".to_string()]);
        assert_eq!(without_repeated_imports("import os, re\n", &mut have), "import os, re\n", "re is new");
    }
}
