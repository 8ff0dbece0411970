//! From usage facts to ranked concrete values. Pure.
//!
//! Each kind of value (str, list, dict, DataFrame, ...) is scored by how
//! well it explains what the fragment does with the name: attributes it
//! has, keys it is indexed with, operators applied, functions it is passed
//! to. The best few kinds are built into concrete values, recursively from
//! the usage of their parts; the catch-all placeholder comes last.

use super::dataframe::dataframe;
pub use super::naming::{camel, singular};
use super::naming::result_name;
use super::knowledge::{argument_kind, kind_attrs};
pub use super::rank::{is_exception_name, rank_kinds};
use super::rank::{is_dir_name, is_output_name, name_kind, uses_time_index};
use super::scalars::{int_for, string_for, DEFAULT_TEXT, HELPER_TEXT};
use super::value::{call, Value};
use crate::analysis::{Key, Literal, Usage};

const MAX_DEPTH: usize = 6;

/// Ranked candidate values for a name used as `usage` (best first, the
/// placeholder last). Never empty.
pub fn candidates(name: &str, usage: &Usage) -> Vec<Value> {
    let mut out = Vec::new();
    for kind in rank_kinds(name, usage).into_iter().take(3) {
        let v = build(kind, name, usage, 0);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out.push(Value::Anything);
    out
}

/// The single best value (used for parts of values).
pub fn best(name: &str, usage: &Usage, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Int(1);
    }
    let plain = usage.attrs.is_empty() && usage.calls.is_empty() && usage.subscripts.is_empty() && !usage.iterated;
    if let (Some(constant), true) = (usage.equals.first(), plain) {
        // Compared with a constant (`tok.type == token.LPAR`): be that constant.
        return Value::Expr { code: constant.clone(), imports: vec![] };
    }
    // A part used as an instance of a library type (`self.app` with
    // `app_context()` and `url_map`): the real one, never a look-alike.
    if depth > 0 {
        if let Some(v) = super::library_types::real_instance_by_members(usage.attrs.keys().map(String::as_str)) {
            return v;
        }
        if let Some([pattern, _]) = super::regex_patterns::compiled(usage) {
            return pattern;
        }
    }
    let kind = rank_kinds(name, usage).into_iter().next().unwrap_or("int");
    build(kind, name, usage, depth)
}

pub(super) fn has_evidence(u: &Usage) -> bool {
    u != &Usage::default()
}

/// How what a callable returns is used, when anything is known. What
/// `await f()` gives is used like the result, but is not awaited itself.
pub(super) fn result_usage(callable: &Usage) -> Option<Usage> {
    callable.returns.as_deref().map(|r| Usage { awaited: false, ..r.clone() }).filter(has_evidence)
}

/// The `i`-th distinct variant of an element value, so a collection's
/// items differ the way real data does.
pub fn vary(v: &Value, i: usize) -> Value {
    const WORDS: &[&str] = &["apple", "banana", "cherry", "date", "elderberry"];
    match v {
        Value::Int(n) => Value::Int(n + i as i64),
        Value::Float(f) => Value::Float(f + i as f64 * 1.5),
        Value::Str(s) if WORDS.contains(&s.as_str()) => Value::Str(WORDS[(WORDS.iter().position(|w| w == s).unwrap() + i) % WORDS.len()].into()),
        Value::Str(s) if i == 0 => Value::Str(s.clone()),
        // Text that is data stays parseable: another number, a later date
        // (months apart, so tests of the month go both ways).
        Value::Str(s) if s.parse::<i64>().is_ok() => Value::Str((s.parse::<i64>().unwrap() + i as i64).to_string()),
        Value::Str(s) if s.parse::<f64>().is_ok_and(f64::is_finite) => Value::Str((s.parse::<f64>().unwrap() + i as f64 * 1.5).to_string()),
        Value::Str(s) if iso_date(s).is_some() => {
            let (y, m, d) = iso_date(s).unwrap();
            let m0 = m - 1 + 4 * i as u32;
            Value::Str(format!("{:04}-{:02}-{:02}{}", y + m0 / 12, m0 % 12 + 1, d.min(28), &s[10..]))
        }
        Value::Str(s) if s.ends_with(".txt") => Value::Str(s.replace(".txt", &format!("{}.txt", i + 1))),
        Value::Str(s) => Value::Str(format!("{s} {}", i + 1)),
        Value::Tuple(items) => Value::Tuple(items.iter().map(|x| vary(x, i)).collect()),
        Value::List(items) if i > 0 => Value::List(items.iter().map(|x| vary(x, i)).collect()),
        Value::Dict(kv) => Value::Dict(kv.iter().map(|(k, x)| (k.clone(), vary(x, i))).collect()),
        other => other.clone(),
    }
}

