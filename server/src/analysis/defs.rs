//! Top-level functions and classes (what a driver can call), and the
//! parameter syntax shared with the usage walker.

use super::facts::{ClassDef, Decorator, FunctionDef, Param, Usage};
use super::generated_init::generated_init;
use super::literal::{line, named, str_value, text};
use super::statements::statements_of;
use super::tree::Node;

pub(crate) struct ParamSyntax<'t> {
    pub name: String,
    pub star: &'static str,
    /// After a bare `*` or a `*args`: passed by keyword only.
    pub keyword_only: bool,
    pub default: Option<Node<'t>>,
    pub annotation: Option<Node<'t>>,
}

/// The parameters of a `parameters` / `lambda_parameters` node; bare `*`
/// and `/` separators are not parameters.
pub(crate) fn param_syntax<'t>(params: Node<'t>, src: &str) -> Vec<ParamSyntax<'t>> {
    let mut out = Vec::new();
    let mut keyword_only = false;
    for p in named(params) {
        if p.kind() == "keyword_separator" {
            keyword_only = true;
            continue;
        }
        let (name_node, default, annotation) = match p.kind() {
            "default_parameter" | "typed_default_parameter" => (
                p.child_by_field_name("name"),
                p.child_by_field_name("value"),
                p.child_by_field_name("type"),
            ),
            "typed_parameter" => (
                named(p).into_iter().find(|c| c.kind() != "type"),
                None,
                p.child_by_field_name("type"),
            ),
            _ => (Some(p), None, None),
        };
        let Some(name_node) = name_node else { continue };
        let (star, id) = match name_node.kind() {
            "identifier" => ("", Some(name_node)),
            "list_splat_pattern" => (
                "*",
                named(name_node)
                    .into_iter()
                    .find(|c| c.kind() == "identifier"),
            ),
            "dictionary_splat_pattern" => (
                "**",
                named(name_node)
                    .into_iter()
                    .find(|c| c.kind() == "identifier"),
            ),
            _ => continue,
        };
        let Some(id) = id else { continue };
        keyword_only |= star == "*";
        out.push(ParamSyntax {
            name: text(id, src).to_string(),
            star,
            keyword_only: keyword_only && star.is_empty(),
            default,
            annotation,
        });
    }
    out
}

/// `usage_of(def node id)` gives the body's usage of each parameter, in order.
pub(crate) fn definitions(
    root: Node,
    src: &str,
    usage_of: &mut dyn FnMut(usize) -> Vec<Usage>,
) -> (Vec<FunctionDef>, Vec<ClassDef>) {
    let mut functions = Vec::new();
    let mut classes = Vec::new();
    for stmt in statements_of(root) {
        let def = definition_of(stmt);
        match def.kind() {
            "function_definition" => functions.push(function(def, decorators(stmt, src), src, false, usage_of)),
            "class_definition" => {
                let methods: Vec<FunctionDef> = def
                    .child_by_field_name("body")
                    .map(|body| {
                        statements_of(body)
                            .into_iter()
                            .filter(|s| definition_of(*s).kind() == "function_definition")
                            .map(|s| function(definition_of(s), decorators(s, src), src, true, usage_of))
                            .collect()
                    })
                    .unwrap_or_default();
                let name = def
                    .child_by_field_name("name")
                    .map_or("", |n| text(n, src))
                    .to_string();
                let bases = bases(def, src);
                let generated_init = generated_init(def, src, &decorators(stmt, src), &bases, &methods);
                classes.push(ClassDef {
                    name,
                    line: line(def),
                    end_line: end_line(def),
                    methods,
                    generated_init,
                    bases,
                    attributes: def.child_by_field_name("body").map(|b| class_attributes(b, src)).unwrap_or_default(),
                });
            }
            _ => {}
        }
    }
    (functions, classes)
}

/// The base classes a `class` statement names (`Enum`, `enum.IntEnum`),
/// not its keywords (`metaclass=...`).
fn bases(def: Node, src: &str) -> Vec<String> {
    def.child_by_field_name("superclasses")
        .map(|args| named(args).filter(|a| matches!(a.kind(), "identifier" | "attribute")).map(|a| text(a, src).split_whitespace().collect()).collect())
        .unwrap_or_default()
}

/// The names a class body assigns, in order (`FOO = 'foo'`, `x: int = 0`).
fn class_attributes(body: Node, src: &str) -> Vec<String> {
    statements_of(body)
        .into_iter()
        .filter(|s| s.kind() == "expression_statement")
        .filter_map(|s| named(s).next().filter(|a| a.kind() == "assignment"))
        .filter_map(|a| a.child_by_field_name("left").filter(|l| l.kind() == "identifier"))
        .map(|l| text(l, src).to_string())
        .collect()
}

fn definition_of(stmt: Node) -> Node {
    if stmt.kind() == "decorated_definition" {
        stmt.child_by_field_name("definition").unwrap_or(stmt)
    } else {
        stmt
    }
}

