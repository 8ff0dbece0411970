//! Which hand-written values stand for something the fragment expects from
//! a library: the report calls them `stand-in` (issue 14), so a prefix that
//! fakes a library is never shown as a real one. Pure.
//!
//! The rule: a value written in the prefix (an object, a class, a function,
//! a subclass of a builtin, a definition) is a stand-in when
//! 1. it is bound to a library name (a module, an alias, a library member:
//!    `library_names::library_imports`), which the invariant forbids;
//! 2. its class subclasses a class reached through a module
//!    (`class Figure(matplotlib.figure.Figure)`, `class Leaf(ast.AST)`): it
//!    poses as an instance of that library type;
//! 3. it has two or more members that tell one library type's instances
//!    apart (`data/library_types.txt`: `route` and `add_url_rule` are
//!    `flask.Flask`, `execute` and `fetchall` a `sqlite3.Cursor`), or one
//!    when the fragment imports that library (`from flask import Flask` and
//!    an `app` with `route`: `library_types::mimicked_type`);
//! 4. it is a function bound to a bare name one standard-library module
//!    exports as a function, called as that function's signature allows
//!    (`urlsafe_b64decode(s)`: `stdlib_index::is_function_used_as_such`);
//!    the import is tried too, after the value its use suggests, since a
//!    lowercase name is as often the fragment's own helper;
//!    or its matches are read as `re.Match` (`regex_patterns`): a class
//!    whose `match` returns a hand-written match poses as `re.Pattern`;
//! 5. it has members and the fragment itself gives the name a value
//!    imported from a library elsewhere (`app = current_app` in one branch
//!    of a body whose `app` parameter the prefix defines): the fragment says
//!    what the name holds;
//! or it holds such a value (an attribute, an item, what a function
//! returns). Values the library itself builds (`np.array(...)`,
//! `pd.DataFrame(...)`: `Value::Call`, `Value::Expr`) and plain data are never stand-ins,
//! and a user's own type (`Cart` with `items` and `total`) matches rule 3
//! only if it has the members of a library type.

use super::library_names::library_imports;
use crate::analysis::assigned_source;
use super::library_types::mimicked_type;
use super::session::Context;
use super::value::{class_ident, Value};
use crate::analysis::Usage;

/// Whether the value bound to `name` (used as `usage`) is, or holds, a
/// stand-in; `not_module`: a run showed the module of that name is not
/// what the fragment means (`Prefix::not_modules`).
pub fn is_stand_in(
    ctx: &Context,
    name: &str,
    usage: &Usage,
    value: &Value,
    not_module: bool,
) -> bool {
    let hand_written = !matches!(value, Value::Call { .. } | Value::Expr { .. } | Value::Anything);
    (hand_written && !not_module && library_imports(ctx, name, usage).is_some())
        || (matches!(value, Value::Function { .. }) && super::stdlib_index::is_function_used_as_such(name, usage))
        || (has_members(value) && buildable(ctx, usage))
        || (has_members(value) && assigned_an_import(ctx, name))
        || holds_stand_in(ctx, value, 0)
}

/// Whether the fragment assigns `name` a name one of its imports binds, or
/// an attribute of one (`app = current_app`, `out = sys.stdout`).
fn assigned_an_import(ctx: &Context, name: &str) -> bool {
    let imported: Vec<String> = ctx.analysis.imports.iter().flat_map(crate::analysis::import_bound_names).collect();
    let lines: Vec<&str> = ctx.fragment.lines().collect();
    ctx.analysis.assigned.iter().filter(|(_, names)| names.iter().any(|n| n == name)).any(|(line, _)| {
        let Some(text) = lines.get((*line as usize).wrapping_sub(1)) else { return false };
        assigned_source(text).last().is_some_and(|rhs| {
            let dotted = !rhs.is_empty() && rhs.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
            let head = rhs.split('.').next().unwrap_or("");
            // Imported by the fragment, or a library name the prefix imports.
            dotted && (imported.iter().any(|b| b == head) || library_imports(ctx, head, &ctx.usage_of(head)).is_some())
        })
    })
}

/// Whether the name's use matches a library type the engine can build
/// (its members are that type's): then any hand-written object with
/// members poses as that type, whichever of its members it defines.
fn buildable(ctx: &Context, usage: &Usage) -> bool {
    super::library_types::real_instance(ctx, usage.attrs.keys().map(String::as_str)).is_some()
        || super::regex_patterns::compiled(usage).is_some()
}

fn has_members(v: &Value) -> bool {
    match v {
        Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } | Value::Derived { attrs, methods, .. } => {
            !attrs.is_empty() || !methods.is_empty()
        }
        _ => false,
    }
}

