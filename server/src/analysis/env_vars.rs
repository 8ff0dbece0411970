//! Environment variables the fragment reads by a literal name:
//! `os.environ["API_TOKEN"]` (it fails without one), `os.environ.get("X")`
//! and `os.getenv("X", default)` (it takes another path without one).

use super::facts::EnvRead;
use super::literal::{line, named, str_value, text};
use super::tree::Node;

const LOOKUPS: &[&str] = &["os.environ.get", "environ.get", "os.getenv", "getenv"];
const MAPPINGS: &[&str] = &["os.environ", "environ"];

pub(crate) fn env_reads(root: Node, src: &str) -> Vec<EnvRead> {
    let mut out: Vec<EnvRead> = Vec::new();
    // Each node with the kind of its parent: `os.environ["X"] = ...` and
    // `del os.environ["X"]` write, not read.
    let mut stack = vec![(root, "")];
    while let Some((node, parent)) = stack.pop() {
        let written = parent == "delete_statement" || (matches!(parent, "assignment" | "augmented_assignment") && node.field_name() == Some("left"));
        if let Some(read) = read_at(node, src).filter(|_| !written) {
            match out.iter_mut().find(|r| r.name == read.name) {
                // Read both ways: the read that fails without it decides.
                Some(r) => r.required |= read.required,
                None => out.push(read),
            }
        }
        stack.extend(named(node).rev().map(|c| (c, node.kind())));
    }
    out.sort_by_key(|r| r.line);
    out
}

fn read_at(node: Node, src: &str) -> Option<EnvRead> {
    match node.kind() {
        "subscript" => {
            let value = node.child_by_field_name("value")?;
            if !MAPPINGS.contains(&text(value, src)) {
                return None;
            }
            let key = node.child_by_field_name("subscript")?;
            Some(EnvRead { name: str_value(key, src)?, line: line(node), required: true })
        }
        "call" => {
            let func = node.child_by_field_name("function")?;
            if !LOOKUPS.contains(&text(func, src)) {
                return None;
            }
            let first = named(node.child_by_field_name("arguments")?).next()?;
            Some(EnvRead { name: str_value(first, src)?, line: line(node), required: false })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;

    #[test]
    fn literal_names_read_from_the_environment() {
        let src = "import os\ntoken = os.environ['API_TOKEN']\nhome = os.getenv('APP_HOME', '.')\nos.environ['SET_HERE'] = '1'\nif os.environ.get('API_TOKEN'):\n    pass\nname = os.environ.get(key)\n";
        let reads = analyze(src).env_reads;
        let got: Vec<(&str, u32, bool)> = reads.iter().map(|r| (r.name.as_str(), r.line, r.required)).collect();
        assert_eq!(got, [("API_TOKEN", 2, true), ("APP_HOME", 3, false)]);
    }
}
