//! Which names belong to a library: a module (standard library, an import
//! name of the distribution table, a conventional alias such as `np`) or a
//! member imported from one (`Counter`, `tabulate`, the names of the
//! fragment's own `from X import a, b`, a name one indexed library alone
//! exports: `relativedelta`). Such a name is only ever bound by
//! an import: a hand-written class, object or function in its place would
//! fake the very library the fragment is about, and a person would delete
//! that prefix (issue 14). Pure.

use super::knowledge::well_known_import;
use super::module_use::{used_as_data, used_like_a_module};
use super::offline::PATCHES;
use super::prefix::{names_bound_by_import, Candidate, Prefix};
use super::session::Context;
use super::value::Value;
use crate::analysis::Usage;
use crate::knowledge::{conventional_import, distribution_for};

/// The fragment's own import statement that binds `name`, if any.
pub fn import_binding(ctx: &Context, name: &str) -> Option<String> {
    ctx.analysis.imports.iter().find_map(|i| {
        if i.level > 0 {
            return None;
        }
        if i.is_from {
            let (n, alias) = i.names.iter().find(|(n, a)| a.as_deref().unwrap_or(n) == name)?;
            Some(match alias {
                Some(a) => format!("from {} import {n} as {a}", i.module),
                None => format!("from {} import {n}", i.module),
            })
        } else {
            match &i.alias {
                Some(a) if a == name => Some(format!("import {} as {a}", i.module)),
                None if i.module.split('.').next() == Some(name) => Some(format!("import {}", i.module)),
                _ => None,
            }
        }
    })
}

/// The import statements that may bind `name` when it is a library name
/// (most likely first), or `None` when the fragment uses it as a variable of
/// its own and values may bind it.
///
/// Names the fragment or the tables tie to a library always count: the
/// fragment's own imports, conventional aliases, capitalised well-known
/// members (`Counter`, `BeautifulSoup`). A module name (standard library or
/// the distribution table) and a lowercase well-known member (`tabulate`,
/// `product`) count when the fragment uses the name the way one uses that
/// module or function: function bodies often have parameters named
/// `string`, `token` or `product` that are plain data.
pub fn library_imports(ctx: &Context, name: &str, usage: &Usage) -> Option<Vec<String>> {
    // The fragment gives it a value of its own: its variable, not the library.
    if ctx.analysis.literal_assignments.contains_key(name) {
        return None;
    }
    // `t.Optional[str]` in a fragment about Flask: the alias its own code
    // imports typing by; private ones too (`_json`), which the library wrote.
    if let Some(stmt) = super::library_aliases::import_for(ctx, name, usage) {
        return Some(vec![stmt]);
    }
    if name.starts_with('_') {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    if let Some(stmt) = import_binding(ctx, name) {
        push(stmt);
    }
    if let Some(stmt) = conventional_import(name) {
        push(stmt.to_string());
    }
    // A name a module the fragment imports exports (`request` beside
    // `from flask import Flask`): the import line the snippet cut short.
    if let Some(stmt) = super::library_types::exported_import(ctx, name, usage) {
        push(stmt);
    }
    let module_name = is_module_name(ctx, name) && !used_as_data(usage);
    // `json.load(...)`, or `httpx.get(url)`: used through attributes the
    // module itself exports (per the library index), though `get` alone is
    // also a dict's.
    let module = module_name && (used_like_a_module(usage) || uses_only_exports(name, usage));
    if module {
        // `html.fromstring(page)`: members the module of that name lacks
        // and a same-named library module has (`from lxml import html`)
        // come first; never for a name the fragment imports itself.
        if import_binding(ctx, name).is_none() {
            for stmt in super::module_choice::by_members(ctx, name, usage) {
                push(stmt);
            }
        }
        push(format!("import {name}"));
    }
    // `tabulate(rows)`, `glob('*.txt')`: a module called like a function
    // stands for the callable of the same name it exports.
    if module_name && !usage.calls.is_empty() && usage.attrs.is_empty() {
        push(format!("from {name} import {name}"));
    }
    if let Some(stmt) = well_known_import(name) {
        let class_like = name.starts_with(char::is_uppercase);
        // A lowercase member used with attributes (`product.price`) is data,
        // unless it is a module's name too (`datetime.now()`).
        let member_like = !used_as_data(usage) && (usage.attrs.is_empty() || module_name);
        if class_like || member_like {
            push(stmt.to_string());
        }
    }
    // `relativedelta(months=1)` with no import: the one library that
    // exports the name, when the name and its use leave no doubt.
    if let Some(stmt) = super::sole_exports::import_for(ctx, name, usage) {
        push(stmt);
    }
    (!out.is_empty()).then_some(out)
}

/// Whether `usage` reads attributes of `module`, never calls it, and every
/// attribute is one the indexed module exports.
fn uses_only_exports(module: &str, usage: &Usage) -> bool {
    let Some(exports) = super::library_types::exports_of(module) else { return false };
    usage.calls.is_empty() && !usage.attrs.is_empty() && usage.attrs.keys().all(|a| exports.contains_key(a.as_str()))
}

/// The first name `prefix` binds to a value although it is a library name
/// (a prefix that fakes a library), if any.
pub fn faked_library_name<'a>(ctx: &Context, prefix: &'a Prefix) -> Option<&'a str> {
    prefix
        .bindings
        .iter()
        .find(|b| {
            matches!(b.current(), Candidate::Value(_))
                && !prefix.not_modules.contains(&b.name)
                && library_imports(ctx, &b.name, &ctx.usage_of(&b.name)).is_some()
        })
        .map(|b| b.name.as_str())
}

