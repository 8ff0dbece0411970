//! A condition as a tree (`if`/`elif`/`while`/`assert` tests, `for`
//! iterables), built from tree-sitter by [`super::condition_tree`], so that
//! the synthesiser reads the structure instead of re-splitting source text
//! on `" and "` or `"=="` (which a string literal, a parenthesis or a
//! chained comparison defeats). The node set follows Python's `ast`.

use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Condition {
    /// `0 < x <= 10`: `left`, then each operator with its right operand
    /// (`ops.len() == comparators.len()`). A lone `in`/`not in` is [`Condition::Membership`].
    Compare { left: Box<Condition>, ops: Vec<CompareOp>, comparators: Vec<Condition> },
    /// `a and b and c` (one node per run of the same operator; parentheses
    /// only group, so `(a and b) and c` is one node too).
    BoolOp { op: BoolOpKind, values: Vec<Condition> },
    Not { operand: Box<Condition> },
    /// `isinstance(x, T)` / `isinstance(x, (A, B))`: the types, one per entry.
    IsInstance { subject: Box<Condition>, types: Vec<Condition> },
    /// A call other than `isinstance`: positional `args`, `keywords` by name
    /// (`*a`/`**k` and generator arguments are [`Condition::Other`] args).
    Call { func: Box<Condition>, args: Vec<Condition>, keywords: Vec<(String, Condition)> },
    /// `item in container` / `item not in container`.
    Membership { item: Box<Condition>, container: Box<Condition>, negated: bool },
    /// The walrus `(target := value)`: binds `target`, tests `value`.
    NamedExpr { target: String, value: Box<Condition> },
    Name { id: String },
    Attribute { value: Box<Condition>, attr: String },
    Subscript { value: Box<Condition>, index: Box<Condition> },
    Constant { value: Constant },
    /// Anything else (arithmetic, displays, f-strings, lambdas, ...): the
    /// tree-sitter kind, the source text, and the sub-expressions it reads
    /// (so names and constants inside stay visible).
    Other { node: String, text: String, parts: Vec<Condition> },
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CompareOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BoolOpKind {
    And,
    Or,
}

/// A Python literal with its kind. Strings are decoded; bytes and integers
/// too large for `i64` keep their source text.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "type", content = "value", rename_all = "kebab-case")]
pub enum Constant {
    Int(i64),
    BigInt(String),
    Float(f64),
    Str(String),
    Bytes(String),
    Bool(bool),
    None,
    Ellipsis,
}

impl CompareOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::NotEq => "!=",
            CompareOp::Lt => "<",
            CompareOp::LtE => "<=",
            CompareOp::Gt => ">",
            CompareOp::GtE => ">=",
            CompareOp::Is => "is",
            CompareOp::IsNot => "is not",
            CompareOp::In => "in",
            CompareOp::NotIn => "not in",
        }
    }
}

impl Condition {
    /// The sub-conditions that must all hold: the values of a top-level
    /// `and`, else the condition itself.
    pub fn conjuncts(&self) -> Vec<&Condition> {
        match self {
            Condition::BoolOp { op: BoolOpKind::And, values } => values.iter().collect(),
            c => vec![c],
        }
    }

    /// The tests a condition combines: through `and`, `or` and `not`, down
    /// to the first node that is none of them.
    pub fn leaves(&self) -> Vec<&Condition> {
        match self {
            Condition::BoolOp { values, .. } => values.iter().flat_map(Condition::leaves).collect(),
            Condition::Not { operand } => operand.leaves(),
            c => vec![c],
        }
    }

    /// Whether an `or` appears anywhere in the condition.
    pub fn has_or(&self) -> bool {
        matches!(self, Condition::BoolOp { op: BoolOpKind::Or, .. }) || self.children().iter().any(|c| c.has_or())
    }

    /// Direct sub-expressions, in source order.
    pub fn children(&self) -> Vec<&Condition> {
        match self {
            Condition::Compare { left, comparators, .. } => std::iter::once(&**left).chain(comparators).collect(),
            Condition::BoolOp { values, .. } => values.iter().collect(),
            Condition::Not { operand } => vec![operand],
            Condition::IsInstance { subject, types } => std::iter::once(&**subject).chain(types).collect(),
            Condition::Call { func, args, keywords } => {
                std::iter::once(&**func).chain(args).chain(keywords.iter().map(|(_, v)| v)).collect()
            }
            Condition::Membership { item, container, .. } => vec![item, container],
            Condition::NamedExpr { value, .. } => vec![value],
            Condition::Attribute { value, .. } => vec![value],
            Condition::Subscript { value, index } => vec![value, index],
            Condition::Other { parts, .. } => parts.iter().collect(),
            Condition::Name { .. } | Condition::Constant { .. } => Vec::new(),
        }
    }

