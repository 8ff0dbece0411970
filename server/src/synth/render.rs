//! Python text for the parts of values: string literals, class and member
//! definitions, raise statements, long expressions wrapped as PEP 8 asks.
//! `Value` renders itself through these (`value.rs`). Pure.

use super::value::Value;

/// The name part of a class spelled with its base (`Value(ast.Call)` -> `Value`).
pub fn class_ident(class: &str) -> &str {
    class.split('(').next().unwrap_or(class)
}

pub(super) fn class_name_for(attr: &str) -> String {
    let mut out = String::new();
    for part in attr.split('_').filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        if let Some(f) = c.next() {
            out.extend(f.to_uppercase());
            out.push_str(c.as_str());
        }
    }
    if out.is_empty() { "Item".into() } else { out }
}

pub(super) fn class_source(class: &str, attrs: &[(String, Value)], methods: &[(String, Value)]) -> String {
    members_source(class, attrs, methods, false)
}

/// A class whose members are used on the class itself (`Model.objects`):
/// methods are classmethods.
pub(super) fn members_source(class: &str, attrs: &[(String, Value)], methods: &[(String, Value)], on_class: bool) -> String {
    let mut s = format!("class {class}:");
    if class.contains('(') && !on_class {
        // A library base class's own constructor is not needed: the
        // attributes below are what the fragment reads.
        s.push_str("\n    def __init__(self, *args, **kwargs):\n        pass\n");
    }
    for (a, v) in attrs {
        match v {
            // `isinstance(agent, self.TunnelingAgent)`: a class held by the object.
            Value::Class { .. } => {
                let nested = v.own_definition(a).lines().map(|l| if l.is_empty() { String::new() } else { format!("    {l}") }).collect::<Vec<_>>().join("\n");
                s.push_str(&format!("\n{nested}\n"));
            }
            _ => s.push_str(&format!("\n    {a} = {}", v.expr())),
        }
    }
    for (m, v) in methods {
        if !attrs.is_empty() || !s.ends_with(':') {
            s.push('\n');
        }
        let (def, body) = match v {
            Value::Function { returns, is_async } => (if *is_async { "async def" } else { "def" }, format!("return {}", returns.expr())),
            Value::Raises(exc) => ("def", raise_stmt(exc, m)),
            other => ("def", format!("return {}", other.expr())),
        };
        if on_class {
            s.push_str(&format!("\n    @classmethod\n    {def} {m}(cls, *args, **kwargs):\n        {body}"));
        } else {
            s.push_str(&format!("\n    {def} {m}(self, *args, **kwargs):\n        {body}"));
        }
    }
    if s.ends_with(':') {
        s.push_str("\n    pass");
    }
    s.trim_end().to_string()
}

/// The body of a function or method `name` that raises `exc` (to reach an
/// `except` handler).
pub(super) fn raise_stmt(exc: &str, name: &str) -> String {
    format!("raise {exc}('{name} failed')")
}

pub(super) fn join(v: &[Value]) -> String {
    v.iter().map(Value::expr).collect::<Vec<_>>().join(", ")
}

/// A long list, set or dict broken after each item, as a person would
/// (a hanging indent); `hang` is how far in the value starts. Built from
/// the value's items, so no text is scanned.
pub(super) fn wrapped(v: &Value, hang: usize) -> String {
    let expr = v.expr();
    if expr.len() + hang <= 88 {
        return expr;
    }
    let (open, items, close) = match v {
        Value::List(xs) => ('[', xs.iter().map(Value::expr).collect::<Vec<_>>(), ']'),
        Value::Set(xs) if !xs.is_empty() => ('{', xs.iter().map(Value::expr).collect(), '}'),
        Value::Dict(kv) => ('{', kv.iter().map(|(k, v)| format!("{}: {}", k.expr(), v.expr())).collect(), '}'),
        _ => return expr,
    };
    format!("{open}\n{}{close}", items.iter().map(|i| format!("    {i},\n")).collect::<String>())
}

/// A Python string literal, as `repr` would write it.
pub fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c)
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}
