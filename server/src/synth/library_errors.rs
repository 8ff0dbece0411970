//! A real library raised on the fragment's inputs: change the inputs the
//! way the error says, never the library (issue 14). Pure.
//!
//! - numpy's linear algebra wants a square, at least two-dimensional array
//!   (`LinAlgError: 0-dimensional array given. Array must be at least
//!   two-dimensional`, `Last 2 dimensions of the array must be square`):
//!   the synthesised arguments on the line become a square array and
//!   vectors of matching length; scikit-learn's `Expected 2D array` gets
//!   samples by features and labels for as many samples.
//! - sqlite3 queries a table the database lacks (`OperationalError: no
//!   such table: products`): the database file the fragment connects to is
//!   created with the real sqlite3, with that table and the columns the
//!   fragment's SQL names, before the fragment runs.
//! - sqlite3 rejects a query's parameters: they get the shape its
//!   placeholders ask for (`sql_parameters`).
//! - a key the fragment reads is missing from data it loaded with the real
//!   `json` (`KeyError: 'theme'` on `settings["theme"]`): the JSON file it
//!   reads gets that key.
//! - `struct` unpacks a buffer too short for its format (`unpack requires a
//!   buffer of 7276172704 bytes`): binary data made of text holds counts
//!   and lengths read as huge numbers; a zeroed buffer (`bytes(64)`) makes
//!   each count zero, so the slices the fragment derives from them agree.
//! - Pillow saves in the format the extension names (`unknown file
//!   extension: .txt`): the path the prefix made is a `.png`.

use super::lexical::identifiers;
use super::prefix::{Binding, Candidate, Prefix};
use super::session::Context;
use super::render::py_str;
use super::value::Value;
use super::error_text::{parse_literal_key, KeyLit};
use crate::analysis::tokens::string_texts;
use crate::analysis::{line_statement, Condition, Constant, FileUse};
use crate::exec::ExceptionInfo;

/// Prefixes whose inputs satisfy what the library's error asks for.
pub fn refinements(
    ctx: &Context,
    base: &Prefix,
    e: &ExceptionInfo,
    line: Option<u32>,
) -> Vec<Prefix> {
    let mut out = Vec::new();
    if let Some(p) = line.and_then(|l| array_shapes(ctx, base, e, l)) {
        out.push(p);
    }
    if let Some(p) = missing_table(ctx, base, e) {
        out.push(p);
    }
    if let Some(p) = line.and_then(|l| super::sql_parameters::refinement(ctx, base, e, l)) {
        out.push(p);
    }
    if let Some(p) = line.and_then(|l| missing_json_key(ctx, base, e, l)) {
        out.push(p);
    }
    if let Some(p) = zeroed_buffer(base, e) {
        out.push(p);
    }
    if let Some(p) = line.and_then(|l| image_extension(ctx, base, e, l)) {
        out.push(p);
    }
    out
}

/// Pillow saves in the format a file's extension names (`unknown file
/// extension: .txt`): a path the prefix made on the line becomes a PNG's.
fn image_extension(ctx: &Context, base: &Prefix, e: &ExceptionInfo, line: u32) -> Option<Prefix> {
    let ext = e.message.strip_prefix("unknown file extension:")?.trim();
    let mut p = base.clone();
    let mut changed = false;
    for name in identifiers(ctx.line_text(line)) {
        let Some(b) = p.binding_mut(&name) else { continue };
        let png = match b.value() {
            Some(Value::Str(path)) => {
                let stem = if ext.is_empty() { path.as_str() } else { path.strip_suffix(ext).unwrap_or(path) };
                if stem.is_empty() || stem.contains('.') && ext.is_empty() {
                    continue;
                }
                format!("{stem}.png")
            }
            // A number where the path goes (`img.save(dst)`, `dst = 3`).
            Some(Value::Int(_) | Value::Float(_)) if ext.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => format!("{name}.png"),
            _ => continue,
        };
        b.choose(Value::Str(png));
        changed = true;
    }
    changed.then_some(p)
}

/// The bytes values the prefix made, zeroed, when `struct` found a buffer
/// too short for what it unpacks.
fn zeroed_buffer(base: &Prefix, e: &ExceptionInfo) -> Option<Prefix> {
    let from_struct = e.type_name == "struct.error" || e.type_name == "error";
    if !from_struct || !e.message.contains("requires a buffer of") {
        return None;
    }
    let mut p = base.clone();
    let mut changed = false;
    for b in p.bindings.iter_mut() {
        if matches!(b.value(), Some(Value::Bytes(s)) if !s.is_empty()) {
            b.choose(Value::Expr { code: "bytes(64)".into(), imports: vec![] });
            changed = true;
        }
    }
    changed.then_some(p)
}

