//! What a TypeError says a value should have been. Pure.
//!
//! Python's messages name the offending type and often the expected one
//! (`initial_value must be str or None, not DataFrame`). The patterns live
//! in `data/type_errors.txt`; library classes a message can ask for, with
//! an expression that builds one, in `data/library_values.txt`.

use super::knowledge::lines;
use super::value::Value;
use regex::Regex;
use std::sync::OnceLock;

/// The reading of one message.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeWant {
    /// Python type name of the offending value, without its module
    /// (`DataFrame`, `NoneType`, `Result`), when the message names it.
    pub bad: Option<String>,
    /// What it should be instead, best first.
    pub wanted: Vec<Wanted>,
    /// For binary operators: (the wanted type, the kind to give a value of
    /// that type) when the other operand is the one to change.
    pub swap: Option<(String, String)>,
    /// The offending values are items of a sequence (`sequence item 0:
    /// expected str instance, int found`), which are otherwise left alone.
    pub items: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Wanted {
    /// A value kind the inference can build (`str`, `list`, `function`).
    Kind(String),
    /// A library object, spelled as an expression with its imports.
    Library(Value),
}

struct Rule {
    pattern: Regex,
    bad: Option<String>,
    wanted: Vec<String>,
}

fn rules() -> &'static [Rule] {
    static R: OnceLock<Vec<Rule>> = OnceLock::new();
    R.get_or_init(|| {
        lines(include_str!("data/type_errors.txt"))
            .filter_map(|l| {
                let (lhs, rhs) = l.rsplit_once(" => ")?;
                let (pattern, bad) = match lhs.rsplit_once(" bad=") {
                    Some((p, b)) => (p, Some(b.trim().to_string())),
                    None => (lhs, None),
                };
                let pattern = Regex::new(pattern).expect("data/type_errors.txt: valid regex");
                Some(Rule { pattern, bad, wanted: rhs.split_whitespace().map(str::to_string).collect() })
            })
            .collect()
    })
}

/// A library class -> a value that is an instance of it.
pub fn library_value(class: &str) -> Option<Value> {
    static M: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    let table = M.get_or_init(|| {
        lines(include_str!("data/library_values.txt"))
            .filter_map(|l| {
                let (class, rest) = l.split_once(": ")?;
                let (code, import) = rest.split_once(" | ")?;
                Some((class.trim(), Value::Expr { code: code.trim().into(), imports: vec![import.trim().into()] }))
            })
            .collect()
    });
    table.iter().find(|(c, _)| *c == class).map(|(_, v)| v.clone())
}

const KINDS: &[&str] = &["str", "bytes", "int", "float", "bool", "list", "tuple", "dict", "set", "function", "datetime", "date", "ndarray", "dataframe", "series", "iterator", "pathlib", "object"];

fn wanted(name: &str) -> Option<Wanted> {
    if let Some(v) = library_value(name) {
        return Some(Wanted::Library(v));
    }
    KINDS.contains(&name).then(|| Wanted::Kind(name.to_string()))
}

/// The offending type and the wanted values a TypeError message states.
pub fn read(message: &str) -> Option<TypeWant> {
    rules().iter().find_map(|rule| {
        let caps = rule.pattern.captures(message)?;
        let bad = caps.name("bad").map(|m| short_type(m.as_str())).or_else(|| rule.bad.clone());
        let mut out = Vec::new();
        let mut swap = None;
        let mut items = false;
        for w in &rule.wanted {
            if w == "items" {
                items = true;
                continue;
            }
            if w == "swap" {
                let (want, bad) = (caps.name("want")?.as_str(), caps.name("bad")?.as_str());
                swap = KINDS.contains(&bad).then(|| (want.to_string(), bad.to_string()));
                continue;
            }
            let name = match w.strip_prefix('$') {
                Some(group) => caps.name(group)?.as_str(),
                None => w.as_str(),
            };
            if let Some(w) = wanted(name) {
                if !out.contains(&w) {
                    out.push(w);
                }
            }
        }
        (!out.is_empty()).then_some(TypeWant { bad, wanted: out, swap, items })
    })
}

