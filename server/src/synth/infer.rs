//! From usage facts to ranked concrete values. Pure.
//!
//! Each kind of value (str, list, dict, DataFrame, ...) is scored by how
//! well it explains what the fragment does with the name: attributes it
//! has, keys it is indexed with, operators applied, functions it is passed
//! to. The best few kinds are built into concrete values, recursively from
//! the usage of their parts; the catch-all placeholder comes last.

use super::knowledge::{argument_kind, kind_attrs, kinds};
use super::value::Value;
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
    let kind = rank_kinds(name, usage).into_iter().next().unwrap_or("int");
    build(kind, name, usage, depth)
}

fn has_evidence(u: &Usage) -> bool {
    u != &Usage::default()
}

/// How what a callable returns is used, when anything is known. What
/// `await f()` gives is used like the result, but is not awaited itself.
fn result_usage(callable: &Usage) -> Option<Usage> {
    callable.returns.as_deref().map(|r| Usage { awaited: false, ..r.clone() }).filter(has_evidence)
}

/// The attributes of kinds.txt that are data, not methods.
const PROPERTIES: &[&str] = &[
    "columns", "index", "loc", "iloc", "iat", "at", "shape", "dtypes", "dtype", "values", "T", "empty", "size", "ndim", "str", "dt",
    "name", "real", "imag", "numerator", "denominator", "year", "month", "day", "hour", "minute", "second", "microsecond", "tzinfo",
    "nbytes", "itemsize",
];

