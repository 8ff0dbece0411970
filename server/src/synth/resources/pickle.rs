//! A [`Value`] as a pickle (protocol 4), for the `.pkl` files a fragment
//! loads with `pickle.load`, `pd.read_pickle` or `joblib.load`. Pure.
//!
//! Written here rather than by running `pickle.dump` in the sandbox first:
//! the opcodes for literals, collections and a call are few and fixed
//! (`pickletools` documents them), the file then exists before the run like
//! every other resource, and the search's key (program + files) stays a
//! pure function of the prefix. A library value is a `Call` of the
//! library's own constructor (`pd.DataFrame({...})`, `np.array([...])`):
//! it is pickled as that call (`GLOBAL` + `REDUCE`), so loading the file
//! builds it with the library's API, as the prefix would. Hand-written
//! objects, classes and functions have no pickle (their class would not
//! exist where the file is loaded): `None`.

use crate::synth::value::Value;

const PROTO: u8 = 0x80;
const STOP: u8 = b'.';
const MARK: u8 = b'(';
const NONE: u8 = b'N';
const NEWTRUE: u8 = 0x88;
const NEWFALSE: u8 = 0x89;
const BININT1: u8 = b'K';
const BININT: u8 = b'J';
const LONG1: u8 = 0x8a;
const BINFLOAT: u8 = b'G';
const BINUNICODE: u8 = b'X';
const BINBYTES: u8 = b'B';
const EMPTY_LIST: u8 = b']';
const APPENDS: u8 = b'e';
const EMPTY_TUPLE: u8 = b')';
const TUPLE: u8 = b't';
const EMPTY_DICT: u8 = b'}';
const SETITEMS: u8 = b'u';
const EMPTY_SET: u8 = 0x8f;
const ADDITEMS: u8 = 0x90;
const GLOBAL: u8 = b'c';
const REDUCE: u8 = b'R';
const BUILD: u8 = b'b';

/// Deepest value pickled (values are small; a cycle cannot occur in a tree).
const MAX_DEPTH: usize = 32;

/// The pickle of `v`, or `None` when `v` holds something only Python code
/// defines (an object, a class, a function, opaque text).
pub fn pickle(v: &Value) -> Option<Vec<u8>> {
    let mut out = vec![PROTO, 4];
    write(v, &mut out, 0)?;
    out.push(STOP);
    Some(out)
}

fn write(v: &Value, out: &mut Vec<u8>, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    match v {
        Value::None => out.push(NONE),
        Value::Bool(b) => out.push(if *b { NEWTRUE } else { NEWFALSE }),
        Value::Int(i) => int(*i, out),
        Value::Float(f) => {
            out.push(BINFLOAT);
            out.extend_from_slice(&f.to_be_bytes());
        }
        Value::Str(s) => sized(BINUNICODE, s.as_bytes(), out),
        Value::Bytes(s) => sized(BINBYTES, s.as_bytes(), out),
        Value::List(items) => {
            out.push(EMPTY_LIST);
            marked(items, APPENDS, out, depth)?;
        }
        Value::Set(items) => {
            out.push(EMPTY_SET);
            marked(items, ADDITEMS, out, depth)?;
        }
        Value::Tuple(items) => tuple(items, out, depth)?,
        Value::Dict(pairs) => {
            out.push(EMPTY_DICT);
            if !pairs.is_empty() {
                out.push(MARK);
                for (k, v) in pairs {
                    write(k, out, depth + 1)?;
                    write(v, out, depth + 1)?;
                }
                out.push(SETITEMS);
            }
        }
        Value::Call { func, args, kwargs, imports } => {
            let (module, name) = resolve(func, imports)?;
            if kwargs.is_empty() {
                global(&module, &name, out);
                tuple(args, out, depth)?;
                out.push(REDUCE);
            } else {
                // `functools.partial(f, *args, **kwargs)()`: a partial's
                // state carries the keywords REDUCE cannot.
                global("functools", "partial", out);
                out.push(MARK);
                global(&module, &name, out);
                out.push(TUPLE);
                out.push(REDUCE);
                out.push(MARK);
                global(&module, &name, out);
                tuple(args, out, depth)?;
                let kw: Vec<(Value, Value)> = kwargs.iter().map(|(k, v)| (Value::Str(k.clone()), v.clone())).collect();
                write(&Value::Dict(kw), out, depth + 1)?;
                out.push(NONE);
                out.push(TUPLE);
                out.push(BUILD);
                out.push(EMPTY_TUPLE);
                out.push(REDUCE);
            }
        }
        Value::Expr { .. }
        | Value::Object { .. }
        | Value::Function { .. }
        | Value::Class { .. }
        | Value::Derived { .. }
        | Value::Raises(_)
        | Value::Code { .. }
        | Value::Anything => return None,
    }
    Some(())
}

fn int(i: i64, out: &mut Vec<u8>) {
    if (0..=255).contains(&i) {
        out.extend_from_slice(&[BININT1, i as u8]);
    } else if let Ok(small) = i32::try_from(i) {
        out.push(BININT);
        out.extend_from_slice(&small.to_le_bytes());
    } else {
        // Little-endian two's complement, shortest that keeps the sign.
        let mut bytes = i.to_le_bytes().to_vec();
        while bytes.len() > 1 {
            let last = bytes[bytes.len() - 1];
            let next_sign = bytes[bytes.len() - 2] & 0x80;
            if (last == 0 && next_sign == 0) || (last == 0xff && next_sign != 0) {
                bytes.pop();
            } else {
                break;
            }
        }
        out.extend_from_slice(&[LONG1, bytes.len() as u8]);
        out.extend_from_slice(&bytes);
    }
}

