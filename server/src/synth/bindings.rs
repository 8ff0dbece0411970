//! How a free name is bound: the fragment's own import of it, a library
//! name's imports only, else values inferred from its usage (after the
//! value the fragment itself assigns it later, an annotated kind, a real
//! library instance, a module import where it may still name one).

use super::infer;
use super::knowledge::{argument_kind, well_known_import};
use super::stdlib_index;
use super::library_names::library_imports;
use super::library_types;
use super::prefix::{Binding, Candidate};
use super::session::Context;
use super::value::Value;
use crate::analysis::{FreeName, Usage};
use crate::knowledge::conventional_import;

/// A builtin type named by the annotation of a fragment function's
/// parameter that this name is passed to.
pub(super) fn annotated_kind(ctx: &Context, usage: &Usage) -> Option<&'static str> {
    usage.passed_to.iter().find_map(|arg| {
        let f = ctx.analysis.functions.iter().find(|f| f.name == arg.callee)?;
        let param = match (&arg.keyword, arg.position) {
            (Some(k), _) => f.params.iter().find(|p| &p.name == k)?,
            (None, Some(i)) => f.params.get(i)?,
            _ => return None,
        };
        let ann = param.annotation.as_deref()?.trim();
        ["str", "int", "float", "bool", "list", "dict", "bytes", "set", "tuple"].into_iter().find(|t| ann == *t || ann.starts_with(&format!("{t}[")) || ann.starts_with(&format!("{}[", capitalize(t))))
    })
}

pub(super) fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// How a name can be defined: an import when it names a module or a
/// well-known library member, else values inferred from its usage.
pub(super) fn binding_for(ctx: &Context, f: &FreeName, allow_import: bool) -> Binding {
    // A module or a library member: its imports and nothing else, so that
    // when the library raises, the inputs change and the library stays.
    if let Some(imports) = library_imports(ctx, &f.name, &f.usage) {
        return Binding::new(f.name.clone(), imports.into_iter().map(Candidate::Import).collect());
    }
    value_binding(ctx, f, allow_import)
}