fn missing_json_key(ctx: &Context, base: &Prefix, e: &ExceptionInfo, line: u32) -> Option<Prefix> {
    if e.type_name != "KeyError" {
        return None;
    }
    let key = match e.key.as_deref().or(Some(&e.message)).and_then(parse_literal_key) {
        Some(KeyLit::Str(s)) => s,
        Some(KeyLit::Int(i)) => i.to_string(),
        None => return None,
    };
    // The line reads it with a string subscript (`settings["theme"]`).
    let mut read_here = false;
    for c in &line_statement(ctx.line_text(line)).expressions {
        c.visit(&mut |n| {
            if let Condition::Subscript { index, .. } = n {
                read_here |= matches!(&**index, Condition::Constant { value: Constant::Str(k) } if *k == key);
            }
        });
    }
    let loads_json = ctx.fragment.contains("json.load");
    if key.is_empty() || !read_here || !loads_json {
        return None;
    }
    let mut p = base.clone();
    let mut changed = false;
    for r in p.resources.iter_mut().filter(|r| r.path.ends_with(".json")) {
        if let Some(content) = with_key(std::str::from_utf8(&r.content).unwrap_or(""), &key) {
            r.content = format!("{content}\n").into_bytes();
            changed = true;
        }
    }
    // The text the fragment parses with `json.loads(s)`: a JSON string of
    // the prefix gets the key too.
    for b in p.bindings.iter_mut() {
        let parsed = ctx.usage_of(&b.name).passed_to.iter().any(|a| a.callee.ends_with("json.loads") || a.callee == "loads");
        if !parsed {
            continue;
        }
        if let Candidate::Value(Value::Str(text)) = b.current_mut() {
            if let Some(content) = with_key(text, &key) {
                *text = content;
                changed = true;
            }
        }
    }
    changed.then_some(p)
}

/// A JSON object's text with `key` added (a number when the key names a
/// quantity), or `None` when it is not an object or has the key.
fn with_key(text: &str, key: &str) -> Option<String> {
    let Ok(serde_json::Value::Object(mut map)) = serde_json::from_str::<serde_json::Value>(text) else {
        return None;
    };
    if map.contains_key(key) {
        return None;
    }
    let value = if numeric_column(key) { serde_json::json!(20) } else { serde_json::json!(format!("{key} 1")) };
    map.insert(key.to_string(), value);
    Some(serde_json::Value::Object(map).to_string())
}

const SQUARE: &str = "np.array([[2.0, 1.0], [1.0, 3.0]])";
const VECTOR: &str = "np.array([1.0, 2.0])";

/// Samples by features, and labels for as many samples (two classes).
const SAMPLES: &str = "np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [4.0, 3.0]])";
const LABELS: &str = "np.array([0, 1, 0, 1])";

/// The arrays a library's shape error asks for: (the first argument, the others).
fn wanted_arrays(e: &ExceptionInfo) -> Option<(&'static str, &'static str)> {
    let m = &e.message;
    if e.type_name.ends_with("LinAlgError")
        && (m.contains("two-dimensional") || m.contains("must be square"))
    {
        return Some((SQUARE, VECTOR));
    }
    // scikit-learn: `Expected 2D array, got scalar array instead` (or 1D).
    if e.type_name.ends_with("ValueError") && m.starts_with("Expected 2D array, got") {
        return Some((SAMPLES, LABELS));
    }
    // scikit-learn's input validation given a scalar or an object where
    // an array-like was meant (`train_test_split(X, y)`).
    let in_sklearn = e.raised_in.as_deref().is_some_and(|r| r == "sklearn" || r.starts_with("sklearn."));
    if in_sklearn
        && (m.starts_with("Singleton array") && m.ends_with("cannot be considered a valid collection.")
            || m.starts_with("Expected sequence or array-like, got")
            || m.starts_with("Input should have at least 1 dimension"))
    {
        return Some((SAMPLES, LABELS));
    }
    // `rows, cols = C.shape` inside a library (matplotlib's `pcolormesh(x,
    // y, z)`) given a scalar: its shape is empty, a grid was meant.
    if e.type_name == "ValueError" && e.raised_in.is_some() && m == "not enough values to unpack (expected 2, got 0)" {
        return Some((SQUARE, SQUARE));
    }
    None
}

