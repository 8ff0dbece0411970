//! The value a parameter's binding starts with (of the declared type,
//! suited to how the body uses it) and how the argument vector spells a
//! binding as the library parses it.

use super::{CliParam, CliType, Spelling};
use crate::analysis::{Literal, Usage};
use crate::synth::infer;
use crate::synth::render::py_str;
use crate::synth::value::Value;

/// A value of the declared type that suits how the body uses it: a
/// string the body (or its callback) tests membership in a list of
/// strings with is one of them; else what inference gives when it is of
/// that type.
fn scalar_value(name: &str, ty: &CliType, usage: &Usage) -> Value {
    match ty {
        CliType::Str => {
            if let Some(s) = member_of_tested_list(usage) {
                return Value::Str(s);
            }
            match infer::best(name, usage, 1) {
                v @ Value::Str(_) => v,
                _ => Value::Str("example".into()),
            }
        }
        CliType::Int => match infer::best(name, usage, 1) {
            v @ Value::Int(_) => v,
            _ => Value::Int(3),
        },
        CliType::Float => match infer::best(name, usage, 1) {
            v @ Value::Float(_) => v,
            _ => Value::Float(1.5),
        },
        CliType::Bool => Value::Bool(true),
        CliType::Choice(cs) => Value::Str(cs.first().cloned().unwrap_or_else(|| "example".into())),
        CliType::Tuple(items) => {
            let parts = usage.unpacked_items.clone();
            Value::Tuple(items.iter().enumerate().map(|(i, t)| scalar_value(&format!("{name}_{i}"), t, parts.get(i).unwrap_or(&Usage::default()))).collect())
        }
    }
}

/// `x in ['a', 'b']` / `x not in [...]` (a check that raises unless it
/// holds): the first of the strings.
fn member_of_tested_list(usage: &Usage) -> Option<String> {
    usage.compared.iter().find_map(|(op, l)| match l {
        Literal::Str(s) if op == "==" => Some(s.clone()),
        Literal::Other(display) if op == "in" || op == "not in" => crate::analysis::string_list(display).into_iter().next(),
        _ => None,
    })
}

/// The value a parameter's binding starts with.
pub(super) fn value_for(p: &CliParam) -> Value {
    let element = if p.many { p.usage.element.as_deref().cloned().unwrap_or_default() } else { p.usage.clone() };
    let one = |u: &Usage| {
        if p.nargs > 1 {
            let v = scalar_value(&p.name, &p.ty, u);
            Value::Tuple((0..p.nargs).map(|i| infer::vary(&v, i)).collect())
        } else {
            scalar_value(&p.name, &p.ty, u)
        }
    };
    match &p.spelling {
        Spelling::Flag(_) | Spelling::FlagPair(..) => Value::Bool(true),
        _ if p.many => {
            let first = one(&element);
            // Two items, so a loop over them runs more than once; items a
            // membership check picked stay the same.
            let second = if member_of_tested_list(&element).is_some() { first.clone() } else { infer::vary(&first, 1) };
            Value::List(vec![first, second])
        }
        _ => one(&p.usage),
    }
}

/// How the argument vector spells binding `b` of parameter `p` (Python
/// expressions, one or more items of the list).
pub(super) fn spell(p: &CliParam, b: &str) -> Vec<String> {
    let text_of = |x: &str, ty: &CliType| if *ty == CliType::Str || matches!(ty, CliType::Choice(_)) { x.to_string() } else { format!("str({x})") };
    let tuple_like = p.nargs > 1 || matches!(p.ty, CliType::Tuple(_));
    let one = |x: &str| if tuple_like { format!("*map(str, {x})") } else { text_of(x, &p.ty) };
    match &p.spelling {
        Spelling::Argument if p.many => vec![if tuple_like { format!("*[a for v in {b} for a in map(str, v)]") } else if text_of("", &p.ty).is_empty() { format!("*{b}") } else { format!("*map(str, {b})") }],
        Spelling::Argument => vec![one(b)],
        Spelling::Option(flag) if p.many => vec![format!("*[a for v in {b} for a in ({}, {})]", py_str(flag), one("v"))],
        Spelling::Option(flag) => vec![py_str(flag), one(b)],
        Spelling::Flag(flag) => vec![format!("*([{}] if {b} else [])", py_str(flag))],
        Spelling::FlagPair(on, off) => vec![format!("{} if {b} else {}", py_str(on), py_str(off))],
    }
}
