//! The `__init__` a class-generating decorator or base class writes for a
//! class that has none of its own: `@dataclass`, attrs (`@attr.s`,
//! `@define`, `@frozen`), `typing.NamedTuple` and pydantic's `BaseModel`.
//! A driver calls the class with the arguments that `__init__` requires,
//! as the library's own generated code would take them.

use super::condition::{Condition, Constant};
use super::facts::{Decorator, FunctionDef, Param, Usage};
use super::literal::{line, named, text};
use super::statements::statements_of;
use super::tree::Node;

/// Which generator writes the `__init__`, for what it counts as a field.
#[derive(Clone, Copy, PartialEq)]
enum Generator {
    /// `@dataclass`: annotated fields; `field(...)` without a default is required.
    Dataclass,
    /// attrs: annotated fields or `attr.ib()` assignments; `attr.ib(x)`'s
    /// first argument is its default; a leading `_` is not part of the
    /// parameter's name.
    Attrs,
    /// `NamedTuple`: annotated fields.
    NamedTuple,
    /// pydantic: annotated fields, keyword arguments only; `Field(...)`
    /// (an `Ellipsis` default) is required.
    Pydantic,
}

const ATTRS_DECORATORS: &[&str] = &[
    "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable", "attr.dataclass",
    "attrs.define", "attrs.frozen", "attrs.mutable", "define", "frozen", "mutable", "attrs",
];

/// The calls that declare one field, with the keywords that give it a default.
const FIELD_CALLS: &[&str] = &["field", "dataclasses.field", "attr.ib", "attr.attrib", "attrib", "attr.field", "attrs.field", "Field", "pydantic.Field"];

fn generator(decorators: &[Decorator], bases: &[String]) -> Option<Generator> {
    for d in decorators {
        if d.target.rsplit('.').next() == Some("dataclass") && !d.target.starts_with("attr") {
            return Some(Generator::Dataclass);
        }
        if ATTRS_DECORATORS.contains(&d.target.as_str()) {
            return Some(Generator::Attrs);
        }
    }
    let last = |b: &String| b.rsplit('.').next().unwrap_or("").to_string();
    if bases.iter().any(|b| last(b) == "NamedTuple") {
        return Some(Generator::NamedTuple);
    }
    bases.iter().any(|b| last(b) == "BaseModel").then_some(Generator::Pydantic)
}

/// Whether `kw_only=True` is among a decorator's keywords.
fn keyword_only(decorators: &[Decorator]) -> bool {
    decorators.iter().any(|d| {
        d.expr.as_ref().is_some_and(|e| matches!(e, Condition::Call { keywords, .. }
            if keywords.iter().any(|(k, v)| k == "kw_only" && matches!(v, Condition::Constant { value: Constant::Bool(true) }))))
    })
}

