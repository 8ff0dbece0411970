//! The usage signature of a free name: what a remembered value template is
//! keyed by. Pure.
//!
//! It is the shape of what the fragment does with the name, not the name
//! itself nor the constants it is compared with: the attributes it reads
//! (recursively), the string keys and columns it looks up, whether it is
//! called (and how), iterated, unpacked, used as a context manager, and the
//! library functions it is passed to. Two fragments that differ only in
//! their variable names and constants give their names the same
//! signatures, so what made one run is offered to the other.

use crate::analysis::{Key, Usage};

/// How deep the signature follows nested usage (`x.a.b[...]`).
const DEPTH: usize = 3;
/// Signatures longer than this are cut (and still compared exactly).
const MAX_LEN: usize = 2000;

/// Builtins whose use of an argument says what it must be.
const TELLING_BUILTINS: &[&str] =
    &["open", "len", "int", "float", "str", "bytes", "list", "dict", "set", "tuple", "sorted", "sum", "min", "max", "enumerate", "zip", "range", "iter", "next", "isinstance"];

/// The signature of `usage`, or `None` when it says too little to key a
/// template by (a name only printed or only passed on).
pub fn signature(usage: &Usage) -> Option<String> {
    let mut out = String::new();
    shape(usage, DEPTH, &mut out);
    let telling = !usage.attrs.is_empty() || !usage.subscripts.is_empty() || usage.element.is_some() || usage.unpack.is_some() || !usage.calls.is_empty();
    if !telling {
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

fn shape(u: &Usage, depth: usize, out: &mut String) {
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
            shape(r, depth - 1, out);
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
            shape(inner, depth - 1, &mut sub);
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
                shape(inner, depth - 1, &mut sub);
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
            shape(e, depth - 1, out);
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
        .map(|a| format!("{}@{}", a.callee, a.keyword.clone().unwrap_or_else(|| a.position.map(|p| p.to_string()).unwrap_or_default())))
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
}