/// `__main__.Result` -> `Result`; builtins keep their name.
fn short_type(t: &str) -> String {
    t.rsplit('.').next().unwrap_or(t).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(w: &TypeWant) -> Vec<String> {
        w.wanted
            .iter()
            .map(|w| match w {
                Wanted::Kind(k) => k.clone(),
                Wanted::Library(v) => v.expr(),
            })
            .collect()
    }

    #[test]
    fn messages_name_the_offending_and_the_wanted_type() {
        let w = read("initial_value must be str or None, not DataFrame").unwrap();
        assert_eq!(w.bad.as_deref(), Some("DataFrame"));
        assert_eq!(kinds(&w), ["str"]);
        let w = read("'fig' must be an instance of matplotlib.figure.Figure, int, str or None, not a __main__.Result").unwrap();
        assert_eq!(w.bad.as_deref(), Some("Result"));
        assert_eq!(kinds(&w), ["plt.figure()"]);
        let w = read("tzinfo argument must be None or of a tzinfo subclass, not type 'int'").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("int"), vec!["datetime.timezone.utc".to_string()]));
        let w = read("can only concatenate str (not \"int\") to str").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("int"), vec!["str".to_string()]));
        assert_eq!(w.swap, Some(("str".to_string(), "int".to_string())));
        let w = read("list indices must be integers or slices, not tuple").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("list"), vec!["ndarray".to_string()]));
        let w = read("'NoneType' object is not iterable").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("NoneType"), vec!["list".to_string()]));
        let w = read("string indices must be integers, not 'str'").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("str"), vec!["dict".to_string()]));
        let w = read("unsupported operand type(s) for +: 'NoneType' and 'datetime.timedelta'").unwrap();
        assert_eq!(kinds(&w), ["datetime"]);
        let w = read("unsupported operand type(s) for +: 'int' and 'str'").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("int"), vec!["str".to_string()]));
        let w = read("unsupported operand type(s) for +=: 'list' and 'NoneType'").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("NoneType"), vec!["list".to_string()]));
        let w = read("'>' not supported between instances of 'list' and 'int'").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("list"), vec!["ndarray".to_string(), "int".to_string()]));
        let w = read("unsupported operand type(s) for ** or pow(): 'list' and 'int'").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("list"), vec!["ndarray".to_string()]));
        let w = read("inet_aton() argument 1 must be str, not int").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("int"), vec!["str".to_string()]));
        let w = read("sequence item 0: expected a bytes-like object, int found").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w), w.items), (Some("int"), vec!["bytes".to_string()], true));
        let w = read("sequence item 1: expected str instance, int found").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w), w.items), (Some("int"), vec!["str".to_string()], true));
        let w = read("Unexpected type for 'content', <class 'int'>").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("int"), vec!["str".to_string(), "bytes".to_string()]));
        let w = read("'list' object is not an iterator").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("list"), vec!["iterator".to_string()]));
        let w = read("expected str, bytes or os.PathLike object, not int").unwrap();
        assert!(w.items, "the ints may be the items of an argument vector");
        let w = read("expected string or bytes-like object, got '_Anything'").unwrap();
        assert_eq!(w.bad.as_deref(), Some("_Anything"));
        // `csv.writer(f).writerow(3)`: a row is a sequence of fields.
        let w = read("iterable expected, not int").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("int"), vec!["list".to_string()]));
        // `vars(3)`: any object with a `__dict__`, built by the standard library.
        let w = read("vars() argument must have __dict__ attribute").unwrap();
        assert_eq!((w.bad.clone(), kinds(&w)), (None, vec!["types.SimpleNamespace(name='Ada', size=3)".to_string()]));
        // `jar.clear(domain, path)` on a list: no builtin's method, an object's.
        let w = read("list.clear() takes no arguments (2 given)").unwrap();
        assert_eq!((w.bad.as_deref(), kinds(&w)), (Some("list"), vec!["object".to_string()]));
        assert!(read("Jar.clear() takes no arguments (2 given)").is_none(), "the fragment's own class is not retyped");
    }

    #[test]
    fn messages_without_a_wanted_type_say_nothing() {
        assert_eq!(read("must be str or None, not module").map(|w| w.bad), Some(Some("module".into())));
        assert!(read("unsupported operand type(s) for -: 'str' and 'int'").is_none());
        assert!(read("Object of type str is not JSON serializable").is_none());
        assert!(read("DataFrame.pivot() takes 1 positional argument but 4 were given").is_none());
    }
}
