//! The usage signature of a free name: what a remembered value template is
//! keyed by. Pure.
//!
//! It is the shape of what the fragment does with the name, not the name
//! itself nor the constants it is compared with: the attributes it reads
//! (recursively), the string keys and columns it looks up, whether it is
//! called (and how), iterated, unpacked, used as a context manager, and the
//! library functions it is passed to. Two fragments that differ only in
//! their variable names and constants give their names the same
//! signatures, so what made one run is offered to the other. That holds
//! for the functions a name is passed to as well: `helper.send(x)` keys `x`
//! by `_.send@0` when `helper` is the fragment's own variable, and by
//! `json.dumps@0` when the callee is a module's.

use crate::analysis::{Key, Usage};
use crate::synth::session::Context;
use std::collections::BTreeSet;

/// How deep the signature follows nested usage (`x.a.b[...]`).
const DEPTH: usize = 3;
/// Signatures longer than this are cut (and still compared exactly).
const MAX_LEN: usize = 2000;

/// Builtins whose use of an argument says what it must be.
const TELLING_BUILTINS: &[&str] =
    &["open", "len", "int", "float", "str", "bytes", "list", "dict", "set", "tuple", "sorted", "sum", "min", "max", "enumerate", "zip", "range", "iter", "next", "isinstance"];

/// The signature of a name's `usage` in this fragment: callee roots that
/// are modules (imported, the standard library's, conventional aliases)
/// are kept, every other root is the fragment's own name and is left out.
pub fn signature_in(ctx: &Context, usage: &Usage) -> Option<String> {
    let mut modules: BTreeSet<&str> = ctx.stdlib.iter().map(String::as_str).collect();
    for i in &ctx.analysis.imports {
        if let Some(a) = &i.alias {
            modules.insert(a);
        } else if !i.is_from {
            modules.insert(i.module.split('.').next().unwrap_or(&i.module));
        }
        for (n, a) in &i.names {
            modules.insert(a.as_deref().unwrap_or(n));
        }
    }
    let is_module = |root: &str| modules.contains(root) || crate::knowledge::conventional_import(root).is_some();
    keyed(usage, &is_module)
}

/// The signature of `usage` with every callee root kept (as if each were
/// a module), or `None` when it says too little to key a template by (it
/// reads nothing in the value: `reads_contents`).
pub fn signature(usage: &Usage) -> Option<String> {
    keyed(usage, &|_| true)
}

