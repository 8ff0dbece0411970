//! The truth of plain values in a condition.

use super::value::Value;

/// Whether a value is true in a test, when that is plain from it.
pub(super) fn truthy(v: &Value) -> Option<bool> {
    Some(match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::List(x) | Value::Tuple(x) | Value::Set(x) => !x.is_empty(),
        Value::Dict(x) => !x.is_empty(),
        Value::Object { .. } | Value::Function { .. } | Value::Class { .. } => true,
        _ => return None,
    })
}
