//! Additions to a prefix's values that several rules make: a key of a
//! mapping (or a column of a DataFrame), a member of a value (a subclass of
//! a builtin that has it), a member of a module or class the prefix created.

use super::infer::{self, camel};
use super::error_text::{key_value, KeyLit};
use super::knowledge::kinds;
use super::prefix::{Binding, Candidate, LocalModule, Prefix};
use super::session::Context;
use super::value::Value;
use crate::analysis::Usage;

pub(super) fn add_key(b: &mut Binding, key: &KeyLit) -> bool {
    let Candidate::Value(v) = b.current_mut() else { return false };
    let k = key_value(key);
    match v {
        Value::Dict(items) if !items.iter().any(|(x, _)| *x == k) => {
            let sample = items.first().map(|(_, v)| v.clone()).unwrap_or(Value::Int(1));
            items.push((k, sample));
            true
        }
        frame => {
            let Some(columns) = frame.dataframe_columns_mut() else { return false };
            if columns.iter().any(|(c, _)| *c == k) {
                return false;
            }
            // The placeholder columns (`dataframe.rs`) go once real ones are known.
            let placeholder = |name: &str| (Value::Str(name.into()), Value::List((3..6).map(Value::Int).collect()));
            if let Some(at) = columns.windows(2).position(|w| w[0] == placeholder("A") && w[1] == placeholder("B")) {
                columns.remove(at);
                columns.remove(at);
            }
            // As long as the frame's other columns (a fitted model's have more rows).
            let rows = columns.iter().find_map(|(_, v)| match v {
                Value::List(items) => Some(items.len() as i64),
                _ => None,
            });
            columns.insert(0, (k, Value::List((1..=rows.unwrap_or(3).max(1)).map(Value::Int).collect())));
            true
        }
    }
}

/// A local module the fragment imports (`from helpers import parse`),
/// created with the names taken from it.
pub(super) fn local_module(ctx: &Context, module: &str) -> LocalModule {
    let mut m = LocalModule { name: module.to_string(), members: Vec::new() };
    for imp in ctx.analysis.imports.iter().filter(|i| i.is_from && i.module == module) {
        for (name, alias) in &imp.names {
            if name == "*" {
                continue;
            }
            // A lowercase name is what its use says (an object with the
            // members read, `reactor.callLater(...)`; text passed where text
            // goes; a function when called); with no use, a function.
            let usage = ctx.analysis.imported_usage.get(alias.as_deref().unwrap_or(name));
            let value = match usage {
                Some(u) if *u != Usage::default() && !name.starts_with(char::is_uppercase) && !infer::is_exception_name(name) => infer::best(name, u, 1),
                _ => member_value(name, true),
            };
            m.members.push((name.clone(), value));
        }
    }
    m
}

/// A member of a created module: classes for capitalised names (taking any
/// arguments), functions for called names, else a plain value.
pub(super) fn member_value(name: &str, called: bool) -> Value {
    if infer::is_exception_name(name) {
        infer::best(name, &Usage::default(), 1)
    } else if name.chars().next().is_some_and(char::is_uppercase) {
        Value::Class { attrs: vec![], methods: vec![("__init__".into(), Value::Function { returns: Box::new(Value::None), is_async: false })] }
    } else if called {
        Value::Function { returns: Box::new(Value::None), is_async: false }
    } else {
        Value::Int(1)
    }
}

/// Add a member to a module this prefix created: what the fragment's use of
/// it through the module says (`helpers.app.registered_commands`), as for a
/// name imported from it; a member named like a standard-library module and
/// used as one (`helpers.os.path.exists`, a patch target) is that module,
/// imported there.
pub(super) fn add_to_local_module(ctx: &Context, base: &Prefix, module: &str, name: &str, called: bool) -> Option<Prefix> {
    let mut p = base.clone();
    let m = p.module_mut(module)?;
    if m.members.iter().any(|(n, _)| n == name) {
        return None;
    }
    let usage = member_usage(ctx, module, name);
    let value = match usage {
        _ if !called && ctx.stdlib.contains(name) => Value::Code { source: format!("import {name}"), imports: vec![] },
        Some(u) if *u != Usage::default() && !name.starts_with(char::is_uppercase) && !infer::is_exception_name(name) => infer::best(name, u, 1),
        _ => member_value(name, called),
    };
    m.members.push((name.to_string(), value));
    Some(p)
}

/// How the fragment uses `module.name` where it imports `module` whole
/// (`import helpers`, `import pkg.helpers`).
fn member_usage<'a>(ctx: &'a Context, module: &str, name: &str) -> Option<&'a Usage> {
    let mut parts = module.split('.');
    let mut usage = ctx.analysis.imported_usage.get(parts.next()?)?;
    for part in parts {
        usage = usage.attrs.get(part)?;
    }
    usage.attrs.get(name)
}