/// Kinds ordered by score (ties keep table order).
pub fn rank_kinds(name: &str, u: &Usage) -> Vec<&'static str> {
    let mut scores: Vec<(&'static str, i32)> = Vec::new();
    let add = |scores: &mut Vec<(&'static str, i32)>, k: &'static str, s: i32| match scores.iter_mut().find(|(n, _)| *n == k) {
        Some(e) => e.1 += s,
        None => scores.push((k, s)),
    };
    let attr_names: Vec<&str> = u.attrs.keys().map(String::as_str).collect();
    for (kind, attrs) in kinds() {
        let kind: &'static str = static_kind(kind);
        // Generic attribute names (`name`, `value`) say little about a library type.
        const GENERIC: &[&str] = &["name", "value", "id", "type", "data", "size", "index", "title", "label"];
        // A method of the kind read as a value with members of its own
        // (`x.items.append`): not the kind's method, another attribute.
        let misused = |a: &str| !PROPERTIES.contains(&a) && u.attrs.get(a).is_some_and(|au| au.calls.is_empty() && (!au.attrs.is_empty() || !au.subscripts.is_empty()));
        let known = attr_names.iter().filter(|a| attrs.contains(**a) && !GENERIC.contains(a) && !misused(a)).count() as i32;
        let generic = attr_names.iter().filter(|a| attrs.contains(**a) && GENERIC.contains(a)).count() as i32;
        let unknown = attr_names.len() as i32 - known - generic;
        // Chained calls on a result with attributes this kind lacks
        // (`objects.all().filter()`): not this kind, a custom object.
        let chained_unknown = u
            .attrs
            .values()
            .filter_map(|a| a.returns.as_deref())
            .flat_map(|r| r.attrs.keys())
            .filter(|k| !attrs.contains(*k))
            .count() as i32;
        if !attr_names.is_empty() {
            add(&mut scores, kind, 4 * known + generic - 3 * unknown - 4 * chained_unknown);
        }
    }
    if !attr_names.is_empty() {
        // Attributes no builtin kind has: an object of a class of its own.
        add(&mut scores, "object", 2 * attr_names.len() as i32);
    }
    if !u.attr_writes.is_empty() {
        // Builtin values take no attribute assignments: only an object does.
        add(&mut scores, "object", 6);
    }
    // `copy()` returns the same kind: what is done with the copy tells the kind.
    if let Some(copied) = u.attrs.get("copy").and_then(|c| c.returns.as_deref()) {
        for (k, s) in rank_kinds("", copied).into_iter().take(1).map(|k| (k, 3)) {
            add(&mut scores, k, s);
        }
    }
    let expr_writes = u.subscript_writes.iter().filter(|k| matches!(k, Key::Expr(_))).count() as i32;
    if expr_writes > 0 {
        add(&mut scores, "dict", 3);
        add(&mut scores, "list", 1);
    }
    if u.formatted || u.passed_to.iter().any(|a| a.callee == "print") {
        add(&mut scores, "str", 1);
    }
    let str_keys = u.subscripts.iter().filter(|(k, _)| matches!(k, Key::Str(_))).count() as i32
        + u.subscript_writes.iter().filter(|k| matches!(k, Key::Str(_))).count() as i32;
    let int_keys = u.subscripts.iter().filter(|(k, _)| matches!(k, Key::Int(_) | Key::Slice)).count() as i32;
    let column_lists = u.subscripts.iter().filter(|(k, _)| matches!(k, Key::Expr(e) if !string_list(e).is_empty())).count() as i32;
    if column_lists > 0 {
        add(&mut scores, "dataframe", 6);
    }
    // Items that behave like pandas Series make the container a DataFrame.
    let series_items = u
        .subscripts
        .iter()
        .filter(|(k, item)| matches!(k, Key::Str(_)) && item.attrs.keys().any(|a| kind_attrs("series").is_some_and(|s| s.contains(a)) && !kind_attrs("str").is_some_and(|s| s.contains(a)) && !kind_attrs("list").is_some_and(|s| s.contains(a))))
        .count() as i32;
    if series_items > 0 {
        add(&mut scores, "dataframe", 4 + series_items);
    }
    let expr_keys = u.subscripts.iter().filter(|(k, _)| matches!(k, Key::Expr(e) if string_list(e).is_empty())).count() as i32;
    if str_keys > 0 {
        add(&mut scores, "dict", 4 + str_keys);
        add(&mut scores, "dataframe", 2 + str_keys);
    }
    if int_keys > 0 {
        add(&mut scores, "list", 4);
        add(&mut scores, "tuple", 1);
        add(&mut scores, "str", 1);
    }
    if expr_keys > 0 {
        add(&mut scores, "list", 2);
        add(&mut scores, "dict", 2);
    }
    if u.keyed_by_items {
        add(&mut scores, "dict", 8);
    }
    if u.iterated || u.element.is_some() {
        add(&mut scores, "list", 4);
        add(&mut scores, "dict", 1);
    }
    if let Some(n) = u.unpack {
        add(&mut scores, "tuple", 5 + n as i32);
    }
    if u.len {
        add(&mut scores, "list", 2);
        add(&mut scores, "str", 1);
    }
    for (op, lit) in u.arithmetic.iter().chain(&u.compared) {
        match lit {
            Literal::Int(_) => add(&mut scores, "int", 4),
            Literal::Float(_) => add(&mut scores, "float", 5),
            Literal::Str(_) if op == "%" => add(&mut scores, "str", 5),
            Literal::Str(_) => add(&mut scores, "str", 4),
            Literal::Bool(_) => add(&mut scores, "bool", 4),
            _ => {}
        }
    }
    if u.operators.contains("contains") {
        add(&mut scores, "list", 3);
        add(&mut scores, "dict", 2);
        add(&mut scores, "str", 1);
    }
    for op in &u.operators {
        if ["+", "-", "*", "/", "//", "**", "<", ">", "<=", ">="].contains(&op.as_str()) {
            add(&mut scores, "int", 2);
            add(&mut scores, "float", 1);
        }
    }
    if !u.contains.is_empty() {
        let strs = u.contains.iter().any(|l| matches!(l, Literal::Str(_)));
        add(&mut scores, if strs { "dict" } else { "list" }, 2);
        add(&mut scores, "str", 1);
    }
    if ["__name__", "__qualname__", "__mro__", "__subclasses__"].iter().any(|a| u.attrs.contains_key(*a)) {
        // Only classes (and functions) have these.
        add(&mut scores, "class", 6);
    }
    // A slice of a value is a value of the same kind (`s[::2].resample(...)`).
    for (_, item) in u.subscripts.iter().filter(|(k, _)| matches!(k, Key::Slice)) {
        if !item.attrs.is_empty() {
            if let Some(k) = rank_kinds("", item).first().filter(|k| !["object", "int"].contains(k)) {
                add(&mut scores, k, 6);
            }
        }
    }
    if u.annotates {
        // `def f(xs: List[Leaf])` subscripts a typing generic with it at def time.
        add(&mut scores, "class", 6);
    }
    if is_exception_name(name) || u.raised {
        // `raise NotFoundError`, `except NotFoundError:`: only an exception class works.
        add(&mut scores, "exception", 20);
    }
    if !u.calls.is_empty() {
        let classy = name.chars().next().is_some_and(char::is_uppercase);
        add(&mut scores, if classy { "class" } else { "function" }, 8);
    }
    if u.with_ctx {
        add(&mut scores, "file", 3);
    }
    // `await f(...)`: a function whose calls are awaited is a coroutine function.
    if u.awaited || (!u.calls.is_empty() && u.returns.as_deref().is_some_and(|r| r.awaited)) {
        add(&mut scores, "coroutine", 10);
    }
    if u.truth_tested && scores.is_empty() {
        add(&mut scores, "bool", 2);
    }
    for arg in &u.passed_to {
        if let Some(k) = argument_kind(&arg.callee, arg.position, arg.keyword.as_deref()) {
            let k = match k {
                "path" | "url" | "html" | "json-str" | "date-str" | "regex-str" | "command-str" | "attr-name" | "agg-name" | "module-name" | "encoding" => "str",
                "number-list" | "iterable" | "command" | "records" => "list",
                // `len` fits strings, lists and dicts alike: `u.len` scores it.
                "sized" => continue,
                "type" => "class",
                "zero" => "int",
                "any" => continue,
                other => static_kind(other),
            };
            {
                add(&mut scores, k, 5);
            }
        }
    }
    if scores.is_empty() {
        // No evidence but the name: conventions of naming.
        add(&mut scores, name_kind(name), 1);
    } else if let Some(hint) = name_hint(name) {
        // Weak evidence (an operator) should not outvote a telling name;
        // strong evidence (methods, keys) should not be outvoted by one.
        if scores.iter().map(|(_, s)| *s).max().unwrap_or(0) <= 4 {
            add(&mut scores, hint, 3);
        }
    }
    scores.sort_by(|a, b| b.1.cmp(&a.1));
    scores.into_iter().filter(|(_, s)| *s > 0).map(|(k, _)| k).collect::<Vec<_>>().into_iter().chain(
        // Always have something to build.
        std::iter::once(name_kind(name)),
    ).fold(Vec::new(), |mut acc, k| {
        if !acc.contains(&k) {
            acc.push(k);
        }
        acc
    })
}

fn static_kind(k: &str) -> &'static str {
    const ALL: &[&str] = &[
        "str", "bytes", "list", "dict", "set", "int", "float", "datetime", "date", "file", "ndarray",
        "dataframe", "series", "tuple", "bool", "object", "function", "class", "coroutine", "tzinfo", "exception", "fraction",
    ];
    ALL.iter().find(|a| **a == k).copied().unwrap_or("object")
}

