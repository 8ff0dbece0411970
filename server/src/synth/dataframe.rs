//! A pandas DataFrame built with pandas' own constructor, with the columns
//! the fragment reads (by subscript, attribute or a list of names) and the
//! columns a library reads by names inside strings (a formula's variables,
//! a reader's `parse_dates`: `analysis::FrameColumns`), with values of the
//! kind each column is used as. The same table is a CSV file's content
//! (`resources`). Pure.

use crate::analysis::string_list;
use super::knowledge::kind_attrs;
use super::rank::{name_kind, uses_time_index};
use super::scalars::{int_for, string_for};
use super::value::Value;
use crate::analysis::{merge_usage, ColumnKind, Key, Literal, NamedColumn, Usage};

/// A DataFrame whose columns are those the usage reads.
pub(super) fn dataframe(u: &Usage) -> Value {
    frame_value(u, &[])
}

/// A DataFrame with the columns the usage reads and those a library reads
/// by name (`named`, first).
pub(super) fn frame_value(u: &Usage, named: &[NamedColumn]) -> Value {
    let columns = frame_table(u, named).into_iter().map(|(c, vals)| (Value::Str(c), Value::List(vals))).collect();
    let mut kwargs = Vec::new();
    if uses_time_index(u) {
        let dates = Value::Call { func: "pd.date_range".into(), args: vec![Value::Str("2024-01-01".into())], kwargs: vec![("periods".into(), Value::Int(rows(named) as i64))], imports: vec![] };
        kwargs.push(("index".into(), dates));
    }
    Value::Call { func: "pd.DataFrame".into(), args: vec![Value::Dict(columns)], kwargs, imports: vec!["import pandas as pd".into()] }
}

/// How many rows: three for what the fragment reads itself; a model fitted
/// on named columns needs more observations than parameters and each
/// combination of its categories more than once (two levels a category,
/// every combination twice: an interaction and its ANOVA can be fitted);
/// a column parsed as dates makes a time series, as long as the engine's
/// time-indexed Series (60), enough for lags and windows.
fn rows(named: &[NamedColumn]) -> usize {
    if named.is_empty() {
        return 3;
    }
    let categories = named.iter().filter(|c| c.kind == ColumnKind::Category).count().min(4);
    let fitted = (2usize << categories).max(8);
    if named.iter().any(|c| c.kind == ColumnKind::Date) {
        fitted.max(60)
    } else {
        fitted
    }
}

