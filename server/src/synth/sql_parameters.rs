//! sqlite3 rejected the parameters a query was given (`ProgrammingError:
//! parameters are of unsupported type`, `Incorrect number of bindings
//! supplied`): the name the prefix passes as `execute(sql, params)`'s
//! parameters gets the shape the SQL text asks for, as the `sqlite3` docs
//! define it: a tuple with one item per `?` (a dict keyed by the names of
//! `:name` placeholders), and for `executemany` a list of those. Each item
//! has the type the column it binds is declared with (`CREATE TABLE ...
//! (kind TEXT, ts REAL)` in the fragment's SQL), else one its name
//! suggests. Pure.

use super::library_errors::numeric_column;
use super::prefix::Prefix;
use super::session::Context;
use super::value::Value;
use crate::analysis::tokens::string_texts;
use crate::analysis::{expression, line_statement, Condition, Constant};
use crate::exec::ExceptionInfo;

/// A prefix whose parameters for the query on `line` fit its placeholders.
pub fn refinement(ctx: &Context, base: &Prefix, e: &ExceptionInfo, line: u32) -> Option<Prefix> {
    if !e.type_name.ends_with("ProgrammingError") && !e.type_name.ends_with("InterfaceError") {
        return None;
    }
    let statement = line_statement(&ctx.statement_text(line));
    let mut p = base.clone();
    let mut changed = false;
    for call in statement.expressions.iter().flat_map(calls) {
        let Some((many, sql, name)) = query_call(ctx, call) else { continue };
        let Some(b) = p.binding_mut(&name) else { continue };
        if !matches!(b.value(), Some(v) if plain(v)) {
            continue;
        }
        let Some(wanted) = parameters(ctx.fragment, &sql, many) else { continue };
        if b.value() != Some(&wanted) {
            b.choose(wanted);
            changed = true;
        }
    }
    changed.then_some(p)
}

/// Every call in a tree, outermost first.
fn calls(c: &Condition) -> Vec<&Condition> {
    let mut out = Vec::new();
    c.visit(&mut |node| {
        if matches!(node, Condition::Call { .. }) {
            out.push(node);
        }
    });
    out
}

/// `x.execute(sql, name)` / `x.executemany(sql, name)` (or `parameters=`):
/// whether it is `executemany`, the SQL text (a literal, or a name the
/// fragment assigns one) and the parameters' name.
fn query_call(ctx: &Context, call: &Condition) -> Option<(bool, String, String)> {
    let Condition::Call { func, args, keywords } = call else { return None };
    let Condition::Attribute { attr, .. } = &**func else { return None };
    let many = match attr.as_str() {
        "execute" => false,
        "executemany" => true,
        _ => return None,
    };
    let sql = match args.first()? {
        Condition::Constant { value: Constant::Str(s) } => s.clone(),
        Condition::Name { id } => match expression(ctx.analysis.literal_assignments.get(id)?)? {
            Condition::Constant { value: Constant::Str(s) } => s,
            _ => return None,
        },
        _ => return None,
    };
    let params = args.get(1).or_else(|| keywords.iter().find(|(k, _)| k == "parameters" || k == "seq_of_parameters").map(|(_, v)| v))?;
    let Condition::Name { id } = params else { return None };
    Some((many, sql, id.clone()))
}

/// A value the prefix made up by itself, which the SQL may reshape.
fn plain(v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::Float(_) | Value::Str(_) | Value::None | Value::Bool(_) => true,
        Value::List(items) | Value::Tuple(items) | Value::Set(items) => items.iter().all(plain),
        Value::Dict(items) => items.iter().all(|(k, v)| plain(k) && plain(v)),
        _ => false,
    }
}

/// What `sql` is executed with: a tuple (or dict) for one statement, three
/// of them for `executemany`; `None` when it has no placeholders.
fn parameters(fragment: &str, sql: &str, many: bool) -> Option<Value> {
    let marks = placeholders(sql);
    if marks.is_empty() {
        return None;
    }
    let columns = bound_columns(sql, marks.len());
    let types = declared_types(fragment);
    let row = |i: i64| -> Value {
        let cell = |k: usize| cell(columns.get(k).map(String::as_str), &types, i, k);
        match &marks[..] {
            [Mark::Named(_), ..] => Value::Dict(
                marks
                    .iter()
                    .enumerate()
                    .map(|(k, m)| {
                        let name = match m {
                            Mark::Named(n) => n.clone(),
                            Mark::Positional => format!("p{k}"),
                        };
                        // A named placeholder is its column's value, by name.
                        let col = columns.get(k).cloned().unwrap_or_else(|| name.clone());
                        (Value::Str(name), self::cell(Some(&col), &types, i, k))
                    })
                    .collect(),
            ),
            _ => Value::Tuple((0..marks.len()).map(cell).collect()),
        }
    };
    Some(if many { Value::List((1..=3).map(row).collect()) } else { row(1) })
}

#[derive(Debug, Clone, PartialEq)]
enum Mark {
    Positional,
    Named(String),
}

/// The placeholders of `sql` outside its quoted literals: `?` (and `?1`),
/// `:name`, `@name`, `$name`, as sqlite3 reads them.
fn placeholders(sql: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    let chars: Vec<char> = sql.chars().collect();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '?' => {
                out.push(Mark::Positional);
                while i + 1 < chars.len() && chars[i + 1].is_ascii_digit() {
                    i += 1;
                }
            }
            None if matches!(c, ':' | '@' | '$') && chars.get(i + 1).is_some_and(|n| n.is_alphabetic() || *n == '_') => {
                let start = i + 1;
                let mut end = start;
                while end < chars.len() && (chars[end].is_alphanumeric() || chars[end] == '_') {
                    end += 1;
                }
                out.push(Mark::Named(chars[start..end].iter().collect()));
                i = end - 1;
            }
            None => {}
        }
        i += 1;
    }
    out
}