/// Whether a pandas object is used with methods that need a DatetimeIndex
/// (`resample`, `truncate` by dates, `asfreq`, `tz_localize`), on itself or a slice.
fn uses_time_index(u: &Usage) -> bool {
    const TIME: &[&str] = &["resample", "asfreq", "tz_localize", "tz_convert", "to_period", "between_time", "at_time"];
    let own = |u: &Usage| TIME.iter().any(|m| u.attrs.contains_key(*m));
    own(u) || u.subscripts.iter().any(|(k, item)| matches!(k, Key::Slice) && own(item))
}

/// A class name in the convention of exceptions (`NotFoundError`, `TimeoutException`).
pub fn is_exception_name(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase) && ["Error", "Exception", "Warning"].iter().any(|s| name.len() > s.len() && name.ends_with(s))
}

/// A kind the name itself suggests, when it suggests one.
fn name_hint(name: &str) -> Option<&'static str> {
    let k = name_kind(name);
    let n = name.to_lowercase();
    let generic_int = k == "int" && !["n", "i", "j", "k", "num", "count", "size", "length", "idx", "index", "total", "age", "year", "port"].iter().any(|w| n == *w || n.ends_with(&format!("_{w}")) || n.starts_with(&format!("{w}_")));
    (!generic_int).then_some(k)
}

