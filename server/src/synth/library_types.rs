//! Library types known by their members (`data/library_types.txt`): which
//! library type an object used with `route` and `add_url_rule` stands for
//! (`flask.Flask`), and how to build a small real instance of it with the
//! library's own API (`Flask(__name__)`). Pure.

use super::knowledge::lines;
use super::module_use::{is_builtin_attr, used_like_a_module};
use super::session::Context;
use super::value::Value;
use crate::analysis::Usage;
use crate::knowledge::conventional_import;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

/// One library type of the table.
pub struct LibraryType {
    /// Dotted name (`flask.Flask`).
    pub name: String,
    /// Members that tell its instances apart: the table's own, which are
    /// unmistakable alone once the fragment uses the library (`route`)...
    pub members: Vec<String>,
    /// ...and those the index read from the library that no other type
    /// has, which count only together with another member.
    pub also: Vec<String>,
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
                let name = name.trim();
                let members: Vec<String> = members
                    .split_whitespace()
                    .filter(|m| !is_builtin_attr(m))
                    .map(str::to_string)
                    .collect();
                let also = distinctive_members(name)
                    .into_iter()
                    .filter(|m| !members.iter().any(|o| o == m))
                    .map(str::to_string)
                    .collect();
                let recipe = match (parts.next(), parts.next()) {
                    (Some(expr), Some(import)) => {
                        Some((expr.trim().to_string(), import.trim().to_string()))
                    }
                    _ => None,
                };
                Some(LibraryType {
                    name: name.to_string(),
                    members,
                    also,
                    recipe,
                })
            })
            .collect()
    })
}

/// What kind of thing a module exports under a name (`data/library_index.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExportKind {
    Class,
    Function,
    Module,
    /// Any other object (`flask.request`, a proxy; `numpy.random`'s generator).
    Object,
    /// `None`, a number, a string.
    Constant,
}

/// The generated index: module -> exported name -> kind, library type
/// -> the members its instances have, and for modules that share a last
/// name (`html`, `lxml.html`) every attribute each has (all introspected
/// from the real libraries by `scripts/gen-library-index`).
struct Index {
    exports: HashMap<&'static str, HashMap<&'static str, ExportKind>>,
    members: HashMap<&'static str, Vec<&'static str>>,
    attrs: HashMap<&'static str, HashSet<&'static str>>,
}

fn index() -> &'static Index {
    static I: OnceLock<Index> = OnceLock::new();
    I.get_or_init(|| {
        let mut exports = HashMap::new();
        let mut members = HashMap::new();
        let mut attrs = HashMap::new();
        for l in lines(include_str!("data/library_index.txt")) {
            let mut words = l.split_whitespace();
            match (words.next(), words.next()) {
                (Some("export"), Some(module)) => {
                    let names = words
                        .filter_map(|w| {
                            let (name, kind) = w.split_once(':')?;
                            let kind = match kind {
                                "c" => ExportKind::Class,
                                "f" => ExportKind::Function,
                                "m" => ExportKind::Module,
                                "o" => ExportKind::Object,
                                "k" => ExportKind::Constant,
                                _ => return None,
                            };
                            Some((name, kind))
                        })
                        .collect();
                    exports.insert(module, names);
                }
                (Some("members"), Some(ty)) => {
                    members.insert(ty, words.collect());
                }
                (Some("attrs"), Some(module)) => {
                    attrs.insert(module, words.collect());
                }
                _ => {}
            }
        }
        Index { exports, members, attrs }
    })
}

/// Every public attribute module `module` has once imported, its
/// submodules included, where the index knows them: only for modules that
/// share a last name with another (`html` and `lxml.html`, `yaml` and
/// `ruamel.yaml`).
pub fn module_attrs(module: &str) -> Option<&'static HashSet<&'static str>> {
    index().attrs.get(module)
}

/// The indexed modules other than `name` whose last component is `name`
/// (`lxml.html` for `html`), with their attributes, in name order.
pub fn modules_named(name: &str) -> Vec<(&'static str, &'static HashSet<&'static str>)> {
    let mut out: Vec<_> = index()
        .attrs
        .iter()
        .filter(|(m, _)| m.rsplit_once('.').is_some_and(|(_, last)| last == name))
        .map(|(m, a)| (*m, a))
        .collect();
    out.sort_by_key(|(m, _)| *m);
    out
}