/// The column each placeholder binds, where the SQL says: `INSERT INTO t
/// (a, b) VALUES (?, ?)` in order; `col = ?`, `col > :x` by the name before
/// the operator; `SET a = ?`.
fn bound_columns(sql: &str, count: usize) -> Vec<String> {
    let upper = sql.to_ascii_uppercase();
    if let (Some(into), Some(values)) = (upper.find("INTO "), upper.find("VALUES")) {
        if into < values {
            let head = &sql[into..values];
            if let Some((_, rest)) = head.split_once('(') {
                let cols: Vec<String> = rest.split(')').next().unwrap_or("").split(',').map(|c| c.trim().trim_matches(|q| q == '"' || q == '`' || q == '[' || q == ']').to_string()).collect();
                if cols.len() == count {
                    return cols;
                }
            }
        }
    }
    // `name <op> placeholder`, in the order written.
    let spaced = sql.replace(['<', '>', '=', '!'], " = ").replace(['(', ')', ','], " ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut cols = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        let is_mark = t.starts_with('?') || (t.len() > 1 && t.starts_with([':', '@', '$']));
        if !is_mark {
            continue;
        }
        let mut j = k;
        while j > 0 && tokens[j - 1] == "=" {
            j -= 1;
        }
        let before = if j > 0 { tokens[j - 1] } else { "" };
        let word = ["LIKE", "IN", "IS", "BETWEEN", "AND"].iter().any(|w| before.eq_ignore_ascii_case(w));
        let name = match word {
            true if j >= 2 => tokens[j - 2],
            true => "",
            false => before,
        };
        // `BETWEEN ? AND ?`: the second bound is the same column's.
        let name = if name.starts_with(['?', ':', '@', '$']) { cols.last().map_or("", |c: &String| c.as_str()) } else { name };
        cols.push(name.rsplit('.').next().unwrap_or("").to_string());
    }
    cols
}

/// Column name -> declared type, from every `CREATE TABLE` in the
/// fragment's string literals.
fn declared_types(fragment: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for text in string_texts(fragment) {
        let upper = text.to_ascii_uppercase();
        let Some(at) = upper.find("CREATE TABLE") else { continue };
        let Some((_, body)) = text[at..].split_once('(') else { continue };
        let body = body.rsplit_once(')').map_or(body, |(b, _)| b);
        for def in body.split(',') {
            let mut words = def.split_whitespace();
            if let (Some(name), Some(ty)) = (words.next(), words.next()) {
                out.push((name.trim_matches(|q| q == '"' || q == '`').to_ascii_lowercase(), ty.to_ascii_uppercase()));
            }
        }
    }
    out
}

/// The value row `i` binds at position `k`: by the column's declared type
/// (sqlite's affinity rules: INT -> integer, REAL/FLOA/DOUB -> real, else
/// text), else by its name.
fn cell(column: Option<&str>, types: &[(String, String)], i: i64, k: usize) -> Value {
    let column = column.filter(|c| !c.is_empty());
    let declared = column.and_then(|c| types.iter().find(|(n, _)| n.eq_ignore_ascii_case(c))).map(|(_, t)| t.as_str());
    let text = || Value::Str(format!("{} {i}", column.unwrap_or("value")));
    match declared {
        Some(t) if t.contains("INT") => Value::Int(i + k as i64 * 10),
        Some(t) if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") || t.contains("NUM") || t.contains("DEC") => Value::Float(i as f64 + 0.5),
        Some(_) => text(),
        None if column.is_some_and(numeric_column) => Value::Int(10 * i + 10),
        None if column.is_none() => Value::Int(i),
        None => text(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_outside_quotes() {
        assert_eq!(placeholders("INSERT INTO t (a, b) VALUES (?, ?)").len(), 2);
        assert_eq!(placeholders("SELECT '?' FROM t WHERE a = ?1").len(), 1);
        assert_eq!(placeholders("SELECT * FROM t WHERE a = :who AND b > :n"), vec![Mark::Named("who".into()), Mark::Named("n".into())]);
        assert!(placeholders("SELECT 'a:b' FROM t").is_empty());
    }

    #[test]
    fn executemany_gets_rows_typed_by_the_declared_columns() {
        let fragment = "cur.execute(\"CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT, ts REAL)\")\ncur.executemany(\"INSERT INTO events (kind, ts) VALUES (?, ?)\", rows)\n";
        let v = parameters(fragment, "INSERT INTO events (kind, ts) VALUES (?, ?)", true).unwrap();
        let Value::List(rows) = v else { panic!("{v:?}") };
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0], Value::Tuple(vec![Value::Str("kind 1".into()), Value::Float(1.5)]));
    }

    #[test]
    fn a_where_clause_binds_by_the_compared_column() {
        let v = parameters("", "SELECT name FROM products WHERE price > ? AND name LIKE ?", false).unwrap();
        assert_eq!(v, Value::Tuple(vec![Value::Int(20), Value::Str("name 1".into())]));
        let v = parameters("", "SELECT * FROM users WHERE name = :name", false).unwrap();
        assert_eq!(v, Value::Dict(vec![(Value::Str("name".into()), Value::Str("name 1".into()))]));
        assert_eq!(parameters("", "SELECT * FROM users", false), None);
    }
}