/// The decorators of a (possibly decorated) definition statement.
fn decorators(stmt: Node, src: &str) -> Vec<Decorator> {
    if stmt.kind() != "decorated_definition" {
        return Vec::new();
    }
    named(stmt)
        .filter(|d| d.kind() == "decorator")
        .filter_map(|d| named(d).next())
        .map(|expr| {
            let (callee, args) = match expr.kind() {
                "call" => (expr.child_by_field_name("function"), expr.child_by_field_name("arguments")),
                _ => (Some(expr), None),
            };
            let target = callee
                .filter(|c| matches!(c.kind(), "identifier" | "attribute"))
                .map(|c| text(c, src).split_whitespace().collect::<String>())
                .unwrap_or_default();
            let mut strings = Vec::new();
            let mut keywords = Vec::new();
            for a in args.into_iter().flat_map(named) {
                if a.kind() == "keyword_argument" {
                    let name = a.child_by_field_name("name").map_or("", |n| text(n, src)).to_string();
                    let value = a.child_by_field_name("value");
                    let consts = value
                        .map(|v| std::iter::once(v).chain(named(v)).filter_map(|n| str_value(n, src)).collect())
                        .unwrap_or_default();
                    keywords.push((name, consts));
                } else if a.kind() != "comment" {
                    strings.push(str_value(a, src));
                }
            }
            Decorator { target, is_call: args.is_some(), strings, keywords, expr: Some(super::condition_tree::build(expr, src)) }
        })
        .collect()
}

fn function(
    def: Node,
    decorators: Vec<Decorator>,
    src: &str,
    is_method: bool,
    usage_of: &mut dyn FnMut(usize) -> Vec<Usage>,
) -> FunctionDef {
    let syntax = def
        .child_by_field_name("parameters")
        .map(|p| param_syntax(p, src))
        .unwrap_or_default();
    let mut usages = usage_of(def.id()).into_iter();
    let params = syntax
        .into_iter()
        .map(|p| Param {
            name: p.name,
            star: p.star.to_string(),
            keyword_only: p.keyword_only,
            has_default: p.default.is_some(),
            annotation: p.annotation.map(|a| text(a, src).to_string()),
            default: p.default.map(|d| text(d, src).to_string()),
            default_expr: p.default.map(|d| super::condition_tree::build(d, src)),
            usage: usages.next().unwrap_or_default(),
        })
        .collect();
    FunctionDef {
        name: def
            .child_by_field_name("name")
            .map_or("", |n| text(n, src))
            .to_string(),
        line: line(def),
        params,
        is_async: def.child(0).is_some_and(|c| c.kind() == "async"),
        is_method,
        decorators,
        end_line: end_line(def),
        is_generator: def.child_by_field_name("body").is_some_and(yields),
        returns_function: returned_def(def, src, usage_of).map(Box::new),
    }
}

/// The function a body defines and returns by name (a decorator's
/// `wrapper`, a factory's closure): `def f(): def g(): ...; return g`.
fn returned_def(def: Node, src: &str, usage_of: &mut dyn FnMut(usize) -> Vec<Usage>) -> Option<FunctionDef> {
    let body = def.child_by_field_name("body")?;
    let stmts = statements_of(body);
    let returned: Vec<&str> = returns_in(body)
        .into_iter()
        .filter_map(|r| named(r).next().filter(|v| v.kind() == "identifier").map(|v| text(v, src)))
        .collect();
    stmts.into_iter().find_map(|stmt| {
        let d = definition_of(stmt);
        let name = d.child_by_field_name("name").map_or("", |n| text(n, src));
        (d.kind() == "function_definition" && returned.contains(&name)).then(|| function(d, decorators(stmt, src), src, false, usage_of))
    })
}

/// The `return` statements of a body, not those of nested defs, classes or lambdas.
fn returns_in(body: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "function_definition" | "class_definition" | "lambda" => continue,
            "return_statement" => out.push(n),
            _ => stack.extend(named(n)),
        }
    }
    out
}

/// The last line a node covers (a node that ends at the start of a line
/// ends on the line before).
pub(crate) fn end_line(node: Node) -> u32 {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        end.row as u32
    } else {
        end.row as u32 + 1
    }
}