/// Indexed types of `ty`'s library other than those of `tested`, whose
/// instances have every member of `used` (non-empty), in name order:
/// `pandas.Series` for an object tested against `pandas.DataFrame` and read
/// with `memory_usage`, the other arm's value.
pub fn sibling_types(tested: &[&str], used: &[&str]) -> Vec<&'static str> {
    let Some(lib) = tested.first().map(|t| t.split('.').next().unwrap_or("")) else { return Vec::new() };
    if used.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<&'static str> = index()
        .members
        .iter()
        .filter(|(t, _)| !tested.contains(t) && t.split('.').next() == Some(lib))
        .filter(|(_, ms)| used.iter().all(|u| ms.contains(u)))
        .map(|(t, _)| *t)
        .collect();
    out.sort();
    out
}

/// Every indexed module that exports `name`, with the kind, in module
/// order.
pub fn exporters(name: &str) -> &'static [(&'static str, ExportKind)] {
    static BY_NAME: OnceLock<HashMap<&'static str, Vec<(&'static str, ExportKind)>>> = OnceLock::new();
    let by_name = BY_NAME.get_or_init(|| {
        let mut out: HashMap<&'static str, Vec<(&'static str, ExportKind)>> = HashMap::new();
        for (module, names) in &index().exports {
            for (name, kind) in names {
                out.entry(*name).or_default().push((*module, *kind));
            }
        }
        out.values_mut().for_each(|v| v.sort());
        out
    });
    by_name.get(name).map(Vec::as_slice).unwrap_or(&[])
}

/// The names indexed module `module` exports, where the index lists it.
pub fn exports_of(module: &str) -> Option<&'static HashMap<&'static str, ExportKind>> {
    index().exports.get(module)
}

/// Whether indexed package `package` has a submodule `sub` (loaded by
/// importing it or not); `None` when the index does not list the package.
pub fn has_submodule(package: &str, sub: &str) -> Option<bool> {
    let exports = index().exports.get(package)?;
    Some(exports.get(sub) == Some(&ExportKind::Module) || index().exports.contains_key(format!("{package}.{sub}").as_str()))
}

/// The modules the fragment itself uses, in the order it names them: the
/// modules of its own imports (`flask` for `from flask import Flask`), then
/// those of the conventional aliases (`np`), well-known members
/// (`UploadFile`: `fastapi`) and names one library alone exports
/// (`MatrixSymbol`: `sympy`) it uses without importing.
pub fn fragment_modules(ctx: &Context) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |m: &str| {
        if !m.is_empty() && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    };
    for i in ctx.analysis.imports.iter().filter(|i| i.level == 0) {
        push(&i.module);
    }
    for f in &ctx.analysis.free_names {
        // `import numpy as np`, `import matplotlib.pyplot as plt`
        if let Some(stmt) = conventional_import(&f.name) {
            push(imported_module(stmt));
        }
    }
    for f in &ctx.analysis.free_names {
        // `from fastapi import UploadFile`; capitalised only: a lowercase
        // member (`product`) is as often the fragment's own variable.
        if f.name.starts_with(char::is_uppercase) {
            if let Some(stmt) = super::knowledge::well_known_import(&f.name) {
                push(imported_module(stmt));
            }
        }
    }
    for f in &ctx.analysis.free_names {
        // A name one library alone exports (`MatrixSymbol`: `sympy`).
        if let Some(stmt) = super::sole_exports::import_for(ctx, &f.name, &f.usage) {
            push(imported_module(&stmt));
        }
    }
    for f in &ctx.analysis.free_names {
        // A bare name used with two members of one library type
        // (`request.method` and `request.get_json()`): the fragment is
        // about that library even where its import line was cut off.
        if let Some((t, _)) = best_type(f.usage.attrs.keys().map(String::as_str), |_| false) {
            push(t.library());
        }
    }
    out
}

/// The module an import statement imports from (`numpy` for `import numpy
/// as np`, `flask` for `from flask import Flask`).
fn imported_module(stmt: &str) -> &str {
    let rest = stmt.strip_prefix("from ").or_else(|| stmt.strip_prefix("import ")).unwrap_or("");
    rest.split_whitespace().next().unwrap_or("").trim_end_matches(',')
}

