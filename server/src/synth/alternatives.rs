//! Other values of a binding that may take a branch the other way: the
//! evolution's vocabulary (empty and falsy values, the literals a condition
//! names, shaped strings, instances of the types an `isinstance` names,
//! answers in turn for a helper asked several times). Pure.

use super::infer;
use super::prefix::{Binding, Candidate};
use super::string_shapes;
pub(crate) use super::tested::Tests;
use super::value::Value;
use crate::analysis::{Condition, Constant};

/// A function `name` that returns `answers` one per call, then the last for good.
fn answers_in_turn(name: &str, answers: &[Value]) -> Value {
    let list = answers.iter().map(Value::expr).collect::<Vec<_>>().join(", ");
    let last = answers.last().map(Value::expr).unwrap_or_else(|| "None".into());
    let source = format!("_{name}_answers = iter([{list}])\n\n\ndef {name}(*args, **kwargs):\n    return next(_{name}_answers, {last})");
    Value::Code { source, imports: vec![] }
}

/// A value that passes `isinstance(x, T)` for an abstract base class of
/// `typing` or `collections.abc` (`Mapping`, `AsyncIterable`, ...).
pub(super) fn abstract_instance(ty: &str, name: &str) -> Option<Value> {
    let items = || vec![Value::Int(1), Value::Int(2)];
    Some(match ty.rsplit('.').next()? {
        "Iterable" | "Sequence" | "MutableSequence" | "Collection" | "Container" | "Sized" | "Reversible" => Value::List(items()),
        "Mapping" | "MutableMapping" => Value::Dict(vec![(Value::Str("a".into()), Value::Int(1))]),
        "AbstractSet" | "MutableSet" => Value::Set(items()),
        "Iterator" => Value::Expr { code: "iter([1, 2])".into(), imports: vec![] },
        "Generator" => Value::Expr { code: "(n for n in [1, 2])".into(), imports: vec![] },
        // Only a definition makes an async generator; it binds a plain name.
        "AsyncIterable" | "AsyncIterator" | "AsyncGenerator" if !name.contains('.') => {
            let source = format!("async def _{name}_items():\n    for n in [1, 2]:\n        yield n\n\n\n{name} = _{name}_items()");
            Value::Code { source, imports: vec![] }
        }
        _ => return None,
    })
}

/// The empty or zero value of the same type, where there is one.
pub(super) fn falsy(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Int(_) => Value::Int(0),
        Value::Float(_) => Value::Float(0.0),
        Value::Str(_) => Value::Str(String::new()),
        Value::Bytes(_) => Value::Bytes(String::new()),
        Value::Bool(_) => Value::Bool(false),
        Value::List(_) => Value::List(vec![]),
        Value::Tuple(_) => Value::Tuple(vec![]),
        Value::Set(_) => Value::Set(vec![]),
        Value::Dict(_) => Value::Dict(vec![]),
        Value::Object { .. } => Value::None,
        _ => return None,
    })
}

/// Strings shaped for the tests the condition itself makes on names other
/// than the collection's: where its items or keys may flow (at most two).
fn items_shaped(collection: &str, item: &str, tests: &Tests) -> Vec<String> {
    let mut out = Vec::new();
    for n in tests.test_names().into_iter().filter(|n| *n != collection) {
        for s in string_shapes::shaped(n, item, tests) {
            if !out.contains(&s) && out.len() < 2 {
                out.push(s);
            }
        }
    }
    out
}

/// `isinstance(path, T)` tests of the value at `path`: the dotted types.
fn isinstance_types(tests: &Tests, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in tests.nodes() {
        if let Condition::IsInstance { subject, types } = c {
            if subject.dotted().as_deref() == Some(path) {
                out.extend(types.iter().filter_map(Condition::dotted));
            }
        }
    }
    out
}

/// `datetime(2024, 1, 15, ...)` and `date(...)` (through a module or not)
/// a year earlier and a year later.
fn other_years(code: &str) -> Vec<String> {
    static MOMENT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = MOMENT.get_or_init(|| regex::Regex::new(r"^((?:[\w.]+\.)?(?:datetime|date)\()(\d{4})(,[\d, ]*\))$").unwrap());
    let Some(c) = re.captures(code) else { return Vec::new() };
    let Ok(year) = c[2].parse::<i32>() else { return Vec::new() };
    [year - 1, year + 1].iter().map(|y| format!("{}{y}{}", &c[1], &c[3])).collect()
}

/// A type test: `isinstance`, or a call of `type` (`type(x) == int`,
/// `np.dtype(...)`).
fn tests_types(tests: &Tests) -> bool {
    tests.nodes().into_iter().any(|c| match c {
        Condition::IsInstance { .. } => true,
        Condition::Name { id } => id == "isinstance",
        Condition::Call { func, .. } => func.dotted().is_some_and(|f| f.ends_with("type")),
        _ => false,
    })
}

