//! Where a dotted path a condition or an error names (`node.value.func`,
//! `children[i - 1].type`, `result.attrs` for `result = method(x)`,
//! `cell.row` for `for cell in sheet.cells`) lands in a prefix's values, so
//! that a rule can change exactly that value. Pure.

use super::lexical::is_dotted;
use super::prefix::{Candidate, Prefix};
use super::session::Context;
use super::value::Value;

/// The value a dotted path (`node.value.func`) reaches in the prefix.
/// A step may index a list or tuple (`node.children[i - 1].type`): by its
/// literal position, else the first item (where a loop's first test looks).
pub(super) fn value_at_mut<'p>(p: &'p mut Prefix, path: &str) -> Option<&'p mut Value> {
    let mut parts = path.split('.');
    let (root, index) = subscripted(parts.next()?);
    let b = p.binding_mut(root)?;
    let Candidate::Value(v) = b.current_mut() else { return None };
    let v = item_at_mut(v, index)?;
    attrs_at_mut(v, parts)
}

fn attrs_at_mut<'v, 'a>(v: &'v mut Value, parts: impl Iterator<Item = &'a str>) -> Option<&'v mut Value> {
    let mut target = Some(v);
    for part in parts {
        let (attr, index) = subscripted(part);
        target = match target {
            // A method is a member too (`self.trap(e)` tests what it returns).
            Some(Value::Object { attrs, methods, .. }) | Some(Value::Derived { attrs, methods, .. }) => {
                attrs.iter_mut().chain(methods.iter_mut()).find(|(n, _)| n == attr).and_then(|(_, v)| item_at_mut(v, index))
            }
            // A real `ast` node: its keyword arguments are its fields.
            Some(Value::Call { func, kwargs, imports, .. }) if super::ast_nodes::is_node_call(func, imports) => {
                kwargs.iter_mut().find(|(n, _)| n == attr).and_then(|(_, v)| item_at_mut(v, index))
            }
            _ => None,
        };
    }
    target
}

/// The items of what a `for` iterates, when the prefix defines it: a list
/// or tuple at a dotted path, or what a prefix function or method returns
/// (`node.pre_order()`).
fn iterable_items<'p>(p: &'p mut Prefix, iterable: &str) -> Option<&'p mut Vec<Value>> {
    let (base, called) = match iterable.strip_suffix(')').and_then(|c| c.split_once('(')) {
        Some((callee, _)) => (callee.trim(), true),
        None => (iterable, false),
    };
    if !is_dotted(base) || p.binding(base.split('.').next()?).is_none() {
        return None;
    }
    let value = match (value_at_mut(p, base)?, called) {
        (Value::Function { returns, is_async: false }, true) => &mut **returns,
        (v, false) => v,
        _ => return None,
    };
    match value {
        Value::List(items) | Value::Tuple(items) => Some(items),
        _ => None,
    }
}

/// A `for` over a prefix collection that the loop variable `root` (read at
/// `line`) walks: one more item, a copy of the last, so that a variant can
/// give that item a value of its own. Its index, or `None`.
pub(super) fn grow_loop(ctx: &Context, p: &mut Prefix, root: &str, line: u32) -> Option<usize> {
    let (_, text) = last_assignment(ctx, root, line)?;
    let items = iterable_items(p, loop_target(text, root)?.0)?;
    let last = items.last()?.clone();
    items.push(last);
    Some(items.len() - 1)
}

/// The latest line at or before `line` that assigns `root`, and its text.
fn last_assignment<'c>(ctx: &'c Context, root: &str, line: u32) -> Option<(u32, &'c str)> {
    let (l, _) = ctx.analysis.assigned.range(..=line).rev().find(|(_, names)| names.iter().any(|n| n == root))?;
    Some((*l, ctx.line_text(*l).trim()))
}

/// `for cell in sheet.cells:` → (`sheet.cells`, `None`) when `root` is its
/// variable; `for begin, end in self.ranges:` → (`self.ranges`, `Some(1)`) for `end`:
/// what the loop iterates, and where `root` sits in each item when the loop
/// unpacks it (`None` for a lone variable).
fn loop_target<'t>(text: &'t str, root: &str) -> Option<(&'t str, Option<usize>)> {
    let (targets, iterable) = text.strip_prefix("for ")?.split_once(" in ")?;
    let iterable = iterable.trim().trim_end_matches(':').trim();
    let targets = targets.trim();
    if targets == root {
        return Some((iterable, None));
    }
    // Flat tuples only: a nested or starred target has no fixed position.
    let inner = targets.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(targets);
    if inner.contains(['(', '[', '*']) {
        return None;
    }
    let at = inner.split(',').map(str::trim).position(|t| t == root)?;
    Some((iterable, Some(at)))
}

/// A dotted name whose parts may index (`child.children[0].type`).
pub(super) fn is_item_path(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.split('.').all(|part| {
            let (name, index) = subscripted(part);
            is_dotted(name) && index.is_none_or(|i| !i.is_empty() && !i.contains(['[', ']']))
        })
}

/// `children[i - 1]` → (`children`, Some(`i - 1`)).
pub(super) fn subscripted(part: &str) -> (&str, Option<&str>) {
    match part.strip_suffix(']').and_then(|p| p.split_once('[')) {
        Some((name, index)) => (name, Some(index.trim())),
        None => (part, None),
    }
}