/// Whether a value is passed where a function goes: to a parameter
/// `data/callee_kinds.txt` says is called (`key`, `map`'s first), or by
/// a keyword that names a function.
fn passed_as_function(usage: &Usage) -> bool {
    usage.passed_to.iter().any(|a| {
        let kind = super::knowledge::argument_kind(&a.callee, a.position, a.keyword.as_deref());
        matches!(kind, Some("key-function" | "called"))
            || matches!(a.callee.as_str(), "map" | "filter" | "functools.partial" | "partial") && a.position == Some(0)
            || a.keyword.as_deref().is_some_and(|k| ["key", "func", "function", "callback", "target", "default", "hook"].contains(&k))
    })
}

/// The import of a name the fragment uses bare that a module it imports
/// exports (`request.method` where the fragment has `from flask import
/// Flask`: `from flask import request`): snippets often cut their import
/// line short. A class is always taken; a function when the name is
/// called or passed on; another object when it is used through attributes
/// or called; never a submodule; a constant only when named
/// like one (`BICUBIC`, never `e` or `pi`, which are as likely the
/// fragment's own numbers).
pub fn exported_import(ctx: &Context, name: &str, usage: &Usage) -> Option<String> {
    if name.len() < 2 || name.starts_with('_') {
        return None;
    }
    let called = !usage.calls.is_empty();
    let fits = |kind: ExportKind| match kind {
        ExportKind::Class => true,
        // Passed, not called: a callback (`map(sqrt, xs)`, `key=itemgetter`),
        // or a compound name; a one-word one passed as data is as often the
        // fragment's own (`G.add_edges_from(edges)` beside networkx's `edges`).
        ExportKind::Function => called || !usage.passed_to.is_empty() && (name.contains('_') || passed_as_function(usage)),
        ExportKind::Object => called || !usage.attrs.is_empty(),
        // A submodule's name is most often the fragment's own object
        // (`flask.app` is a module, `@app.route` an application); not a
        // capitalised one used through its members (`ImageDraw.Draw(im)`):
        // Python names variables in lower case.
        ExportKind::Module => name.starts_with(char::is_uppercase) && !usage.attrs.is_empty(),
        ExportKind::Constant => name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
    };
    let exports = &index().exports;
    let modules = fragment_modules(ctx);
    modules
        .iter()
        .find_map(|module| {
            let kind = *exports.get(module.as_str())?.get(name)?;
            fits(kind).then(|| format!("from {module} import {name}"))
        })
        .or_else(|| {
            // A body cut from a library's own code reads names its package
            // imports from a submodule (`request_ctx` from `flask.globals`).
            // A short lowercase function name there (`linear`, `dump`) is as
            // often the fragment's own helper: only compound ones count.
            let sub_fits = |kind: ExportKind| fits(kind) && (kind != ExportKind::Function || name.contains('_'));
            modules.iter().filter(|m| !m.contains('.')).find_map(|lib| {
                let mut subs: Vec<&&str> = exports.keys().filter(|m| m.strip_prefix(lib.as_str()).is_some_and(|r| r.starts_with('.') && !r[1..].contains('.'))).collect();
                subs.sort();
                subs.into_iter().find_map(|sub| {
                    let kind = *exports.get(*sub)?.get(name)?;
                    sub_fits(kind).then(|| format!("from {sub} import {name}"))
                })
            })
        })
}

/// Whether the fragment uses `lib` (a top-level module): imports it or one
/// of its submodules, uses its conventional alias, or uses a name bare that
/// the table's well-known members or the index tie to it.
fn uses_library(ctx: &Context, lib: &str) -> bool {
    let top = |m: &str| m.split('.').next() == Some(lib);
    fragment_modules(ctx).iter().any(|m| top(m))
        || ctx.analysis.free_names.iter().any(|f| {
            let from = |stmt: &str| top(imported_module(stmt));
            f.name == lib && used_like_a_module(&f.usage)
                || super::knowledge::well_known_import(&f.name).is_some_and(from)
        })
}

/// Members of library type `ty` that no other type of the index or the
/// table has, and no builtin value: what tells its instances apart, read
/// from the library itself.
fn distinctive_members(ty: &str) -> BTreeSet<&'static str> {
    let idx = index();
    let Some(own) = idx.members.get(ty) else { return BTreeSet::new() };
    own.iter()
        .copied()
        .filter(|m| !is_builtin_attr(m))
        .filter(|m| !idx.members.iter().any(|(other, ms)| *other != ty && ms.contains(m)))
        .collect()
}

