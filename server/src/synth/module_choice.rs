//! Which module a module-like name is, told by the members the fragment
//! uses: `html.fromstring(page)` is not the standard library's `html`
//! (which has no `fromstring`) but lxml's, `from lxml import html`;
//! `yaml.YAML()` is ruamel's `yaml`, not PyYAML's. Read from the library
//! index's `attrs` lines (every attribute of each of two same-named
//! modules), never from a table of cases. Pure.

use super::library_types::{fragment_modules, module_attrs, modules_named};
use super::session::Context;
use crate::analysis::Usage;

/// The imports of the library modules `P.name` that have every attribute
/// in `used` (`from lxml import html`), the ones of libraries the fragment
/// already uses first, then by name.
pub fn having(ctx: &Context, name: &str, used: &[&str]) -> Vec<String> {
    if used.is_empty() {
        return Vec::new();
    }
    let uses: Vec<String> = fragment_modules(ctx).iter().map(|m| m.split('.').next().unwrap_or("").to_string()).collect();
    let mut found: Vec<&str> = modules_named(name)
        .into_iter()
        .filter(|(_, attrs)| used.iter().all(|a| attrs.contains(a)))
        .map(|(m, _)| m)
        .collect();
    // Stable: name order within each group.
    found.sort_by_key(|m| !uses.iter().any(|u| Some(u.as_str()) == m.split('.').next()));
    found
        .into_iter()
        .filter_map(|m| m.rsplit_once('.'))
        .map(|(package, last)| format!("from {package} import {last}"))
        .collect()
}

/// For a name used the way one uses a module: the imports of same-named
/// library modules that have every attribute the fragment reads of it,
/// when the module of that exact name (the standard library's `html`,
/// PyYAML's `yaml`) lacks one of them. Nothing when the index does not
/// know what that module has.
pub fn by_members(ctx: &Context, name: &str, usage: &Usage) -> Vec<String> {
    let used: Vec<&str> = usage.attrs.keys().map(String::as_str).collect();
    match module_attrs(name) {
        Some(own) if !used.iter().all(|a| own.contains(a)) => having(ctx, name, &used),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use std::collections::BTreeSet;

    fn choices(src: &str, name: &str) -> Vec<String> {
        let analysis = analyze(src);
        let stdlib = BTreeSet::new();
        let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
        by_members(&ctx, name, &ctx.usage_of(name))
    }

    #[test]
    fn members_the_same_named_module_lacks_choose_the_library_one() {
        // The standard library's `html` has `escape`, not `fromstring`.
        assert_eq!(choices("doc = html.fromstring(page)\nprint(doc)\n", "html"), ["from lxml import html"]);
        // PyYAML has no `YAML` class; ruamel.yaml has.
        assert_eq!(choices("y = yaml.YAML()\ny.dump(data, out)\n", "yaml"), ["from ruamel import yaml"]);
    }

    #[test]
    fn members_the_module_has_keep_it() {
        assert!(choices("print(html.escape(text))\n", "html").is_empty());
        assert!(choices("cfg = yaml.safe_load(text)\n", "yaml").is_empty());
        // Nothing has all of them: no library module to choose.
        assert!(choices("x = html.fromstring(page)\nhtml.no_such_member()\n", "html").is_empty());
    }

    #[test]
    fn a_library_the_fragment_uses_comes_first() {
        // Several libraries have a `types` module with `Integer`... only one
        // of them when the fragment is about it.
        let src = "from sqlalchemy import Column\nid = Column(types.Integer, primary_key=True)\n";
        let got = choices(src, "types");
        assert_eq!(got.first().map(String::as_str), Some("from sqlalchemy import types"), "{got:?}");
    }
}