fn array_shapes(ctx: &Context, base: &Prefix, e: &ExceptionInfo, line: u32) -> Option<Prefix> {
    let (first, others) = wanted_arrays(e)?;
    // The synthesised names the line passes, in the order written: the
    // matrix first (`solve(a, b)`, `inv(a)`, `lstsq(a, b)`), then vectors.
    let mut p = base.clone();
    let mut changed = false;
    // Only what is passed as data: a name passed only by keyword is an
    // option of the call (`norm=norm`), not one of its arrays.
    let by_keyword_only = |n: &str| {
        let u = ctx.usage_of(n);
        !u.passed_to.is_empty() && u.passed_to.iter().all(|a| a.keyword.is_some())
    };
    let bound = |n: &String| base.binding(n).and_then(Binding::value).is_some() && !by_keyword_only(n);
    let mut names: Vec<String> = identifiers(ctx.line_text(line)).into_iter().filter(bound).collect();
    if names.is_empty() {
        // The line passes what the fragment derived from the prefix's
        // names (`fit(X_train, y_train)` of `train_test_split(X, y)`):
        // those names, by the role their own use gives them.
        names = super::slice::related_bindings(ctx, base, line).into_iter().filter(bound).collect();
    }
    for (i, name) in names.iter().enumerate() {
        let b = p.binding_mut(name)?;
        let plain = matches!(
            b.value(),
            Some(
                Value::Int(_)
                    | Value::Float(_)
                    | Value::List(_)
                    | Value::Tuple(_)
                    | Value::Str(_)
                    | Value::None
            )
        );
        if !plain {
            continue;
        }
        // scikit-learn's own signatures say which is which: what an
        // estimator's `fit`/`predict` takes first is samples, what `fit`
        // takes second and what a metric compares are labels.
        let role = if first == SAMPLES { sklearn_role(&ctx.usage_of(name)) } else { None };
        let code = match role {
            Some(code) => code,
            None if i == 0 => first,
            None => others,
        };
        b.choose(Value::Expr {
            code: code.into(),
            imports: vec!["import numpy as np".into()],
        });
        changed = true;
    }
    changed.then_some(p)
}

/// Samples or labels, by the scikit-learn parameter a name is passed as:
/// `X` of an estimator's methods, `y` of `fit`/`score`, `y_true`/`y_pred`
/// of a metric.
fn sklearn_role(u: &crate::analysis::Usage) -> Option<&'static str> {
    const CROSS_VALIDATION: &[&str] = &["cross_val_score", "cross_validate", "cross_val_predict", "learning_curve", "permutation_test_score"];
    const TAKES_X: &[&str] = &["fit", "predict", "predict_proba", "predict_log_proba", "transform", "fit_transform", "fit_predict", "score", "decision_function", "partial_fit"];
    const TAKES_Y: &[&str] = &["fit", "score", "partial_fit", "fit_transform"];
    u.passed_to.iter().find_map(|a| {
        let last = a.callee.rsplit('.').next().unwrap_or(&a.callee);
        let method = a.callee.contains('.');
        match a.position {
            Some(0) if method && TAKES_X.contains(&last) => Some(SAMPLES),
            Some(1) if method && TAKES_Y.contains(&last) => Some(LABELS),
            Some(0 | 1) if last.ends_with("_score") && last != "cross_val_score" || last.ends_with("_error") || last == "confusion_matrix" || last == "classification_report" => Some(LABELS),
            // The model-selection functions take the samples, then the labels.
            Some(0) if last == "train_test_split" => Some(SAMPLES),
            Some(1) if last == "train_test_split" => Some(LABELS),
            Some(1) if CROSS_VALIDATION.contains(&last) => Some(SAMPLES),
            Some(2) if CROSS_VALIDATION.contains(&last) => Some(LABELS),
            _ => None,
        }
    })
}

