//! A TypeError names what a value should have been (`type_wants`): the
//! part of a name's value that has the offending type (the value itself,
//! what a function returns, a dict's value, an attribute) becomes the
//! wanted kind; `partial(f, ...)`'s "first argument must be callable"
//! names the argument by position.

use crate::analysis::tokens::{line_tokens, Token, TokenKind};
use crate::analysis::Key;
use crate::analysis::Usage;
use crate::synth::bindings::usage_of;
use crate::synth::edits::with_candidate;
use crate::synth::infer;
use crate::synth::prefix::Binding;
use crate::synth::type_wants::{self, Wanted};
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct WantedType;

impl Rule for WantedType {
    fn name(&self) -> &'static str {
        "wanted-type"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        // The csv module raises its own `_csv.Error` where other code raises
        // a TypeError (`iterable expected, not int` for a row).
        t.failure().is_some_and(|fail| fail.is("TypeError") || fail.is("_csv.Error"))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let line = fail.line;
        let names_on_line = &fail.names_on_line;
        let mut out = Vec::new();
        let suspects = match (e.message.contains("first argument must be"), line) {
            (true, Some(l)) => first_arguments(ctx.line_text(l)).into_iter().filter(|n| names_on_line.contains(n)).collect(),
            _ => names_on_line.clone(),
        };
        let text = line.map(|l| ctx.line_text(l)).unwrap_or("");
        out.extend(type_error_fixes(ctx, base, &suspects, &e.message, text, line));
        out
    }
}

/// Plain names passed first to a call on `line` (`partial(score, per=q)` →
/// `score`).
fn first_arguments(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices('(') {
        let arg = line[at + 1..].split([',', ')']).next().unwrap_or("").trim();
        if !arg.is_empty() && arg.chars().all(|c| c.is_alphanumeric() || c == '_') && !arg.starts_with(|c: char| c.is_ascii_digit()) && !out.iter().any(|o| o == arg) {
            out.push(arg.to_string());
        }
    }
    out
}

/// A TypeError names what a value should have been: the part of a name's
/// value that has the offending type (the value itself, what a function
/// returns, a dict's value, an attribute) becomes the wanted kind. List
/// items are left alone: an operator's other operand is more often the
/// list's own element (`text[:1] + 'Z'`), unless the line indexes the
/// list itself and nothing else has the offending type.
fn type_error_fixes(ctx: &Context, base: &Prefix, names: &[String], message: &str, line: &str, line_no: Option<u32>) -> Vec<Prefix> {
    let Some(want) = type_wants::read(message) else { return Vec::new() };
    // Without the offending type, only a lone suspect can be the one.
    if want.bad.is_none() && names.len() != 1 {
        return Vec::new();
    }
    // The prefix with `n`'s value retyped as each wanted kind, its items
    // too when `items`.
    let retyped = |n: &String, current: &Value, items: bool| -> Vec<Prefix> {
        let usage = usage_of(ctx, n);
        want.wanted
            .iter()
            .filter_map(|w| {
                let mut v = current.clone();
                (retype(&mut v, want.bad.as_deref(), w, n, &usage, items, 0) && v != *current).then(|| with_candidate(base, n, v))
            })
            .collect()
    };
    let mut out = Vec::new();
    for n in names {
        let Some(current) = base.binding(n).and_then(Binding::value) else { continue };
        out.extend(retyped(n, current, want.items));
    }
    if out.is_empty() && want.bad.is_some() && !want.items {
        // Still nothing, and the line subscripts a list the prefix made
        // (`location + parts[0]`): the offending value is that item.
        for n in names.iter().filter(|n| subscripted_on(line, n)) {
            let Some(current @ (Value::List(_) | Value::Tuple(_))) = base.binding(n).and_then(Binding::value) else { continue };
            out.extend(retyped(n, current, true));
        }
    }
    if out.is_empty() && want.bad.is_some() && !want.items {
        // Still nothing, and the line is in the body of a loop over what a
        // prefix value gives (`for chunk in r.iter_content(): f.write(chunk)`):
        // the offending value is one of the items it iterates.
        for n in names.iter().filter(|n| line_no.is_some_and(|l| iterated_around(ctx, l, n))) {
            let Some(current) = base.binding(n).and_then(Binding::value) else { continue };
            out.extend(retyped(n, current, true));
        }
    }
    if let (true, Some((typ, kind))) = (out.is_empty(), &want.swap) {
        // `text[:1] + 'Z'`: the name is the other operand.
        for n in names {
            if base.binding(n).and_then(Binding::value).is_some_and(|v| v.type_name() == *typ) {
                out.push(with_candidate(base, n, infer::value_of_kind(kind, n, &usage_of(ctx, n))));
            }
        }
    }
    out
}

/// Whether line `line` is in the body of a `for` loop whose iterable reads
/// `name` (`for chunk in r.iter_content():` for `r`): indented deeper
/// than the loop, at or after its body's first line.
fn iterated_around(ctx: &Context, line: u32, name: &str) -> bool {
    let indent = |l: u32| ctx.line_text(l).len() - ctx.line_text(l).trim_start().len();
    ctx.analysis.for_loops.iter().any(|f| f.body_line <= line && f.line < line && indent(line) > indent(f.line) && f.iterable.names().contains(&name))
}

/// Whether `line` takes one item of `name` itself (`name[0]`, `name[i]`;
/// a slice `name[:1]` is a list again), read with the one lexer: not in a
/// string or comment, not an attribute of another value.
fn subscripted_on(line: &str, name: &str) -> bool {
    let toks = line_tokens(line);
    let text = |t: &Token| &line[t.start..t.end];
    toks.iter().enumerate().any(|(i, t)| {
        let opens = t.kind == TokenKind::Name && !t.after_dot && text(t) == name && toks.get(i + 1).is_some_and(|b| text(b) == "[");
        opens && !is_slice(toks[i + 2..].iter().map(text))
    })
}