/// The text a type test's other kind starts as; a caller that knows what
/// the name's callee takes replaces it.
pub(crate) const GENERIC_TEXT: &str = "text";

/// Other values of a binding that may take a branch the other way.
pub(crate) fn alternatives(b: &Binding, tests: &Tests) -> Vec<Value> {
    // The int and string constants the test and the assignments before it name.
    let lits: Vec<&Constant> = tests.constants().into_iter().filter(|c| matches!(c, Constant::Int(_) | Constant::Str(_))).collect();
    // Sizes a `len()` test in the condition names (small ones only).
    let lengths: Vec<usize> = if tests.calls("len") {
        lits.iter().filter_map(|l| if let Constant::Int(n) = l { usize::try_from(*n).ok() } else { None }).filter(|n| (1..=8).contains(n)).collect()
    } else {
        Vec::new()
    };
    let Some(v) = b.value() else { return Vec::new() };
    // Other kinds the name could be (an `isinstance` test, a type switch).
    let mut others: Vec<Value> = b.candidates.iter().filter_map(|c| match c {
        Candidate::Value(x) if x != v && !matches!(x, Value::Anything) => Some(x.clone()),
        _ => None,
    }).collect();
    if tests_types(tests) {
        others.extend([Value::Str(GENERIC_TEXT.into()), Value::Int(1), Value::Float(1.5), Value::List(vec![Value::Int(1)]), Value::Dict(vec![(Value::Str("a".into()), Value::Int(1))]), Value::None]);
        others.extend(isinstance_types(tests, &b.name).iter().filter_map(|t| abstract_instance(t, &b.name)));
        // The same items in the other sequence type: a type test goes the
        // other way while the code after it still iterates what it did
        // (`if not isinstance(seq, list): for i in seq: ...`).
        match v {
            Value::List(items) if !items.is_empty() => others.push(Value::Tuple(items.clone())),
            Value::Tuple(items) if !items.is_empty() => others.push(Value::List(items.clone())),
            _ => {}
        }
    }
    let mut alts = match v {
        Value::Int(n) => {
            let mut a = vec![Value::Int(0), Value::Int(-1), Value::Int(n + 100)];
            for l in &lits {
                if let Constant::Int(i) = l {
                    a.extend([Value::Int(*i), Value::Int(i + 1), Value::Int(i - 1)]);
                }
            }
            a
        }
        Value::Float(f) => vec![Value::Float(0.0), Value::Float(-f), Value::Float(f * 100.0)],
        Value::Bool(x) => vec![Value::Bool(!x)],
        Value::Str(s) => {
            let mut a: Vec<Value> = string_shapes::shaped(&b.name, s, tests).into_iter().map(Value::Str).collect();
            a.push(Value::Str(String::new()));
            a.extend(lits.iter().filter_map(|l| if let Constant::Str(s) = l { Some(Value::Str(s.clone())) } else { None }));
            a.push(Value::Str("42".into()));
            a
        }
        // Empty, or one empty item among full ones (`if not x: continue`).
        Value::List(items) => {
            let mut a = vec![Value::List(vec![])];
            // `len(x) != 1`, `len(args) > 2`: as many items as the condition names
            // (an empty list has no item to repeat).
            if let Some(first) = items.first() {
                for &n in lengths.iter().filter(|&&n| n != items.len()) {
                    a.push(Value::List((0..n).map(|i| items.get(i).cloned().unwrap_or_else(|| infer::vary(first, i))).collect()));
                }
            }
            if let (true, Some(f)) = (items.len() >= 2, items.last().and_then(falsy)) {
                let mut with = items.clone();
                *with.last_mut().unwrap() = f;
                a.push(Value::List(with));
            }
            // ... or in the middle, where neither the first nor the last
            // item's own handling applies (`if s or i == last: ... else:`).
            if let (true, Some(f)) = (items.len() >= 3, items.get(1).and_then(falsy)) {
                let mut with = items.clone();
                with[1] = f;
                a.push(Value::List(with));
            }
            // Positions rather than counts (`Series(..., index=vals)`; `s[3] == 3`).
            if !items.is_empty() && items.iter().all(|i| matches!(i, Value::Int(_))) && items.first() != Some(&Value::Int(0)) {
                a.push(Value::List((0..items.len() as i64).map(Value::Int).collect()));
            }
            // Its items reach a name the condition tests (`for w in words: if w.isupper()`).
            if let Some(Value::Str(last)) = items.last() {
                for shaped in items_shaped(&b.name, last, tests) {
                    let mut with = items.clone();
                    *with.last_mut().unwrap() = Value::Str(shaped);
                    a.push(Value::List(with));
                }
            }
            a
        }
        Value::Dict(kv) => {
            let mut a = vec![Value::Dict(vec![])];
            for &n in lengths.iter().filter(|&&n| n < kv.len()) {
                a.push(Value::Dict(kv[..n].to_vec()));
            }
            if let (true, Some(f)) = (kv.len() >= 2, kv.last().and_then(|(_, v)| falsy(v))) {
                let mut with = kv.clone();
                with.last_mut().unwrap().1 = f;
                a.push(Value::Dict(with));
            }
            // Its keys reach a name the condition tests (`for key in d: if key.isupper()`).
            if let Some((Value::Str(k), _)) = kv.first() {
                for shaped in items_shaped(&b.name, k, tests) {
                    if !kv.iter().any(|(x, _)| *x == Value::Str(shaped.clone())) {
                        let mut with = kv.clone();
                        with[0].0 = Value::Str(shaped);
                        a.push(Value::Dict(with));
                    }
                }
            }
            a
        }
        Value::None => vec![Value::Int(1)],
        // A moment, `datetime(2024, 1, 15, 10, 30)`: a year before and after,
        // so an ordered comparison with another moment goes either way.
        Value::Expr { code, imports } => {
            let mut a: Vec<Value> = other_years(code).into_iter().map(|code| Value::Expr { code, imports: imports.clone() }).collect();
            a.push(Value::None);
            a
        }
        // The members the condition reads decide (`obj.code is None`,
        // `obj.ready()`): the same alternatives for each of them.
        Value::Object { class, attrs, methods } => {
            let mut a = vec![Value::None];
            // An instance of the class an `isinstance` test names.
            if !class.contains('(') {
                for ty in isinstance_types(tests, &b.name).iter().filter(|t| !crate::analysis::is_builtin(t)) {
                    a.push(Value::Object { class: format!("{class}({ty})"), attrs: attrs.clone(), methods: methods.clone() });
                }
            }
            // Each member the condition mentions, varied alone: (is a method, index, value).
            let members = attrs.iter().map(|m| (false, m)).chain(methods.iter().map(|m| (true, m))).enumerate();
            for (at, (is_method, (m, mv))) in members.filter(|(_, (_, (m, _)))| tests.reads_path(&format!("{}.{m}", b.name))) {
                let inner = Binding::new(format!("{}.{m}", b.name), vec![Candidate::Value(mv.clone())]);
                for alt in alternatives(&inner, tests) {
                    let (mut attrs, mut methods) = (attrs.clone(), methods.clone());
                    if is_method { methods[at - attrs.len()].1 = alt } else { attrs[at].1 = alt }
                    a.push(Value::Object { class: class.clone(), attrs, methods });
                }
            }
            a
        }
        // A function's result decides: the same alternatives for what it returns.
        Value::Function { returns, is_async } => {
            let inner = Binding::new(b.name.clone(), vec![Candidate::Value((**returns).clone())]);
            let mut a: Vec<Value> = alternatives(&inner, tests)
                .into_iter()
                .map(|r| Value::Function { returns: Box::new(r), is_async: *is_async })
                .collect();
            a.push(Value::Function { returns: Box::new(Value::None), is_async: *is_async });
            // Called in a loop (`ok = ask(); if ok == 'n': ...`): each value the
            // condition tests for, in turn, then the one that already ends it.
            let plain_name = !b.name.contains('.') && !*is_async;
            // Asked in turn by several tests (`if is_x(a): return ...` then
            // `if is_x(b): return ...`): no, then yes, reaches the later one.
            if let (true, Value::Bool(yes)) = (plain_name, &**returns) {
                a.push(answers_in_turn(&b.name, &[Value::Bool(!yes), Value::Bool(*yes)]));
            }
            if let (true, Value::Str(_) | Value::Int(_)) = (plain_name, &**returns) {
                for lit in &lits {
                    let v = match lit {
                        Constant::Str(x) => Value::Str(x.clone()),
                        Constant::Int(i) => Value::Int(*i),
                        _ => continue,
                    };
                    if v != **returns && std::mem::discriminant(&v) == std::mem::discriminant(&**returns) {
                        a.push(answers_in_turn(&b.name, &[v, (**returns).clone()]));
                    }
                }
            }
            a
        }
        // Unpacked (`this, other = self.align(o)`; `if len(this) == 0`): each
        // item varied alone, the length kept so the unpacking still fits.
        Value::Tuple(items) if items.len() <= 4 => {
            let mut a = Vec::new();
            // `len(node.children) != 3`: no items at all.
            if tests.calls("len") {
                a.push(Value::Tuple(vec![]));
            }
            for (i, item) in items.iter().enumerate() {
                let inner = Binding::new(format!("{}[{i}]", b.name), vec![Candidate::Value(item.clone())]);
                for alt in alternatives(&inner, tests).into_iter().take(3) {
                    let mut with = items.clone();
                    with[i] = alt;
                    a.push(Value::Tuple(with));
                }
            }
            a
        }
        // A name used as a type may be one of the builtin types.
        Value::Class { .. } => ["str", "int", "float", "list", "dict", "tuple", "bytes"]
            .iter()
            .map(|t| Value::Expr { code: (*t).into(), imports: vec![] })
            .collect(),
        _ => vec![Value::None],
    };
    alts.extend(others);
    if tests.constants().contains(&&Constant::None) && !matches!(v, Value::Function { .. }) {
        alts.push(Value::None);
    }
    alts.retain(|a| a != v);
    let mut unique: Vec<Value> = Vec::new();
    for a in alts {
        if !unique.contains(&a) {
            unique.push(a);
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::tested::tests_of;

    #[test]
    fn a_moment_compared_gets_one_before_and_one_after() {
        let v = Value::Expr { code: "datetime(2024, 1, 15, 10, 30)".into(), imports: vec![] };
        let b = Binding::new("cutoff", vec![Candidate::Value(v)]);
        let alts = alternatives(&b, &tests_of("ts > cutoff", &[]));
        let codes: Vec<String> = alts.iter().filter_map(|a| if let Value::Expr { code, .. } = a { Some(code.clone()) } else { None }).collect();
        assert_eq!(codes, vec!["datetime(2023, 1, 15, 10, 30)", "datetime(2025, 1, 15, 10, 30)"]);
        assert!(alts.contains(&Value::None));
        assert!(other_years("np.array([1, 2])").is_empty());
    }

    #[test]
    fn abstract_base_classes_get_a_builtin_that_passes_isinstance() {
        let b = Binding::new("result", vec![Candidate::Value(Value::Int(3))]);
        let alts = alternatives(&b, &tests_of("isinstance(result, collections.abc.Mapping)", &[]));
        assert!(alts.contains(&Value::Dict(vec![(Value::Str("a".into()), Value::Int(1))])), "{alts:?}");
        let alts = alternatives(&b, &tests_of("isinstance(result, AsyncIterable)", &[]));
        assert!(alts.iter().any(|a| matches!(a, Value::Code { source, .. } if source.contains("async def _result_items") && source.ends_with("result = _result_items()"))), "{alts:?}");
        // A member cannot be bound by a definition of its own.
        assert_eq!(abstract_instance("AsyncIterable", "self.items"), None);
    }

    #[test]
    fn a_type_test_of_a_sequence_gets_the_same_items_in_the_other_sequence_type() {
        let items = vec![Value::Int(1), Value::Int(2)];
        let b = Binding::new("seq", vec![Candidate::Value(Value::List(items.clone()))]);
        let alts = alternatives(&b, &tests_of("not isinstance(seq, list)", &[]));
        assert!(alts.contains(&Value::Tuple(items.clone())), "{alts:?}");
        let b = Binding::new("seq", vec![Candidate::Value(Value::Tuple(items.clone()))]);
        assert!(alternatives(&b, &tests_of("type(seq) is tuple", &[])).contains(&Value::List(items)));
    }

    #[test]
    fn branch_alternatives_use_the_condition_literals() {
        let b = Binding::new("n", vec![Candidate::Value(Value::Int(3))]);
        let alts = alternatives(&b, &tests_of("n > 10", &[]));
        assert!(alts.contains(&Value::Int(11)) && alts.contains(&Value::Int(0)));
        // A number inside a string is no constant of the test.
        let alts = alternatives(&b, &tests_of("n > 10 or s == 'size 7'", &[]));
        assert!(!alts.contains(&Value::Int(7)) && !alts.contains(&Value::Int(8)), "{alts:?}");
    }

    #[test]
    fn members_the_test_reads_vary_alone() {
        let obj = Value::Object { class: "Job".into(), attrs: vec![("code".into(), Value::Int(3)), ("codec".into(), Value::Str("x".into()))], methods: vec![] };
        let b = Binding::new("job", vec![Candidate::Value(obj)]);
        let alts = alternatives(&b, &tests_of("if h is None:", &["h = job.code + 1"]));
        let varied: Vec<&Value> = alts.iter().filter_map(|a| match a {
            Value::Object { attrs, .. } => Some(&attrs[1].1),
            _ => None,
        }).collect();
        // `codec` is not read: only `code` varies (to `0`, `-1`, ...).
        assert!(varied.iter().all(|v| **v == Value::Str("x".into())), "{alts:?}");
        assert!(alts.iter().any(|a| matches!(a, Value::Object { attrs, .. } if attrs[0].1 == Value::Int(0))), "{alts:?}");
        assert!(alts.contains(&Value::None));
    }
}