fn missing_table(ctx: &Context, base: &Prefix, e: &ExceptionInfo) -> Option<Prefix> {
    if !e.type_name.ends_with("OperationalError") {
        return None;
    }
    let table = e.message.strip_prefix("no such table: ")?.trim();
    let table = table.rsplit('.').next().unwrap_or(table);
    if !is_sql_name(table) {
        return None;
    }
    // The file the fragment connects to, by a literal path or through a
    // name the prefix gives one (`sqlite3.connect(db_path)`).
    let through_name = || {
        ctx.analysis.files_through_names.iter().filter(|(_, f)| f.how == "connect").find_map(|(n, _)| match base.binding(n).and_then(Binding::value) {
            Some(Value::Str(path)) if usable_database(path) => Some(path.clone()),
            _ => None,
        })
    };
    let database = connected_database(&ctx.analysis.files).or_else(through_name)?;
    let binding = format!("_database_{table}");
    if base.binding(&binding).is_some() {
        return None;
    }
    let columns = columns_of(ctx.fragment, table);
    let rows: Vec<String> = (1..=3)
        .map(|i| {
            let cells: Vec<String> = columns
                .iter()
                .map(|c| {
                    if numeric_column(c) {
                        (10 * i + 10).to_string()
                    } else {
                        py_str(&format!("{c} {i}"))
                    }
                })
                .collect();
            format!("({},)", cells.join(", "))
        })
        .collect();
    let marks = vec!["?"; columns.len()].join(", ");
    let source = format!(
        "# The database the fragment queries, with the table and the columns its SQL names.\n\
         with sqlite3.connect({db}) as _db:\n    \
         _db.execute({create})\n    \
         _db.executemany({insert}, [{rows}])\n\
         _db.close()",
        db = py_str(&database),
        create = py_str(&format!(
            "CREATE TABLE IF NOT EXISTS {table} ({})",
            columns.join(", ")
        )),
        insert = py_str(&format!("INSERT INTO {table} VALUES ({marks})")),
        rows = rows.join(", "),
    );
    let mut p = base.clone();
    p.bindings.push(Binding::new(
        binding,
        vec![Candidate::Value(Value::Code {
            source,
            imports: vec!["import sqlite3".into()],
        })],
    ));
    Some(p)
}

fn is_sql_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The file of the fragment's `sqlite3.connect("shop.db")` (not `:memory:`),
/// from the analysis' literal file uses.
fn connected_database(files: &[FileUse]) -> Option<String> {
    files.iter().filter(|f| f.how == "connect").map(|f| f.path.as_str()).find(|path| usable_database(path)).map(str::to_string)
}

/// A database file the prefix may create: relative, in the run's folder.
fn usable_database(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.contains("..") && path != ":memory:" && !path.starts_with("file:")
}

/// The columns the fragment's SQL names for `table`: an `INSERT INTO t (a,
/// b)` list, the `SELECT a, b FROM t` list, and the names a `WHERE` compares;
/// `id, name, value` when it names none (`SELECT *`).
fn columns_of(fragment: &str, table: &str) -> Vec<String> {
    let mut cols: Vec<String> = Vec::new();
    let mut add = |c: &str| {
        let c = c.trim().rsplit('.').next().unwrap_or("").to_string();
        if is_sql_name(&c)
            && !cols.contains(&c)
            && !SQL_WORDS.contains(&c.to_ascii_uppercase().as_str())
        {
            cols.push(c);
        }
    };
    // SQL is spelled in the fragment's string literals (f-strings too).
    for stmt in string_texts(fragment).iter().filter(|s| {
        s.to_ascii_uppercase()
            .split_whitespace()
            .any(|w| w == table.to_ascii_uppercase())
    }) {
        let upper = stmt.to_ascii_uppercase();
        if let Some(at) = upper.find(&format!("INTO {}", table.to_ascii_uppercase())) {
            let after = &stmt[at..];
            if let Some(list) = after
                .split_once('(')
                .and_then(|(_, r)| r.split_once(')'))
                .map(|(l, _)| l)
            {
                list.split(',').for_each(&mut add);
            }
        }
        if let (Some(s), Some(f)) = (upper.find("SELECT "), upper.find(" FROM ")) {
            if s < f {
                stmt[s + 7..f]
                    .split(',')
                    .map(|c| c.split_whitespace().next().unwrap_or(""))
                    .for_each(&mut add);
            }
        }
        if let Some(w) = upper.find(" WHERE ") {
            // Operators become one token, so `price>?` and `price > ?` read alike.
            let spaced = stmt[w + 7..].replace(['<', '>', '=', '!'], " = ");
            let tokens: Vec<&str> = spaced
                .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
                .filter(|t| !t.is_empty())
                .collect();
            for pair in tokens.windows(2) {
                if pair[1] == "="
                    || ["LIKE", "IN", "BETWEEN", "IS"]
                        .contains(&pair[1].to_ascii_uppercase().as_str())
                {
                    add(pair[0]);
                }
            }
        }
    }
    if cols.is_empty() {
        cols = vec!["id".into(), "name".into(), "value".into()];
    }
    cols
}