    /// Plain names the condition reads (roots of attributes and subscripts
    /// included; attribute names and walrus targets are not reads), each once.
    pub fn names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.visit(&mut |c| {
            if let Condition::Name { id } = c {
                if !out.contains(&id.as_str()) {
                    out.push(id);
                }
            }
        });
        out
    }

    /// Every constant the condition contains, in source order.
    pub fn constants(&self) -> Vec<&Constant> {
        let mut out = Vec::new();
        self.visit(&mut |c| {
            if let Condition::Constant { value } = c {
                out.push(value);
            }
        });
        out
    }

    /// Every node of the tree, pre-order (source order), the root first.
    pub fn visit<'c>(&'c self, f: &mut dyn FnMut(&'c Condition)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }

    /// `node.value.func`: a name and its attributes only.
    pub fn dotted(&self) -> Option<String> {
        match self {
            Condition::Name { id } => Some(id.clone()),
            Condition::Attribute { value, attr } => Some(format!("{}.{attr}", value.dotted()?)),
            _ => None,
        }
    }

    /// `node.children[i - 1].type`: a name with attributes and subscripts
    /// whose index is a constant, a name or any expression without brackets
    /// (what the synthesiser's value paths address).
    pub fn path(&self) -> Option<String> {
        match self {
            Condition::Name { id } => Some(id.clone()),
            Condition::Attribute { value, attr } => Some(format!("{}.{attr}", value.path()?)),
            Condition::Subscript { value, index } => {
                let i = index.to_string();
                let base = value.path()?;
                (!i.contains(['[', ']'])).then(|| format!("{base}[{i}]"))
            }
            _ => None,
        }
    }

    /// The dotted names the condition reads, each the longest chain (`p.parent`
    /// in `not p.parent.x[0]` is `p.parent.x`), once each, in source order;
    /// plain names are left out.
    pub fn dotted_paths(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_dotted(&mut out);
        out
    }

    fn collect_dotted(&self, out: &mut Vec<String>) {
        if let (Condition::Attribute { .. }, Some(d)) = (self, self.dotted()) {
            if !out.contains(&d) {
                out.push(d);
            }
            return;
        }
        for c in self.children() {
            c.collect_dotted(out);
        }
    }

    /// A display built from constants only (`(1, 5)`, `{"a": 1}`).
    pub fn is_constant_display(&self) -> bool {
        fn constant(c: &Condition) -> bool {
            match c {
                Condition::Constant { .. } => true,
                Condition::Other { node, parts, .. } => {
                    matches!(node.as_str(), "tuple" | "list" | "set" | "dictionary" | "pair" | "unary_operator") && parts.iter().all(constant)
                }
                _ => false,
            }
        }
        matches!(self, Condition::Other { node, .. } if matches!(node.as_str(), "tuple" | "list" | "set" | "dictionary")) && constant(self)
    }
}

/// Python source for the tree (`Other` nodes print their source text).
impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let joined = |f: &mut fmt::Formatter<'_>, items: &[Condition], sep: &str| -> fmt::Result {
            for (i, c) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                write!(f, "{c}")?;
            }
            Ok(())
        };
        match self {
            Condition::Compare { left, ops, comparators } => {
                write!(f, "{left}")?;
                for (op, c) in ops.iter().zip(comparators) {
                    write!(f, " {} {c}", op.as_str())?;
                }
                Ok(())
            }
            Condition::BoolOp { op, values } => {
                let sep = if *op == BoolOpKind::And { " and " } else { " or " };
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    match v {
                        Condition::BoolOp { .. } => write!(f, "({v})")?,
                        v => write!(f, "{v}")?,
                    }
                }
                Ok(())
            }
            Condition::Not { operand } => write!(f, "not {operand}"),
            Condition::IsInstance { subject, types } => {
                write!(f, "isinstance({subject}, ")?;
                match types.as_slice() {
                    [one] => write!(f, "{one})"),
                    many => {
                        f.write_str("(")?;
                        joined(f, many, ", ")?;
                        f.write_str("))")
                    }
                }
            }
            Condition::Call { func, args, keywords } => {
                write!(f, "{func}(")?;
                joined(f, args, ", ")?;
                for (i, (k, v)) in keywords.iter().enumerate() {
                    if i > 0 || !args.is_empty() {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}={v}")?;
                }
                f.write_str(")")
            }
            Condition::Membership { item, container, negated } => {
                write!(f, "{item} {} {container}", if *negated { "not in" } else { "in" })
            }
            Condition::NamedExpr { target, value } => write!(f, "({target} := {value})"),
            Condition::Name { id } => f.write_str(id),
            Condition::Attribute { value, attr } => write!(f, "{value}.{attr}"),
            Condition::Subscript { value, index } => write!(f, "{value}[{index}]"),
            Condition::Constant { value } => match value {
                Constant::Int(i) => write!(f, "{i}"),
                Constant::BigInt(t) | Constant::Bytes(t) => f.write_str(t),
                Constant::Float(x) => write!(f, "{x:?}"),
                Constant::Str(s) => write!(f, "{s:?}"),
                Constant::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
                Constant::None => f.write_str("None"),
                Constant::Ellipsis => f.write_str("..."),
            },
            Condition::Other { text, .. } => f.write_str(text),
        }
    }
}
