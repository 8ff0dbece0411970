//! Library types known by their members (`data/library_types.txt`): which
//! library type an object used with `route` and `add_url_rule` stands for
//! (`flask.Flask`), and how to build a small real instance of it with the
//! library's own API (`Flask(__name__)`). Pure.

use super::knowledge::lines;
use super::library_names::is_builtin_attr;
use super::session::Context;
use super::value::Value;
use std::sync::OnceLock;

/// One library type of the table.
pub struct LibraryType {
    /// Dotted name (`flask.Flask`).
    pub name: String,
    /// Members that tell its instances apart.
    pub members: Vec<String>,
    /// A real instance and the import it needs, where the table has one.
    pub recipe: Option<(String, String)>,
}

impl LibraryType {
    /// The top-level module of the type (`flask`).
    pub fn library(&self) -> &str {
        self.name.split('.').next().unwrap_or("")
    }
}

fn table() -> &'static [LibraryType] {
    static T: OnceLock<Vec<LibraryType>> = OnceLock::new();
    T.get_or_init(|| {
        lines(include_str!("data/library_types.txt"))
            .filter_map(|l| {
                let mut parts = l.split(" | ");
                let (name, members) = parts.next()?.split_once(':')?;
                let members = members
                    .split_whitespace()
                    .filter(|m| !is_builtin_attr(m))
                    .map(str::to_string)
                    .collect();
                let recipe = match (parts.next(), parts.next()) {
                    (Some(expr), Some(import)) => {
                        Some((expr.trim().to_string(), import.trim().to_string()))
                    }
                    _ => None,
                };
                Some(LibraryType {
                    name: name.trim().to_string(),
                    members,
                    recipe,
                })
            })
            .collect()
    })
}

/// The library type an object with `members` stands for: two or more of
/// the type's members, or one when the fragment imports the type's library
/// (`from flask import Flask` and `@app.route`).
pub fn mimicked_type<'a>(
    ctx: &Context,
    members: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'static LibraryType> {
    let imported = |lib: &str| {
        ctx.analysis
            .imports
            .iter()
            .any(|i| i.level == 0 && i.module.split('.').next() == Some(lib))
    };
    table().iter().find(|t| {
        let shared = members
            .clone()
            .into_iter()
            .filter(|m| t.members.iter().any(|o| o == m))
            .count();
        shared >= 2 || shared == 1 && imported(t.library())
    })
}

/// A real instance, built with the library's API, for a free name used as
/// an instance of a library type (attributes and methods read), when the
/// table knows how to build one.
pub fn real_instance<'a>(
    ctx: &Context,
    attrs: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<Value> {
    let (code, import) = mimicked_type(ctx, attrs)?.recipe.clone()?;
    Some(Value::Expr {
        code,
        imports: vec![import],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use std::collections::BTreeSet;

    fn with_ctx<T>(src: &str, f: impl FnOnce(&Context) -> T) -> T {
        let analysis = analyze(src);
        let stdlib = BTreeSet::new();
        f(&Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        })
    }

    #[test]
    fn members_name_the_library_type() {
        with_ctx("cur.execute('select 1')\nprint(cur.fetchall())\n", |ctx| {
            assert_eq!(
                mimicked_type(ctx, ["execute", "fetchall"]).unwrap().name,
                "sqlite3.Cursor"
            );
            assert!(
                mimicked_type(ctx, ["execute"]).is_none(),
                "one member is not enough alone"
            );
            assert!(
                mimicked_type(ctx, ["items", "get", "total"]).is_none(),
                "builtin members and the user's own do not count"
            );
        });
    }

    #[test]
    fn one_member_is_enough_when_the_fragment_imports_the_library() {
        with_ctx(
            "from flask import Flask\n@app.route('/')\ndef home():\n    return 'hi'\n",
            |ctx| {
                let v = real_instance(ctx, ["route"]).unwrap();
                assert_eq!(
                    v,
                    Value::Expr {
                        code: "Flask(__name__)".into(),
                        imports: vec!["from flask import Flask".into()]
                    }
                );
            },
        );
        with_ctx("@app.route('/')\ndef home():\n    return 'hi'\n", |ctx| {
            assert!(real_instance(ctx, ["route"]).is_none())
        });
    }
}