/// `YYYY-MM-DD` at the start of `s` (a time may follow).
fn iso_date(s: &str) -> Option<(u32, u32, u32)> {
    let b = s.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' || !(b.len() == 10 || matches!(b[10], b' ' | b'T')) {
        return None;
    }
    let (y, m, d) = (s[..4].parse().ok()?, s[5..7].parse().ok()?, s[8..10].parse().ok()?);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
}

fn merged_items(u: &Usage) -> Usage {
    // Everything known about one element: iteration, integer subscripts.
    let mut m = u.element.as_deref().cloned().unwrap_or_default();
    for (k, item) in &u.subscripts {
        if matches!(k, Key::Int(_) | Key::Expr(_)) {
            crate::analysis::merge_usage(&mut m, item);
        }
    }
    m
}

fn list_len(u: &Usage) -> usize {
    let max_idx = u
        .subscripts
        .iter()
        .filter_map(|(k, _)| match k {
            Key::Int(i) if *i >= 0 => Some(*i as usize + 1),
            Key::Int(i) => Some(i.unsigned_abs() as usize),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    max_idx.max(3)
}

/// A value of a given kind for a name used as `u`.
pub fn value_of_kind(kind: &str, name: &str, u: &Usage) -> Value {
    build(kind, name, u, 1)
}

fn build(kind: &str, name: &str, u: &Usage, depth: usize) -> Value {
    let part = |n: &str, usage: &Usage| best(n, usage, depth + 1);
    match kind {
        "str" => Value::Str(string_for(name, u)),
        "bytes" => Value::Bytes("hello world".into()),
        "int" => Value::Int(int_for(name, u)),
        "float" => Value::Float(u.compared.iter().find_map(|(_, l)| match l {
            Literal::Float(f) => Some(*f + 0.5),
            _ => None,
        }).unwrap_or(2.5)),
        "bool" => Value::Bool(true),
        // A share or quantile: between 0 and 1.
        "fraction" => Value::Float(0.5),
        "list" | "set" => {
            let el_usage = merged_items(u);
            let el_name = singular(name);
            let items: Vec<Value> = if !has_evidence(&el_usage) && passed_as(u, "pairs") {
                // Edges of a graph (`G.add_edges_from(edges)`): pairs of
                // nodes, joined into a path 1-2-3-4.
                (1..=3).map(|i| Value::Tuple(vec![Value::Int(i), Value::Int(i + 1)])).collect()
            } else if has_evidence(&el_usage) || !is_command(u) {
                // `'x' in items` is true of a collection that holds it: its
                // items are of the literal's type, the literal first.
                let held = if has_evidence(&el_usage) { None } else { u.contains.iter().find_map(literal_value) };
                let first = if has_evidence(&el_usage) { part(&el_name, &el_usage) } else { held.clone().unwrap_or_else(|| element_default(name)) };
                (0..list_len(u)).map(|i| vary(&first, i)).collect()
            } else {
                // An argument vector (`subprocess.run(cmd)`) holds strings: a command that runs.
                vec![Value::Str("echo".into()), Value::Str("hello".into())]
            };
            if kind == "set" { Value::Set(items) } else { Value::List(items) }
        }
        // `next(it)`: only an iterator has `__next__`; its items as a list would have.
        "iterator" => Value::Call { func: "iter".into(), args: vec![build("list", name, u, depth)], kwargs: vec![], imports: vec![] },
        "tuple" => {
            let n = u.unpack.unwrap_or_else(|| list_len(u).min(3));
            let items = (0..n)
                .map(|i| match u.unpacked_items.get(i) {
                    Some(iu) if has_evidence(iu) => part(&format!("{name}_{i}"), iu),
                    _ => Value::Int(i as i64 + 1),
                })
                .collect();
            Value::Tuple(items)
        }
        "dict" => {
            let mut keys: Vec<String> = Vec::new();
            let mut items: Vec<(Value, Value)> = Vec::new();
            for (k, item) in &u.subscripts {
                if let Key::Str(s) = k {
                    if !keys.contains(s) {
                        keys.push(s.clone());
                        items.push((Value::Str(s.clone()), part(s, item)));
                    }
                }
            }
            for l in &u.contains {
                if let Literal::Str(s) = l {
                    if !keys.contains(s) {
                        keys.push(s.clone());
                        items.push((Value::Str(s.clone()), Value::Int(1)));
                    }
                }
            }
            if items.is_empty() && u.keyword_splat {
                // `f(x, **options)` with no key read: no keyword the callee
                // would reject, as a call with none passes.
                return Value::Dict(items);
            }
            if items.is_empty() {
                // `for k, v in d.items()` and friends tell the value shape.
                let pair = u.attrs.get("items").and_then(|a| a.returns.as_deref()).and_then(|r| r.element.as_deref());
                let key_usage = pair.and_then(|e| e.unpacked_items.first()).or_else(|| u.element.as_deref()).cloned().unwrap_or_default();
                let value_usage = pair
                    .and_then(|e| e.unpacked_items.get(1).cloned())
                    .or_else(|| u.attrs.get("values").and_then(|a| a.returns.as_deref()).and_then(|r| r.element.as_deref()).cloned())
                    .unwrap_or_default();
                let v = if has_evidence(&value_usage) { part("value", &value_usage) } else { Value::Int(1) };
                // Keys used as classes (`k.__name__`, `issubclass(k, ...)`): real ones.
                let class_keys = has_evidence(&key_usage) && rank_kinds("", &key_usage).first() == Some(&"class");
                let keys = if class_keys { ["int", "str", "float"].map(|t| Value::Expr { code: t.into(), imports: vec![] }) } else { ["a", "b", "c"].map(|k| Value::Str(k.into())) };
                for (i, k) in keys.into_iter().enumerate() {
                    items.push((k, vary(&v, i)));
                }
            }
            Value::Dict(items)
        }
        "pathlib" => {
            // A folder when the fragment joins onto it, else a file its
            // callees can read. A folder for results is a fresh empty one:
            // `out / src.name` must not be the source itself.
            if (u.operators.contains("/") || is_dir_name(name)) && is_output_name(name) {
                return call("Path", vec![call("tempfile.mkdtemp", vec![], "import tempfile")], "from pathlib import Path");
            }
            let file = if u.operators.contains("/") || is_dir_name(name) { ".".to_string() } else { string_for(name, &Usage::default()) };
            let file = if file.contains('.') || file == "." { file } else { format!("{file}.txt") };
            call("Path", vec![Value::Str(file)], "from pathlib import Path")
        }
        "datetime" => call("datetime.datetime", [2024, 1, 15, 10, 30].map(Value::Int).into(), "import datetime"),
        "date" => call("datetime.date", [2024, 1, 15].map(Value::Int).into(), "import datetime"),
        // Spelled through its own name: the fragment often rebinds `datetime` to the class.
        "tzinfo" => Value::Expr { code: "timezone.utc".into(), imports: vec!["from datetime import timezone".into()] },
        // A class read only through its constants (`Feature.F_STRINGS` added
        // to a set, compared, passed on): an enumeration, built with the
        // standard library's functional API; members are distinct and hashable.
        "enum" => {
            let members = Value::List(u.attrs.keys().map(|m| Value::Str(m.clone())).collect());
            call("enum.Enum", vec![Value::Str(name.to_string()), members], "import enum")
        }
        // The module's logger, as code everywhere gets it.
        "logger" => Value::Call {
            func: "logging.getLogger".into(),
            args: vec![Value::Expr { code: "__name__".into(), imports: vec![] }],
            kwargs: vec![],
            imports: vec!["import logging".into()],
        },
        "file" => call("io.StringIO", vec![Value::Str("first line\nsecond line\nthird line\n".into())], "import io"),
        "binary-file" => call("io.BytesIO", vec![Value::Bytes("first line\nsecond line\nthird line\n".into())], "import io"),
        "ndarray" => {
            let two_d = u.attrs.get("shape").is_some_and(|s| s.subscripts.iter().any(|(k, _)| matches!(k, Key::Int(1))))
                || u.subscripts.iter().any(|(k, _)| matches!(k, Key::Expr(e) if e.contains(',')));
            let ints = |r: std::ops::RangeInclusive<i64>| Value::List(r.map(Value::Int).collect());
            let items = if two_d { vec![ints(1..=3), ints(4..=6), ints(7..=9)] } else { vec![ints(1..=5)] };
            let data = if two_d { Value::List(items) } else { items.into_iter().next().unwrap_or(Value::None) };
            call("np.array", vec![data], "import numpy as np")
        }
        "series" if uses_time_index(u) => {
            let dates = Value::Call { func: "pd.date_range".into(), args: vec![Value::Str("2024-01-01".into())], kwargs: vec![("periods".into(), Value::Int(60))], imports: vec![] };
            let values = Value::Call { func: "range".into(), args: vec![Value::Int(60)], kwargs: vec![], imports: vec![] };
            // `float` is the builtin type itself.
            let float = Value::Expr { code: "float".into(), imports: vec![] };
            Value::Call { func: "pd.Series".into(), args: vec![values], kwargs: vec![("index".into(), dates), ("dtype".into(), float)], imports: vec!["import pandas as pd".into()] }
        }
        "series" => call("pd.Series", vec![Value::List((1..4).map(Value::Int).collect())], "import pandas as pd"),
        "dataframe" => dataframe(u),
        "function" | "coroutine" => {
            let ret = match result_usage(u).map(|r| part(&result_name(name), &r)) {
                // A helper hands back other text than it is given (the
                // default text of its inputs): `if out == text` must not hold by accident.
                Some(Value::Str(s)) if s == DEFAULT_TEXT => Value::Str(HELPER_TEXT.into()),
                Some(v) => v,
                // A key function (`sorted(xs, key=f)`, `map(f, xs)`) is called
                // with each element and its results compared or collected:
                // the element itself always serves, where `None` fails to sort.
                None if passed_as(u, "key-function") => Value::Expr { code: "args[0]".into(), imports: vec![] },
                None => Value::None,
            };
            Value::Function { returns: Box::new(ret), is_async: kind == "coroutine" }
        }
        // `ScrapyDeprecationWarning`: warning categories are `Warning` subclasses.
        "exception" if name.ends_with("Warning") => Value::Code { source: format!("class {name}(Warning):\n    pass"), imports: vec![] },
        "exception" => Value::Code { source: format!("class {name}(Exception):\n    pass"), imports: vec![] },
        "class" => {
            let inst = u.returns.as_deref().cloned().unwrap_or_default();
            let (attrs, methods) = members(&inst, depth);
            Value::Class { attrs, methods }
        }
        _ => {
            // Indexed or iterated too: a dict or list subclass with the
            // extra members, so both uses work.
            let keyed = u.subscripts.iter().any(|(k, _)| matches!(k, Key::Str(_) | Key::Expr(_))) || !u.subscript_writes.is_empty();
            let listy = u.iterated || u.element.is_some() || u.subscripts.iter().any(|(k, _)| matches!(k, Key::Int(_) | Key::Slice));
            if depth <= 1 && (keyed || listy) {
                let base = if keyed { "dict" } else { "list" };
                let base_attrs = kind_attrs(base);
                let mut extra = u.clone();
                extra.attrs.retain(|a, _| base_attrs.is_none_or(|b| !b.contains(a)));
                let (attrs, mut methods) = members(&extra, depth);
                for (m, v) in methods.iter_mut() {
                    if let Some(alias) = legacy_method(base, m) {
                        *v = alias;
                    }
                }
                let mut plain = u.clone();
                plain.attrs.clear();
                return Value::Derived { class: camel(name), base: base.into(), value: Box::new(build(base, name, &plain, depth)), attrs, methods };
            }
            let (attrs, methods) = members(u, depth);
            Value::Object { class: camel(name), attrs, methods }
        }
    }
}

/// Methods a builtin type had under another name (Python 2's dict API),
/// answered by the type's own method so the data stays consistent.
pub fn legacy_method(base: &str, method: &str) -> Option<Value> {
    let code = match (base, method) {
        ("dict", "iteritems" | "viewitems") => "list(self.items())",
        ("dict", "iterkeys" | "viewkeys") => "list(self.keys())",
        ("dict", "itervalues" | "viewvalues") => "list(self.values())",
        ("dict", "has_key") => "args[0] in self",
        _ => return None,
    };
    Some(Value::Function { returns: Box::new(Value::Expr { code: code.into(), imports: vec![] }), is_async: false })
}

/// Passed where a command's argument vector goes (`subprocess.run(cmd)`).
fn is_command(u: &Usage) -> bool {
    passed_as(u, "command")
}

/// Passed where the callee wants an argument of `kind` (`callee_kinds.txt`).
fn passed_as(u: &Usage, kind: &str) -> bool {
    u.passed_to.iter().any(|a| argument_kind(&a.callee, a.position, a.keyword.as_deref()) == Some(kind))
}

/// A constant the fragment wrote, as a value (strings and numbers: what a
/// membership test looks for).
fn literal_value(l: &Literal) -> Option<Value> {
    match l {
        Literal::Str(s) => Some(Value::Str(s.clone())),
        Literal::Int(n) => Some(Value::Int(*n)),
        Literal::Float(f) => Some(Value::Float(*f)),
        _ => None,
    }
}

fn element_default(collection: &str) -> Value {
    match name_kind(&singular(collection)) {
        "str" => Value::Str("apple".into()),
        _ => Value::Int(1),
    }
}

/// Attributes and methods of an object from how it is used.
fn members(u: &Usage, depth: usize) -> (Vec<(String, Value)>, Vec<(String, Value)>) {
    let mut attrs = Vec::new();
    let mut methods = Vec::new();
    for (a, au) in &u.attrs {
        if a.starts_with("__") && a.ends_with("__") && au.calls.is_empty() {
            // `__dict__`, `__class__`, `__name__`: every object has its own.
            continue;
        }
        if !au.calls.is_empty() {
            let awaited = au.awaited || au.returns.as_deref().is_some_and(|r| r.awaited);
            let ret = result_usage(au).map(|r| best(a, &r, depth + 1)).unwrap_or(Value::None);
            methods.push((a.clone(), Value::Function { returns: Box::new(ret), is_async: awaited }));
        } else {
            let v = if has_evidence(au) { best(a, au, depth + 1) } else { Value::Str(a.clone()) };
            // A class is written as a nested class and a function as a
            // lambda; a coroutine function has no inline spelling.
            let v = match v {
                Value::Function { is_async: true, .. } => Value::Anything,
                v => v,
            };
            attrs.push((a.clone(), v));
        }
    }
    (attrs, methods)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{ArgUse, CallShape};

    #[test]
    fn items_called_on_an_entry_are_a_mapping_s_not_a_series() {
        let src = "for name, opts in cfg['services'].items():\n    print(name, opts['port'])\n";
        let a = crate::analysis::analyze(src);
        let u = &a.free_names.iter().find(|f| f.name == "cfg").unwrap().usage;
        assert!(matches!(best("cfg", u, 0), Value::Dict(_)), "{:?}", best("cfg", u, 0));
    }

    fn attrs(names: &[&str]) -> Usage {
        let mut u = Usage::default();
        for n in names {
            u.attrs.insert((*n).into(), Usage::default());
        }
        u
    }

    #[test]
    fn string_methods_make_a_string() {
        assert_eq!(rank_kinds("line", &attrs(&["split", "strip"]))[0], "str");
        assert_eq!(rank_kinds("base", &Usage { subclassed: true, ..Default::default() })[0], "class", "a base of a class statement");
        assert!(matches!(candidates("line", &attrs(&["split"]))[0], Value::Str(_)));
    }

    #[test]
    fn a_class_read_only_through_constants_is_an_enumeration() {
        let src = "features = set()\nif Feature.F_STRINGS not in features:\n    features.add(Feature.F_STRINGS)\nfeatures.add(Feature.MATCH)\n";
        let u = crate::analysis::analyze(src).free_names.into_iter().find(|f| f.name == "Feature").unwrap().usage;
        assert_eq!(candidates("Feature", &u)[0].expr(), "enum.Enum('Feature', ['F_STRINGS', 'MATCH'])");
        // Called, or read through ordinary attributes: a class of its own.
        assert_ne!(rank_kinds("Feature", &attrs(&["F_STRINGS", "parse"]))[0], "enum");
        assert_ne!(rank_kinds("MAX", &attrs(&["A", "B"]))[0], "enum", "a constant, not a class name");
    }

    #[test]
    fn string_keys_make_a_dict_with_those_keys() {
        let mut u = Usage::default();
        u.subscripts.push((Key::Str("name".into()), Usage::default()));
        u.subscripts.push((Key::Str("age".into()), Usage { arithmetic: vec![("+".into(), Literal::Int(1))], ..Default::default() }));
        let v = candidates("person", &u).remove(0);
        assert_eq!(v.expr(), "{'name': 'Ada', 'age': 30}");
    }

    #[test]
    fn dataframe_methods_make_a_frame_with_the_columns_read() {
        let mut u = attrs(&["groupby"]);
        u.subscripts.push((Key::Str("price".into()), Usage::default()));
        let v = candidates("sales", &u).remove(0);
        assert!(v.expr().starts_with("pd.DataFrame({'price': ["), "{v:?}");
    }

    #[test]
    fn a_part_used_as_a_library_type_is_a_real_instance() {
        // `self.app.app_context()` and `self.app.url_map`: Flask's own application.
        let mut app = attrs(&["app_context", "url_map"]);
        app.attrs.get_mut("app_context").unwrap().calls.push(CallShape { positional: 0, keywords: vec![], star_args: false });
        let mut me = Usage::default();
        me.attrs.insert("app".into(), app);
        let Value::Object { attrs, .. } = candidates("self", &me).remove(0) else { panic!("an object") };
        assert_eq!(attrs[0].1.expr(), "Flask(__name__)");
        // One member alone says nothing without the fragment's context.
        let mut me = Usage::default();
        me.attrs.insert("app".into(), super::tests::attrs(&["route"]));
        let Value::Object { attrs, .. } = candidates("self", &me).remove(0) else { panic!("an object") };
        assert_ne!(attrs[0].1.expr(), "Flask(__name__)");
    }

    #[test]
    fn logging_methods_make_the_modules_logger() {
        // `info` is a DataFrame's too; `warning` only a logger's.
        for (name, members) in [("log", &["info"][..]), ("worker", &["warning", "debug"][..]), ("logger", &["info"][..])] {
            assert_eq!(candidates(name, &attrs(members))[0].expr(), "logging.getLogger(__name__)", "{name}");
        }
        // Data attributes a logger also has (`level`, `name`) say nothing.
        assert_ne!(rank_kinds("job", &attrs(&["level"]))[0], "logger");
        assert_eq!(rank_kinds("df", &attrs(&["info"]))[0], "dataframe");
    }

    #[test]
    fn iterated_with_unpacking_makes_a_list_of_tuples() {
        let el = Usage { unpack: Some(2), ..Default::default() };
        let u = Usage { iterated: true, element: Some(Box::new(el)), ..Default::default() };
        let v = candidates("pairs", &u).remove(0);
        assert_eq!(v.expr(), "[(1, 2), (2, 3), (3, 4)]");
    }

    #[test]
    fn called_names_become_functions_or_classes() {
        let call = Usage { calls: vec![CallShape { positional: 1, keywords: vec![], star_args: false }], ..Default::default() };
        assert!(matches!(candidates("helper", &call)[0], Value::Function { .. }));
        let mut inst = attrs(&["run"]);
        inst.attrs.get_mut("run").unwrap().calls.push(CallShape { positional: 0, keywords: vec![], star_args: false });
        let cls = Usage { returns: Some(Box::new(inst)), ..call };
        assert!(matches!(&candidates("Worker", &cls)[0], Value::Class { methods, .. } if methods[0].0 == "run"));
    }

    #[test]
    fn arguments_take_the_kind_their_callee_needs() {
        let u = Usage { passed_to: vec![ArgUse { callee: "open".into(), position: Some(0), keyword: None }], ..Default::default() };
        assert_eq!(candidates("fname", &u)[0], Value::Str("data.txt".into()));
        let c = Usage { compared: vec![(">".into(), Literal::Int(10))], ..Default::default() };
        assert_eq!(candidates("n", &c)[0], Value::Int(11));
        assert_eq!(*candidates("n", &c).last().unwrap(), Value::Anything);
    }

    #[test]
    fn a_collection_used_whole_as_a_number_is_an_array() {
        // `for x in data: ...` and `data > 2`: a list has no element-wise `>`.
        let u = Usage { iterated: true, compared: vec![(">".into(), Literal::Int(2))], ..Default::default() };
        assert_eq!(rank_kinds("data", &u)[0], "ndarray");
        let masked = Usage { operators: ["<".to_string()].into(), subscripts: vec![(Key::Expr("mask".into()), Usage::default())], ..Default::default() };
        assert_eq!(rank_kinds("data", &masked)[0], "ndarray");
        // Concatenation and repetition are list operators: still a list.
        let joined = Usage { iterated: true, arithmetic: vec![("+".into(), Literal::Other("[1]".into()))], ..Default::default() };
        assert_eq!(rank_kinds("items", &joined)[0], "list");
        // A number alone is still a number.
        assert_eq!(rank_kinds("n", &Usage { compared: vec![(">".into(), Literal::Int(2))], ..Default::default() })[0], "int");
    }

    #[test]
    fn varied_text_that_is_data_still_parses() {
        let s = |x: &str| Value::Str(x.into());
        assert_eq!(vary(&s("2024-01-15"), 2), s("2024-09-15"));
        assert_eq!(vary(&s("2024-11-30 10:00"), 1), s("2025-03-28 10:00"));
        assert_eq!(vary(&s("3.5"), 1), s("5"));
        assert_eq!(vary(&s("42"), 2), s("44"));
        assert_eq!(vary(&s("Ada"), 1), s("Ada 2"));
    }

    #[test]
    fn a_command_is_an_argument_vector_of_strings_and_its_cwd_a_directory() {
        let argv = Usage { passed_to: vec![ArgUse { callee: "subprocess.run".into(), position: Some(0), keyword: None }], ..Default::default() };
        assert_eq!(value_of_kind("list", "cmd", &argv).expr(), "['echo', 'hello']");
        let cwd = Usage { passed_to: vec![ArgUse { callee: "subprocess.run".into(), position: None, keyword: Some("cwd".into()) }], ..Default::default() };
        assert_eq!(value_of_kind("str", "cwd", &cwd), Value::Str(".".into()));
        // A folder results are written into is a fresh one, never the inputs' own.
        let joined = Usage { operators: ["/".to_string()].into(), ..Default::default() };
        assert_eq!(value_of_kind("pathlib", "output_path", &joined).expr(), "Path(tempfile.mkdtemp())");
        assert_eq!(value_of_kind("pathlib", "data_path", &joined).expr(), "Path('.')");
    }

    #[test]
    fn an_iterator_is_built_over_a_list() {
        assert_eq!(value_of_kind("iterator", "rows", &Usage::default()).expr(), "iter([1, 2, 3])");
    }
}

#[cfg(test)]
mod printed_results {
    use super::*;
    use crate::analysis::{ArgUse, CallShape};

    #[test]
    fn a_printed_result_is_a_string() {
        let ret = Usage { passed_to: vec![ArgUse { callee: "print".into(), position: Some(0), keyword: None }], formatted: true, ..Default::default() };
        assert_eq!(rank_kinds("result", &ret)[0], "str");
        let f = Usage { calls: vec![CallShape { positional: 2, keywords: vec![], star_args: false }], returns: Some(Box::new(ret)), ..Default::default() };
        assert!(matches!(&candidates("summarize", &f)[0], Value::Function { returns, .. } if matches!(**returns, Value::Str(_))), "{:?}", candidates("summarize", &f));
    }
}

#[cfg(test)]
mod copies {
    use super::*;
    use crate::analysis::CallShape;

    #[test]
    fn a_copy_written_with_keys_is_a_dict() {
        let copied = Usage { subscript_writes: vec![Key::Expr("key".into())], ..Default::default() };
        let copy = Usage { calls: vec![CallShape { positional: 0, keywords: vec![], star_args: false }], returns: Some(Box::new(copied)), ..Default::default() };
        let mut u = Usage::default();
        u.attrs.insert("copy".into(), copy);
        assert_eq!(rank_kinds("defaults", &u)[0], "dict", "{:?}", rank_kinds("defaults", &u));
    }

    #[test]
    fn a_result_is_named_after_its_function() {
        let sent = Usage { passed_to: vec![crate::analysis::ArgUse { callee: "send".into(), position: Some(0), keyword: None }], ..Default::default() };
        let used = Usage { calls: vec![CallShape { positional: 1, keywords: vec![], star_args: false }], returns: Some(Box::new(sent)), ..Default::default() };
        assert!(matches!(&candidates("to_bytes", &used)[0], Value::Function { returns, .. } if matches!(**returns, Value::Bytes(_))), "{:?}", candidates("to_bytes", &used));
    }

    #[test]
    fn a_helper_returns_other_text_than_it_is_given() {
        let shown = Usage { formatted: true, ..Default::default() };
        let helper = Usage { calls: vec![CallShape { positional: 1, keywords: vec![], star_args: false }], returns: Some(Box::new(shown.clone())), ..Default::default() };
        let Value::Function { returns, .. } = &candidates("normalise", &helper)[0] else { panic!("{:?}", candidates("normalise", &helper)) };
        let Value::Str(given) = best("text", &shown, 0) else { panic!() };
        assert!(matches!(&**returns, Value::Str(out) if *out != given), "{returns:?}");
    }

    #[test]
    fn a_collection_looked_up_by_its_own_items_is_a_dict() {
        let looked_up = Usage { iterated: true, keyed_by_items: true, subscripts: vec![(Key::Expr("k".into()), Usage::default())], ..Default::default() };
        assert_eq!(rank_kinds("prices", &looked_up)[0], "dict", "{:?}", rank_kinds("prices", &looked_up));
        let indexed = Usage { keyed_by_items: false, ..looked_up };
        assert_eq!(rank_kinds("prices", &indexed)[0], "list");
    }

    #[test]
    fn keyword_arguments_passed_on_are_a_mapping_with_no_stray_keys() {
        let u = crate::analysis::analyze("kwargs.setdefault('default', str)\nprint(json.dumps(obj, **kwargs))\n").free_names.into_iter().find(|f| f.name == "kwargs").unwrap().usage;
        assert_eq!(candidates("kwargs", &u)[0], Value::Dict(vec![]), "json.dumps takes no keyword `a`");
    }

    #[test]
    fn a_warning_category_is_a_warning_subclass() {
        let Value::Code { source, .. } = best("ScrapyDeprecationWarning", &Usage::default(), 0) else { panic!() };
        assert_eq!(source, "class ScrapyDeprecationWarning(Warning):\n    pass");
        let Value::Code { source, .. } = best("LookupFailedError", &Usage::default(), 0) else { panic!() };
        assert!(source.starts_with("class LookupFailedError(Exception):"), "{source}");
    }
}
