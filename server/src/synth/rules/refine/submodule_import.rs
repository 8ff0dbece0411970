//! `module 'urllib' has no attribute 'request'`: a submodule that
//! `import urllib` does not load; it is imported too (still an import),
//! only for an attribute the fragment uses like a module itself
//! (`urllib.request.urlopen`, not `signal.code is None`). The package is
//! the prefix's binding of a bare name (`urllib`) or the fragment's own
//! import (`import jinja2`, then `jinja2.nativetypes.NativeEnvironment()`):
//! then the prefix imports the submodule first and the fragment's import
//! finds it loaded. Submodules imported before stay imported; one the
//! library index says the package does not have is never proposed.

use crate::analysis::Usage;
use crate::synth::bindings::usage_of;
use crate::synth::library_types;
use crate::synth::module_use;
use crate::synth::prefix::{Binding, Candidate, Prefix};
use crate::synth::rules::refine::Refine;
use crate::synth::rules::Failure;
use crate::synth::session::Context;

pub struct SubmoduleImport;

impl Refine for SubmoduleImport {
    fn name(&self) -> &'static str {
        "submodule-import"
    }
    fn exception(&self) -> &'static str {
        "AttributeError"
    }
    fn reads(&self, _ctx: &Context, fail: &Failure) -> bool {
        fail.module_lacking_member().is_some()
    }
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        let (Some(module), Some(attr)) = (fail.module_lacking_member(), fail.error.name.as_deref()) else { return Vec::new() };
        let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !plain(attr) || !module.split('.').all(plain) || module.starts_with('_') {
            return Vec::new();
        }
        let root = module.split('.').next().unwrap_or_default();
        let own = fragment_imports(ctx, &module);
        // The prefix binds a bare name; the fragment's own import of a package is the other case.
        let bound = fail.base.binding(root).filter(|b| b.import_only());
        let usage = match (&own, bound) {
            (Some(u), _) => u.clone(),
            (None, Some(_)) if !module.contains('.') => usage_of(ctx, root),
            _ => return Vec::new(),
        };
        let used_as_module = usage.attrs.get(attr).is_some_and(module_use::used_like_a_module);
        if !used_as_module || library_types::has_submodule(&module, attr) == Some(false) {
            return Vec::new();
        }
        let path = format!("{module}.{attr}");
        let mut p = fail.base.clone();
        match p.binding_mut(root) {
            Some(b) => {
                let Candidate::Import(current) = b.current() else { return Vec::new() };
                let Some(stmt) = with_submodule(current, &path).map(Candidate::Import) else { return Vec::new() };
                if b.candidates.contains(&stmt) {
                    return Vec::new();
                }
                b.candidates.insert(b.choice + 1, stmt);
                b.choice += 1;
            }
            None => p.bindings.push(Binding::new(root, vec![Candidate::Import(format!("import {path}"))])),
        }
        vec![p]
    }
}

/// How the fragment uses module `module` where its own `import` binds it
/// (`import jinja2`, `import xml.etree as et`), if it does.
fn fragment_imports(ctx: &Context, module: &str) -> Option<Usage> {
    let root = module.split('.').next()?;
    ctx.analysis.imports.iter().filter(|i| i.level == 0 && !i.is_from).find_map(|i| match &i.alias {
        Some(a) if i.module == module => Some(ctx.analysis.imported_usage.get(a).cloned().unwrap_or_default()),
        None if i.module.split('.').next() == Some(root) => {
            let mut u = ctx.analysis.imported_usage.get(root).cloned().unwrap_or_default();
            for part in module.split('.').skip(1) {
                u = u.attrs.get(part).cloned().unwrap_or_default();
            }
            Some(u)
        }
        _ => None,
    })
}

/// Import statement `current` with submodule `path` imported too: a plain
/// `import a, b.c` keeps what it imports except the packages of `path`,
/// which importing `path` imports anyway (`import urllib` becomes
/// `import urllib.request`); any other statement gives way to `path`'s.
/// `None` when it imports `path` already.
fn with_submodule(current: &str, path: &str) -> Option<String> {
    let items: Vec<&str> = match current.strip_prefix("import ") {
        Some(list) if !list.contains(" as ") => list.split(',').map(str::trim).collect(),
        _ => Vec::new(),
    };
    if items.contains(&path) {
        return None;
    }
    let mut kept: Vec<&str> = items.into_iter().filter(|i| !path.starts_with(&format!("{i}."))).collect();
    kept.push(path);
    Some(format!("import {}", kept.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::with_submodule;
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_submodule_used_as_a_module_is_imported() {
        refine(&super::SubmoduleImport, "print(urllib.request.urlopen('http://example.com'))\n", module_lacking("urllib", "request", 1), expect![[r#"
            ## 1
            import urllib.request
        "#]]);
    }

    #[test]
    fn a_submodule_of_a_package_the_fragment_imports_is_imported_before_it() {
        // `import jinja2` does not load `jinja2.sandbox`.
        let src = "import jinja2\nenv = jinja2.sandbox.SandboxedEnvironment()\nprint(env.from_string('{{ 1 }}').render())\n";
        refine(&super::SubmoduleImport, src, module_lacking("jinja2", "sandbox", 2), expect![[r#"
            ## 1
            import jinja2.sandbox
        "#]]);
        // Below a dotted import, with an alias.
        let src = "import xml.etree as et\nroot = et.ElementTree.fromstring('<a/>')\n";
        refine(&super::SubmoduleImport, src, module_lacking("xml.etree", "ElementTree", 2), expect![[r#"
            ## 1
            import xml.etree.ElementTree
        "#]]);
    }

    #[test]
    fn what_the_package_does_not_have_or_is_not_used_as_a_module_is_left() {
        // The index lists jinja2's submodules: it has no `widgets`.
        refine(&super::SubmoduleImport, "import jinja2\nw = jinja2.widgets.Button()\n", module_lacking("jinja2", "widgets", 2), expect![[r#"
            (nothing)
        "#]]);
        refine(&super::SubmoduleImport, "import json\nprint(json.parse(text))\n", module_lacking("json", "parse", 2), expect![[r#"
            (nothing)
        "#]]);
    }

    #[test]
    fn submodules_imported_before_stay() {
        assert_eq!(with_submodule("import urllib", "urllib.request").as_deref(), Some("import urllib.request"));
        assert_eq!(with_submodule("import urllib.request", "urllib.parse").as_deref(), Some("import urllib.request, urllib.parse"));
        assert_eq!(with_submodule("import urllib.request", "urllib.request"), None);
        assert_eq!(with_submodule("from os import path", "os.path.x").as_deref(), Some("import os.path.x"));
    }
}
