//! Concrete Python values the synthesiser proposes: a small AST, and what
//! rules ask about it. Its Python text is written in one place, `render.rs`.


/// A value with a readable Python spelling. Objects and functions render as
/// definitions (a class or a `def`) followed by the binding.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(String),
    Bool(bool),
    None,
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Set(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    /// A call of a library's (or a builtin's) own callable, with values as
    /// its arguments and the imports it needs: `pd.DataFrame({'a': [1, 2,
    /// 3]})`, `datetime.date(2024, 1, 15)`. Rules edit the arguments (a
    /// DataFrame's columns), never the rendered text.
    Call { func: String, args: Vec<Value>, kwargs: Vec<(String, Value)>, imports: Vec<String> },
    /// Python text that is opaque to the synthesiser, with the imports it
    /// needs: a recipe or constant from a knowledge table, a remembered
    /// expression, the fragment's own spelling of a value.
    Expr { code: String, imports: Vec<String> },
    /// A plain class with these attributes and methods, instantiated.
    /// `class` is the class name, optionally followed by its base in
    /// parentheses (`Value(ast.Call)`) so that `isinstance` checks pass.
    Object { class: String, attrs: Vec<(String, Value)>, methods: Vec<(String, Value)> },
    /// A function returning a value (for undefined helpers and callables).
    Function { returns: Box<Value>, is_async: bool },
    /// A class (something the fragment instantiates) whose instances have
    /// these attributes and methods.
    Class { attrs: Vec<(String, Value)>, methods: Vec<(String, Value)> },
    /// A builtin value of a subclass that adds what the fragment needs
    /// (`class Config(dict)` with an `iteritems` method).
    Derived { class: String, base: String, value: Box<Value>, attrs: Vec<(String, Value)>, methods: Vec<(String, Value)> },
    /// A function that raises (to reach `except` handlers).
    Raises(String),
    /// Statements that define the name themselves (a stand-in such as the
    /// offline network), with the imports they need.
    Code { source: String, imports: Vec<String> },
    /// The catch-all placeholder: answers every attribute, call, item.
    Anything,
}

/// Name of the catch-all helper class, defined once when needed.
pub const ANYTHING_CLASS: &str = "_Anything";