/// A kind guessed from the name alone.
fn name_kind(name: &str) -> &'static str {
    let n = name.to_lowercase();
    let has = |w: &[&str]| w.iter().any(|x| n == *x || n.ends_with(&format!("_{x}")) || n.starts_with(&format!("{x}_")));
    if has(&["df", "data_frame", "dataframe"]) || n.starts_with("df") {
        "dataframe"
    } else if has(&["series", "ser"]) {
        "series"
    } else if has(&["n", "i", "j", "k", "x", "y", "num", "count", "size", "length", "idx", "index", "total", "age", "year", "port"]) {
        "int"
    } else if n.ends_with("bytes") {
        "bytes"
    } else if n.ends_with("string") || n.ends_with("text") || n.ends_with("encoding") || has(&["s", "str", "text", "string", "name", "line", "word", "msg", "message", "url", "path", "file", "filename", "key", "title", "label", "sentence", "word", "charset"]) {
        "str"
    } else if n.ends_with('s') && n.len() > 2 || has(&["lst", "arr", "array", "items", "list"]) {
        "list"
    } else if has(&["d", "dict", "dic", "mapping", "config", "params", "data"]) {
        "dict"
    } else if has(&["tz", "tzinfo", "timezone"]) {
        "tzinfo"
    } else if has(&["date", "dt", "time", "timestamp", "now", "today"]) {
        "datetime"
    } else if has(&["flag", "enabled", "ok", "done", "valid"]) {
        "bool"
    } else {
        "int"
    }
}

/// A string that suits the name and the usage.
fn string_for(name: &str, u: &Usage) -> String {
    if let Some(s) = u.compared.iter().find_map(|(op, l)| match l {
        Literal::Str(s) if op == "==" || op == "in" => Some(s.clone()),
        _ => None,
    }) {
        return s;
    }
    for arg in &u.passed_to {
        match argument_kind(&arg.callee, arg.position, arg.keyword.as_deref()) {
            Some("path") => return format!("{}.txt", ident_base(name, "data")),
            Some("url") => return "https://example.com/api/items".into(),
            Some("html") => return "<html><body><p class=\"intro\">Hello</p><a href=\"/a\">A</a></body></html>".into(),
            Some("json-str") => return "{\"name\": \"Ada\", \"id\": 1}".into(),
            Some("date-str") => return "2024-01-15".into(),
            Some("command-str") => return "echo hello".into(),
            // An attribute name: a prefix can give the object that member.
            Some("attr-name") => return "name".into(),
            Some("agg-name") => return "sum".into(),
            Some("encoding") => return "utf-8".into(),
            // A module every interpreter has.
            Some("module-name") => return "json".into(),
            Some("int") => return "42".into(),
            _ => {}
        }
    }
    if u.attrs.contains_key("decode") {
        return "hello".into();
    }
    if ["isdigit", "isnumeric", "isdecimal"].iter().any(|m| u.attrs.contains_key(*m)) {
        return "42".into();
    }
    let n = name.to_lowercase();
    let pick = |words: &[&str]| words.iter().any(|w| n.contains(w));
    if pick(&["encoding", "charset", "codec"]) {
        "utf-8".into()
    } else if pick(&["url", "link", "href", "endpoint"]) {
        "https://example.com/api/items".into()
    } else if pick(&["path", "file", "fname"]) {
        format!("{}.txt", ident_base(name, "data"))
    } else if pick(&["dir", "folder"]) {
        ".".into()
    } else if pick(&["date"]) {
        "2024-01-15".into()
    } else if pick(&["email", "mail"]) {
        "ada@example.com".into()
    } else if pick(&["name", "user"]) {
        "Ada".into()
    } else if pick(&["html"]) {
        "<html><body><p>Hello</p></body></html>".into()
    } else if pick(&["json"]) {
        "{\"name\": \"Ada\", \"id\": 1}".into()
    } else if pick(&["word", "key", "token", "char"]) {
        if pick(&["char"]) { "a".into() } else { "apple".into() }
    } else if pick(&["num", "digit"]) {
        "42".into()
    } else {
        DEFAULT_TEXT.into()
    }
}

/// Text for a name nothing else tells about.
const DEFAULT_TEXT: &str = "The quick brown fox jumps over the lazy dog";
/// Text a helper returns when nothing tells about it.
const HELPER_TEXT: &str = "Pack my box with five dozen liquor jugs";

fn ident_base(name: &str, fallback: &str) -> String {
    let base: String = name
        .to_lowercase()
        .trim_end_matches("_path")
        .trim_end_matches("path")
        .trim_end_matches("_name")
        .trim_end_matches("name")
        .trim_end_matches('_')
        .to_string();
    if base.is_empty() || base == "file" || base == "f" {
        fallback.to_string()
    } else {
        base
    }
}