/// The library type an object with `members` stands for: two or more of
/// the type's members, or one when the fragment uses the type's library
/// (`from flask import Flask` and `@app.route`).
pub fn mimicked_type<'a>(
    ctx: &Context,
    members: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<&'static LibraryType> {
    best_type(members, |lib| uses_library(ctx, lib)).map(|(t, _)| t)
}

/// The table's type sharing the most of `members` (on a tie, the table's
/// first), with how many: two or more, or one of its own when `imported`
/// says the fragment uses the type's library.
fn best_type<'a>(
    members: impl IntoIterator<Item = &'a str> + Clone,
    imported: impl Fn(&str) -> bool,
) -> Option<(&'static LibraryType, usize)> {
    let count = |list: &[String]| members.clone().into_iter().filter(|m| list.iter().any(|o| o == m)).count();
    table()
        .iter()
        .map(|t| (t, count(&t.members), count(&t.also)))
        .filter(|(t, own, also)| own + also >= 2 || *own == 1 && imported(t.library()))
        .map(|(t, own, also)| (t, own + also))
        .fold(None, |best: Option<(&LibraryType, usize)>, (t, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((t, n)),
        })
}

/// The table's recipe for library type `ty` (`flask.Flask`): the
/// expression that builds a real instance and the import it needs.
pub fn recipe(ty: &str) -> Option<&'static (String, String)> {
    table().iter().find(|t| t.name == ty)?.recipe.as_ref()
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

