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
    let value = spelled_for(prefix, value);
    if let Some(b) = p.binding_mut(name) {
        b.choose(value);
    }
    p
}

/// `value` spelled through the names `p` binds: a library value written
/// through its module (`datetime.datetime(2024, 1, 15)`, `import datetime`)
/// where the prefix binds the module's name to the class of that name
/// (`from datetime import datetime`) is the class called bare, without an
/// import that would rebind the name.
fn spelled_for(p: &Prefix, value: Value) -> Value {
    let Value::Expr { code, imports } = &value else { return value };
    let mut code = code.clone();
    let mut kept = Vec::new();
    for stmt in imports {
        let module = stmt.strip_prefix("import ").filter(|m| !m.contains([' ', ',']));
        let own = module.and_then(|m| p.binding(m)).map(|b| b.current());
        match (module, own) {
            (Some(m), Some(Candidate::Import(own))) if own != stmt => {
                let through = format!("{m}.{m}");
                let class_of_module = own.trim() == format!("from {m} import {m}");
                if !class_of_module || !code.starts_with(&through) || code[through.len()..].contains(&format!("{m}.")) {
                    return value;
                }
                code = code[m.len() + 1..].to_string();
            }
            _ => kept.push(stmt.clone()),
        }
    }
    Value::Expr { code, imports: kept }
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
    fn a_library_value_is_spelled_through_the_class_the_prefix_imports() {
        let mut p = Prefix::default();
        p.bindings.push(Binding::new("datetime", vec![Candidate::Import("from datetime import datetime".into())]));
        p.bindings.push(Binding::new("cutoff", vec![Candidate::Value(Value::Int(3))]));
        let v = Value::Expr { code: "datetime.datetime(2024, 1, 15)".into(), imports: vec!["import datetime".into()] };
        let q = with_candidate(&p, "cutoff", v.clone());
        assert_eq!(q.binding("cutoff").unwrap().value(), Some(&Value::Expr { code: "datetime(2024, 1, 15)".into(), imports: vec![] }));
        // Through the module the prefix imports as such, it stays.
        p.bindings[0] = Binding::new("datetime", vec![Candidate::Import("import datetime".into())]);
        assert_eq!(with_candidate(&p, "cutoff", v.clone()).binding("cutoff").unwrap().value(), Some(&v));
    }

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
