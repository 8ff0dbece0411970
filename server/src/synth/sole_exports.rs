//! Names one indexed library alone exports (`data/library_index.txt`),
//! and whether a fragment's bare use of one, with no import of that
//! library, says it is that library's: `today + relativedelta(months=-1)`
//! is `from dateutil.relativedelta import relativedelta`, never a
//! hand-written function (issue 14). Pure.
//!
//! A name counts only when the data leaves no doubt: exactly one indexed
//! module exports it as a class, a function or an object (`current_app`,
//! read through its members or called), the standard-library index
//! does not have it, and the name is distinctive by itself: named like
//! the submodule that defines it (`relativedelta`, `rrule`), or a compound
//! name (`create_engine`, `MultiIndex`) a library's top level exports.
//! An exception class of several words the fragment raises, catches or
//! type-tests (`BadRequestKeyError`) counts wherever the library defines it.
//! A plain word (`values`, `display`, `Version`) many libraries and users
//! define, or a compound helper name of a submodule (`flask.cli`'s
//! `get_version`), is left to the other rules; so is a name the fragment
//! binds anywhere or uses as data.

use super::library_types::{exporters, exports_of, module_attrs, ExportKind};
use super::module_use::{used_as_data, used_like_a_module};
use super::rank::is_exception_name;
use super::session::Context;
use super::stdlib_index;
use crate::analysis::Usage;

/// The import that binds bare name `name`, used as `usage`, when one
/// indexed library alone exports it and the use fits what it is.
pub fn import_for(ctx: &Context, name: &str, usage: &Usage) -> Option<String> {
    if name.len() < 3 || name.starts_with('_') || ctx.analysis.bound_names.contains(name) || stdlib_index::has(name) || used_as_data(usage) {
        return None;
    }
    member_import(name, usage).or_else(|| submodule_import(name, usage))
}

/// `relativedelta(months=1)`: the class or function itself.
fn member_import(name: &str, usage: &Usage) -> Option<String> {
    let (module, kind) = sole_member(name)?;
    let own_named = module.rsplit('.').next() == Some(name);
    // An exception class of several words (`BadRequestKeyError`) raised,
    // caught, subclassed or type-tested is as specific as a name gets,
    // wherever in the library it is defined (`werkzeug.exceptions`).
    let type_tested = usage.passed_to.iter().any(|a| a.callee == "isinstance" && a.position == Some(1));
    let exception = kind == ExportKind::Class && is_exception_name(name) && is_compound(name) && (usage.raised || usage.subclassed || type_tested);
    if !(own_named || is_top_level(module) && is_compound(name) || exception) {
        return None;
    }
    let called = !usage.calls.is_empty();
    // Read through members, a name that is also a module's
    // (`ImageDraw.Draw(im)`) is that module.
    let a_module_too = exporters(name).iter().any(|(_, k)| *k == ExportKind::Module);
    let fits = match kind {
        // A class is called, raised or caught, subclassed, or (capitalised, as Python
        // names classes) read through its members.
        ExportKind::Class => called || usage.raised || usage.subclassed || exception || name.starts_with(char::is_uppercase) && !usage.attrs.is_empty() && !a_module_too,
        ExportKind::Function => called && usage.attrs.is_empty(),
        // An object (`current_app`, a proxy or a signal) is read through
        // its members or called; a compound name only, at a top level.
        ExportKind::Object => !own_named && (called || !usage.attrs.is_empty()),
        _ => false,
    };
    fits.then(|| format!("from {module} import {name}"))
}

/// `relativedelta.relativedelta(a, b)`: the submodule of that name, when
/// one indexed package alone has it and it exports every member read.
fn submodule_import(name: &str, usage: &Usage) -> Option<String> {
    if !used_like_a_module(usage) {
        return None;
    }
    let packages: Vec<&str> = exporters(name).iter().filter(|(_, k)| *k == ExportKind::Module).map(|(m, _)| *m).collect();
    let [package] = packages[..] else { return None };
    let full = format!("{package}.{name}");
    let has = |attr: &str| {
        exports_of(&full).is_some_and(|e| e.contains_key(attr)) || module_attrs(&full).is_some_and(|a| a.contains(attr))
    };
    (usage.attrs.keys().all(|a| has(a)) && sole_member(name).is_none_or(|(m, _)| m == full)).then(|| format!("from {package} import {name}"))
}

/// The one indexed module exporting `name` as something other than a
/// module, when it is a class, function or object and no other package has a
/// module of that name (`jinja2.debug` beside `jinja2.ext`'s `debug`).
fn sole_member(name: &str) -> Option<(&'static str, ExportKind)> {
    let all = exporters(name);
    let members: Vec<_> = all.iter().filter(|(_, k)| *k != ExportKind::Module).collect();
    let [&(module, kind)] = members[..] else { return None };
    let modules_elsewhere = all.iter().any(|(m, k)| *k == ExportKind::Module && format!("{m}.{name}") != module);
    (matches!(kind, ExportKind::Class | ExportKind::Function | ExportKind::Object) && !modules_elsewhere).then_some((module, kind))
}