fn holds_stand_in(ctx: &Context, v: &Value, depth: usize) -> bool {
    if depth > 6 {
        return false;
    }
    let members_mimic = |attrs: &[(String, Value)], methods: &[(String, Value)]| {
        mimicked_type(ctx, attrs.iter().chain(methods).map(|(n, _)| n.as_str())).is_some()
            || attrs
                .iter()
                .chain(methods)
                .any(|(_, m)| holds_stand_in(ctx, m, depth + 1))
    };
    match v {
        Value::Object {
            class,
            attrs,
            methods,
        } => subclasses_a_library_class(ctx, class) || members_mimic(attrs, methods),
        Value::Class { attrs, methods } | Value::Derived { attrs, methods, .. } => {
            members_mimic(attrs, methods)
        }
        Value::Function { returns, .. } => holds_stand_in(ctx, returns, depth + 1),
        Value::List(items) | Value::Tuple(items) | Value::Set(items) => {
            items.iter().any(|x| holds_stand_in(ctx, x, depth + 1))
        }
        Value::Dict(kv) => kv
            .iter()
            .any(|(k, x)| holds_stand_in(ctx, k, depth + 1) || holds_stand_in(ctx, x, depth + 1)),
        Value::Code { source, .. } => source
            .lines()
            .filter_map(|l| l.strip_prefix("class "))
            .any(|c| subclasses_a_library_class(ctx, c)),
        _ => false,
    }
}

/// Whether `value`, bound to `name`, is a hand-written stand-in for a
/// library type the engine can build for real from the name's use (an
/// `app` with `route` beside `from flask import Flask`: `Flask(__name__)`).
/// Such a value is never proposed: when the real instance raises, the
/// inputs around it change, or the failure is reported (invariant 3).
pub fn replaces_a_real_instance(ctx: &Context, name: &str, usage: &Usage, value: &Value) -> bool {
    // With the type buildable, an object with members is a stand-in
    // outright; only other values need the whole check (which then does
    // not ask for the real instance again).
    !matches!(value, Value::Call { .. } | Value::Expr { .. } | Value::Anything) && buildable(ctx, usage) && (has_members(value) || is_stand_in(ctx, name, usage, value, false))
}