/// The first assignment a definition of `prefix` makes to an attribute of
/// something it imports (`json.load = ...`), other than the declared
/// offline transport's (`offline::PATCHES`), if any.
pub fn patched_library_attribute(prefix: &Prefix) -> Option<String> {
    prefix.bindings.iter().find_map(|b| {
        let Candidate::Value(Value::Code { source, imports }) = b.current() else {
            return None;
        };
        let roots: Vec<String> = imports
            .iter()
            .flat_map(|i| names_bound_by_import(i))
            .collect();
        source.lines().find_map(|line| {
            let (target, _) = line.split_once(" = ")?;
            let dotted = target.contains('.')
                && target
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
            let root = target.split('.').next().unwrap_or("");
            (dotted && roots.iter().any(|r| r == root) && !PATCHES.contains(&target))
                .then(|| target.to_string())
        })
    })
}

/// Whether a run that shows the module named `name` lacks an attribute
/// the fragment reads (`module 'signal' has no attribute 'code'`) means the
/// fragment's `name` is a variable named like a module: only when the
/// fragment also uses it as a value (passes it to a function, tests or
/// formats it), and never for a name it imports, a conventional alias or a
/// library member. (`json.parse(s)` alone is wrong code, not a variable.)
pub fn may_be_a_variable(ctx: &Context, name: &str, usage: &Usage) -> bool {
    let as_value = !usage.passed_to.is_empty() || usage.truth_tested || usage.formatted;
    as_value
        && import_binding(ctx, name).is_none()
        && conventional_import(name).is_none()
        && well_known_import(name).is_none()
        && is_module_name(ctx, name)
}