/// The generated `__init__` of the class `def` (a `class_definition`) when
/// one of its `decorators` or `bases` writes one and `methods` has none.
pub(crate) fn generated_init(def: Node, src: &str, decorators: &[Decorator], bases: &[String], methods: &[FunctionDef]) -> Option<FunctionDef> {
    let generator = generator(decorators, bases)?;
    if methods.iter().any(|m| m.name == "__init__") {
        return None;
    }
    let all_keywords = generator == Generator::Pydantic || keyword_only(decorators);
    let body = def.child_by_field_name("body")?;
    let mut params = vec![param("self", false, None, None, false)];
    for s in statements_of(body).into_iter().filter(|s| s.kind() == "expression_statement") {
        let Some(a) = named(s).next().filter(|a| a.kind() == "assignment") else { continue };
        let Some(left) = a.child_by_field_name("left").filter(|l| l.kind() == "identifier") else { continue };
        let annotation = a.child_by_field_name("type").map(|t| text(t, src).to_string());
        let right = a.child_by_field_name("right");
        let field_call = right.filter(|r| r.kind() == "call" && r.child_by_field_name("function").is_some_and(|f| FIELD_CALLS.contains(&text(f, src))));
        // attrs alone takes fields without an annotation (`x = attr.ib()`).
        let is_field = annotation.is_some() || (generator == Generator::Attrs && field_call.is_some());
        if !is_field || annotation.as_deref().is_some_and(|t| t.contains("ClassVar")) {
            continue;
        }
        let has_default = match field_call {
            Some(call) => {
                let Some(args) = call.child_by_field_name("arguments") else { continue };
                let args: Vec<Node> = named(args).collect();
                let keyword = |name: &str| args.iter().find(|a| a.kind() == "keyword_argument" && a.child_by_field_name("name").is_some_and(|n| text(n, src) == name)).and_then(|a| a.child_by_field_name("value"));
                if keyword("init").is_some_and(|v| text(v, src) == "False") {
                    continue;
                }
                let positional = args.iter().find(|a| a.kind() != "keyword_argument" && a.kind() != "comment");
                // attrs' and pydantic's first argument is the default; `...` says there is none.
                let first = positional.filter(|_| generator != Generator::Dataclass).filter(|p| p.kind() != "ellipsis");
                first.is_some() || ["default", "default_factory", "factory"].iter().any(|k| keyword(k).is_some_and(|v| v.kind() != "ellipsis"))
            }
            None => right.is_some(),
        };
        let mut name = text(left, src).to_string();
        if generator == Generator::Attrs {
            name = name.trim_start_matches('_').to_string();
        }
        params.push(param(&name, has_default, annotation, right.map(|r| text(r, src).to_string()), all_keywords));
    }
    Some(FunctionDef {
        name: "__init__".into(),
        line: line(def),
        params,
        is_async: false,
        is_method: true,
        decorators: Vec::new(),
        end_line: line(def),
        is_generator: false,
        returns_function: None,
    })
}

fn param(name: &str, has_default: bool, annotation: Option<String>, default: Option<String>, keyword_only: bool) -> Param {
    Param { name: name.into(), star: String::new(), keyword_only, has_default, annotation, default, default_expr: None, usage: Usage::default() }
}

#[cfg(test)]
mod tests {
    use crate::analysis::analyze;

    /// Each generated parameter after `self`: name, default, keyword-only.
    fn init_of(src: &str) -> Vec<(String, bool, bool)> {
        let a = analyze(src);
        let init = a.classes[0].generated_init.as_ref().expect("a generated __init__");
        init.params.iter().skip(1).map(|p| (p.name.clone(), p.has_default, p.keyword_only)).collect()
    }

    fn row(name: &str, default: bool, keyword: bool) -> (String, bool, bool) {
        (name.to_string(), default, keyword)
    }

    #[test]
    fn a_field_call_has_a_default_only_when_it_gives_one() {
        let src = "@dataclass\nclass A:\n    a: int = field()\n    b: list = field(default_factory=list)\n    c: int = field(init=False)\n";
        assert_eq!(init_of(src), [row("a", false, false), row("b", true, false)]);
        let src = "@dataclass(kw_only=True)\nclass A:\n    a: int\n";
        assert_eq!(init_of(src), [row("a", false, true)]);
    }

    #[test]
    fn attrs_fields_need_no_annotation_and_lose_their_underscore() {
        let src = "@attr.s\nclass A:\n    _x = attr.ib()\n    y = attr.ib(0)\n    z: str = attr.ib(default='z')\n    LIMIT = 3\n";
        assert_eq!(init_of(src), [row("x", false, false), row("y", true, false), row("z", true, false)]);
        let src = "@define\nclass A:\n    a: int\n    b: int = field(factory=int)\n";
        assert_eq!(init_of(src), [row("a", false, false), row("b", true, false)]);
    }

    #[test]
    fn pydantic_and_named_tuples_are_generated_by_their_base() {
        let src = "class M(BaseModel):\n    a: int\n    b: int = Field(...)\n    c: int = Field(3)\n";
        assert_eq!(init_of(src), [row("a", false, true), row("b", false, true), row("c", true, true)]);
        let src = "class P(typing.NamedTuple):\n    x: float\n    y: float = 0.0\n";
        assert_eq!(init_of(src), [row("x", false, false), row("y", true, false)]);
        let a = analyze("class Plain(Base):\n    a: int\n");
        assert!(a.classes[0].generated_init.is_none(), "no generator, no __init__");
        assert_eq!(a.classes[0].bases, ["Base"]);
    }
}