fn sized(op: u8, data: &[u8], out: &mut Vec<u8>) {
    out.push(op);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
}

fn marked(items: &[Value], op: u8, out: &mut Vec<u8>, depth: usize) -> Option<()> {
    if !items.is_empty() {
        out.push(MARK);
        for it in items {
            write(it, out, depth + 1)?;
        }
        out.push(op);
    }
    Some(())
}

fn tuple(items: &[Value], out: &mut Vec<u8>, depth: usize) -> Option<()> {
    if items.is_empty() {
        out.push(EMPTY_TUPLE);
        return Some(());
    }
    out.push(MARK);
    for it in items {
        write(it, out, depth + 1)?;
    }
    out.push(TUPLE);
    Some(())
}

fn global(module: &str, name: &str, out: &mut Vec<u8>) {
    out.push(GLOBAL);
    out.extend_from_slice(module.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(name.as_bytes());
    out.push(b'\n');
}

/// The module and qualified name a call's callee stands for, from the
/// imports the value carries: `pd.DataFrame` with `import pandas as pd` is
/// `pandas` `DataFrame`; `Counter` with `from collections import Counter`
/// is `collections` `Counter`; a bare name with no import is a builtin.
fn resolve(func: &str, imports: &[String]) -> Option<(String, String)> {
    let ok = |s: &str| !s.is_empty() && s.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    if !ok(func) {
        return None;
    }
    let (head, rest) = func.split_once('.').map_or((func, None), |(h, r)| (h, Some(r)));
    for stmt in imports {
        let words: Vec<&str> = stmt.split_whitespace().collect();
        match words.as_slice() {
            ["import", module, "as", alias] if *alias == head => return Some((module.to_string(), rest?.to_string())),
            ["import", module] if module.split('.').next() == Some(head) => {
                // `import os.path` binds `os`: the longest imported module
                // that prefixes the callee holds the rest.
                let rest = func.strip_prefix(&format!("{module}."))?;
                return Some((module.to_string(), rest.to_string()));
            }
            ["from", module, "import", names @ ..] => {
                for n in names.join(" ").split(',').map(str::trim) {
                    let (orig, bound) = n.split_once(" as ").map_or((n, n), |(o, b)| (o.trim(), b.trim()));
                    if bound == head {
                        let qual = rest.map_or(orig.to_string(), |r| format!("{orig}.{r}"));
                        return Some((module.to_string(), qual));
                    }
                }
            }
            _ => {}
        }
    }
    rest.is_none().then(|| ("builtins".to_string(), func.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::value::call;

    #[test]
    fn literals_and_collections_have_their_opcodes() {
        let v = Value::Dict(vec![
            (Value::Str("name".into()), Value::Str("Ada".into())),
            (Value::Str("n".into()), Value::List(vec![Value::Int(1), Value::Int(-2), Value::Int(1 << 40)])),
            (Value::Str("ok".into()), Value::Tuple(vec![Value::Bool(true), Value::None, Value::Float(0.5)])),
        ]);
        let p = pickle(&v).unwrap();
        assert_eq!(&p[..3], &[PROTO, 4, EMPTY_DICT]);
        assert_eq!(*p.last().unwrap(), STOP);
        // `1 << 40` as LONG1: six bytes, little-endian.
        assert!(p.windows(8).any(|w| w == [LONG1, 6, 0, 0, 0, 0, 0, 1]));
        assert!(p.windows(5).any(|w| w == [BININT, 0xfe, 0xff, 0xff, 0xff]), "-2 as a 4-byte int");
        let mut neg = Vec::new();
        int(-(1 << 40), &mut neg);
        assert_eq!(neg, vec![LONG1, 6, 0, 0, 0, 0, 0, 0xff]);
    }

    #[test]
    fn a_library_value_is_its_constructor_call() {
        let df = call("pd.DataFrame", vec![Value::Dict(vec![(Value::Str("a".into()), Value::List(vec![Value::Int(1)]))])], "import pandas as pd");
        let p = pickle(&df).unwrap();
        assert!(p.windows(18).any(|w| w == b"cpandas\nDataFrame\n"));
        assert_eq!(&p[p.len() - 2..], &[REDUCE, STOP]);
        assert_eq!(resolve("Counter", &["from collections import Counter".into()]), Some(("collections".into(), "Counter".into())));
        assert_eq!(resolve("np.random.default_rng", &["import numpy as np".into()]), Some(("numpy".into(), "random.default_rng".into())));
        assert_eq!(resolve("datetime.date", &["import datetime".into()]), Some(("datetime".into(), "date".into())));
        assert_eq!(resolve("set", &[]), Some(("builtins".into(), "set".into())));
        assert_eq!(resolve("x.y", &[]), None, "a dotted name nothing imports");
        assert_eq!(resolve("a\nb", &[]), None);
    }

    #[test]
    fn what_only_python_code_defines_has_no_pickle() {
        assert!(pickle(&Value::Anything).is_none());
        assert!(pickle(&Value::List(vec![Value::Int(1), Value::Object { class: "C".into(), attrs: vec![], methods: vec![] }])).is_none());
    }
}