fn item_at_mut<'v>(v: &'v mut Value, index: Option<&str>) -> Option<&'v mut Value> {
    let Some(index) = index else { return Some(v) };
    // An index only known at run time: the first item, where a loop starts.
    nth_item_mut(v, index.parse::<i64>().unwrap_or(0))
}

/// Item `i` of a list or tuple, counted from the end when negative.
fn nth_item_mut(v: &mut Value, i: i64) -> Option<&mut Value> {
    let (Value::List(items) | Value::Tuple(items)) = v else { return None };
    let n = items.len() as i64;
    let at = if i < 0 { n + i } else { i };
    (0..n).contains(&at).then(move || &mut items[at as usize])
}

/// Like [`value_at_mut`], also through a fragment name assigned, before
/// `line`, from a call of a prefix function or method (`result =
/// method(obj)`; `result.attrs` is an attribute of what `method` returns).
pub(super) fn value_through_call<'p>(ctx: &Context, p: &'p mut Prefix, path: &str, line: u32) -> Option<&'p mut Value> {
    value_through_item(ctx, p, path, line, 0)
}

/// [`value_through_call`] where a loop variable stands for item `item` of
/// what it iterates (`None` past the end, or when the path is no loop's).
pub(super) fn value_through_item<'p>(ctx: &Context, p: &'p mut Prefix, path: &str, line: u32, item: usize) -> Option<&'p mut Value> {
    let root = path.split('.').next()?;
    if p.binding(root).is_some() {
        return if item == 0 { value_at_mut(p, path) } else { None };
    }
    let (l, text) = last_assignment(ctx, root, line)?;
    // `for cell in sheet.cells:` (or `in node.pre_order()`): item `item` of the iterable.
    if let Some((iterable, at)) = loop_target(text, root) {
        let items = iterable_items(p, iterable)?;
        let mut v = items.get_mut(item)?;
        if let Some(at) = at {
            v = nth_item_mut(v, at as i64)?;
        }
        return attrs_at_mut(v, path.split('.').skip(1));
    }
    if item > 0 {
        return None;
    }
    // `lpar, wrapped, rpar = node.children`: the item at the name's position.
    if let Some((targets, source)) = text.split_once('=').filter(|(t, s)| t.contains(',') && !s.starts_with('=')) {
        let targets: Vec<&str> = targets.trim().trim_matches(['(', ')']).split(',').map(str::trim).collect();
        let source = source.trim();
        let at = targets.iter().position(|t| *t == root)?;
        if !is_dotted(source) || targets.iter().any(|t| t.starts_with('*')) || p.binding(source.split('.').next()?).is_none() {
            return None;
        }
        let rest = &path[root.len()..];
        return value_at_mut(p, &format!("{source}[{at}]{rest}"));
    }
    let rhs = text.strip_prefix(root)?.trim_start().strip_prefix('=')?;
    // `p = leaf.parent` (or `p = p.parent`, resolved before this line;
    // `first = child.children[0]`).
    if is_item_path(rhs.trim()) && !rhs.starts_with('=') {
        return value_through_item(ctx, p, &format!("{}{}", rhs.trim(), &path[root.len()..]), l.saturating_sub(1), 0);
    }
    let callee = rhs.trim().split_once('(')?.0.trim();
    if rhs.starts_with('=') || !is_dotted(callee) {
        return None;
    }
    let rest = path.split('.').skip(1);
    let (owner, method) = match callee.rsplit_once('.') {
        Some((owner, method)) if p.binding(owner.split('.').next()?).is_some() => (owner, Some(method)),
        _ => (callee, None),
    };
    let returned = match (value_at_mut(p, owner)?, method) {
        (Value::Function { returns, .. }, None) => &mut **returns,
        (Value::Object { methods, .. } | Value::Derived { methods, .. }, Some(m)) => match methods.iter_mut().find(|(n, _)| n == m).map(|(_, v)| v)? {
            Value::Function { returns, .. } => &mut **returns,
            other => other,
        },
        _ => return None,
    };
    attrs_at_mut(returned, rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::prefix::Binding;

    fn object(class: &str, attrs: Vec<(&str, Value)>) -> Value {
        Value::Object { class: class.into(), attrs: attrs.into_iter().map(|(n, v)| (n.to_string(), v)).collect(), methods: vec![] }
    }

    #[test]
    fn paths_step_through_attributes_and_list_items() {
        let kids = Value::List(vec![object("Leaf", vec![("type", Value::Int(1))]), object("Leaf", vec![("type", Value::Int(2))])]);
        let node = object("Node", vec![("children", kids)]);
        let mut p = Prefix { bindings: vec![Binding::new("node", vec![Candidate::Value(node)])], ..Prefix::default() };
        assert_eq!(value_at_mut(&mut p, "node.children[1].type"), Some(&mut Value::Int(2)));
        assert_eq!(value_at_mut(&mut p, "node.children[-1].type"), Some(&mut Value::Int(2)));
        // An index only known at run time: the first item, where a loop starts.
        assert_eq!(value_at_mut(&mut p, "node.children[i - 1].type"), Some(&mut Value::Int(1)));
        assert_eq!(value_at_mut(&mut p, "node.children[5].type"), None);
        assert_eq!(value_at_mut(&mut p, "node.parent"), None);
        assert_eq!(subscripted("children[i - 1]"), ("children", Some("i - 1")));
        assert!(is_item_path("child.children[0].type") && is_item_path("p.parent"));
        assert!(!is_item_path("f(x).y") && !is_item_path("a[b[0]]") && !is_item_path("0.5"));
    }
}