/// How a name that is not a library name can be defined: values inferred
/// from its usage, after an import where it may still name a module.
pub(super) fn value_binding(ctx: &Context, f: &FreeName, allow_import: bool) -> Binding {
    let mut c = Vec::new();
    // Read before the fragment assigns it a value of its own: that value, moved up.
    if let Some(code) = ctx.analysis.literal_assignments.get(&f.name) {
        c.push(Candidate::Value(Value::Expr { code: code.clone(), imports: vec![] }));
    }
    // Matched with a pattern the fragment compiles (`logpat.match(line)`): a text it matches.
    if let Some(text) = super::regex_sample::subject(ctx.analysis, &f.usage) {
        c.push(Candidate::Value(Value::Str(text)));
    }
    if let Some(kind) = annotated_kind(ctx, &f.usage) {
        c.push(Candidate::Value(infer::value_of_kind(kind, &f.name, &f.usage)));
    }
    // Passed where a callee wants an open file: a real stream holding what
    // its reader parses (`streams`), never a hand-made file-like object.
    if let Some((stream, _)) = super::streams::wanted(&f.usage) {
        c.push(Candidate::Value(super::streams::value(ctx, stream)));
    }
    // Used as an instance of a library type (`@app.route` where the fragment
    // imports flask): a real one, built with the library's own API.
    let real = library_types::real_instance(ctx, f.usage.attrs.keys().map(String::as_str));
    if let Some(v) = &real {
        c.push(Candidate::Value(v.clone()));
    }
    // Its matches read as `re.Match` (`m = NAME_RE.match(line); m.start(1)`):
    // a pattern compiled by `re`, one matching the text and one not.
    let pattern = super::regex_patterns::compiled(&f.usage);
    if let Some(patterns) = &pattern {
        c.extend(patterns.iter().cloned().map(Candidate::Value));
    }
    let stdlib_import = stdlib_index::import_for(&f.name, &f.usage);
    // A class or constant (`ZipFile`, `EACCES`), a function of a module the
    // fragment uses (`iterparse(path)` beside `ET.fromstring`), or of the
    // module another bare name is well known from (`field` beside
    // `@dataclass`, both cut off with their import line): not the
    // fragment's own helper, so its import comes first.
    let stdlib_first = stdlib_import.as_deref().is_some_and(|stmt| {
        let module = imported_from(stmt);
        stdlib_index::is_distinctive(&f.name)
            || library_types::fragment_modules(ctx).iter().any(|m| Some(m.as_str()) == module)
            || ctx.analysis.free_names.iter().any(|g| g.name != f.name && well_known_import(&g.name).is_some_and(|s| imported_from(s) == module))
    });
    // A module's name that is never read through attributes or called, but
    // is used as data or passed where a callee takes data
    // (`BeautifulSoup(html, ...)`): a variable named like the module.
    let data_only = f.usage.attrs.is_empty()
        && f.usage.calls.is_empty()
        && (super::module_use::used_as_data(&f.usage)
            || f.usage.passed_to.iter().any(|a| argument_kind(&a.callee, a.position, a.keyword.as_deref()).is_some_and(|k| !matches!(k, "any" | "module-name"))));
    if allow_import {
        if ctx.stdlib.contains(&f.name) && !f.name.starts_with('_') && !data_only {
            c.push(Candidate::Import(format!("import {}", f.name)));
        } else if let Some(stmt) = conventional_import(&f.name).or_else(|| well_known_import(&f.name)) {
            c.push(Candidate::Import(stmt.to_string()));
        } else if let Some(stmt) = stdlib_import.clone().filter(|_| stdlib_first) {
            // A name only one standard-library module has, used as what it is.
            c.push(Candidate::Import(stmt));
        } else if !f.usage.attrs.is_empty() && f.usage.calls.is_empty() && crate::knowledge::distribution_for(&f.name).is_some_and(|_| f.name.chars().all(|c| c.is_ascii_lowercase() || c == '_')) {
            // A known library's module name used with attributes (`sklearn.utils`).
            let sub = f.usage.attrs.iter().find(|(a, u)| !u.attrs.is_empty() && u.calls.is_empty() && crate::knowledge::distribution_for(&format!("{}.{a}", f.name)).is_some()).map(|(a, _)| a.clone());
            c.push(Candidate::Import(match sub {
                Some(a) => format!("import {}.{a}", f.name),
                None => format!("import {}", f.name),
            }));
        }
    }
    // Never a hand-written class with the real type's members after it.
    let first_inferred = c.len();
    let inferred = infer::candidates(&f.name, &f.usage).into_iter();
    c.extend(
        inferred
            // `real` is built, so a stand-in here is one for that real instance.
            .filter(|v| real.is_none() && pattern.is_none() || !super::stand_in::is_stand_in(ctx, &f.name, &f.usage, v, false))
            .map(Candidate::Value),
    );
    // A lowercase function name (`tee`, `parse`) is as often the fragment's
    // own helper: the import comes second, after the value its use suggests
    // (and before any stub), so that a failing guess reaches it next.
    if let Some(stmt) = stdlib_import.filter(|_| allow_import && !stdlib_first) {
        let stub = c.iter().position(|x| matches!(x, Candidate::Value(v) if v.is_stub())).unwrap_or(c.len());
        let at = stub.min(first_inferred + 1).min(c.len());
        c.insert(at, Candidate::Import(stmt));
    }
    Binding::new(f.name.clone(), c)
}

/// The module `from M import n` imports from.
fn imported_from(stmt: &str) -> Option<&str> {
    stmt.strip_prefix("from ")?.split(" import ").next()
}

/// How the fragment uses free name `name`: `Context::usage_of` is the one
/// lookup; this name stays for the rules that call it.
pub(super) fn usage_of(ctx: &Context, name: &str) -> Usage {
    ctx.usage_of(name)
}