/// A real instance for a value held inside another (`self.app` used with
/// `app_context()` and `session_interface`), where no fragment context is
/// at hand: only two or more of a type's members say which it is.
pub fn real_instance_by_members<'a>(attrs: impl IntoIterator<Item = &'a str> + Clone) -> Option<Value> {
    let (code, import) = best_type(attrs, |_| false)?.0.recipe.clone()?;
    Some(Value::Expr { code, imports: vec![import] })
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
        });
        with_ctx("cur.execute('select 1')\nprint(cart.total)\n", |ctx| {
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
    fn another_name_used_as_a_library_type_means_the_fragment_uses_that_library() {
        // No flask import: `request` used with two members of flask's
        // request says the fragment is a Flask view, so `@app.route` alone
        // is enough for `app` to be the application.
        let src = "@app.route('/hello', methods=['POST'])\ndef hello():\n    if request.method == 'POST':\n        return request.get_json()\n";
        with_ctx(src, |ctx| {
            assert!(fragment_modules(ctx).contains(&"flask".to_string()));
            assert_eq!(mimicked_type(ctx, ["route"]).unwrap().name, "flask.Flask");
        });
        with_ctx("@app.route('/hello')\ndef hello():\n    return 'hi'\n", |ctx| {
            assert!(mimicked_type(ctx, ["route"]).is_none(), "one member, nothing else about flask");
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

    #[test]
    fn a_name_the_imported_library_exports_is_imported_from_it() {
        let src = "from flask import Flask\n@app.route('/')\ndef home():\n    return request.method + str(BICUBIC) + str(e)\n";
        with_ctx(src, |ctx| {
            let request = ctx.usage_of("request");
            assert_eq!(exported_import(ctx, "request", &request).as_deref(), Some("from flask import request"));
            // `flask.app` is a submodule: the fragment's `app` is its application.
            assert_eq!(exported_import(ctx, "app", &ctx.usage_of("app")), None);
            // Not exported by flask: left to the other rules.
            assert_eq!(exported_import(ctx, "BICUBIC", &ctx.usage_of("BICUBIC")), None);
            assert_eq!(exported_import(ctx, "e", &ctx.usage_of("e")), None);
        });
        // Only libraries the fragment uses count: flask is not imported here.
        with_ctx("print(request.method)\n", |ctx| {
            assert_eq!(exported_import(ctx, "request", &ctx.usage_of("request")), None);
        });
        // A one-word function of the library passed as data is the fragment's
        // own (`edges`); one called, or passed where a function goes, is the library's.
        with_ctx("import networkx as nx\nG = nx.Graph()\nG.add_edges_from(edges)\nprint(sorted(G, key=degree), density(G))\n", |ctx| {
            assert_eq!(exported_import(ctx, "edges", &ctx.usage_of("edges")), None);
            assert_eq!(exported_import(ctx, "degree", &ctx.usage_of("degree")).as_deref(), Some("from networkx import degree"));
            assert_eq!(exported_import(ctx, "density", &ctx.usage_of("density")).as_deref(), Some("from networkx import density"));
        });
    }

    #[test]
    fn a_name_one_library_alone_exports_means_the_fragment_uses_that_library() {
        // No import: `MultiIndex` is pandas' alone, so `json_normalize`
        // and a bare `concat` are pandas' too.
        let src = "idx = MultiIndex.from_tuples(pairs)\nflat = json_normalize(records)\nboth = concat([a, b])\n";
        with_ctx(src, |ctx| {
            assert!(fragment_modules(ctx).contains(&"pandas".to_string()));
            assert_eq!(exported_import(ctx, "concat", &ctx.usage_of("concat")).as_deref(), Some("from pandas import concat"));
        });
        with_ctx("both = concat([a, b])\n", |ctx| {
            assert_eq!(exported_import(ctx, "concat", &ctx.usage_of("concat")), None, "nothing else about pandas");
        });
    }

    #[test]
    fn a_capitalised_submodule_used_through_its_members_is_imported() {
        let src = "from PIL import Image\nim = Image.new('RGB', (4, 4))\ndraw = ImageDraw.Draw(im)\nfont = ImageFont.load_default()\n";
        with_ctx(src, |ctx| {
            assert_eq!(exported_import(ctx, "ImageDraw", &ctx.usage_of("ImageDraw")).as_deref(), Some("from PIL import ImageDraw"));
            assert_eq!(exported_import(ctx, "ImageFont", &ctx.usage_of("ImageFont")).as_deref(), Some("from PIL import ImageFont"));
        });
    }

    #[test]
    fn a_name_a_submodule_of_the_library_adds_is_imported_from_there() {
        // Code cut from inside a package: its module imported `request_ctx`
        // from `flask.globals`; `get_root_path` is `flask.helpers`'.
        let src = "from flask import Flask\nctx = request_ctx._get_current_object()\nroot = get_root_path(__name__)\nprint(dump(ctx))\n";
        with_ctx(src, |ctx| {
            assert_eq!(exported_import(ctx, "request_ctx", &ctx.usage_of("request_ctx")).as_deref(), Some("from flask.globals import request_ctx"));
            assert_eq!(exported_import(ctx, "get_root_path", &ctx.usage_of("get_root_path")).as_deref(), Some("from flask.helpers import get_root_path"));
            // `flask.json.dump` exists, but a short bare `dump` is as likely the fragment's own.
            assert_eq!(exported_import(ctx, "dump", &ctx.usage_of("dump")), None);
        });
    }

    #[test]
    fn exports_are_taken_only_where_the_use_fits_their_kind() {
        // `numpy.e` is a constant: a fragment's `e` is as likely its own number.
        with_ctx("import numpy as np\nx = np.zeros(3) * e\nprint(newaxis, linspace(0, 1, 5))\n", |ctx| {
            assert_eq!(exported_import(ctx, "e", &ctx.usage_of("e")), None);
            assert_eq!(exported_import(ctx, "linspace", &ctx.usage_of("linspace")).as_deref(), Some("from numpy import linspace"));
        });
        // A well-known member names its library for the others: `UploadFile` is FastAPI's.
        with_ctx("@app.post('/up')\nasync def up(f: UploadFile = File(...)):\n    return f.filename\n", |ctx| {
            assert_eq!(exported_import(ctx, "File", &ctx.usage_of("File")).as_deref(), Some("from fastapi import File"));
            assert_eq!(mimicked_type(ctx, ["post"]).map(|t| t.name.as_str()), Some("fastapi.FastAPI"));
        });
    }

    #[test]
    fn members_read_from_the_library_tell_its_types_apart() {
        // `fetchall` is only a cursor's; `close` is everyone's.
        assert!(distinctive_members("sqlite3.Cursor").contains("fetchall"));
        assert!(!distinctive_members("sqlite3.Cursor").contains("close"));
        // Nothing builtin values have.
        assert!(!distinctive_members("pandas.DataFrame").contains("copy"));
    }
}
