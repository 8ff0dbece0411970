//! Import statements as [`Import`] records, and the names they bind.

use super::facts::Import;
use super::literal::{line, named, text};
use super::tree::Node;

/// `import a, b as c` gives one record per module; `from` imports give one
/// record with all names.
pub(crate) fn imports(node: Node, src: &str) -> Vec<Import> {
    let dotted = |n: Node| -> String {
        text(n, src)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    let names: Vec<Node> = node.children_by_field_name("name").collect();
    let line = line(node);
    match node.kind() {
        "import_statement" => names
            .into_iter()
            .map(|n| {
                let (module, alias) = aliased(n, src, &dotted);
                Import {
                    line,
                    module,
                    level: 0,
                    alias,
                    names: Vec::new(),
                    is_from: false,
                }
            })
            .collect(),
        "import_from_statement" | "future_import_statement" => {
            let (module, level) = match node.child_by_field_name("module_name") {
                None => ("__future__".to_string(), 0),
                Some(m) if m.kind() == "relative_import" => {
                    let prefix = named(m).into_iter().find(|c| c.kind() == "import_prefix");
                    let level = prefix.map_or(0, |p| {
                        text(p, src).chars().filter(|c| *c == '.').count() as u32
                    });
                    let module = named(m)
                        .into_iter()
                        .find(|c| c.kind() == "dotted_name")
                        .map(dotted)
                        .unwrap_or_default();
                    (module, level)
                }
                Some(m) => (dotted(m), 0),
            };
            let mut list: Vec<(String, Option<String>)> = names
                .into_iter()
                .map(|n| aliased(n, src, &dotted))
                .collect();
            if named(node).any(|c| c.kind() == "wildcard_import") {
                list.push(("*".to_string(), None));
            }
            vec![Import {
                line,
                module,
                level,
                alias: None,
                names: list,
                is_from: true,
            }]
        }
        _ => Vec::new(),
    }
}

fn aliased(n: Node, src: &str, dotted: &dyn Fn(Node) -> String) -> (String, Option<String>) {
    if n.kind() == "aliased_import" {
        let name = n
            .child_by_field_name("name")
            .map(dotted)
            .unwrap_or_default();
        let alias = n
            .child_by_field_name("alias")
            .map(|a| text(a, src).to_string());
        (name, alias)
    } else {
        (dotted(n), None)
    }
}

/// `import a.b` binds `a`; `import a.b as c` binds `c`; `from m import x as
/// y` binds `y`; a star import binds nothing we can name.
pub(crate) fn bound_names(import: &Import) -> Vec<String> {
    if !import.is_from {
        let first = import.module.split('.').next().unwrap_or_default();
        return vec![import.alias.clone().unwrap_or_else(|| first.to_string())];
    }
    import
        .names
        .iter()
        .filter(|(n, _)| n != "*")
        .map(|(n, a)| a.clone().unwrap_or_else(|| n.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse;

    fn all(src: &str) -> Vec<Import> {
        let tree = parse(src);
        named(tree.root()).flat_map(|s| imports(s, src)).collect()
    }

    fn imp(
        line: u32,
        module: &str,
        level: u32,
        alias: Option<&str>,
        names: &[(&str, Option<&str>)],
        is_from: bool,
    ) -> Import {
        Import {
            line,
            module: module.into(),
            level,
            alias: alias.map(Into::into),
            names: names
                .iter()
                .map(|(n, a)| (n.to_string(), a.map(Into::into)))
                .collect(),
            is_from,
        }
    }

    #[test]
    fn plain_imports() {
        assert_eq!(
            all("import os.path, numpy as np\n"),
            vec![
                imp(1, "os.path", 0, None, &[], false),
                imp(1, "numpy", 0, Some("np"), &[], false)
            ]
        );
        assert_eq!(bound_names(&all("import os.path\n")[0]), ["os"]);
    }

    #[test]
    fn from_imports() {
        assert_eq!(
            all("from a.b import c as d, e\n"),
            vec![imp(
                1,
                "a.b",
                0,
                None,
                &[("c", Some("d")), ("e", None)],
                true
            )]
        );
        assert_eq!(
            all("from .. import x\n"),
            vec![imp(1, "", 2, None, &[("x", None)], true)]
        );
        assert_eq!(
            all("from .m import (y)\n"),
            vec![imp(1, "m", 1, None, &[("y", None)], true)]
        );
        assert_eq!(
            all("from m import *\n"),
            vec![imp(1, "m", 0, None, &[("*", None)], true)]
        );
        assert_eq!(
            all("from __future__ import annotations\n"),
            vec![imp(
                1,
                "__future__",
                0,
                None,
                &[("annotations", None)],
                true
            )]
        );
        assert!(bound_names(&all("from m import *\n")[0]).is_empty());
    }
}
