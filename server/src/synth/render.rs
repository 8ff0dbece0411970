//! The one place values become Python text: expressions, definitions
//! (classes, defs, the binding), string literals, raise statements, long
//! collections wrapped as PEP 8 asks. Pure.

use super::value::{class_ident, Value, ANYTHING_CLASS};

pub(super) fn class_source(class: &str, attrs: &[(String, Value)], methods: &[(String, Value)]) -> String {
    // A class spelled with a library base (`Value(ast.Call)`): the base's
    // own constructor is not needed, the attributes below are what the
    // fragment reads.
    let init = if class.contains('(') { Init::Pass } else { Init::None };
    class_def(class, None, init, attrs, methods, false)
}

/// A class whose members are used on the class itself (`Model.objects`):
/// methods are classmethods.
fn members_source(class: &str, attrs: &[(String, Value)], methods: &[(String, Value)], on_class: bool) -> String {
    let init = if class.contains('(') && !on_class { Init::Pass } else { Init::None };
    class_def(class, None, init, attrs, methods, on_class)
}

/// The constructor a rendered class gets.
enum Init {
    /// None of its own (the members' or the base's).
    None,
    /// One that ignores its arguments.
    Pass,
    /// One taking any arguments, keyword arguments becoming attributes.
    Kwargs,
}

/// `class {class}({base}):` with its constructor and members.
fn class_def(class: &str, base: Option<&str>, init: Init, attrs: &[(String, Value)], methods: &[(String, Value)], on_class: bool) -> String {
    let mut s = match base {
        Some(base) => format!("class {class}({base}):"),
        None => format!("class {class}:"),
    };
    match init {
        Init::None => {}
        Init::Pass => s.push_str("\n    def __init__(self, *args, **kwargs):\n        pass\n"),
        Init::Kwargs => {
            s.push_str("\n    def __init__(self, *args, **kwargs):\n        self.__dict__.update(kwargs)");
            if !attrs.is_empty() {
                s.push('\n');
            }
        }
    }
    // `self.__size` read outside any class is not name-mangled, but the
    // same name in a class body is (`_Self__size`): such members are set on
    // the class after it, as written.
    let mut unmangled: Vec<String> = Vec::new();
    let owner = class.split('(').next().unwrap_or(class);
    for (a, v) in attrs {
        if is_mangled(a) {
            unmangled.push(format!("{owner}.{a} = {}", v.expr()));
            continue;
        }
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
        let defined = if is_mangled(m) {
            let plain = format!("_{}", m.trim_start_matches('_'));
            unmangled.push(format!("{owner}.{m} = {owner}.{plain}"));
            plain
        } else {
            m.clone()
        };
        if on_class {
            s.push_str(&format!("\n    @classmethod\n    {def} {defined}(cls, *args, **kwargs):\n        {body}"));
        } else {
            s.push_str(&format!("\n    {def} {defined}(self, *args, **kwargs):\n        {body}"));
        }
    }
    if s.ends_with(':') {
        s.push_str("\n    pass");
    }
    let mut s = s.trim_end().to_string();
    if !unmangled.is_empty() {
        s.push_str("\n\n\n");
        s.push_str(&unmangled.join("\n"));
    }
    s
}

/// A private name Python mangles inside a class body (`__size`, not `__len__`).
fn is_mangled(name: &str) -> bool {
    name.starts_with("__") && !name.ends_with("__")
}

/// The body of a function or method `name` that raises `exc` (to reach an
/// `except` handler).
fn raise_stmt(exc: &str, name: &str) -> String {
    format!("raise {exc}('{name} failed')")
}

fn join(v: &[Value]) -> String {
    v.iter().map(Value::expr).collect::<Vec<_>>().join(", ")
}

/// A long list, set, dict or call broken after each item, as a person
/// would (a hanging indent, items that are long themselves broken in turn);
/// `hang` is how far in the value starts. Built from the value's items, so
/// no text is scanned.
fn wrapped(v: &Value, hang: usize) -> String {
    wrap_in(v, 0, hang)
}