/// The columns (name, values) of a DataFrame the fragment uses as `u`,
/// with the columns a library reads by name.
pub(super) fn frame_table(u: &Usage, named: &[NamedColumn]) -> Vec<(String, Vec<Value>)> {
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
    // Rows picked by a mask (`df[df['sex'] == 1].age`) have the frame's
    // columns: what is read of them is read of the frame.
    // So has what a method that keeps the columns returns (`df =
    // df.dropna(subset=[...])`, then `df['email']`).
    let mut views: Vec<&Usage> = vec![u];
    let mut i = 0;
    while i < views.len() && views.len() < 32 {
        let v = views[i];
        views.extend(v.subscripts.iter().filter(|(k, _)| matches!(k, Key::Expr(e) if string_list(e).is_empty())).map(|(_, item)| item));
        // What a merge or join returns has the frame's columns beside the
        // other's: what is read of it, the frame holds (its key is in both).
        let holds_columns = |m: &str| KEEPS_COLUMNS.contains(&m) || m == "merge" || m == "join";
        views.extend(v.attrs.iter().filter(|(m, _)| holds_columns(m)).filter_map(|(_, mu)| mu.returns.as_deref()));
        i += 1;
    }
    for v in views {
        for (k, item) in &v.subscripts {
            if let Key::Str(s) = k {
                // Every read of a column tells its values (`== 1` and `== 0`).
                match cols.iter_mut().find(|(c, _)| c == s) {
                    Some((_, cu)) => merge_usage(cu, item),
                    None => cols.push((s.clone(), item.clone())),
                }
            }
        }
        for (a, au) in &v.attrs {
            if api.is_none_or(|api| !api.contains(a)) && au.calls.is_empty() && !cols.iter().any(|(c, _)| c == a) {
                cols.push((a.clone(), au.clone()));
            }
            // Methods whose first argument names a column (`groupby('country')`,
            // `sort_values('date')`), and the columns read of the groups
            // (`groupby('country')['amount']`).
            if NAMES_COLUMNS.contains(&a.as_str()) {
                let grouped = if a == "groupby" { au.returns.as_deref().map(|r| r.subscripts.as_slice()).unwrap_or_default() } else { &[] };
                let read = grouped.iter().filter_map(|(k, _)| match k {
                    Key::Str(s) => Some(s),
                    _ => None,
                });
                for c in au.first_str_args.iter().chain(read) {
                    if !cols.iter().any(|(x, _)| x == c) {
                        cols.push((c.clone(), Usage::default()));
                    }
                }
            }
        }
    }
    if cols.is_empty() && named.is_empty() {
        cols = vec![("A".into(), Usage::default()), ("B".into(), Usage::default())];
    }
    let n = rows(named);
    let mut out: Vec<(String, Vec<Value>)> = Vec::new();
    let mut categories = 0;
    let mut numbers = 0;
    let usage_of = |c: &str| cols.iter().find(|(x, _)| x == c).map(|(_, u)| u.clone()).unwrap_or_default();
    for c in named {
        let cu = usage_of(&c.name);
        let vals = match c.kind {
            ColumnKind::Category => {
                // Level of row i: the category's own bit of i / 2, so every
                // combination of levels comes twice.
                let base = short(string_for(&c.name, &cu));
                let bit = categories;
                categories += 1;
                (0..n).map(|i| Value::Str(if (i >> (bit + 1)) % 2 == 0 { base.clone() } else { format!("{base}2") })).collect()
            }
            ColumnKind::Outcome => (0..n).map(|i| Value::Int(OUTCOME[i % OUTCOME.len()])).collect(),
            ColumnKind::Number => {
                numbers += 1;
                spread(int_for(&c.name, &cu), numbers, n)
            }
            ColumnKind::Date => (0..n).map(|i| Value::Str(day(i))).collect(),
            ColumnKind::Any => plain(&c.name, &cu, n, &mut numbers),
        };
        out.push((c.name.clone(), vals));
    }
    for (c, cu) in &cols {
        if !out.iter().any(|(x, _)| x == c) {
            let vals = plain(c, cu, n, &mut numbers);
            out.push((c.clone(), vals));
        }
    }
    out
}

/// DataFrame methods whose result has the frame's columns (rows dropped,
/// reordered or filled; not `rename`, `drop` or `set_index`).
const KEEPS_COLUMNS: &[&str] = &[
    "dropna", "drop_duplicates", "sort_values", "sort_index", "fillna", "copy", "head", "tail", "query", "sample", "reset_index", "astype", "ffill", "bfill", "nlargest", "nsmallest",
];

/// DataFrame methods whose first argument, a string, is a column's name.
const NAMES_COLUMNS: &[&str] = &["groupby", "sort_values", "set_index", "drop_duplicates", "pivot_table", "value_counts", "nlargest", "nsmallest"];

/// A model's outcome: both values, not in step with any regressor (no
/// perfect separation for a logit).
const OUTCOME: [i64; 8] = [0, 1, 1, 0, 1, 0, 0, 1];