/// Whether `module` is a library's top level: no indexed module is its
/// package (`pandas`, `ruamel.yaml`; not `flask.cli`).
fn is_top_level(module: &str) -> bool {
    match module.rsplit_once('.') {
        Some((package, _)) => exports_of(package).is_none(),
        None => true,
    }
}

/// A name of two or more words: `snake_case` or `CamelCase` with two
/// capitals (`create_engine`, `MultiIndex`; not `values`, `Version`).
fn is_compound(name: &str) -> bool {
    let snake = name.trim_matches('_').split('_').filter(|w| !w.is_empty()).count() >= 2;
    let humps = name.chars().zip(name.chars().skip(1)).filter(|(a, b)| a.is_lowercase() && b.is_uppercase()).count();
    snake || name.starts_with(char::is_uppercase) && humps >= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::rules::check::with_ctx;

    fn import(src: &str, name: &str) -> Option<String> {
        with_ctx(src, |ctx| import_for(ctx, name, &ctx.usage_of(name)))
    }

    #[test]
    fn an_exception_class_of_several_words_is_imported_from_where_it_is_defined() {
        assert_eq!(
            import("if isinstance(e, BadRequestKeyError):\n    e.show_exception = True\n", "BadRequestKeyError").as_deref(),
            Some("from werkzeug.exceptions import BadRequestKeyError")
        );
        // Only used as data, it is anyone's.
        assert_eq!(import("names = [BadRequestKeyError]\n", "BadRequestKeyError"), None);
    }

    #[test]
    fn a_class_named_like_its_own_submodule_is_imported_from_it() {
        assert_eq!(
            import("last = start + relativedelta(months=-1)\n", "relativedelta").as_deref(),
            Some("from dateutil.relativedelta import relativedelta")
        );
        assert_eq!(
            import("for d in rrule(DAILY, count=3):\n    print(d)\n", "rrule").as_deref(),
            Some("from dateutil.rrule import rrule")
        );
    }

    #[test]
    fn a_submodule_used_as_one_is_imported_from_its_package() {
        assert_eq!(
            import("gap = relativedelta.relativedelta(end, start)\n", "relativedelta").as_deref(),
            Some("from dateutil import relativedelta")
        );
        // A member that submodule lacks: not that module.
        assert_eq!(import("relativedelta.total(3)\n", "relativedelta"), None);
        // Named like the class its submodule defines, used as the module.
        assert_eq!(import("draw = ImageDraw.Draw(im)\n", "ImageDraw").as_deref(), Some("from PIL import ImageDraw"));
    }

    #[test]
    fn a_compound_name_a_library_top_level_alone_exports_is_imported() {
        // Subclassed: a class used as what it is.
        assert_eq!(
            import("class Message(BaseModel):\n    text: str = ''\n", "BaseModel").as_deref(),
            Some("from pydantic import BaseModel")
        );
        assert_eq!(
            import("engine = create_engine('sqlite://')\n", "create_engine").as_deref(),
            Some("from sqlalchemy import create_engine")
        );
        assert_eq!(
            import("idx = MultiIndex.from_tuples(pairs)\n", "MultiIndex").as_deref(),
            Some("from pandas import MultiIndex")
        );
        // An object (a context proxy) read through its members.
        assert_eq!(
            import("debug = current_app.config['DEBUG']\n", "current_app").as_deref(),
            Some("from flask import current_app")
        );
    }

    #[test]
    fn plain_words_helpers_and_the_fragments_own_names_are_left_alone() {
        // Plain words that some library exports are as often the user's.
        assert_eq!(import("print(values(rows))\n", "values"), None);
        assert_eq!(import("display(frame)\n", "display"), None);
        // A compound helper of a submodule nobody imports by that name.
        assert_eq!(import("v = get_version()\n", "get_version"), None);
        // Used as data, or bound somewhere in the fragment.
        assert_eq!(import("print(relativedelta[0])\n", "relativedelta"), None);
        assert_eq!(import("def f():\n    return relativedelta(days=1)\nrelativedelta = 3\n", "relativedelta"), None);
        // A function is called, not read through attributes.
        assert_eq!(import("create_engine.url\n", "create_engine"), None);
        // The standard library has it: its own index decides.
        assert_eq!(import("u = urlparse(link)\n", "urlparse"), None);
    }

    #[test]
    fn compound_names_have_two_words() {
        assert!(is_compound("create_engine"));
        assert!(is_compound("MultiIndex"));
        assert!(!is_compound("values"));
        assert!(!is_compound("Version"));
        assert!(!is_compound("_private"));
        assert!(!is_compound("URL"));
    }
}