/// Whether `name` is the top-level name of a module the interpreter or the
/// distribution table knows.
pub fn is_module_name(ctx: &Context, name: &str) -> bool {
    ctx.stdlib.contains(name) || distribution_for(name).is_some() && !name.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use std::collections::BTreeSet;

    fn imports_for(src: &str, name: &str) -> Option<Vec<String>> {
        let stdlib: BTreeSet<String> = [
            "json",
            "string",
            "datetime",
            "collections",
            "itertools",
            "sqlite3",
            "asyncio",
            "glob",
            "html",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let analysis = analyze(src);
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        library_imports(&ctx, name, &ctx.usage_of(name))
    }

    #[test]
    fn modules_aliases_and_members_are_library_names() {
        assert_eq!(
            imports_for("data = json.load(open('settings.json'))\n", "json").unwrap(),
            ["import json"]
        );
        assert_eq!(
            imports_for("x = np.linalg.solve(A, b)\n", "np").unwrap(),
            ["import numpy as np"]
        );
        assert_eq!(
            imports_for("asyncio.run(main())\n", "asyncio").unwrap(),
            ["import asyncio"]
        );
        assert_eq!(
            imports_for("print(tabulate(rows, headers=['a']))\n", "tabulate").unwrap(),
            ["from tabulate import tabulate"]
        );
        assert_eq!(
            imports_for("for f in glob('*.txt'):\n    print(f)\n", "glob").unwrap(),
            ["from glob import glob"]
        );
        assert_eq!(
            imports_for("c = Counter(words)\nc.most_common(1)\n", "Counter").unwrap(),
            ["from collections import Counter"]
        );
        assert_eq!(
            imports_for(
                "soup = BeautifulSoup(html, 'html.parser')\n",
                "BeautifulSoup"
            )
            .unwrap(),
            ["from bs4 import BeautifulSoup"]
        );
        // `get` is also a dict's, but httpx exports it: the module.
        assert_eq!(
            imports_for("r = httpx.get(url, params=params)\nprint(r.url)\n", "httpx").unwrap(),
            ["import httpx"]
        );
        let both = imports_for("print(datetime.now())\n", "datetime").unwrap();
        assert_eq!(both, ["import datetime", "from datetime import datetime"]);
    }

    #[test]
    fn a_module_lacking_the_members_used_gives_way_to_a_same_named_library_module() {
        // The standard library's `html` has no `fromstring`: lxml's first,
        // the module of that name still after it.
        assert_eq!(
            imports_for("tree = html.fromstring(page)\n", "html").unwrap(),
            ["from lxml import html", "import html"]
        );
        assert_eq!(imports_for("print(html.escape(s))\n", "html").unwrap(), ["import html"]);
        // The fragment's own import says which module it is.
        assert_eq!(
            imports_for("tree = html.fromstring(page)\nimport html\n", "html").unwrap(),
            ["import html"]
        );
    }

    #[test]
    fn a_name_the_fragment_imports_later_is_bound_by_that_import() {
        let src = "app.run()\nfrom flask import Flask\napp = Flask(__name__)\n";
        let analysis = analyze(src);
        let stdlib = BTreeSet::new();
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        assert_eq!(
            library_imports(&ctx, "Flask", &Usage::default()).unwrap(),
            ["from flask import Flask"]
        );
    }

    #[test]
    fn only_the_declared_transport_patches_a_library() {
        let code = |source: &str| Value::Code {
            source: source.into(),
            imports: vec!["import json".into(), "import requests.adapters".into()],
        };
        let mut p = Prefix::default();
        p.bindings.push(crate::synth::prefix::Binding::new(
            "_t",
            vec![Candidate::Value(code(
                "def f(*a):\n    pass\n\n\nrequests.adapters.HTTPAdapter.send = f",
            ))],
        ));
        assert_eq!(patched_library_attribute(&p), None);
        p.bindings.push(crate::synth::prefix::Binding::new(
            "_j",
            vec![Candidate::Value(code("json.load = lambda f: {}"))],
        ));
        assert_eq!(patched_library_attribute(&p).as_deref(), Some("json.load"));
    }

    #[test]
    fn a_module_lacking_an_attribute_is_a_variable_only_if_used_as_a_value() {
        let stdlib: BTreeSet<String> = ["signal", "json"].iter().map(|s| s.to_string()).collect();
        let src = "if signal.code is None:\n    handle(signal)\nprint(json.parse(s))\n";
        let analysis = analyze(src);
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        let usage = |n: &str| {
            analysis
                .free_names
                .iter()
                .find(|f| f.name == n)
                .unwrap()
                .usage
                .clone()
        };
        assert!(may_be_a_variable(&ctx, "signal", &usage("signal")));
        assert!(!may_be_a_variable(&ctx, "json", &usage("json")));
    }

    #[test]
    fn variables_named_like_modules_stay_variables() {
        assert_eq!(imports_for("parts = string.split(',')\n", "string"), None);
        assert_eq!(
            imports_for("for p in product:\n    print(p.price)\n", "product"),
            None
        );
        assert_eq!(imports_for("total = items + 1\n", "items"), None);
        assert_eq!(
            imports_for("json = {'a': 1}\nprint(json['a'])\n", "json"),
            None
        );
    }
}