fn int_for(name: &str, u: &Usage) -> i64 {
    // Satisfy the first comparison with a literal, so the guarded code runs.
    for (op, lit) in &u.compared {
        if let Literal::Int(v) = lit {
            return match op.as_str() {
                ">" => v + 1,
                "<" => v - 1,
                "!=" => v + 1,
                _ => *v,
            };
        }
    }
    let n = name.to_lowercase();
    if ["i", "j", "idx", "index", "start", "offset", "pos"].contains(&n.as_str()) {
        1
    } else if n.contains("year") {
        2024
    } else if n.contains("port") {
        8080
    } else if n.contains("age") {
        30
    } else {
        3
    }
}

/// What a function's result is called, for naming conventions to apply:
/// its name without a leading verb (`to_bytes` -> `bytes`, `get_items` ->
/// `items`), else `result`.
fn result_name(function: &str) -> String {
    const VERBS: &[&str] = &["get", "load", "fetch", "read", "make", "build", "create", "compute", "calc", "find", "format", "to", "parse", "as"];
    match function.split_once('_') {
        Some((verb, rest)) if VERBS.contains(&verb) && !rest.is_empty() => rest.to_string(),
        _ => "result".to_string(),
    }
}

/// Singular form of a plural name, for the elements of a collection.
pub fn singular(name: &str) -> String {
    // What a method lists is its object: `list_templates` -> `template`.
    const VERBS: &[&str] = &["get", "list", "iter", "find", "load", "fetch", "read", "all", "collect", "make", "build"];
    let name = match name.split_once('_') {
        Some((verb, rest)) if VERBS.contains(&verb) && !rest.is_empty() => rest,
        _ => name,
    };
    if let Some(s) = name.strip_suffix("ies") {
        format!("{s}y")
    } else if let Some(s) = name.strip_suffix('s').filter(|s| s.len() > 1 && !s.ends_with('s')) {
        s.to_string()
    } else {
        format!("{name}_item")
    }
}