pub const ANYTHING_DEF: &str = "class _Anything:
    \"\"\"Catch-all placeholder: every attribute, call and item is another placeholder.\"\"\"

    def __getattr__(self, name):
        return _Anything()

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getitem__(self, key):
        return _Anything()

    def __iter__(self):
        return iter([_Anything(), _Anything()])

    def __len__(self):
        return 2

    def __bool__(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return '<anything>'";

impl Value {
    /// The value as JSON when it is plain data (as Python's `json.dumps`
    /// writes it: a tuple is an array; keys must be strings, floats finite).
    pub fn to_json(&self) -> Option<serde_json::Value> {
        Some(match self {
            Value::None => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(n) => (*n).into(),
            Value::Float(f) => serde_json::Number::from_f64(*f)?.into(),
            Value::Str(s) => s.clone().into(),
            Value::List(items) | Value::Tuple(items) => serde_json::Value::Array(items.iter().map(Value::to_json).collect::<Option<_>>()?),
            Value::Dict(kv) => serde_json::Value::Object(
                kv.iter()
                    .map(|(k, x)| match k {
                        Value::Str(k) => Some((k.clone(), x.to_json()?)),
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    pub fn is_stub(&self) -> bool {
        match self {
            Value::Anything => true,
            Value::List(v) | Value::Tuple(v) | Value::Set(v) => v.iter().any(Value::is_stub),
            Value::Dict(kv) => kv.iter().any(|(k, v)| k.is_stub() || v.is_stub()),
            Value::Call { args, kwargs, .. } => args.iter().chain(kwargs.iter().map(|(_, v)| v)).any(Value::is_stub),
            Value::Function { returns, .. } => returns.is_stub(),
            _ => false,
        }
    }

    /// Short name of the value's kind, for reports and `names[].kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Bool(_) => "bool",
            Value::None => "none",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Set(_) => "set",
            Value::Dict(_) => "dict",
            Value::Call { .. } | Value::Expr { .. } => "value",
            Value::Object { .. } => "object",
            Value::Function { .. } => "function",
            Value::Class { .. } => "class",
            Value::Derived { .. } => "object",
            Value::Code { source, .. } if source.starts_with("class ") => "class",
            Value::Code { source, .. } if source.contains("\ndef ") => "function",
            // Whether one stands for a library object is `stand_in.rs`'s call.
            Value::Code { .. } => "definition",
            Value::Raises(_) => "function",
            Value::Anything => "placeholder",
        }
    }

    /// The name of the Python type this value has at run time, as an
    /// AttributeError reports it (`str`, `dict`, `DataFrame`, `Parcel`).
    /// The dotted name a value built by a call is built by (`click.Group`
    /// for `click.Group('cli')`, a call or a recipe's expression).
    pub fn callee(&self) -> Option<&str> {
        let head = match self {
            Value::Call { func, .. } => return Some(func),
            Value::Expr { code, .. } if code.ends_with(')') => code.split('(').next()?,
            _ => return None,
        };
        let dotted = !head.is_empty() && head.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
        dotted.then_some(head)
    }

    pub fn type_name(&self) -> String {
        match self {
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float".into(),
            Value::Str(_) => "str".into(),
            Value::Bytes(_) => "bytes".into(),
            Value::Bool(_) => "bool".into(),
            Value::None => "NoneType".into(),
            Value::List(_) => "list".into(),
            Value::Tuple(_) => "tuple".into(),
            Value::Set(_) => "set".into(),
            Value::Dict(_) => "dict".into(),
            Value::Call { func, .. } => callee_type(func),
            Value::Expr { code, .. } => callee_type(code.split('(').next().unwrap_or("")),
            Value::Object { class, .. } | Value::Derived { class, .. } => class_ident(class).to_string(),
            Value::Function { .. } | Value::Raises(_) => "function".into(),
            Value::Class { .. } => "type".into(),
            Value::Code { .. } => String::new(),
            Value::Anything => ANYTHING_CLASS.into(),
        }
    }

    /// Inside this value, replace the part of type `type_name` held in an
    /// attribute (at any depth) with an object that also has `attr`.
    /// `owner` names the binding, for the classes this creates.
    pub fn give_nested_attr(&mut self, type_name: &str, attr: &str, member: &Value, owner: &str, depth: usize) -> bool {
        if depth > 4 {
            return false;
        }
        if let Value::Function { returns, .. } = self {
            // What the function returns lacks it: return an object that has it.
            let same = returns.type_name() == type_name;
            if same && !matches!(**returns, Value::Object { .. }) {
                **returns = Value::Object { class: class_name_for(&format!("{owner}_result")), attrs: vec![], methods: vec![] };
            }
            let now_same = returns.type_name() == type_name;
            return match &mut **returns {
                Value::Object { attrs, methods, .. } if same || now_same => {
                    if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
                        return false;
                    }
                    if matches!(member, Value::Function { .. }) {
                        methods.push((attr.to_string(), member.clone()))
                    } else {
                        attrs.push((attr.to_string(), member.clone()))
                    }
                    true
                }
                other => other.give_nested_attr(type_name, attr, member, owner, depth + 1),
            };
        }
        // A class the fragment instantiates holds what its methods return too.
        let (Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } | Value::Derived { attrs, methods, .. }) = self else { return false };
        for (name, v) in attrs.iter_mut().chain(methods.iter_mut()) {
            if v.type_name() == type_name && !matches!(v, Value::Object { .. }) {
                let kept = match v {
                    Value::Str(s) => vec![("value".to_string(), Value::Str(s.clone()))],
                    _ => vec![],
                };
                let mut new_attrs = kept;
                new_attrs.push((attr.to_string(), member.clone()));
                let class = class_name_for(name);
                *v = Value::Object { class, attrs: new_attrs, methods: vec![] };
                return true;
            }
            let same_type = v.type_name() == type_name;
            if let Value::Object { attrs: a, methods: m, .. } = v {
                if same_type {
                    if a.iter().chain(m.iter()).any(|(n, _)| n == attr) {
                        return false;
                    }
                    let to = if matches!(member, Value::Function { .. }) { m } else { a };
                    to.push((attr.to_string(), member.clone()));
                    return true;
                }
            }
            if v.give_nested_attr(type_name, attr, member, owner, depth + 1) {
                return true;
            }
        }
        false
    }

    /// The values this one holds, in source order: items, keys before
    /// their values, a call's arguments, members (attributes, then
    /// methods), what a function returns, a subclassed builtin's value.
    /// The one walk over a value's parts (`imports`, `uses_anything`,
    /// `render`'s classes).
    pub fn children(&self) -> Vec<&Value> {
        match self {
            Value::List(v) | Value::Tuple(v) | Value::Set(v) => v.iter().collect(),
            Value::Dict(kv) => kv.iter().flat_map(|(k, v)| [k, v]).collect(),
            Value::Call { args, kwargs, .. } => args.iter().chain(kwargs.iter().map(|(_, v)| v)).collect(),
            Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } => attrs.iter().chain(methods).map(|(_, v)| v).collect(),
            Value::Derived { value, attrs, methods, .. } => std::iter::once(&**value).chain(attrs.iter().chain(methods).map(|(_, v)| v)).collect(),
            Value::Function { returns, .. } => vec![returns],
            _ => Vec::new(),
        }
    }

    /// [`Value::children`], to edit in place.
    pub fn children_mut(&mut self) -> Vec<&mut Value> {
        match self {
            Value::List(v) | Value::Tuple(v) | Value::Set(v) => v.iter_mut().collect(),
            Value::Dict(kv) => kv.iter_mut().flat_map(|(k, v)| [k, v]).collect(),
            Value::Call { args, kwargs, .. } => args.iter_mut().chain(kwargs.iter_mut().map(|(_, v)| v)).collect(),
            Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } => attrs.iter_mut().chain(methods.iter_mut()).map(|(_, v)| v).collect(),
            Value::Derived { value, attrs, methods, .. } => std::iter::once(&mut **value).chain(attrs.iter_mut().chain(methods.iter_mut()).map(|(_, v)| v)).collect(),
            Value::Function { returns, .. } => vec![returns],
            _ => Vec::new(),
        }
    }

    /// Imports every part of this value needs.
    pub fn imports(&self, out: &mut Vec<String>) {
        if let Value::Expr { imports, .. } | Value::Code { imports, .. } | Value::Call { imports, .. } = self {
            out.extend(imports.iter().cloned());
        }
        self.children().into_iter().for_each(|x| x.imports(out));
    }

    /// Whether the catch-all placeholder is part of this value (its class
    /// must then be defined).
    pub fn uses_anything(&self) -> bool {
        matches!(self, Value::Anything) || self.children().into_iter().any(Value::uses_anything)
    }

    /// Whether this is a DataFrame built with pandas' constructor from a
    /// dict of columns, which [`Value::dataframe_columns_mut`] edits.
    pub fn is_dataframe(&self) -> bool {
        matches!(self, Value::Call { func, args, .. } if func == "pd.DataFrame" && matches!(args.first(), Some(Value::Dict(_))))
    }

    /// The value of a DataFrame built with pandas' constructor from a dict
    /// of columns (`pd.DataFrame({...})`), to add columns to.
    pub fn dataframe_columns_mut(&mut self) -> Option<&mut Vec<(Value, Value)>> {
        match self {
            Value::Call { func, args, .. } if func == "pd.DataFrame" => match args.first_mut() {
                Some(Value::Dict(columns)) => Some(columns),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The name part of a class spelled with its base (`Value(ast.Call)` -> `Value`).
pub fn class_ident(class: &str) -> &str {
    class.split('(').next().unwrap_or(class)
}

/// `snake_name` -> `SnakeName`.
pub(super) fn camel_case(name: &str) -> String {
    let mut out = String::new();
    // Words are split at anything an identifier cannot hold (a key such as
    // `'sin(x)'` or `'first name'` names a class too).
    for part in name.split(|c: char| c == '_' || !(c.is_alphanumeric())).filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        if let Some(f) = c.next() {
            out.extend(f.to_uppercase());
            out.push_str(c.as_str());
        }
    }
    out
}

pub(super) fn class_name_for(attr: &str) -> String {
    let out = camel_case(attr);
    if out.is_empty() { "Item".into() } else { out }
}

/// A call of `func` with positional `args`, needing `import`.
pub fn call(func: &str, args: Vec<Value>, import: &str) -> Value {
    Value::Call { func: func.into(), args, kwargs: vec![], imports: vec![import.into()] }
}

/// The runtime type name a call of `callee` makes (`np.array` -> `ndarray`).
fn callee_type(callee: &str) -> String {
    match callee.rsplit('.').next().unwrap_or("") {
        "array" => "ndarray".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_are_the_parts_in_source_order() {
        let run = Value::Function { returns: Box::new(Value::Anything), is_async: false };
        let obj = Value::Object { class: "Job".into(), attrs: vec![("id".into(), Value::Int(1))], methods: vec![("run".into(), run.clone())] };
        let v = Value::Dict(vec![(Value::Str("k".into()), obj)]);
        assert_eq!(v.children().len(), 2);
        assert_eq!(v.children()[1].children(), [&Value::Int(1), &run]);
        assert!(v.uses_anything());
        let call = Value::Call { func: "f".into(), args: vec![], kwargs: vec![], imports: vec!["import f".into()] };
        let mut d = Value::Derived { class: "Rows".into(), base: "list".into(), value: Box::new(Value::List(vec![call])), attrs: vec![], methods: vec![] };
        let mut imports = Vec::new();
        d.imports(&mut imports);
        assert_eq!(imports, ["import f"]);
        for c in d.children_mut() {
            *c = Value::None;
        }
        assert!(matches!(d, Value::Derived { value, .. } if *value == Value::None));
    }

    #[test]
    fn a_member_reaches_what_a_class_method_returns() {
        // `elt = Tracker(); block = elt.next(); block.all_lines()`.
        let block = Value::Object { class: "Block".into(), attrs: vec![], methods: vec![] };
        let mut tracker = Value::Class { attrs: vec![], methods: vec![("next".into(), Value::Function { returns: Box::new(block), is_async: false })] };
        let member = Value::Function { returns: Box::new(Value::List(vec![])), is_async: false };
        assert!(tracker.give_nested_attr("Block", "all_lines", &member, "Tracker", 0));
        let source = tracker.definition("Tracker");
        assert!(source.contains("def all_lines(self, *args, **kwargs):\n        return []"), "{source}");
        // Given once only.
        assert!(!tracker.give_nested_attr("Block", "all_lines", &member, "Tracker", 0));
    }

    #[test]
    fn a_built_value_knows_its_callee() {
        assert_eq!(call("click.Group", vec![], "import click").callee(), Some("click.Group"));
        assert_eq!(Value::Expr { code: "click.Group()".into(), imports: vec![] }.callee(), Some("click.Group"));
        assert_eq!(Value::Expr { code: "timezone.utc".into(), imports: vec![] }.callee(), None);
        assert_eq!(Value::Expr { code: "(a + b)".into(), imports: vec![] }.callee(), None);
    }

    #[test]
    fn literals_render_like_repr() {
        assert_eq!(Value::Str("it's".into()).expr(), "\"it's\"");
        assert_eq!(Value::Str("a\nb'\"".into()).expr(), "'a\\nb\\'\"'");
        assert_eq!(Value::Float(2.0).expr(), "2.0");
        assert_eq!(Value::Tuple(vec![Value::Int(1)]).expr(), "(1,)");
        assert_eq!(Value::Set(vec![]).expr(), "set()");
        let d = Value::Dict(vec![(Value::Str("a".into()), Value::List(vec![Value::Int(1), Value::None]))]);
        assert_eq!(d.definition("d"), "d = {'a': [1, None]}");
    }

    #[test]
    fn a_class_held_by_an_object_is_a_nested_class() {
        let o = Value::Object {
            class: "Handler".into(),
            attrs: vec![("Agent".into(), Value::Class { attrs: vec![], methods: vec![] }), ("timeout".into(), Value::Int(3))],
            methods: vec![],
        };
        let src = o.definition("handler");
        assert!(src.starts_with("class Handler:\n    class Agent:\n        def __init__(self, *args, **kwargs):\n            self.__dict__.update(kwargs)\n\n    timeout = 3"), "{src}");
    }

    #[test]
    fn objects_and_functions_render_as_definitions() {
        let o = Value::Object {
            class: "User".into(),
            attrs: vec![("name".into(), Value::Str("Ada".into()))],
            methods: vec![("save".into(), Value::Function { returns: Box::new(Value::Bool(true)), is_async: false })],
        };
        assert_eq!(
            o.definition("user"),
            "class User:\n    name = 'Ada'\n\n    def save(self, *args, **kwargs):\n        return True\n\n\nuser = User()"
        );
        let f = Value::Function { returns: Box::new(Value::Int(3)), is_async: false };
        assert_eq!(f.definition("helper"), "def helper(*args, **kwargs):\n    return 3");
        assert!(!o.is_stub());
        assert!(Value::List(vec![Value::Anything]).is_stub());
    }

    #[test]
    fn private_members_keep_the_name_the_fragment_reads() {
        // `self.__size` outside a class is not mangled; in a class body it
        // would be `_Self__size`.
        let o = Value::Object {
            class: "Self".into(),
            attrs: vec![("__size".into(), Value::Int(3)), ("name".into(), Value::Str("a".into()))],
            methods: vec![("__measure".into(), Value::Function { returns: Box::new(Value::Int(4)), is_async: false })],
        };
        let src = o.definition("self");
        assert!(src.starts_with("class Self:\n    name = 'a'\n\n    def _measure(self, *args, **kwargs):\n        return 4\n\n\nSelf.__size = 3\nSelf.__measure = Self._measure\n"), "{src}");
    }

    #[test]
    fn long_collections_are_broken_over_lines() {
        let v = Value::List((0..30).map(|i| Value::Str(format!("item number {i}"))).collect());
        let d = v.definition("items");
        assert!(d.starts_with("items = [\n    'item number 0',\n"));
        assert!(d.ends_with("'item number 29',\n]"));
        // A call with a long argument: each argument on a line, the long one broken too.
        let members = Value::List((0..12).map(|i| Value::Str(format!("MEMBER_NUMBER_{i}"))).collect());
        let c = call("enum.Enum", vec![Value::Str("Feature".into()), members], "import enum");
        let d = c.definition("Feature");
        assert!(d.starts_with("Feature = enum.Enum(\n    'Feature',\n    [\n        'MEMBER_NUMBER_0',\n"), "{d}");
        assert!(d.ends_with("        'MEMBER_NUMBER_11',\n    ],\n)"), "{d}");
    }
}