const SQL_WORDS: &[&str] = &[
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "DISTINCT", "COUNT", "AS", "NULL",
];

/// Columns a query most likely compares with numbers or sums.
pub(super) fn numeric_column(c: &str) -> bool {
    let c = c.to_ascii_lowercase();
    [
        "id", "price", "age", "count", "amount", "qty", "quantity", "total", "score", "year",
        "size", "value", "salary", "stock", "rating", "number", "num",
    ]
    .iter()
    .any(|w| c == *w || c.ends_with(&format!("_{w}")) || c.starts_with(&format!("{w}_")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_names_its_table_and_columns() {
        let src = "conn = sqlite3.connect('shop.db')\ncur = conn.cursor()\ncur.execute(\"SELECT name, price FROM products WHERE price > ?\", (10,))\n";
        assert_eq!(connected_database(&crate::analysis::analyze(src).files).as_deref(), Some("shop.db"));
        assert_eq!(columns_of(src, "products"), ["name", "price"]);
        assert_eq!(
            columns_of("c.execute('SELECT * FROM t')", "t"),
            ["id", "name", "value"]
        );
        assert_eq!(
            columns_of(
                "c.execute('INSERT INTO users (email, age) VALUES (?, ?)')",
                "users"
            ),
            ["email", "age"]
        );
        assert_eq!(
            columns_of(
                "c.execute('SELECT title FROM books WHERE year >= 2000')",
                "books"
            ),
            ["title", "year"]
        );
        assert!(connected_database(&crate::analysis::analyze("import sqlite3\ncon = sqlite3.connect(':memory:')\n").files).is_none());
        // SQL in an f-string counts; a name in code outside strings does not.
        assert_eq!(columns_of("c.execute(f'SELECT qty FROM {t} WHERE sku = ?')\nproducts = 1", "products"), ["id", "name", "value"]);
        assert_eq!(columns_of("t = 'orders'\nc.execute(f\"SELECT qty FROM orders WHERE sku = ?\")", "orders"), ["qty", "sku"]);
        assert!(numeric_column("price") && numeric_column("user_id") && !numeric_column("name"));
    }

    #[test]
    fn a_missing_table_is_created_in_the_database_the_fragment_opens() {
        let src = "conn = sqlite3.connect('shop.db')\nrows = conn.execute('SELECT name, price FROM products').fetchall()\n";
        let analysis = crate::analysis::analyze(src);
        let stdlib = Default::default();
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        let e = ExceptionInfo {
            type_name: "sqlite3.OperationalError".into(),
            message: "no such table: products".into(),
            ..Default::default()
        };
        let p = missing_table(&ctx, &Prefix::default(), &e).unwrap();
        let text = p.render();
        assert!(
            text.contains("CREATE TABLE IF NOT EXISTS products (name, price)")
                && text.contains("('name 1', 20,)"),
            "{text}"
        );
        assert!(missing_table(&ctx, &p, &e).is_none(), "created once");
    }

    #[test]
    fn a_key_read_from_parsed_json_text_is_added_to_the_text() {
        let src = "import json\ndata = json.loads(payload)\nprint(data['user'])\n";
        let analysis = crate::analysis::analyze(src);
        let stdlib = std::collections::BTreeSet::new();
        let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
        let mut base = Prefix::default();
        base.bindings.push(Binding::new("payload", vec![Candidate::Value(Value::Str("{\"name\": \"Ada\"}".into()))]));
        let e = ExceptionInfo { type_name: "KeyError".into(), message: "'user'".into(), key: Some("'user'".into()), ..Default::default() };
        let p = missing_json_key(&ctx, &base, &e, 3).unwrap();
        let Candidate::Value(Value::Str(text)) = p.bindings[0].current() else { panic!() };
        let json: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(json["user"], "user 1");
        assert_eq!(json["name"], "Ada");
        // A string the fragment does not parse stays as it is.
        let src2 = "import json\ndata = json.loads(other)\nprint(data['user'], payload)\n";
        let analysis2 = crate::analysis::analyze(src2);
        let ctx2 = Context { fragment: src2, analysis: &analysis2, stdlib: &stdlib };
        assert!(missing_json_key(&ctx2, &base, &e, 3).is_none());
    }

    #[test]
    fn a_key_read_from_loaded_json_is_added_to_the_file() {
        let src = "with open('settings.json') as f:\n    settings = json.load(f)\nprint(settings['theme'])\n";
        let analysis = crate::analysis::analyze(src);
        let stdlib = Default::default();
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        let mut base = Prefix::default();
        base.add_resource(crate::exec::Resource {
            path: "settings.json".into(),
            content: b"{\"name\": \"Ada\"}\n".to_vec(),
        });
        let e = ExceptionInfo {
            type_name: "KeyError".into(),
            message: "'theme'".into(),
            key: Some("'theme'".into()),
            ..Default::default()
        };
        let p = missing_json_key(&ctx, &base, &e, 3).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&p.resources[0].content).unwrap();
        assert_eq!(json["theme"], "theme 1");
        assert_eq!(json["name"], "Ada");
    }

    #[test]
    fn linear_algebra_gets_a_square_matrix_and_a_vector() {
        let src = "x = np.linalg.solve(A, b)\n";
        let analysis = crate::analysis::analyze(src);
        let stdlib = Default::default();
        let ctx = Context {
            fragment: src,
            analysis: &analysis,
            stdlib: &stdlib,
        };
        let mut base = Prefix::default();
        base.bindings
            .push(Binding::new("A", vec![Candidate::Value(Value::Int(3))]));
        base.bindings
            .push(Binding::new("b", vec![Candidate::Value(Value::Int(3))]));
        let e = ExceptionInfo {
            type_name: "numpy.linalg.LinAlgError".into(),
            message: "0-dimensional array given. Array must be at least two-dimensional".into(),
            ..Default::default()
        };
        let p = array_shapes(&ctx, &base, &e, 1).unwrap();
        let text = p.render();
        assert!(
            text.contains(&format!("A = {SQUARE}")) && text.contains(&format!("b = {VECTOR}")),
            "{text}"
        );
        let fit = ExceptionInfo {
            type_name: "ValueError".into(),
            message: "Expected 2D array, got scalar array instead:\narray=3.0.".into(),
            ..Default::default()
        };
        assert_eq!(wanted_arrays(&fit), Some((SAMPLES, LABELS)));
        // A library unpacking a scalar's empty shape wanted a grid; the
        // same words from the program's own frame are the program's.
        let unpack = |raised_in: Option<&str>| ExceptionInfo {
            type_name: "ValueError".into(),
            message: "not enough values to unpack (expected 2, got 0)".into(),
            raised_in: raised_in.map(String::from),
            ..Default::default()
        };
        assert_eq!(wanted_arrays(&unpack(Some("matplotlib.collections"))), Some((SQUARE, SQUARE)));
        assert_eq!(wanted_arrays(&unpack(None)), None);
    }

    #[test]
    fn a_grid_goes_to_the_arrays_a_call_takes_not_to_its_options() {
        let src = "pc = ax.pcolormesh(x, y, z, norm=norm)\n";
        let analysis = crate::analysis::analyze(src);
        let stdlib = Default::default();
        let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
        let mut base = Prefix::default();
        for n in ["x", "y", "z", "norm"] {
            base.bindings.push(Binding::new(n, vec![Candidate::Value(Value::Int(3))]));
        }
        let e = ExceptionInfo {
            type_name: "ValueError".into(),
            message: "not enough values to unpack (expected 2, got 0)".into(),
            raised_in: Some("matplotlib.axes._axes".into()),
            ..Default::default()
        };
        let text = array_shapes(&ctx, &base, &e, 1).unwrap().render();
        assert!(text.contains(&format!("z = {SQUARE}")) && text.contains("norm = 3"), "{text}");
    }

    #[test]
    fn a_buffer_too_short_for_struct_is_zeroed() {
        let mut base = Prefix::default();
        base.bindings.push(Binding::new("header", vec![Candidate::Value(Value::Bytes("abcd".into()))]));
        base.bindings.push(Binding::new("count", vec![Candidate::Value(Value::Int(3))]));
        let e = ExceptionInfo { type_name: "struct.error".into(), message: "unpack requires a buffer of 1684234852 bytes".into(), ..Default::default() };
        let text = zeroed_buffer(&base, &e).unwrap().render();
        assert!(text.contains("header = bytes(64)") && text.contains("count = 3"), "{text}");
        let other = ExceptionInfo { type_name: "struct.error".into(), message: "bad char in struct format".into(), ..Default::default() };
        assert!(zeroed_buffer(&base, &other).is_none(), "a bad format is the fragment's own");
    }
}
