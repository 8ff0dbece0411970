//! A remembered value as the store keeps it, in the templates' `code`
//! column. Pure.
//!
//! A plain value (a literal, a `pd.DataFrame({...})` expression) is kept as
//! its Python expression, readable in `runnable memory export`. A value that
//! needs definitions (an object of a class with the attributes the fragment
//! read, a function returning a shape, a class, a builtin subclass) is kept
//! as structure: `#value ` and the JSON of [`Stored`]; a Python expression
//! never starts with `#`, so the two never mix. Structure, not source text,
//! because the class and binding lines are rendered for the name of the
//! fragment that uses it, which is not the name it was learnt under.
//! Never kept: the catch-all placeholder (or anything holding it), stand-ins
//! that define the name themselves (`Value::Code`: offline network, library
//! errors) and raisers: those are the rules' to propose, per fragment.

use crate::synth::value::Value;
use serde::{Deserialize, Serialize};

const STRUCTURED: &str = "#value ";

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
enum Stored {
    Int { v: i64 },
    Float { v: f64 },
    Str { v: String },
    Bytes { v: String },
    Bool { v: bool },
    None,
    List { v: Vec<Stored> },
    Tuple { v: Vec<Stored> },
    Set { v: Vec<Stored> },
    Dict { v: Vec<(Stored, Stored)> },
    Expr { code: String, imports: Vec<String> },
    Call { func: String, args: Vec<Stored>, kwargs: Vec<(String, Stored)>, imports: Vec<String> },
    Object { class: String, attrs: Vec<(String, Stored)>, methods: Vec<(String, Stored)> },
    Function { returns: Box<Stored>, is_async: bool },
    Class { attrs: Vec<(String, Stored)>, methods: Vec<(String, Stored)> },
    Derived { class: String, base: String, value: Box<Stored>, attrs: Vec<(String, Stored)>, methods: Vec<(String, Stored)> },
}

/// The `code` column for `value`, or `None` when it is not to be kept.
pub fn encode(value: &Value) -> Option<String> {
    if value.uses_anything() || value.is_stub() {
        return None;
    }
    if !value.needs_definition() {
        return Some(value.expr());
    }
    let json = serde_json::to_string(&stored(value)?).ok()?;
    Some(format!("{STRUCTURED}{json}"))
}

/// The value a `code` column holds (`imports` go with a plain expression);
/// `None` when structured text does not read back.
pub fn decode(code: &str, imports: &[String]) -> Option<Value> {
    match code.strip_prefix(STRUCTURED) {
        Some(json) => Some(value(serde_json::from_str(json).ok()?)),
        None => Some(Value::Expr { code: code.to_string(), imports: imports.to_vec() }),
    }
}

fn stored(v: &Value) -> Option<Stored> {
    let all = |vs: &[Value]| vs.iter().map(stored).collect::<Option<Vec<_>>>();
    let members = |ms: &[(String, Value)]| ms.iter().map(|(n, v)| Some((n.clone(), stored(v)?))).collect::<Option<Vec<_>>>();
    Some(match v {
        Value::Int(i) => Stored::Int { v: *i },
        Value::Float(f) if f.is_finite() => Stored::Float { v: *f },
        Value::Str(s) => Stored::Str { v: s.clone() },
        Value::Bytes(s) => Stored::Bytes { v: s.clone() },
        Value::Bool(b) => Stored::Bool { v: *b },
        Value::None => Stored::None,
        Value::List(vs) => Stored::List { v: all(vs)? },
        Value::Tuple(vs) => Stored::Tuple { v: all(vs)? },
        Value::Set(vs) => Stored::Set { v: all(vs)? },
        Value::Dict(kv) => Stored::Dict { v: kv.iter().map(|(k, v)| Some((stored(k)?, stored(v)?))).collect::<Option<_>>()? },
        Value::Expr { code, imports } => Stored::Expr { code: code.clone(), imports: imports.clone() },
        Value::Call { func, args, kwargs, imports } => Stored::Call { func: func.clone(), args: all(args)?, kwargs: members(kwargs)?, imports: imports.clone() },
        Value::Object { class, attrs, methods } => Stored::Object { class: class.clone(), attrs: members(attrs)?, methods: members(methods)? },
        Value::Function { returns, is_async } => Stored::Function { returns: Box::new(stored(returns)?), is_async: *is_async },
        Value::Class { attrs, methods } => Stored::Class { attrs: members(attrs)?, methods: members(methods)? },
        Value::Derived { class, base, value, attrs, methods } => {
            Stored::Derived { class: class.clone(), base: base.clone(), value: Box::new(stored(value)?), attrs: members(attrs)?, methods: members(methods)? }
        }
        Value::Float(_) | Value::Raises(_) | Value::Code { .. } | Value::Anything => return None,
    })
}

