//! Where usage facts are stored: one [`Usage`] tree per root (a name or a
//! parameter), addressed by access paths (`x.a()[0]` = x / attr a / call /
//! key 0). The walker computes paths; this module navigates and merges.
//!
//! Everything is capped so that loops over generated code cannot blow up:
//! at most [`CAP`] entries per list and [`MAX_STEPS`] steps per path.

use super::facts::{ArgUse, CallShape, Key, Literal, Usage};
use std::collections::HashMap;

pub(crate) const CAP: usize = 16;
const MAX_STEPS: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Root {
    /// A name that is not a parameter or comprehension variable in scope.
    Name(String),
    /// A def parameter, numbered by the walker.
    Param(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Attr(String),
    Call,
    Sub(Key),
    Elem,
    Item(usize),
    /// The collection a comprehension builds of the value before it
    /// (`[json.loads(l) for l in f]`): its items and elements are that
    /// value (`rows[0]['user']` is read of `json.loads(l)`); nothing else
    /// done with the collection is recorded.
    Collect,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Path {
    pub root: Root,
    pub steps: Vec<Step>,
}

impl Path {
    pub fn root(root: Root) -> Path {
        Path {
            root,
            steps: Vec::new(),
        }
    }

    /// `None` once the path is too deep to be worth recording.
    pub fn then(&self, step: Step) -> Option<Path> {
        if self.steps.last() == Some(&Step::Collect) {
            let mut p = self.clone();
            return match step {
                Step::Elem | Step::Sub(Key::Int(_) | Key::Expr(_)) => {
                    p.steps.pop();
                    Some(p)
                }
                // A slice of the collection is a collection of the same items.
                Step::Sub(Key::Slice) => Some(p),
                _ => None,
            };
        }
        if self.steps.len() >= MAX_STEPS {
            return None;
        }
        let mut p = self.clone();
        p.steps.push(step);
        Some(p)
    }

    pub fn root_name(&self) -> Option<&str> {
        match &self.root {
            Root::Name(n) => Some(n),
            Root::Param(_) => None,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Store {
    roots: HashMap<Root, Usage>,
}

impl Store {
    /// The usage node at `path` when the walk recorded one (attributes and
    /// calls only), creating nothing.
    pub fn get(&self, path: &Path) -> Option<&Usage> {
        let mut u = self.roots.get(&path.root)?;
        for step in &path.steps {
            u = match step {
                Step::Attr(a) => u.attrs.get(a)?,
                Step::Call => u.returns.as_deref()?,
                _ => return None,
            };
        }
        Some(u)
    }

    /// The usage node at `path`, created on the way; `None` when a capped
    /// list (subscript keys, unpacked items) is full.
    pub fn at(&mut self, path: &Path) -> Option<&mut Usage> {
        if !self.roots.contains_key(&path.root) {
            self.roots.insert(path.root.clone(), Usage::default());
        }
        let mut u = self.roots.get_mut(&path.root)?;
        for step in &path.steps {
            u = child(u, step)?;
        }
        Some(u)
    }

    /// Apply `f` to the usage at `path`, if there is one.
    pub fn with(&mut self, path: Option<&Path>, f: impl FnOnce(&mut Usage)) {
        if let Some(u) = path.and_then(|p| self.at(p)) {
            f(u);
        }
    }

    pub fn take(&mut self, root: &Root) -> Usage {
        self.roots.remove(root).unwrap_or_default()
    }
}

fn child<'u>(u: &'u mut Usage, step: &Step) -> Option<&'u mut Usage> {
    Some(match step {
        Step::Attr(a) => u.attrs.entry(a.clone()).or_default(),
        Step::Call => u.returns.get_or_insert_with(Default::default),
        Step::Elem => u.element.get_or_insert_with(Default::default),
        Step::Sub(k) => {
            let i = match u.subscripts.iter().position(|(key, _)| key == k) {
                Some(i) => i,
                None if u.subscripts.len() < CAP => {
                    u.subscripts.push((k.clone(), Usage::default()));
                    u.subscripts.len() - 1
                }
                None => return None,
            };
            &mut u.subscripts[i].1
        }
        Step::Collect => return None,
        Step::Item(i) => {
            if *i >= CAP {
                return None;
            }
            if u.unpacked_items.len() <= *i {
                u.unpacked_items.resize_with(i + 1, Default::default);
            }
            &mut u.unpacked_items[*i]
        }
    })
}

/// Append unless already present or the list is full.
pub(crate) fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if list.len() < CAP && !list.contains(&item) {
        list.push(item);
    }
}

/// The usages one level inside `u`: members, subscript items, unpacked
/// items, what a call returns, an element.
pub(crate) fn children_mut(u: &mut Usage) -> impl Iterator<Item = &mut Usage> {
    u.attrs
        .values_mut()
        .chain(u.subscripts.iter_mut().map(|(_, x)| x))
        .chain(u.unpacked_items.iter_mut())
        .chain(u.returns.as_deref_mut())
        .chain(u.element.as_deref_mut())
}

/// Everything `from` records, added to `into` (lists stay capped and
/// without repeats; what both record at the same key merges recursively).
pub fn merge(into: &mut Usage, from: &Usage) {
    for (k, v) in &from.attrs {
        merge(into.attrs.entry(k.clone()).or_default(), v);
    }
    for c in &from.calls {
        push_unique(&mut into.calls, c.clone());
    }
    for a in &from.first_str_args {
        push_unique(&mut into.first_str_args, a.clone());
    }
    for f in &from.date_formats {
        push_unique(&mut into.date_formats, f.clone());
    }
    for f in &from.searched_with {
        push_unique(&mut into.searched_with, f.clone());
    }
    for a in &from.first_int_args {
        push_unique(&mut into.first_int_args, *a);
    }
    for (k, v) in &from.subscripts {
        match into.subscripts.iter().position(|(key, _)| key == k) {
            Some(i) => merge(&mut into.subscripts[i].1, v),
            None if into.subscripts.len() < CAP => into.subscripts.push((k.clone(), v.clone())),
            None => {}
        }
    }
    for k in &from.subscript_writes {
        push_unique(&mut into.subscript_writes, k.clone());
    }
    into.attr_writes.extend(from.attr_writes.iter().cloned());
    for (mine, theirs) in [(&mut into.returns, &from.returns), (&mut into.element, &from.element)] {
        if let Some(t) = theirs {
            merge(mine.get_or_insert_with(Default::default), t);
        }
    }
    into.iterated |= from.iterated;
    if into.unpack.is_none() {
        into.unpack = from.unpack;
        into.unpacked_items = from.unpacked_items.clone();
    }
    for c in &from.compared {
        push_unique(&mut into.compared, c.clone());
    }
    for a in &from.arithmetic {
        push_unique(&mut into.arithmetic, a.clone());
    }
    into.operators.extend(from.operators.iter().cloned());
    for e in &from.equals {
        push_unique(&mut into.equals, e.clone());
    }
    for c in &from.contains {
        push_unique(&mut into.contains, c.clone());
    }
    for a in &from.passed_to {
        push_unique(&mut into.passed_to, a.clone());
    }
    into.truth_tested |= from.truth_tested;
    into.len |= from.len;
    into.with_ctx |= from.with_ctx;
    into.awaited |= from.awaited;
    into.formatted |= from.formatted;
    into.annotates |= from.annotates;
    into.raised |= from.raised;
    into.subclassed |= from.subclassed;
    into.keyed_by_items |= from.keyed_by_items;
    into.keyword_splat |= from.keyword_splat;
}

pub(crate) fn record_call(u: &mut Usage, shape: CallShape) {
    push_unique(&mut u.calls, shape);
}

pub(crate) fn record_arg(u: &mut Usage, arg: ArgUse) {
    push_unique(&mut u.passed_to, arg);
}

pub(crate) fn record_literal_op(list: &mut Vec<(String, Literal)>, op: &str, lit: Literal) {
    push_unique(list, (op.to_string(), lit));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_create_nested_usage() {
        let mut s = Store::default();
        let x = Path::root(Root::Name("x".into()));
        let p = x
            .then(Step::Attr("a".into()))
            .unwrap()
            .then(Step::Call)
            .unwrap()
            .then(Step::Sub(Key::Int(0)))
            .unwrap();
        s.with(Some(&p), |u| u.len = true);
        let u = s.take(&Root::Name("x".into()));
        let item = &u.attrs["a"].returns.as_ref().unwrap().subscripts[0];
        assert_eq!(item.0, Key::Int(0));
        assert!(item.1.len);
    }

    #[test]
    fn lists_are_deduplicated_and_capped() {
        let mut u = Usage::default();
        for i in 0..40 {
            record_call(
                &mut u,
                CallShape {
                    positional: i % 2,
                    keywords: vec![],
                    star_args: false,
                },
            );
            record_literal_op(&mut u.compared, "==", Literal::Int(i as i64));
        }
        assert_eq!(u.calls.len(), 2);
        assert_eq!(u.compared.len(), CAP);
        let mut s = Store::default();
        let x = Path::root(Root::Name("x".into()));
        for i in 0..40 {
            s.at(&x.then(Step::Sub(Key::Int(i))).unwrap());
        }
        assert_eq!(s.take(&Root::Name("x".into())).subscripts.len(), CAP);
    }

    #[test]
    fn paths_have_bounded_depth() {
        let mut p = Some(Path::root(Root::Param(0)));
        let mut depth = 0;
        while let Some(next) = p.as_ref().and_then(|p| p.then(Step::Elem)) {
            p = Some(next);
            depth += 1;
        }
        assert_eq!(depth, MAX_STEPS);
    }
}
