//! Kinds of value scored by how well each explains what the fragment does
//! with a name (attributes it has, keys it is indexed with, operators,
//! callees it is passed to, the name itself). Pure.

use crate::analysis::string_list;
use super::knowledge::{argument_kind, kind_attrs, kinds};
use crate::analysis::{Key, Literal, Usage};
/// The attributes of kinds.txt that are data, not methods.
pub(super) const PROPERTIES: &[&str] = &[
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
    if is_enumeration(name, u) {
        add(&mut scores, "enum", 4 * attr_names.len() as i32 + 4);
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
        .filter(|(k, item)| matches!(k, Key::Str(_)) && item.attrs.keys().any(|a| kind_attrs("series").is_some_and(|s| s.contains(a)) && !["str", "list", "dict"].iter().any(|k| kind_attrs(k).is_some_and(|s| s.contains(a)))))
        .count() as i32;
    if series_items > 0 {
        add(&mut scores, "dataframe", 4 + series_items);
    }
    // `x[x['sex'] == 1]`: rows picked by a test on a column, pandas'
    // boolean indexing; a dict has no use for a key that is a comparison.
    let masks = u.subscripts.iter().filter(|(k, _)| matches!(k, Key::Expr(e) if is_column_mask(e))).count() as i32;
    if masks > 0 && str_keys > 0 {
        add(&mut scores, "dataframe", 6 + masks);
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
    if u.keyed_by_items || u.keyword_splat {
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
    if u.operators.contains("/") && is_path_name(name) {
        // `out_dir / name`: joining paths, the other meaning of `/`.
        add(&mut scores, "pathlib", 6);
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
    if u.subclassed {
        // `class Message(Base):` calls Base's metaclass: only a class works.
        add(&mut scores, "class", 10);
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
        if let Some(wanted) = argument_kind(&arg.callee, arg.position, arg.keyword.as_deref()) {
            let k = match wanted {
                "path" | "xml-path" | "image-path" | "table-path" | "dir" | "url" | "database-url" | "database-path" | "html" | "json-str" | "xml-str" | "date-str" | "ip-str" | "cidr-str" | "int-str" | "float-str" | "regex-str" | "command-str" | "attr-name" | "agg-name" | "module-name" | "encoding" | "open-mode" => "str",
                "number-list" | "iterable" | "command" | "records" | "pairs" => "list",
                // `len` fits strings, lists and dicts alike: `u.len` scores it.
                "sized" => continue,
                "type" => "class",
                "key-function" => "function",
                "zero" => "int",
                // A file object: a real in-memory stream (`synth/streams.rs`).
                "text-stream" | "csv-stream" | "json-stream" | "yaml-stream" | "text-output" => "file",
                "binary-stream" | "pickle-stream" | "binary-output" => "binary-file",
                "any" => continue,
                other => static_kind(other),
            };
            add(&mut scores, k, 5);
            if matches!(wanted, "path" | "xml-path" | "image-path" | "table-path" | "dir") {
                // Every path-taking callee takes a `pathlib.Path` too.
                add(&mut scores, "pathlib", 4);
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
    if is_elementwise(u) {
        // Used whole as a number and as a collection: only an array does both,
        // whatever the name suggests.
        let top = scores.iter().map(|(_, s)| *s).max().unwrap_or(0);
        add(&mut scores, "ndarray", top + 2);
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

/// Whether a class name is used only through constants of its own
/// (`Feature.F_STRINGS`, `Color.RED.value`): read, compared, passed on,
/// never called, indexed or assigned to; the names Python code gives the
/// members of an `enum.Enum`.
fn is_enumeration(name: &str, u: &Usage) -> bool {
    let camel = name.chars().next().is_some_and(char::is_uppercase) && name.chars().any(char::is_lowercase);
    let constant = |a: &str| a.len() > 1 && a.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && a.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    let plain = |m: &Usage| {
        m.calls.is_empty()
            && m.subscripts.is_empty()
            && m.arithmetic.is_empty()
            && m.compared.is_empty()
            && m.element.is_none()
            && m.attrs.keys().all(|a| a == "name" || a == "value")
    };
    camel
        && !u.attrs.is_empty()
        && u.calls.is_empty()
        && u.subscripts.is_empty()
        && u.attr_writes.is_empty()
        && !u.subclassed
        && u.attrs.iter().all(|(a, m)| constant(a) && plain(m))
}

/// Whether an index expression is a test on a column (`df['a'] == 1`,
/// `(df['a'] > 0) & (df['b'] < 2)`, `~df['c'].isna()`): a boolean mask.
fn is_column_mask(e: &str) -> bool {
    let column = e.contains("['") || e.contains("[\"");
    let test = ["==", "!=", "<", ">", " & ", " | ", "~", ".isin(", ".isna(", ".notna(", ".str."].iter().any(|op| e.contains(op));
    column && test
}

/// Whether a value is used whole with number operators a list does not
/// have (`xs ** 2`, `data > 2`, `a - b`; a list takes only `+ list` and
/// `* int`) and also as a collection (iterated, indexed, sized): NumPy's
/// element-wise semantics.
fn is_elementwise(u: &Usage) -> bool {
    const NUMERIC: &[&str] = &["-", "/", "//", "**", "<", ">", "<=", ">=", "@"];
    let number = |l: &Literal| matches!(l, Literal::Int(_) | Literal::Float(_));
    let numeric = u.arithmetic.iter().chain(&u.compared).any(|(op, l)| NUMERIC.contains(&op.as_str()) && number(l))
        || u.operators.iter().any(|op| NUMERIC.contains(&op.as_str()));
    let collection = u.iterated
        || u.element.is_some()
        || u.len
        || u.subscripts.iter().any(|(k, _)| matches!(k, Key::Int(_) | Key::Slice | Key::Expr(_)));
    numeric && collection && u.attrs.keys().all(|a| kind_attrs("ndarray").is_some_and(|n| n.contains(a)))
}

pub(super) fn static_kind(k: &str) -> &'static str {
    const ALL: &[&str] = &[
        "str", "bytes", "list", "dict", "set", "int", "float", "datetime", "date", "file", "binary-file", "ndarray",
        "dataframe", "series", "tuple", "bool", "object", "function", "class", "coroutine", "tzinfo", "exception", "fraction", "iterator", "pathlib", "logger", "enum",
    ];
    ALL.iter().find(|a| **a == k).copied().unwrap_or("object")
}

/// Whether a pandas object is used with methods that need a DatetimeIndex
/// (`resample`, `truncate` by dates, `asfreq`, `tz_localize`), on itself or a slice.
pub(super) fn uses_time_index(u: &Usage) -> bool {
    const TIME: &[&str] = &["resample", "asfreq", "tz_localize", "tz_convert", "to_period", "between_time", "at_time"];
    let own = |u: &Usage| TIME.iter().any(|m| u.attrs.contains_key(*m));
    own(u) || u.subscripts.iter().any(|(k, item)| matches!(k, Key::Slice) && own(item))
}

/// A class name in the convention of exceptions (`NotFoundError`, `TimeoutException`).
pub fn is_exception_name(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase) && ["Error", "Exception", "Warning"].iter().any(|s| name.len() > s.len() && name.ends_with(s))
}

/// A name that says it holds a file-system path (`out_dir`, `base_path`).
pub(super) fn is_path_name(name: &str) -> bool {
    let n = name.to_lowercase();
    ["path", "dir", "folder", "directory"].iter().any(|w| n == *w || n.ends_with(&format!("_{w}")) || n.ends_with(w) && n.len() > w.len() + 2)
}

/// A name that says it holds a folder (`out_dir`, `data_folder`).
pub(super) fn is_dir_name(name: &str) -> bool {
    let n = name.to_lowercase();
    ["dir", "folder", "directory"].iter().any(|w| n.ends_with(w))
}

/// A name for where results go (`output_path`, `out_dir`, `dest`): a
/// folder written into, which must differ from where the inputs are.
pub(super) fn is_output_name(name: &str) -> bool {
    let n = name.to_lowercase();
    n.split('_').next().is_some_and(|w| ["out", "output", "outputs", "dest", "destination", "target", "export", "save", "results"].contains(&w))
}

/// A kind the name itself suggests, when it suggests one.
pub(super) fn name_hint(name: &str) -> Option<&'static str> {
    let k = name_kind(name);
    let n = name.to_lowercase();
    let generic_int = k == "int" && !["n", "i", "j", "k", "num", "count", "size", "length", "idx", "index", "total", "age", "year", "port"].iter().any(|w| n == *w || n.ends_with(&format!("_{w}")) || n.starts_with(&format!("{w}_")));
    (!generic_int).then_some(k)
}

/// A kind guessed from the name alone.
pub(super) fn name_kind(name: &str) -> &'static str {
    let n = name.to_lowercase();
    let has = |w: &[&str]| w.iter().any(|x| n == *x || n.ends_with(&format!("_{x}")) || n.starts_with(&format!("{x}_")));
    if has(&["df", "data_frame", "dataframe"]) || n.starts_with("df") {
        "dataframe"
    } else if has(&["series", "ser"]) {
        "series"
    } else if has(&["logger"]) || n.ends_with("logger") {
        "logger"
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
