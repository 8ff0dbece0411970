//! A prefix a model wrote, as Python text, becomes a [`Prefix`] the session
//! runs like any other: each import binds its names, each other top-level
//! statement is the definition of the name it assigns (kept verbatim), a
//! statement that assigns nothing joins the definition before it, and
//! `os.environ["K"] = "v"` becomes an environment variable. Pure.

use super::extract::PrefixProposal;
use crate::exec::Resource;
use crate::synth::prefix::{names_bound_by_import, Binding, Candidate, Prefix};
use crate::synth::value::Value;

/// The prefix (or why it cannot be one: it does not parse).
pub fn to_prefix(p: &PrefixProposal) -> Result<Prefix, String> {
    let text = p.prefix.replace("\r\n", "\n");
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).map_err(|e| e.to_string())?;
    let tree = parser.parse(&text, None).ok_or("the prefix cannot be parsed")?;
    let root = tree.root_node();
    if root.has_error() {
        return Err("the prefix is not valid Python".into());
    }
    let mut prefix = Prefix::default();
    let mut imports: Vec<String> = Vec::new();
    // (name, source) of each definition, in order.
    let mut defs: Vec<(String, String)> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        let src = text[stmt.byte_range()].to_string();
        match stmt.kind() {
            "comment" => continue,
            "import_statement" | "import_from_statement" => {
                for name in names_bound_by_import(&src) {
                    prefix.bindings.retain(|b| b.name != name);
                    prefix.bindings.push(Binding::new(name, vec![Candidate::Import(src.clone())]));
                }
                imports.push(src);
                continue;
            }
            "future_import_statement" => continue,
            _ => {}
        }
        if let Some((k, v)) = environment_assignment(&src) {
            prefix.set_env(&k, &v);
            continue;
        }
        match defined_name(stmt, &text) {
            Some(name) => {
                let mut source = std::mem::take(&mut pending).join("\n");
                if !source.is_empty() {
                    source.push('\n');
                }
                source.push_str(&src);
                match defs.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, s)) => {
                        s.push('\n');
                        s.push_str(&source);
                    }
                    None => defs.push((name, source)),
                }
            }
            // `rows.append(3)` joins the definition of `rows`; `random.seed(0)`
            // the definition before it.
            None => match defs.iter().position(|(n, _)| Some(n.as_str()) == used_root(stmt, &text)).or(defs.len().checked_sub(1)).map(|i| &mut defs[i]) {
                Some((_, s)) => {
                    s.push('\n');
                    s.push_str(&src);
                }
                None => pending.push(src),
            },
        }
    }
    if !pending.is_empty() {
        defs.push(("_setup".into(), pending.join("\n")));
    }
    for (name, source) in defs {
        prefix.bindings.retain(|b| b.name != name);
        prefix.bindings.push(Binding::new(name, vec![Candidate::Value(Value::Code { source, imports: imports.clone() })]));
    }
    prefix.resources = p.files.iter().map(|f| Resource { path: f.path.clone(), content: f.content.clone().into_bytes() }).collect();
    Ok(prefix)
}

/// The name a top-level statement defines: a def's or class's name, an
/// assignment's first target (the root of `a.b = ...` or `a[k] = ...`).
fn defined_name(stmt: tree_sitter::Node, text: &str) -> Option<String> {
    let node = match stmt.kind() {
        "decorated_definition" => stmt.child_by_field_name("definition")?,
        "expression_statement" => stmt.named_child(0)?,
        _ => stmt,
    };
    match node.kind() {
        "function_definition" | "class_definition" => Some(text[node.child_by_field_name("name")?.byte_range()].to_string()),
        "assignment" | "augmented_assignment" => {
            let mut target = node.child_by_field_name("left")?;
            loop {
                match target.kind() {
                    "identifier" => return Some(text[target.byte_range()].to_string()),
                    "attribute" => target = target.child_by_field_name("object")?,
                    "subscript" => target = target.child_by_field_name("value")?,
                    "pattern_list" | "tuple_pattern" | "list_pattern" | "expression_list" => target = target.named_child(0)?,
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// The name an expression statement works on: `rows` in `rows.append(3)`.
fn used_root<'t>(stmt: tree_sitter::Node, text: &'t str) -> Option<&'t str> {
    let mut node = stmt.named_child(0)?;
    loop {
        match node.kind() {
            "identifier" => return Some(&text[node.byte_range()]),
            "call" => node = node.child_by_field_name("function")?,
            "attribute" => node = node.child_by_field_name("object")?,
            "subscript" => node = node.child_by_field_name("value")?,
            _ => return None,
        }
    }
}

/// `os.environ["K"] = "v"` (string literals both): what the shell exports.
fn environment_assignment(src: &str) -> Option<(String, String)> {
    let rest = src.trim().strip_prefix("os.environ[")?;
    let (key, value) = rest.split_once("] = ")?;
    let lit = |s: &str| {
        let s = s.trim();
        let q = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let inner = s.strip_prefix(q)?.strip_suffix(q)?;
        (!inner.contains(['\\', '"', '\''])).then(|| inner.to_string())
    };
    Some((lit(key)?, lit(value)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(text: &str) -> Prefix {
        to_prefix(&PrefixProposal { prefix: text.into(), files: vec![] }).unwrap()
    }

    #[test]
    fn statements_become_bindings_by_the_names_they_define() {
        let p = prefix("import json\nfrom pathlib import Path\nrows = [1, 2]\nrandom_state = 3\nprint('set up')\ndef load(p):\n    return json.loads(p)\nrows.append(3)\n");
        let names: Vec<&str> = p.bindings.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["json", "Path", "rows", "random_state", "load"]);
        assert!(matches!(p.binding("json").unwrap().current(), Candidate::Import(s) if s == "import json"));
        let Candidate::Value(Value::Code { source, .. }) = p.binding("rows").unwrap().current() else { panic!() };
        assert_eq!(source, "rows = [1, 2]\nrows.append(3)");
        let text = p.render();
        assert!(text.starts_with("import json\nfrom pathlib import Path\n"), "{text}");
        assert!(text.contains("random_state = 3\nprint('set up')"), "{text}");
    }

    #[test]
    fn environment_assignments_and_bad_python() {
        let p = prefix("import os\nos.environ['TOKEN'] = 'abc'\n");
        assert_eq!(p.environment, vec![("TOKEN".to_string(), "abc".to_string())]);
        assert!(to_prefix(&PrefixProposal { prefix: "def (:".into(), files: vec![] }).is_err());
        let p = prefix("json.loads = lambda s: {}\n");
        assert_eq!(p.bindings[0].name, "json", "an attribute assignment is bound to its root, for the realism check");
    }
}