/// A `yield` in this body, not in a nested def, class or lambda (their
/// own scopes) makes the function a generator.
fn yields(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "yield" => return true,
            "function_definition" | "class_definition" | "lambda" => {}
            _ => stack.extend(n.named_children()),
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse;

    fn defs(src: &str) -> (Vec<FunctionDef>, Vec<ClassDef>) {
        let tree = parse(src);
        definitions(tree.root(), src, &mut |_| Vec::new())
    }

    #[test]
    fn parameters_of_all_kinds() {
        let (f, _) = defs("def f(a, b: int, c=1, d: str = 'x', /, *args, e, **kw): pass\n");
        type Row<'a> = (&'a str, &'a str, bool, Option<&'a str>, Option<&'a str>);
        let got: Vec<Row> = f[0]
            .params
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.star.as_str(),
                    p.has_default,
                    p.annotation.as_deref(),
                    p.default.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", "", false, None, None),
                ("b", "", false, Some("int"), None),
                ("c", "", true, None, Some("1")),
                ("d", "", true, Some("str"), Some("'x'")),
                ("args", "*", false, None, None),
                ("e", "", false, None, None),
                ("kw", "**", false, None, None),
            ]
        );
        let (f, _) = defs("def g(*, key, **opts: dict): pass\n");
        assert_eq!(
            f[0].params
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>(),
            ["key", "opts"]
        );
        assert_eq!(f[0].params[1].star, "**");
        assert!(f[0].params[0].keyword_only && !f[0].params[1].keyword_only, "after a bare `*`; a `**` is not");
        let (f, _) = defs("def h(a, *rest, b): pass\n");
        assert_eq!(f[0].params.iter().map(|p| p.keyword_only).collect::<Vec<_>>(), [false, false, true]);
    }

    #[test]
    fn a_dataclass_gets_the_init_its_decorator_writes() {
        let src = "from typing import ClassVar\n@dataclass(frozen=True)\nclass Square:\n    unit: ClassVar[str] = 'cm'\n    length: float\n    label: str = 'sq'\n    area: float = field(init=False, default=0.0)\n    def grow(self): pass\n";
        let (_, c) = defs(src);
        let init = c[0].generated_init.as_ref().expect("a generated __init__");
        let params: Vec<(&str, bool)> = init.params.iter().map(|p| (p.name.as_str(), p.has_default)).collect();
        assert_eq!(params, [("self", false), ("length", false), ("label", true)]);
        assert_eq!(init.params[1].annotation.as_deref(), Some("float"));
        assert!(c[0].methods.iter().all(|m| m.name != "__init__"), "not a method with lines of its own");
        // Its own `__init__` wins; without the decorator there is none.
        let (_, c) = defs("@dataclasses.dataclass\nclass P:\n    x: int\n    def __init__(self, y): pass\nclass Q:\n    x: int\n");
        assert!(c.iter().all(|c| c.generated_init.is_none()));
    }

    #[test]
    fn top_level_functions_and_classes() {
        let src = "@dec\nasync def f(): pass\nif x:\n    def hidden(): pass\nclass C(B):\n    x = 1\n    @staticmethod\n    def m(a): pass\n    def n(self): pass\n";
        let (f, c) = defs(src);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].name.as_str(), f[0].line, f[0].is_async, f[0].is_method),
            ("f", 2, true, false)
        );
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].name.as_str(), c[0].line), ("C", 5));
        let m: Vec<(&str, u32, bool)> = c[0]
            .methods
            .iter()
            .map(|m| (m.name.as_str(), m.line, m.is_method))
            .collect();
        assert_eq!(m, vec![("m", 8, true), ("n", 9, true)]);
        assert_eq!((f[0].end_line, c[0].end_line), (2, 9));
    }

    #[test]
    fn function_spans_and_generator_flags() {
        let src = "def gen(xs):\n    for x in xs:\n        yield x\n\n\ndef plain():\n    def inner():\n        yield 1\n    f = lambda: (yield)\n    return inner\nasync def agen():\n    x = await g()\n    yield x\n";
        let (f, _) = defs(src);
        let got: Vec<(&str, u32, u32, bool, bool)> = f.iter().map(|f| (f.name.as_str(), f.line, f.end_line, f.is_generator, f.is_async)).collect();
        assert_eq!(got, vec![("gen", 1, 3, true, false), ("plain", 6, 10, false, false), ("agen", 11, 13, true, true)]);
    }

    #[test]
    fn decorators_with_their_string_arguments() {
        let src = "@app.route('/items/<int:id>', methods=['GET', \"POST\"])\n@login_required\ndef item(id): pass\nclass C:\n    @property\n    def p(self): pass\n    @router . get(path, name='x')\n    def g(self): pass\n";
        let (f, c) = defs(src);
        let d = &f[0].decorators;
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].target.as_str(), d[0].is_call), ("app.route", true));
        assert_eq!(d[0].strings, [Some("/items/<int:id>".to_string())]);
        assert_eq!(d[0].keywords, [("methods".to_string(), vec!["GET".to_string(), "POST".to_string()])]);
        assert_eq!((d[1].target.as_str(), d[1].is_call), ("login_required", false));
        let m = &c[0].methods;
        assert_eq!(m[0].decorators[0].target, "property");
        assert_eq!(m[1].decorators[0].target, "router.get", "spaces are not part of the name");
        assert_eq!(m[1].decorators[0].strings, [None], "a variable is not a string");
        assert_eq!(m[1].decorators[0].keywords, [("name".to_string(), vec!["x".to_string()])]);
    }
}