/// A created module's class lacks an attribute its instances are used
/// with: add it; a method returns an instance of a new class named after
/// it, so a chain of calls can be discovered one link at a time.
pub(super) fn add_to_local_class(base: &Prefix, class: &str, attr: &str, called: bool) -> Option<Prefix> {
    let mut p = base.clone();
    let m = p.modules.iter_mut().find(|m| m.members.iter().any(|(n, v)| n == class && matches!(v, Value::Class { .. })))?;
    let result_class = camel(attr);
    let needs_result = called && !m.members.iter().any(|(n, _)| *n == result_class);
    let (_, Value::Class { attrs, methods }) = m.members.iter_mut().find(|(n, _)| n == class)? else { return None };
    if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
        return None;
    }
    if called {
        methods.push((attr.to_string(), Value::Function { returns: Box::new(Value::Call { func: result_class.clone(), args: vec![], kwargs: vec![], imports: vec![] }), is_async: false }));
    } else {
        attrs.push((attr.to_string(), Value::Str(attr.to_string())));
    }
    if needs_result {
        m.members.push((result_class, Value::Class { attrs: vec![], methods: vec![] }));
    }
    Some(p)
}

/// Give the value bound to `b` the member `attr` (a method when `called`).
pub(super) fn add_member(b: &mut Binding, attr: &str, called: bool, usage: &Usage, usage_whole: &Usage, buildable: impl Fn(&Value) -> bool) -> bool {
    let class = camel(&b.name);
    let Some(current) = b.value().cloned() else { return false };
    let returns = usage.returns.as_deref().filter(|r| **r != Usage::default()).map(|r| infer::best(attr, r, 1)).unwrap_or(Value::None);
    let member = if called { Value::Function { returns: Box::new(returns), is_async: false } } else if *usage != Usage::default() { infer::best(attr, usage, 1) } else { Value::Str(attr.to_string()) };
    if let Some(base) = builtin_base(&current) {
        // Another builtin kind that has the attribute (`decode`: bytes, not str),
        // keeping the text where both are strings of some sort.
        let other = kinds().iter().find(|(k, attrs)| k != base && attrs.contains(attr)).map(|(k, _)| k.as_str());
        // A builtin value lacks the attribute: a subclass of its type that has it.
        let member = if called { infer::legacy_method(base, attr).unwrap_or(member) } else { member };
        let (attrs, methods) = if called { (vec![], vec![(attr.to_string(), member)]) } else { (vec![(attr.to_string(), member)], vec![]) };
        let derived = Value::Derived { class, base: base.into(), value: Box::new(current.clone()), attrs, methods };
        b.candidates.insert(b.choice + 1, Candidate::Value(derived));
        if let Some(kind) = other {
            let alt = match (&current, kind) {
                (Value::Str(s), "bytes") => Value::Bytes(s.clone()),
                (Value::Bytes(s), "str") => Value::Str(s.clone()),
                _ => infer::value_of_kind(kind, &b.name, usage_whole),
            };
            // First the other builtin kind (unless it needs a library the
            // fragment does not use); the subclass stays next in line.
            if buildable(&alt) && !b.candidates.contains(&Candidate::Value(alt.clone())) {
                b.candidates.insert(b.choice + 1, Candidate::Value(alt));
            }
        }
        b.choice += 1;
        return true;
    }
    let Candidate::Value(v) = b.current_mut() else { return false };
    match v {
        Value::Derived { attrs, methods, .. } => {
            if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
                return false;
            }
            if called { methods.push((attr.to_string(), member)) } else { attrs.push((attr.to_string(), member)) }
            true
        }
        Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } => {
            if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
                return false;
            }
            if called { methods.push((attr.to_string(), member)) } else { attrs.push((attr.to_string(), member)) }
            true
        }
        other if !matches!(other, Value::Anything | Value::Function { .. }) => {
            // Another kind of value lacks it: an object of its own that has it.
            let (attrs, methods) = if called { (vec![], vec![(attr.to_string(), member)]) } else { (vec![(attr.to_string(), member)], vec![]) };
            b.choose(Value::Object { class, attrs, methods });
            true
        }
        _ => false,
    }
}

/// The builtin type a value can be subclassed from.
pub(super) fn builtin_base(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Dict(_) => "dict",
        Value::List(_) => "list",
        Value::Str(_) => "str",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Set(_) => "set",
        Value::Tuple(_) => "tuple",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_keys_and_members_are_added() {
        let mut b = Binding::new("d", vec![Candidate::Value(Value::Dict(vec![(Value::Str("a".into()), Value::Int(1))]))]);
        assert!(add_key(&mut b, &KeyLit::Str("b".into())));
        assert_eq!(b.value().unwrap().expr(), "{'a': 1, 'b': 1}");
        // A DataFrame's placeholder columns give way to the one read.
        let mut frame = Binding::new("df", vec![Candidate::Value(super::super::dataframe::dataframe(&Usage::default()))]);
        assert_eq!(frame.value().unwrap().expr(), "pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})");
        assert!(add_key(&mut frame, &KeyLit::Str("price".into())));
        assert!(add_key(&mut frame, &KeyLit::Str("it's".into())));
        assert!(!add_key(&mut frame, &KeyLit::Str("price".into())));
        assert_eq!(frame.value().unwrap().expr(), "pd.DataFrame({\"it's\": [1, 2, 3], 'price': [1, 2, 3]})");
        let mut o = Binding::new("user", vec![Candidate::Value(Value::Str("Ada".into()))]);
        assert!(add_member(&mut o, "save", true, &Usage::default(), &Usage::default(), |_| true));
        assert_eq!(
            o.value().unwrap().definition("user"),
            "class User(str):\n    def save(self, *args, **kwargs):\n        return None\n\n\nuser = User('Ada')"
        );
    }
}