/// Whether the subscript whose tokens follow its `[` is a slice: a `:` at
/// its own depth before its `]`.
fn is_slice<'a>(inside: impl Iterator<Item = &'a str>) -> bool {
    let mut depth = 0usize;
    for t in inside {
        match t {
            "[" | "(" | "{" => depth += 1,
            "]" | ")" | "}" if depth == 0 => return false,
            "]" | ")" | "}" => depth -= 1,
            ":" if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

fn retype(v: &mut Value, bad: Option<&str>, want: &Wanted, name: &str, usage: &Usage, items: bool, depth: usize) -> bool {
    if depth > 5 {
        return false;
    }
    if bad.map_or(depth == 0, |t| v.type_name() == t) {
        *v = match want {
            Wanted::Kind(k) => infer::value_of_kind(k, name, usage),
            Wanted::Library(l) => l.clone(),
        };
        return true;
    }
    let none = Usage::default();
    let part = |u: Option<&Usage>| u.cloned().unwrap_or_default();
    match v {
        Value::Function { returns, .. } => retype(returns, bad, want, "result", usage.returns.as_deref().unwrap_or(&none), items, depth + 1),
        Value::List(xs) | Value::Tuple(xs) if items => {
            let u = part(usage.element.as_deref());
            let item = infer::singular(name);
            xs.iter_mut().fold(false, |acc, it| retype(it, bad, want, &item, &u, items, depth + 1) || acc)
        }
        Value::Dict(kv) => kv.iter_mut().fold(false, |acc, (k, it)| {
            let key = match k {
                Value::Str(s) => s.clone(),
                other => other.expr(),
            };
            let u = part(usage.subscripts.iter().find(|(uk, _)| matches!(uk, Key::Str(s) if *s == key)).map(|(_, u)| u));
            retype(it, bad, want, &key, &u, items, depth + 1) || acc
        }),
        Value::Object { attrs, methods, .. } | Value::Derived { attrs, methods, .. } | Value::Class { attrs, methods } => {
            attrs.iter_mut().chain(methods.iter_mut()).fold(false, |acc, (a, it)| {
                let u = part(usage.attrs.get(a.as_str()));
                let a = a.clone();
                retype(it, bad, want, &a, &u, items, depth + 1) || acc
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use crate::synth::value::Value;
    use crate::synth::prefix::{Binding, Candidate};
    use expect_test::expect;

    #[test]
    fn a_value_of_the_wrong_type_gets_the_wanted_one() {
        refine_with(&super::WantedType, "print(count + 1)\n", |p| { *p.binding_mut("count").unwrap() = Binding::new("count", vec![Candidate::Value(Value::Str("3".into()))]); }, raised("TypeError", r#"can only concatenate str (not "int") to str"#, 1), expect![[r#"
            ## 1
            count = 3
        "#]]);
    }

    #[test]
    fn an_item_a_loop_takes_from_a_prefix_value_gets_the_wanted_type() {
        let chunks = Value::Object {
            class: "R".into(),
            attrs: vec![],
            methods: vec![("iter_content".into(), Value::Function { returns: Box::new(Value::List(vec![Value::Int(3), Value::Int(4)])), is_async: false })],
        };
        refine_with(&super::WantedType, "with open('out.bin', 'wb') as fd:\n    for chunk in r.iter_content(chunk_size=128):\n        fd.write(chunk)\n", |p| {
            *p.binding_mut("r").unwrap() = Binding::new("r", vec![Candidate::Value(chunks)]);
        }, raised("TypeError", "a bytes-like object is required, not 'int'", 3), expect![[r#"
            ## 1
            class R:
                def iter_content(self, *args, **kwargs):
                    return [b'hello world', b'hello world']


            r = R()
        "#]]);
    }

    #[test]
    fn a_name_read_in_any_line_of_an_assignment_is_a_suspect() {
        // `func` is read on the second line of the statement that makes `futures`.
        refine_with(&super::WantedType, "futures = [\n    pool.submit(func, 1),\n]\nprint([f.result() for f in futures])\n", |p| {
            *p.binding_mut("func").unwrap() = Binding::new("func", vec![Candidate::Value(Value::Int(3))]);
        }, raised("TypeError", "'int' object is not callable", 4), expect![[r#"
            ## 1
            class Pool:
                def submit(self, *args, **kwargs):
                    return None


            pool = Pool()


            def func(*args, **kwargs):
                return None
        "#]]);
    }

    #[test]
    fn an_item_the_line_indexes_gets_the_wanted_type() {
        // Only `parts[0]` can be the int: `location` is already text.
        assert!(!super::subscripted_on("new = parts[:1] + 'Z'", "parts"), "a slice is no item");
        assert!(super::subscripted_on("x = loc + parts[idx[0]]", "parts"));
        assert!(!super::subscripted_on("x = loc + 'parts[0]' + self.parts[0]", "parts"), "in a string, or another value's");
        refine_with(&super::WantedType, "print(location + parts[0])\n", |p| {
            *p.binding_mut("location").unwrap() = Binding::new("location", vec![Candidate::Value(Value::Str("assets/".into()))]);
            *p.binding_mut("parts").unwrap() = Binding::new("parts", vec![Candidate::Value(Value::List(vec![Value::Int(3), Value::Int(4)]))]);
        }, raised("TypeError", r#"can only concatenate str (not "int") to str"#, 1), expect![[r#"
            ## 1
            location = 'assets/'


            parts = [
                'The quick brown fox jumps over the lazy dog',
                'The quick brown fox jumps over the lazy dog',
            ]
        "#]]);
    }
}