/// `Name(module.Type)`: a class whose base is reached through a module,
/// or is a library's class imported by its bare name (`Name(Action)` with
/// `from argparse import Action`).
fn subclasses_a_library_class(ctx: &Context, class: &str) -> bool {
    let base = class[class_ident(class).len()..].trim_start_matches('(');
    base.split([',', ')']).map(str::trim).filter(|b| !b.is_empty()).any(|b| {
        b.contains('.') || crate::synth::library_names::import_binding(ctx, b).is_some() || library_imports(ctx, b, &ctx.usage_of(b)).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use std::collections::BTreeSet;

    fn method() -> Value {
        Value::Function {
            returns: Box::new(Value::None),
            is_async: false,
        }
    }
    fn object(class: &str, members: &[&str]) -> Value {
        Value::Object {
            class: class.into(),
            attrs: vec![],
            methods: members.iter().map(|m| (m.to_string(), method())).collect(),
        }
    }
    fn classify(src: &str, name: &str, v: &Value) -> bool {
        let stdlib: BTreeSet<String> = ["json", "sqlite3", "asyncio"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let analysis = analyze(src);
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        let usage = analysis
            .free_names
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.usage.clone())
            .unwrap_or_default();
        is_stand_in(&ctx, name, &usage, v, false)
    }

    #[test]
    fn a_value_bound_to_a_library_name_is_a_stand_in() {
        assert!(classify(
            "data = json.load(open('s.json'))\n",
            "json",
            &object("Json", &["load"])
        ));
        let tabulate = Value::Function {
            returns: Box::new(Value::Str("table".into())),
            is_async: false,
        };
        assert!(classify(
            "print(tabulate(rows, headers=['a']))\n",
            "tabulate",
            &tabulate
        ));
    }

    #[test]
    fn a_subclass_of_a_library_class_imported_bare_is_a_stand_in() {
        let src = "from argparse import Action\nif isinstance(a, Action):\n    print(a.dest)\n";
        assert!(classify(src, "a", &object("A(Action)", &[])));
        // The user's own base class is not a library's.
        assert!(!classify("class Base:\n    pass\nif isinstance(a, Base):\n    print(a.dest)\n", "a", &object("A(Base)", &[])));
    }

    #[test]
    fn a_function_for_a_standard_library_function_is_a_stand_in() {
        let decode = Value::Function { returns: Box::new(Value::Str("{}".into())), is_async: false };
        assert!(classify("print(urlsafe_b64decode(payload))\n", "urlsafe_b64decode", &decode));
        // Called with more arguments than its signature takes: the fragment's own.
        assert!(!classify("print(urlsafe_b64decode(a, b, c))\n", "urlsafe_b64decode", &decode));
        assert!(!classify("print(my_decode(payload))\n", "my_decode", &decode));
    }

    #[test]
    fn an_object_for_a_name_the_fragment_gives_an_imported_value_is_a_stand_in() {
        let src = "from flask import current_app\nif app is None:\n    app = current_app\nprint(app.json.dumps(obj))\n";
        let app = Value::Object { class: "App".into(), attrs: vec![("json".into(), object("Json", &["dumps"]))], methods: vec![] };
        assert!(classify(src, "app", &app));
        // Not imported by the fragment: a library name the prefix imports.
        assert!(classify("if enc is None:\n    enc = json.JSONEncoder\nprint(enc.encode_all(x))\n", "enc", &object("Enc", &["encode_all"])));
        // Assigned something of its own: the fragment's own object.
        assert!(!classify("if app is None:\n    app = make_app()\nprint(app.json.dumps(obj))\n", "app", &app));
    }

    #[test]
    fn objects_with_the_members_of_a_library_type_are_stand_ins() {
        assert!(classify(
            "@app.route('/')\ndef home():\n    return 'hi'\napp.add_url_rule('/x', 'x', home)\n",
            "app",
            &object("App", &["route", "add_url_rule"])
        ));
        let conn = Value::Object {
            class: "Conn".into(),
            attrs: vec![],
            methods: vec![(
                "cursor".into(),
                Value::Function {
                    returns: Box::new(object("Cursor", &["execute", "fetchall"])),
                    is_async: false,
                },
            )],
        };
        assert!(
            classify(
                "cur = conn.cursor()\ncur.execute('select 1')\nprint(cur.fetchall())\n",
                "conn",
                &conn
            ),
            "what a method returns counts"
        );
        assert!(classify(
            "fig.savefig('a.png')\n",
            "fig",
            &object("Fig(matplotlib.figure.Figure)", &[])
        ));
    }

    #[test]
    fn any_object_with_members_poses_as_the_library_type_its_name_is_used_as() {
        // `self` is used as a Flask app (the fragment imports flask): an
        // object with only one of those members still stands for one.
        let src = "from flask import Flask\n@self.route('/')\ndef home():\n    return self.ensure_sync(home)()\n";
        let one = object("Self", &["ensure_sync"]);
        assert!(classify(src, "self", &one));
        let analysis = analyze(src);
        let stdlib = BTreeSet::new();
        let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
        let usage = ctx.usage_of("self");
        assert!(replaces_a_real_instance(&ctx, "self", &usage, &one));
        let real = Value::Expr { code: "Flask(__name__)".into(), imports: vec!["from flask import Flask".into()] };
        assert!(!replaces_a_real_instance(&ctx, "self", &usage, &real));
        // A plain value is wrong, not fake.
        assert!(!classify(src, "self", &Value::Int(3)));
    }

    #[test]
    fn a_value_with_the_io_protocols_members_is_a_stand_in_for_a_file() {
        // A `str` subclass that grew `readable` and `seekable` to get past
        // `io.TextIOWrapper` imitates an open file.
        let fake = Value::Derived {
            class: "Raw".into(),
            base: "str".into(),
            value: Box::new(Value::Str("raw.txt".into())),
            attrs: vec![],
            methods: vec![("readable".into(), method()), ("seekable".into(), method())],
        };
        assert!(classify("import io\nt = io.TextIOWrapper(raw)\n", "raw", &fake));
        let real = Value::Expr { code: "io.BytesIO(b'x')".into(), imports: vec!["import io".into()] };
        assert!(!classify("import io\nt = io.TextIOWrapper(raw)\n", "raw", &real));
    }

    #[test]
    fn the_users_own_types_and_library_built_values_are_not() {
        assert!(!classify(
            "print(cart.items(), cart.total())\n",
            "cart",
            &object("Cart", &["items", "total"])
        ));
        assert!(!classify(
            "print(s.start, s.end)\n",
            "s",
            &object("Span", &["start", "end"])
        ));
        let array = Value::Expr {
            code: "np.array([[1, 2], [3, 4]])".into(),
            imports: vec!["import numpy as np".into()],
        };
        assert!(!classify("print(a.reshape(4).tolist())\n", "a", &array));
        assert!(!classify(
            "raise Failed('x')\n",
            "Failed",
            &Value::Code {
                source: "class Failed(Exception):\n    pass".into(),
                imports: vec![]
            }
        ));
    }
}
