//! Small edits of a prefix that rules share: bind an import, give a name
//! another value, set an environment variable; and whether a value can be
//! built with the libraries the fragment's environment will have.

use super::knowledge::well_known_import;
use super::prefix::{module_of_import, names_bound_by_import, Binding, Candidate, Prefix};
use super::session::Context;
use super::value::Value;
use crate::knowledge::conventional_import;

/// Bind what `stmt` imports, unless the prefix binds those names already.
pub(super) fn add_import(p: &mut Prefix, stmt: &str) {
    for name in names_bound_by_import(stmt) {
        if p.binding(&name).is_none() {
            p.bindings.insert(0, Binding::new(name, vec![Candidate::Import(stmt.to_string())]));
        }
    }
}

/// Set environment variable `name` to a value its name suggests, creating
/// the file the value names.
pub(super) fn set_env(p: &mut Prefix, name: &str) {
    let (value, file) = super::environment::env_value(name);
    p.set_env(name, &value);
    if let Some(f) = file {
        p.add_resource(f);
    }
}

/// A copy of `prefix` where `name` takes `value` (kept among its candidates).
pub(super) fn with_candidate(prefix: &Prefix, name: &str, value: Value) -> Prefix {
    let mut p = prefix.clone();
    if let Some(b) = p.binding_mut(name) {
        b.choose(value);
    }
    p
}

/// The top-level module an import statement imports from.
pub(super) fn import_top(stmt: &str) -> String {
    let module = module_of_import(stmt).unwrap_or_default();
    module.split('.').next().unwrap_or_default().to_string()
}

/// Whether a value can be built here: what it imports is the standard
/// library, something the fragment imports, or the library of an alias or
/// a well-known name it uses (`pd`, `DataFrame`): what the environment installs.
pub(super) fn buildable(ctx: &Context, v: &Value) -> bool {
    let mut imports = Vec::new();
    v.imports(&mut imports);
    imports.iter().map(|i| import_top(i)).all(|top| {
        ctx.stdlib.contains(&top)
            || ctx.analysis.imports.iter().any(|imp| imp.module.split('.').next() == Some(top.as_str()))
            || ctx.analysis.free_names.iter().filter_map(|f| conventional_import(&f.name).or_else(|| well_known_import(&f.name))).any(|stmt| import_top(stmt) == top)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_buildable_with_the_libraries_the_fragment_uses() {
        let stdlib: std::collections::BTreeSet<String> = ["io".to_string()].into();
        let series = Value::Expr { code: "pd.Series([1])".into(), imports: vec!["import pandas as pd".into()] };
        let buffer = Value::Expr { code: "io.BytesIO()".into(), imports: vec!["import io".into()] };
        for (src, pandas_there) in [("print(pd.__version__)\n", true), ("from pandas import concat\n", true), ("x.name\n", false)] {
            let analysis = crate::analysis::analyze(src);
            let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
            assert_eq!(buildable(&ctx, &series), pandas_there, "{src}");
            assert!(buildable(&ctx, &buffer));
        }
    }

    #[test]
    fn imports_name_their_top_level_module() {
        assert_eq!(import_top("import pandas as pd"), "pandas");
        assert_eq!(import_top("from pandas.tseries import offsets"), "pandas");
        assert_eq!(import_top("import os, sys"), "os");
        assert_eq!(import_top("from io import StringIO"), "io");
    }
}
