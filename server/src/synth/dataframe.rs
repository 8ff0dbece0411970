//! A pandas DataFrame built with pandas' own constructor, with the columns
//! the fragment reads (by subscript, attribute or a list of names) and
//! values of the kind each column is used as. Pure.

use crate::analysis::string_list;
use super::knowledge::kind_attrs;
use super::rank::{name_kind, uses_time_index};
use super::scalars::{int_for, string_for};
use super::value::Value;
use crate::analysis::{Key, Literal, Usage};

/// A DataFrame whose columns are those the usage reads.

pub(super) fn dataframe(u: &Usage) -> Value {
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
    let columns = cols
        .iter()
        .map(|(c, cu)| {
            let stringy = cu.attrs.contains_key("str")
                || cu.compared.iter().any(|(_, l)| matches!(l, Literal::Str(_)))
                || name_kind(c) == "str";
            let vals: Vec<Value> = if stringy {
                let base = string_for(c, cu);
                let b = if base.len() > 12 { "apple".to_string() } else { base };
                (0..3).map(|i| Value::Str(if i == 0 { b.clone() } else { format!("{b}{}", i + 1) })).collect()
            } else {
                let v = int_for(c, cu);
                (v..v + 3).map(Value::Int).collect()
            };
            (Value::Str(c.clone()), Value::List(vals))
        })
        .collect();
    let mut kwargs = Vec::new();
    if uses_time_index(u) {
        let dates = Value::Call { func: "pd.date_range".into(), args: vec![Value::Str("2024-01-01".into())], kwargs: vec![("periods".into(), Value::Int(3))], imports: vec![] };
        kwargs.push(("index".into(), dates));
    }
    Value::Call { func: "pd.DataFrame".into(), args: vec![Value::Dict(columns)], kwargs, imports: vec!["import pandas as pd".into()] }
}