fn wrap_in(v: &Value, indent: usize, hang: usize) -> String {
    let expr = v.expr();
    if expr.len() + hang <= 88 {
        return expr;
    }
    let inner = indent + 4;
    let item = |x: &Value| wrap_in(x, inner, inner);
    let (open, items, close): (String, Vec<String>, char) = match v {
        Value::List(xs) => ("[".into(), xs.iter().map(item).collect(), ']'),
        Value::Set(xs) if !xs.is_empty() => ("{".into(), xs.iter().map(item).collect(), '}'),
        Value::Dict(kv) => (
            "{".into(),
            kv.iter()
                .map(|(k, x)| {
                    let key = format!("{}: ", k.expr());
                    let value = wrap_in(x, inner, inner + key.len());
                    format!("{key}{value}")
                })
                .collect(),
            '}',
        ),
        Value::Call { func, args, kwargs, .. } if !args.is_empty() || !kwargs.is_empty() => (
            format!("{func}("),
            args.iter().map(item).chain(kwargs.iter().map(|(k, x)| format!("{k}={}", wrap_in(x, inner, inner + k.len() + 1)))).collect(),
            ')',
        ),
        _ => return expr,
    };
    let pad = " ".repeat(inner);
    format!("{open}\n{}{}{close}", items.iter().map(|i| format!("{pad}{i},\n")).collect::<String>(), " ".repeat(indent))
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

/// A bytes literal for arbitrary bytes (`b'\x80\x04...'`): printable
/// ASCII as itself, everything else escaped.
pub fn py_bytes(b: &[u8]) -> String {
    let mut out = String::from("b'");
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push('\'');
    out
}

impl Value {
    /// The Python expression for values that have one.
    pub fn expr(&self) -> String {
        match self {
            Value::Int(i) => i.to_string(),
            Value::Float(f) => {
                let s = format!("{f}");
                if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") { s } else { format!("{s}.0") }
            }
            Value::Str(s) => py_str(s),
            Value::Bytes(s) => format!("b{}", py_str(s)),
            Value::Bool(b) => if *b { "True".into() } else { "False".into() },
            Value::None => "None".into(),
            Value::List(v) => format!("[{}]", join(v)),
            Value::Tuple(v) if v.len() == 1 => format!("({},)", v[0].expr()),
            Value::Tuple(v) => format!("({})", join(v)),
            Value::Set(v) if v.is_empty() => "set()".into(),
            Value::Set(v) => format!("{{{}}}", join(v)),
            Value::Dict(kv) => format!(
                "{{{}}}",
                kv.iter().map(|(k, v)| format!("{}: {}", k.expr(), v.expr())).collect::<Vec<_>>().join(", ")
            ),
            Value::Call { func, args, kwargs, .. } => {
                let args = args.iter().map(Value::expr).chain(kwargs.iter().map(|(k, v)| format!("{k}={}", v.expr())));
                format!("{func}({})", args.collect::<Vec<_>>().join(", "))
            }
            Value::Expr { code, .. } => code.clone(),
            Value::Anything => format!("{ANYTHING_CLASS}()"),
            // Definitions are rendered by `definition`; as an expression they
            // are referred to by the binding's name.
            Value::Object { class, .. } => format!("{}()", class_ident(class)),
            Value::Derived { class, value, .. } => format!("{class}({})", value.expr()),
            // A function held by another value (a method's result that is
            // called in turn): a lambda, so it needs no name of its own.
            Value::Function { returns, is_async: false } => format!("lambda *args, **kwargs: {}", returns.expr()),
            Value::Function { .. } | Value::Class { .. } | Value::Code { .. } | Value::Raises(_) => "None".into(),
        }
    }

    /// Whether spelling this value takes definitions (a class, a def, the
    /// placeholder's class), so it cannot be written inline as an argument.
    pub fn needs_definition(&self) -> bool {
        let mut classes = Vec::new();
        self.nested_classes(&mut classes);
        !classes.is_empty() || self.uses_anything() || matches!(self, Value::Function { .. } | Value::Class { .. } | Value::Code { .. } | Value::Raises(_) | Value::Derived { .. })
    }

    /// Classes of objects nested inside this value (returned by a function,
    /// held in an attribute), which must be defined before it.
    pub(super) fn nested_classes(&self, out: &mut Vec<String>) {
        for c in self.children() {
            c.nested_classes(out);
        }
        if let Value::Object { class, attrs, methods } = self {
            let def = class_source(class, attrs, methods);
            if !out.contains(&def) {
                out.push(def);
            }
        }
    }

    /// Source that binds `name` to this value (may span several lines),
    /// preceded by the classes of the objects it contains.
    pub fn definition(&self, name: &str) -> String {
        let mut classes = Vec::new();
        match self {
            // The object's own class is rendered with it below.
            Value::Object { attrs, methods, .. } | Value::Derived { attrs, methods, .. } => attrs.iter().chain(methods).for_each(|(_, v)| v.nested_classes(&mut classes)),
            other => other.nested_classes(&mut classes),
        }
        let own = self.own_definition(name);
        if classes.is_empty() {
            own
        } else {
            format!("{}\n\n\n{own}", classes.join("\n\n\n"))
        }
    }

    pub(super) fn own_definition(&self, name: &str) -> String {
        match self {
            Value::Function { returns, is_async } => {
                let def = if *is_async { "async def" } else { "def" };
                format!("{def} {name}(*args, **kwargs):\n    return {}", returns.expr())
            }
            Value::Class { attrs, methods } => {
                // Without an `__init__` of its own, instantiated with whatever
                // arguments the fragment passes; keyword arguments become attributes.
                let init = if methods.iter().any(|(m, _)| m == "__init__") { Init::None } else { Init::Kwargs };
                class_def(name, None, init, attrs, methods, false)
            }
            Value::Code { source, .. } => source.clone(),
            Value::Raises(exc) => format!("def {name}(*args, **kwargs):\n    {}", raise_stmt(exc, name)),
            Value::Derived { class, base, value, attrs, methods } => {
                let src = class_def(class, Some(base), Init::None, attrs, methods, false);
                format!("{src}\n\n\n{name} = {class}({})", value.expr())
            }
            Value::Object { class, attrs, methods } => {
                if class_ident(class) == name {
                    // A capitalised name used with attributes is the class itself.
                    members_source(class, attrs, methods, true)
                } else {
                    format!("{}\n\n\n{name} = {}()", class_source(class, attrs, methods), class_ident(class))
                }
            }
            _ => format!("{name} = {}", wrapped(self, name.len() + 3)),
        }
    }

    /// Rename classes of objects that share a name with a different class
    /// already seen (`seen`: name -> definition), so no definition
    /// silently replaces another.
    pub fn uniquify_classes(&mut self, seen: &mut Vec<(String, String)>) {
        for c in self.children_mut() {
            c.uniquify_classes(seen);
        }
        let Value::Object { class, attrs, methods } = self else { return };
        let def = class_source("_", attrs, methods);
        let ident = class_ident(class).to_string();
        let base = class[ident.len()..].to_string();
        let mut name = ident.clone();
        let mut n = 2;
        while let Some((_, d)) = seen.iter().find(|(c, _)| *c == name) {
            if *d == def {
                break;
            }
            name = format!("{ident}{n}");
            n += 1;
        }
        if !seen.iter().any(|(c, _)| *c == name) {
            seen.push((name.clone(), def));
        }
        *class = format!("{name}{base}");
    }
}
