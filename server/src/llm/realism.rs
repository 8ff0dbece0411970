//! The realism invariant (issue 14) on everything a model writes: a module
//! or library name is bound only by an import, no library attribute is
//! assigned, no module object is made up, no file shadows a real module.
//! A proposal that breaks it is rejected before it runs. Pure.

use crate::knowledge::{conventional_import, distribution_for};
use crate::synth::library_names::{faked_library_name, patched_library_attribute};
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::session::Context;
use crate::synth::value::Value;

/// Why `prefix` fakes a library, if it does.
pub fn violation(ctx: &Context, prefix: &Prefix) -> Option<String> {
    if let Some(name) = faked_library_name(ctx, prefix) {
        return Some(format!("binds the library name `{name}` to a value instead of importing it"));
    }
    if let Some(target) = patched_library_attribute(prefix) {
        return Some(format!("assigns `{target}`, an attribute of an imported module"));
    }
    let imported: Vec<String> = ctx.analysis.imports.iter().flat_map(crate::analysis::import_bound_names).collect();
    for b in &prefix.bindings {
        let Candidate::Value(value) = b.current() else { continue };
        // Beyond the rules' check (which asks how the fragment uses a module
        // name: `code` or `string` may well be data): a conventional alias
        // (`np`, `pd`) or a name the fragment imports is never a value.
        if conventional_import(&b.name).is_some() || imported.contains(&b.name) {
            return Some(format!("binds `{}`, a module or imported name, to a value", b.name));
        }
        if let Value::Code { source, .. } = value {
            if let Some(why) = fake_module_code(source) {
                return Some(why);
            }
        }
    }
    prefix.resources.iter().find_map(|r| shadowed_module(ctx, &r.path).map(|m| format!("creates the file {:?}, which would shadow the real module `{m}`", r.path)))
}

/// Code that makes up a module or a mock of one.
fn fake_module_code(source: &str) -> Option<String> {
    const FAKES: &[(&str, &str)] = &[
        ("sys.modules", "edits sys.modules"),
        ("ModuleType(", "makes up a module object"),
        ("MagicMock", "mocks a library"),
        ("mock.patch", "patches a library"),
        ("unittest.mock", "mocks a library"),
        ("monkeypatch", "patches a library"),
        ("builtins.__import__", "replaces the import system"),
        ("importlib.util.module_from_spec", "makes up a module object"),
    ];
    let code: String = source.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    if let Some((_, why)) = FAKES.iter().find(|(needle, _)| code.contains(needle)) {
        return Some(why.to_string());
    }
    // `setattr(json, "loads", ...)`: an attribute of a module, assigned.
    for call in code.split("setattr(").skip(1) {
        let target = call.split(',').next().unwrap_or("").trim();
        if !target.is_empty() && target.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') && distribution_for(target).is_some() {
            return Some(format!("assigns an attribute of the module `{target}`"));
        }
    }
    None
}

/// The real module a file at `path` would stand in for (`numpy.py`,
/// `requests/__init__.py`), if any. Modules the fragment imports that exist
/// nowhere are the user's own and may be created.
pub fn shadowed_module(ctx: &Context, path: &str) -> Option<String> {
    let first = path.trim_start_matches("./").split('/').next().unwrap_or("");
    let is_package_dir = path.contains('/') && path.ends_with(".py");
    let stem = match first.strip_suffix(".py") {
        Some(s) => s,
        None if is_package_dir => first,
        None => return None,
    };
    (ctx.stdlib.contains(stem) || distribution_for(stem).is_some()).then(|| stem.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::extract::PrefixProposal;
    use super::super::proposal::to_prefix;
    use super::*;
    use crate::analysis::analyze;
    use std::collections::BTreeSet;

    fn check(fragment: &str, prefix: &str, files: &[&str]) -> Option<String> {
        let analysis = analyze(fragment);
        let stdlib: BTreeSet<String> = ["json", "os", "sys", "types", "collections"].iter().map(|s| s.to_string()).collect();
        let ctx = Context { fragment, analysis: &analysis, stdlib: &stdlib };
        let files = files.iter().map(|p| super::super::extract::FileProposal { path: p.to_string(), content: String::new() }).collect();
        let p = to_prefix(&PrefixProposal { prefix: prefix.into(), files }).unwrap();
        violation(&ctx, &p)
    }

    #[test]
    fn fakes_of_libraries_are_rejected() {
        let frag = "data = json.loads(text)\nprint(np.mean(data))\n";
        assert!(check(frag, "class json:\n    @staticmethod\n    def loads(s):\n        return [1]\ntext = '[1]'", &[]).is_some());
        assert!(check(frag, "import json\njson.loads = lambda s: [1]\ntext = 'x'", &[]).is_some());
        assert!(check(frag, "import numpy as np\nimport sys, types\nsys.modules['numpy'] = types.ModuleType('numpy')\ntext = '[1]'", &[]).is_some());
        assert!(check(frag, "from unittest.mock import MagicMock\nnp = MagicMock()\ntext = '[1]'", &[]).is_some());
        assert!(check(frag, "import json\ntext = '[1]'", &["numpy.py"]).is_some(), "a file that shadows numpy");
        assert!(check(frag, "import json\ntext = '[1]'", &["requests/__init__.py"]).is_some());
    }

    #[test]
    fn a_variable_named_like_a_module_may_hold_data() {
        assert_eq!(check("for ch in code:\n    print(ord(ch))\n", "code = 'abc'", &[]), None);
        assert!(check("print(np.mean([1]))\n", "np = 3", &[]).is_some(), "np is numpy's alias");
    }

    #[test]
    fn real_imports_and_values_pass() {
        let frag = "data = json.loads(text)\nprint(np.mean(data))\n";
        assert_eq!(check(frag, "import json\nimport numpy as np\ntext = '[1, 2]'", &["data/input.json"]), None);
        assert_eq!(check("import mylib\nmylib.go()\n", "x = 1", &["mylib.py"]), None, "the user's own module may be created");
    }
}