/// Values of the kind the column is used as (text when it is compared
/// with text or its name says so), consecutive for three rows.
fn plain(c: &str, cu: &Usage, n: usize, numbers: &mut usize) -> Vec<Value> {
    let stringy = cu.attrs.contains_key("str") || cu.compared.iter().any(|(_, l)| matches!(l, Literal::Str(_))) || name_kind(c) == "str" || text_cells(&cell_usage(cu, 0));
    // Tested equal to several values (`df[df['sex'] == 1]`, `== 0`): each
    // comes in turn, so every test picks rows.
    let mut tested: Vec<Value> = Vec::new();
    for (op, l) in &cu.compared {
        let v = match l {
            Literal::Int(i) if !stringy => Value::Int(*i),
            Literal::Str(t) if stringy => Value::Str(t.clone()),
            _ => continue,
        };
        if op == "==" && !tested.contains(&v) {
            tested.push(v);
        }
    }
    if tested.len() > 1 {
        return (0..n).map(|i| tested[i % tested.len()].clone()).collect();
    }
    // Parsed as dates (`pd.to_datetime(df['signup'])`): a date a row.
    let dates = cu.passed_to.iter().any(|a| super::knowledge::argument_kind(&a.callee, a.position, a.keyword.as_deref()) == Some("date-str"));
    if dates {
        (0..n).map(|i| Value::Str(day(i))).collect()
    } else if stringy {
        let b = short(string_for(c, cu));
        (0..n).map(|i| Value::Str(if i % 3 == 0 { b.clone() } else { numbered(&b, i % 3 + 1) })).collect()
    } else if n == 3 {
        let v = int_for(c, cu);
        (v..v + 3).map(Value::Int).collect()
    } else {
        *numbers += 1;
        spread(int_for(c, cu), *numbers, n)
    }
}

/// What is done with one cell of a column: its elements when iterated,
/// through the methods that hand its values on (`df.Code.unique().tolist()`,
/// `.values`, `.dropna()`), and items picked by position (`.iloc[0]`).
fn cell_usage(cu: &Usage, depth: usize) -> Usage {
    const PASS_ON: &[&str] = &["unique", "tolist", "to_list", "dropna", "drop_duplicates", "sort_values", "head", "tail", "copy"];
    let mut cell = cu.element.as_deref().cloned().unwrap_or_default();
    if depth > 3 {
        return cell;
    }
    for (m, mu) in &cu.attrs {
        let handed = if PASS_ON.contains(&m.as_str()) { mu.returns.as_deref() } else if m == "values" { Some(mu) } else { None };
        if let Some(h) = handed {
            merge_usage(&mut cell, &cell_usage(h, depth + 1));
        }
        if ["iloc", "iat"].contains(&m.as_str()) {
            for (_, item) in &mu.subscripts {
                merge_usage(&mut cell, item);
            }
        }
    }
    for (k, item) in &cu.subscripts {
        if matches!(k, Key::Int(_)) {
            merge_usage(&mut cell, item);
        }
    }
    cell
}

/// Whether cells used so are text: indexed or sliced (`segment[-1]`), or
/// given a method only strings have (`upper`, `split`).
fn text_cells(cell: &Usage) -> bool {
    let str_only = |a: &String| kind_attrs("str").is_some_and(|s| s.contains(a)) && !kind_attrs("int").is_some_and(|s| s.contains(a)) && !kind_attrs("float").is_some_and(|s| s.contains(a));
    cell.subscripts.iter().any(|(k, _)| matches!(k, Key::Int(_) | Key::Slice)) || cell.attrs.keys().any(str_only)
}

/// A cell's text: a long sentence becomes a short word; one word (an
/// address, a name) stays what the column's name asked for.
fn short(base: String) -> String {
    if base.len() > 12 && base.contains(char::is_whitespace) { "apple".to_string() } else { base }
}

/// The `k`-th distinct value of text like `base`: the number goes before an
/// address's `@` (`ada2@example.com`), else at the end.
fn numbered(base: &str, k: usize) -> String {
    match base.split_once('@') {
        Some((user, host)) => format!("{user}{k}@{host}"),
        None => format!("{base}{k}"),
    }
}

/// Numbers from `base` that vary with a stride of their own (the k-th
/// numeric column steps by the k-th prime modulo 11): no two columns are
/// collinear, none is constant, all are positive when `base` is.
fn spread(base: i64, k: usize, n: usize) -> Vec<Value> {
    const STRIDES: [usize; 6] = [3, 5, 7, 2, 9, 4];
    let s = STRIDES[(k - 1) % STRIDES.len()];
    (0..n).map(|i| Value::Int(base + ((i * s + k) % 11) as i64)).collect()
}