fn value(s: Stored) -> Value {
    let all = |vs: Vec<Stored>| vs.into_iter().map(value).collect();
    let members = |ms: Vec<(String, Stored)>| ms.into_iter().map(|(n, v)| (n, value(v))).collect();
    match s {
        Stored::Int { v } => Value::Int(v),
        Stored::Float { v } => Value::Float(v),
        Stored::Str { v } => Value::Str(v),
        Stored::Bytes { v } => Value::Bytes(v),
        Stored::Bool { v } => Value::Bool(v),
        Stored::None => Value::None,
        Stored::List { v } => Value::List(all(v)),
        Stored::Tuple { v } => Value::Tuple(all(v)),
        Stored::Set { v } => Value::Set(all(v)),
        Stored::Dict { v } => Value::Dict(v.into_iter().map(|(k, v)| (value(k), value(v))).collect()),
        Stored::Expr { code, imports } => Value::Expr { code, imports },
        Stored::Call { func, args, kwargs, imports } => Value::Call { func, args: all(args), kwargs: members(kwargs), imports },
        Stored::Object { class, attrs, methods } => Value::Object { class, attrs: members(attrs), methods: members(methods) },
        Stored::Function { returns, is_async } => Value::Function { returns: Box::new(value(*returns)), is_async },
        Stored::Class { attrs, methods } => Value::Class { attrs: members(attrs), methods: members(methods) },
        Stored::Derived { class, base, value: v, attrs, methods } => {
            Value::Derived { class, base, value: Box::new(value(*v)), attrs: members(attrs), methods: members(methods) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_value_is_its_expression_and_reads_back_as_one() {
        let v = Value::Dict(vec![(Value::Str("id".into()), Value::Int(3))]);
        let code = encode(&v).unwrap();
        assert_eq!(code, "{'id': 3}");
        assert_eq!(decode(&code, &[]), Some(Value::Expr { code, imports: vec![] }));
    }

    #[test]
    fn an_object_a_function_and_a_class_read_back_as_themselves() {
        let object = Value::Object {
            class: "Order".into(),
            attrs: vec![("total".into(), Value::Float(2.5)), ("items".into(), Value::List(vec![Value::Str("a".into())]))],
            methods: vec![("paid".into(), Value::Bool(true))],
        };
        let function = Value::Function { returns: Box::new(object.clone()), is_async: false };
        let class = Value::Class { attrs: vec![("name".into(), Value::Str("x".into()))], methods: vec![] };
        for v in [object, function, class] {
            let code = encode(&v).unwrap();
            assert!(code.starts_with(STRUCTURED), "{code}");
            assert_eq!(decode(&code, &[]), Some(v));
        }
    }

    #[test]
    fn placeholders_stand_ins_and_raisers_are_not_kept_and_garbage_does_not_read_back() {
        let holds_anything = Value::Object { class: "A".into(), attrs: vec![("x".into(), Value::Anything)], methods: vec![] };
        for v in [Value::Anything, holds_anything, Value::Raises("ValueError".into()), Value::Code { source: "x = 1".into(), imports: vec![] }] {
            assert_eq!(encode(&v), None, "{v:?}");
        }
        assert_eq!(decode("#value {not json", &[]), None);
    }
}