fn keyed(usage: &Usage, is_module: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut out = String::new();
    shape(usage, DEPTH, is_module, &mut out);
    if !reads_contents(usage, DEPTH) {
        return None;
    }
    if out.len() > MAX_LEN {
        let mut cut = MAX_LEN;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    Some(out)
}

/// Whether the usage reads what is *in* the value: an attribute or a
/// string key (column), here or in what calling, iterating or indexing it
/// gives (as deep as the signature goes). A usage that only calls, iterates,
/// unpacks, indexes by position or passes the value on says what kind of
/// value it is, which the rules read from the same usage; what a template
/// adds is contents, and such a usage does not check them, so they are
/// another fragment's accident (a function that returns `3` where this one
/// needs a decorator, an iterator of pairs whose items were read there and
/// are listed here). Such a signature keys no template.
fn reads_contents(u: &Usage, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    let inner = |v: &Usage| reads_contents(v, depth - 1);
    !u.attrs.is_empty()
        || u.subscripts.iter().any(|(k, v)| matches!(k, Key::Str(_)) || inner(v))
        || u.returns.as_deref().is_some_and(inner)
        || u.element.as_deref().is_some_and(inner)
}

fn shape(u: &Usage, depth: usize, is_module: &dyn Fn(&str) -> bool, out: &mut String) {
    if depth == 0 {
        out.push('…');
        return;
    }
    if !u.calls.is_empty() {
        let mut calls: Vec<String> = u.calls.iter().map(|c| format!("{}{}{}", c.positional, if c.star_args { "*" } else { "" }, c.keywords.iter().map(|k| format!(",{k}=")).collect::<String>())).collect();
        calls.sort();
        calls.dedup();
        out.push_str(&format!("call({})", calls.join("|")));
        if let Some(r) = &u.returns {
            out.push_str("->");
            shape(r, depth - 1, is_module, out);
        }
    }
    if !u.attrs.is_empty() {
        out.push_str(".{");
        for (i, (name, inner)) in u.attrs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(name);
            let mut sub = String::new();
            shape(inner, depth - 1, is_module, &mut sub);
            if !sub.is_empty() {
                out.push(':');
                out.push_str(&sub);
            }
        }
        out.push('}');
    }
    if !u.subscripts.is_empty() {
        let mut keys: Vec<String> = u
            .subscripts
            .iter()
            .map(|(k, inner)| {
                let mut sub = String::new();
                shape(inner, depth - 1, is_module, &mut sub);
                let key = match k {
                    Key::Str(s) => format!("{s:?}"),
                    Key::Int(_) => "#".into(),
                    Key::Slice => ":".into(),
                    // Names in an index expression are the fragment's own.
                    Key::Expr(e) if e.contains(',') => "e,".into(),
                    Key::Expr(_) => "e".into(),
                };
                if sub.is_empty() { key } else { format!("{key}:{sub}") }
            })
            .collect();
        keys.sort();
        keys.dedup();
        out.push_str(&format!("[{}]", keys.join(",")));
    }
    if !u.subscript_writes.is_empty() {
        out.push_str("[]=");
    }
    if let Some(n) = u.unpack {
        out.push_str(&format!("unpack{n}"));
    }
    if u.iterated {
        out.push_str("iter");
        if let Some(e) = &u.element {
            out.push('(');
            shape(e, depth - 1, is_module, out);
            out.push(')');
        }
    }
    for (flag, word) in [(u.len, "len"), (u.with_ctx, "with"), (u.awaited, "await"), (u.keyed_by_items, "mapping")] {
        if flag {
            out.push_str(&format!(" {word}"));
        }
    }
    let mut callees: Vec<String> = u
        .passed_to
        .iter()
        .filter(|a| a.callee.contains('.') || TELLING_BUILTINS.contains(&a.callee.as_str()))
        .map(|a| {
            let callee = match a.callee.split_once('.') {
                Some((root, rest)) if !is_module(root) => format!("_.{rest}"),
                _ => a.callee.clone(),
            };
            format!("{callee}@{}", a.keyword.clone().unwrap_or_else(|| a.position.map(|p| p.to_string()).unwrap_or_default()))
        })
        .collect();
    callees.sort();
    callees.dedup();
    if !callees.is_empty() {
        out.push_str(&format!(" to({})", callees.join(",")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    fn sig_of(src: &str, name: &str) -> Option<String> {
        let a = analyze(src);
        let f = a.free_names.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} is not free in {src}"));
        signature(&f.usage)
    }

    #[test]
    fn renamed_variables_and_changed_constants_keep_the_signature() {
        let a = sig_of("total = df['price'].sum()\nif total > 100:\n    print(df.columns)\n", "df");
        let b = sig_of("s = frame['price'].sum()\nif s > 250:\n    print(frame.columns)\n", "frame");
        assert!(a.is_some());
        assert_eq!(a, b);
    }

    #[test]
    fn a_method_of_the_fragments_own_variable_keys_by_its_name_not_the_variables() {
        let sig = |src: &str, name: &str| {
            let a = analyze(src);
            let stdlib: BTreeSet<String> = ["json".to_string()].into();
            let ctx = Context { fragment: src, analysis: &a, stdlib: &stdlib };
            let f = a.free_names.iter().find(|f| f.name == name).unwrap();
            signature_in(&ctx, &f.usage)
        };
        let a = sig("import json\nsender.send(payload)\nprint(payload['id'], json.dumps(payload))\n", "payload");
        let b = sig("import json\nalpha.send(bravo)\nprint(bravo['id'], json.dumps(bravo))\n", "bravo");
        assert_eq!(a, b);
        let a = a.unwrap();
        assert!(a.contains("_.send@0") && a.contains("json.dumps@0"), "{a}");
    }

    #[test]
    fn different_columns_or_attributes_differ() {
        let a = sig_of("x = df['price'].sum()\n", "df");
        let b = sig_of("x = df['cost'].sum()\n", "df");
        let c = sig_of("x = df['price'].mean()\n", "df");
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn a_name_only_printed_has_no_signature() {
        assert_eq!(sig_of("print(x)\n", "x"), None);
    }

    #[test]
    fn a_usage_that_reads_no_contents_keys_no_template() {
        // Called, iterated, unpacked, indexed by position, passed on: what
        // kind of value, not what is in it.
        assert_eq!(sig_of("@deco(f)\ndef g():\n    pass\n", "deco"), None);
        assert_eq!(sig_of("for w in words:\n    print(w)\n", "words"), None);
        assert_eq!(sig_of("for k, g in grouped(data, key):\n    out.append(list(g))\n", "grouped"), None);
        assert_eq!(sig_of("print(len(xs), xs[0], sorted(xs))\n", "xs"), None);
        // An attribute or a string key anywhere it reaches is contents.
        assert!(sig_of("for w in words:\n    print(w.upper())\n", "words").is_some());
        assert!(sig_of("print(load(p)['id'])\n", "load").is_some());
        assert!(sig_of("print(rows[0]['name'])\n", "rows").is_some());
    }
}