/// The i-th day from 2024-01-01, as ISO text.
fn day(i: usize) -> String {
    const MONTHS: [usize; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let (mut month, mut d) = (0, i % 366);
    while d >= MONTHS[month] {
        d -= MONTHS[month];
        month += 1;
    }
    format!("2024-{:02}-{:02}", month + 1, d + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::formula_columns;

    #[test]
    fn every_combination_of_a_formulas_categories_comes_more_than_once() {
        let named = formula_columns("sales ~ C(city) + C(store) + C(city):C(store) + price");
        let t = frame_table(&Usage::default(), &named);
        let col = |c: &str| t.iter().find(|(x, _)| x == c).unwrap().1.clone();
        let (city, store) = (col("city"), col("store"));
        assert_eq!(city.len(), 8);
        let mut pairs: Vec<(Value, Value)> = city.into_iter().zip(store).collect();
        pairs.sort_by_key(|p| format!("{p:?}"));
        pairs.dedup();
        assert_eq!(pairs.len(), 4, "two levels each, every pair present (twice)");
        assert!(col("sales").iter().all(|v| matches!(v, Value::Int(0 | 1))), "an outcome every model takes");
        let price = col("price");
        assert!(price.windows(2).any(|w| w[0] != w[1]), "a regressor varies");
    }

    fn usage(source: &str, name: &str) -> Usage {
        crate::analysis::analyze(source).free_names.into_iter().find(|f| f.name == name).unwrap().usage
    }

    #[test]
    fn rows_picked_by_a_column_test_are_a_frame_with_every_value_tested() {
        // Boolean indexing: the column takes each value it is tested equal
        // to, and what is read of the picked rows are columns of the frame.
        let u = usage("a = data[data['sex'] == 1]\nb = data[data['sex'] == 0]\nprint(a.height.mean(), b['weight'])\n", "data");
        assert_eq!(super::super::rank::rank_kinds("data", &u)[0], "dataframe", "a dict has no use for a key that is a test");
        let t = frame_table(&u, &[]);
        let col = |c: &str| t.iter().find(|(x, _)| x == c).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("column {c} in {t:?}"));
        assert_eq!(col("sex"), [Value::Int(1), Value::Int(0), Value::Int(1)]);
        col("height");
        col("weight");
        // One value tested: three rows from it, as before.
        let one = usage("print(df[df['kind'] == 'a'])\n", "df");
        assert_eq!(frame_table(&one, &[])[0].1.len(), 3);
    }

    #[test]
    fn cells_used_as_text_are_text() {
        // `segment[-1]` of each unique value: the column holds strings.
        let u = usage("for segment in df.Code.unique().tolist():\n    print(segment[-1])\nprint(df.Total.sum())\n", "df");
        let t = frame_table(&u, &[]);
        let col = |c: &str| t.iter().find(|(x, _)| x == c).map(|(_, v)| v.clone()).unwrap();
        assert!(col("Code").iter().all(|v| matches!(v, Value::Str(_))), "{t:?}");
        assert!(col("Total").iter().all(|v| matches!(v, Value::Int(_))), "{t:?}");
    }

    #[test]
    fn dates_make_a_time_series_and_what_the_fragment_reads_is_kept() {
        let named = vec![NamedColumn { name: "date".into(), kind: ColumnKind::Date }];
        let mut u = Usage::default();
        u.attrs.insert("value".into(), Usage::default());
        let t = frame_table(&u, &named);
        assert_eq!(t.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(), ["date", "value"]);
        assert_eq!(t[0].1.len(), 60);
        assert_eq!(t[0].1[31], Value::Str("2024-02-01".into()));
        assert_eq!(t[0].1[59], Value::Str("2024-02-29".into()));
        // Nothing named: the three rows as before.
        assert_eq!(frame_table(&u, &[])[0].1.len(), 3);
    }
}
