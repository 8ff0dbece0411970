//! Sorting a fragment's imports into what the interpreter has, what must be
//! installed, and what nobody knows.

use crate::analysis::Import;
use crate::knowledge;
use serde::Serialize;
use std::collections::BTreeSet;

/// Where each import of a fragment comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportPlan {
    /// Imports served by the standard library (as written, first-seen order).
    pub stdlib: Vec<String>,
    /// Distributions to install for the third-party imports.
    pub distributions: BTreeSet<String>,
    /// Imports that are neither standard library nor in the knowledge table.
    /// These are reported, never installed: guessing a PyPI name from an
    /// import name is how typosquatted packages get installed.
    pub unknown: Vec<String>,
    /// Relative imports (`.models`, `..utils.x`, `.`): the fragment's own
    /// package, which no installer can provide.
    pub local: Vec<String>,
}

/// Classify `modules` (dotted import paths as written: `os.path`,
/// `matplotlib.pyplot`, `.sibling`) against the interpreter's top-level
/// standard-library names. Pure: no I/O.
///
/// The standard library wins over the table (a stdlib name is never
/// installed), then the longest dotted prefix in the knowledge table; blank
/// entries are ignored and every list is free of duplicates.
pub fn plan_imports(modules: &[String], stdlib: &BTreeSet<String>) -> ImportPlan {
    let mut plan = ImportPlan::default();
    for module in modules {
        let module = module.trim();
        if module.is_empty() {
            continue;
        }
        if module.starts_with('.') {
            push_unique(&mut plan.local, module);
            continue;
        }
        let top = module.split('.').next().unwrap_or(module);
        if stdlib.contains(top) {
            push_unique(&mut plan.stdlib, module);
        } else if let Some(dist) = knowledge::distribution_for(module) {
            plan.distributions.insert(dist.to_string());
        } else {
            push_unique(&mut plan.unknown, module);
        }
    }
    plan
}

/// The import paths of a fragment's own absolute imports, as
/// [`plan_imports`] reads them (`from ruamel import yaml`: `ruamel.yaml`).
pub fn fragment_import_paths(imports: &[Import]) -> Vec<String> {
    imports
        .iter()
        .filter(|i| i.level == 0 && !i.module.is_empty())
        .map(|i| if i.is_from { knowledge::from_import_path(&i.module, i.names.iter().map(|(n, _)| n.as_str())) } else { i.module.clone() })
        .collect()
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|seen| seen == item) {
        list.push(item.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdlib() -> BTreeSet<String> {
        ["os", "sys", "json", "collections", "xml", "__future__"]
            .into_iter()
            .map(String::from)
            .collect()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sorts_every_kind_of_import() {
        let modules = strings(&[
            "os.path",
            "numpy",
            "cv2",
            "google.protobuf.json_format",
            "matplotlib.pyplot",
            "matplotlib",
            "mymodule",
            ".models",
            "..",
            "xml.etree.ElementTree",
            "__future__",
            "",
            "os.path",
        ]);
        let plan = plan_imports(&modules, &stdlib());
        assert_eq!(
            plan.stdlib,
            strings(&["os.path", "xml.etree.ElementTree", "__future__"])
        );
        assert_eq!(
            plan.distributions,
            ["numpy", "opencv-python", "protobuf", "matplotlib"]
                .into_iter()
                .map(String::from)
                .collect()
        );
        assert_eq!(plan.unknown, strings(&["mymodule"]));
        assert_eq!(plan.local, strings(&[".models", ".."]));
    }

    #[test]
    fn stdlib_shadows_the_table_and_unknown_is_never_planned() {
        let mut stdlib = stdlib();
        stdlib.insert("numpy".into());
        let plan = plan_imports(&strings(&["numpy", "numpyy", "google"]), &stdlib);
        assert_eq!(plan.stdlib, strings(&["numpy"]));
        assert!(plan.distributions.is_empty());
        assert_eq!(plan.unknown, strings(&["numpyy", "google"]));
    }

    #[test]
    fn a_namespace_package_is_planned_by_the_module_imported_from_it() {
        let analysis = crate::analysis::analyze("from ruamel import yaml\nfrom lxml import html\nfrom os import path\n");
        let paths = fragment_import_paths(&analysis.imports);
        assert_eq!(paths, strings(&["ruamel.yaml", "lxml", "os"]));
        let plan = plan_imports(&paths, &stdlib());
        assert_eq!(plan.distributions, ["lxml", "ruamel.yaml"].into_iter().map(String::from).collect());
        assert!(plan.unknown.is_empty());
    }

    #[test]
    fn empty_input_gives_an_empty_plan() {
        assert_eq!(plan_imports(&[], &stdlib()), ImportPlan::default());
    }
}