pub fn camel(name: &str) -> String {
    let mut out = String::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        if let Some(f) = c.next() {
            out.extend(f.to_uppercase());
            out.push_str(c.as_str());
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("C{out}")
    } else {
        out
    }
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
        Value::Str(s) if s.ends_with(".txt") => Value::Str(s.replace(".txt", &format!("{}.txt", i + 1))),
        Value::Str(s) => Value::Str(format!("{s} {}", i + 1)),
        Value::Tuple(items) => Value::Tuple(items.iter().map(|x| vary(x, i)).collect()),
        Value::List(items) if i > 0 => Value::List(items.iter().map(|x| vary(x, i)).collect()),
        Value::Dict(kv) => Value::Dict(kv.iter().map(|(k, x)| (k.clone(), vary(x, i))).collect()),
        other => other.clone(),
    }
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
            let first = if has_evidence(&el_usage) { part(&el_name, &el_usage) } else { element_default(name) };
            let items: Vec<Value> = (0..list_len(u)).map(|i| vary(&first, i)).collect();
            if kind == "set" { Value::Set(items) } else { Value::List(items) }
        }
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
        "datetime" => Value::Expr { code: "datetime.datetime(2024, 1, 15, 10, 30)".into(), imports: vec!["import datetime".into()] },
        "date" => Value::Expr { code: "datetime.date(2024, 1, 15)".into(), imports: vec!["import datetime".into()] },
        // Spelled through its own name: the fragment often rebinds `datetime` to the class.
        "tzinfo" => Value::Expr { code: "timezone.utc".into(), imports: vec!["from datetime import timezone".into()] },
        "file" => Value::Expr { code: "io.StringIO('first line\\nsecond line\\nthird line\\n')".into(), imports: vec!["import io".into()] },
        "ndarray" => {
            let two_d = u.attrs.get("shape").is_some_and(|s| s.subscripts.iter().any(|(k, _)| matches!(k, Key::Int(1))))
                || u.subscripts.iter().any(|(k, _)| matches!(k, Key::Expr(e) if e.contains(',')));
            let code = if two_d { "np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])" } else { "np.array([1, 2, 3, 4, 5])" };
            Value::Expr { code: code.into(), imports: vec!["import numpy as np".into()] }
        }
        "series" if uses_time_index(u) => Value::Expr {
            code: "pd.Series(range(60), index=pd.date_range('2024-01-01', periods=60), dtype=float)".into(),
            imports: vec!["import pandas as pd".into()],
        },
        "series" => Value::Expr { code: "pd.Series([1, 2, 3])".into(), imports: vec!["import pandas as pd".into()] },
        "dataframe" => dataframe(u),
        "function" | "coroutine" => {
            let ret = match result_usage(u).map(|r| part(&result_name(name), &r)) {
                // A helper hands back other text than it is given (the
                // default text of its inputs): `if out == text` must not hold by accident.
                Some(Value::Str(s)) if s == DEFAULT_TEXT => Value::Str(HELPER_TEXT.into()),
                Some(v) => v,
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

/// The strings of a list literal used as a key (`['a', 'b']`), else empty.
pub fn string_list(expr: &str) -> Vec<String> {
    let e = expr.trim();
    if !(e.starts_with('[') && e.ends_with(']')) {
        return Vec::new();
    }
    let inner = &e[1..e.len() - 1];
    let parts: Vec<&str> = inner.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    let strs: Vec<String> = parts
        .iter()
        .filter_map(|p| {
            let q = p.chars().next()?;
            ((q == '\'' || q == '"') && p.ends_with(q) && p.len() >= 2).then(|| p[1..p.len() - 1].to_string())
        })
        .collect();
    if strs.len() == parts.len() { strs } else { Vec::new() }
}

fn dataframe(u: &Usage) -> Value {
    let api = kind_attrs("dataframe");
    let mut cols: Vec<(String, Usage)> = Vec::new();
    for (k, _) in &u.subscripts {
        if let Key::Expr(e) = k {
            for c in string_list(e) {
                if !cols.iter().any(|(x, _)| *x == c) {
                    cols.push((c, Usage::default()));
                }
            }
        }
    }
    for (k, item) in &u.subscripts {
        if let Key::Str(s) = k {
            if !cols.iter().any(|(c, _)| c == s) {
                cols.push((s.clone(), item.clone()));
            }
        }
    }
    for k in &u.subscript_writes {
        if let Key::Str(s) = k {
            if !cols.iter().any(|(c, _)| c == s) && cols.len() < 2 {
                // Written columns are created by the fragment; keep one source column.
            }
        }
    }
    for (a, au) in &u.attrs {
        if api.is_none_or(|api| !api.contains(a)) && au.calls.is_empty() {
            cols.push((a.clone(), au.clone()));
        }
    }
    if cols.is_empty() {
        cols = vec![("A".into(), Usage::default()), ("B".into(), Usage::default())];
    }
    let body = cols
        .iter()
        .map(|(c, cu)| {
            let stringy = cu.attrs.contains_key("str")
                || cu.compared.iter().any(|(_, l)| matches!(l, Literal::Str(_)))
                || name_kind(c) == "str";
            let vals = if stringy {
                let base = string_for(c, cu);
                let b = if base.len() > 12 { "apple".to_string() } else { base };
                format!("[{}]", (0..3).map(|i| super::value::py_str(&if i == 0 { b.clone() } else { format!("{b}{}", i + 1) })).collect::<Vec<_>>().join(", "))
            } else {
                let v = int_for(c, cu);
                format!("[{}, {}, {}]", v, v + 1, v + 2)
            };
            format!("{}: {vals}", super::value::py_str(c))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let index = if uses_time_index(u) { ", index=pd.date_range('2024-01-01', periods=3)" } else { "" };
    Value::Expr { code: format!("pd.DataFrame({{{body}}}{index})"), imports: vec!["import pandas as pd".into()] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{ArgUse, CallShape};

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
        assert!(matches!(candidates("line", &attrs(&["split"]))[0], Value::Str(_)));
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
        assert!(matches!(&v, Value::Expr { code, .. } if code.starts_with("pd.DataFrame({'price': [")), "{v:?}");
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
        assert_eq!(result_name("to_bytes"), "bytes");
        assert_eq!(result_name("format_str"), "str");
        assert_eq!(result_name("process"), "result");
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
    fn a_warning_category_is_a_warning_subclass() {
        let Value::Code { source, .. } = best("ScrapyDeprecationWarning", &Usage::default(), 0) else { panic!() };
        assert_eq!(source, "class ScrapyDeprecationWarning(Warning):\n    pass");
        let Value::Code { source, .. } = best("LookupFailedError", &Usage::default(), 0) else { panic!() };
        assert!(source.starts_with("class LookupFailedError(Exception):"), "{source}");
    }
}
