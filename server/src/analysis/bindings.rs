//! First pass: where names are bound, before any read is interpreted.
//!
//! Scoping is deliberately flat ("bound anywhere in the fragment"), except
//! for the names that only exist inside one construct: parameters (def and
//! lambda) and comprehension variables, which the usage walker scopes.
//! The pass also records, per name, how often it is bound (a literal value
//! is followed only through names bound exactly once) and when the first
//! top-level binding takes effect (to spot reads that come before it).

use super::facts::Import;
use super::literal::{line, named, text};
use super::tree::Node;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

#[derive(Debug, Default)]
pub(crate) struct BindInfo {
    /// Binding sites anywhere (a `for` target counts once).
    pub count: u32,
    /// Byte offset after which the first top-level binding is in effect:
    /// outside defs and lambdas, or inside a def that declares it `global`.
    pub top_effect: Option<usize>,
}

#[derive(Debug, Default)]
pub(crate) struct Bindings {
    pub names: HashMap<String, BindInfo>,
    pub assigned: BTreeMap<u32, Vec<String>>,
    pub imports: Vec<Import>,
    /// Names bound exactly once, by a plain `name = <expr>`: the byte range
    /// of the expression (to follow literal file paths through names).
    pub values: HashMap<String, Range<usize>>,
}

impl Bindings {
    pub fn count(&self, name: &str) -> u32 {
        self.names.get(name).map_or(0, |b| b.count)
    }
}

/// A def or lambda: its bindings are top-level only if declared `global`.
#[derive(Default)]
struct Frame {
    globals: HashSet<String>,
    pending: Vec<(String, usize)>,
}

struct Pass<'s> {
    src: &'s str,
    out: Bindings,
    frames: Vec<Frame>,
    value_candidates: Vec<(String, Range<usize>)>,
}

pub(crate) fn collect(root: Node, src: &str) -> Bindings {
    let mut pass = Pass {
        src,
        out: Bindings::default(),
        frames: Vec::new(),
        value_candidates: Vec::new(),
    };
    // (node, index of the enclosing def/lambda frame)
    let mut stack: Vec<(Node, Option<usize>)> = vec![(root, None)];
    while let Some((node, frame)) = stack.pop() {
        let inner = pass.visit(node, frame);
        let children = named(node);
        stack.extend(children.into_iter().rev().map(|c| (c, inner)));
    }
    pass.finish()
}

impl<'s> Pass<'s> {
    /// Records the bindings `node` makes; returns the frame its children are in.
    fn visit(&mut self, node: Node, frame: Option<usize>) -> Option<usize> {
        let end = node.end_byte();
        match node.kind() {
            "assignment" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    self.targets(left, end, frame, true);
                    if left.kind() == "identifier" && right.kind() != "assignment" {
                        self.value_candidates
                            .push((text(left, self.src).to_string(), right.byte_range()));
                    }
                }
            }
            "augmented_assignment" => {
                if let Some(left) = node.child_by_field_name("left") {
                    self.targets(left, end, frame, true);
                }
            }
            "for_statement" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    self.targets(left, right.end_byte(), frame, true);
                }
            }
            // `with x as t` / `except E as t`: the value is an `as_pattern`.
            "with_item" | "except_clause" => {
                if let Some(alias) = node
                    .child_by_field_name("value")
                    .and_then(|v| v.child_by_field_name("alias"))
                {
                    self.targets(alias, alias.end_byte(), frame, node.kind() == "with_item");
                }
            }
            "named_expression" => {
                if let Some(name) = node.child_by_field_name("name") {
                    self.targets(name, end, frame, true);
                }
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                let import = super::imports::imports(node, self.src);
                for i in &import {
                    for bound in super::imports::bound_names(i) {
                        self.bind(bound, end, frame);
                    }
                }
                self.out.imports.extend(import);
            }
            "function_definition" | "class_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    self.bind(text(name, self.src).to_string(), end, frame);
                }
                if node.kind() == "function_definition" {
                    return Some(self.new_frame());
                }
            }
            "lambda" => return Some(self.new_frame()),
            "global_statement" => {
                if let Some(f) = frame {
                    for n in named(node) {
                        self.frames[f].globals.insert(text(n, self.src).to_string());
                    }
                }
            }
            "case_clause" => {
                for p in named(node).filter(|c| c.kind() == "case_pattern") {
                    self.pattern(p, node.start_byte(), frame);
                }
            }
            "type_alias_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    if let Some(id) = named(left).into_iter().find(|c| c.kind() == "identifier") {
                        self.bind(text(id, self.src).to_string(), end, frame);
                    }
                }
            }
            _ => {}
        }
        frame
    }

    fn new_frame(&mut self) -> usize {
        self.frames.push(Frame::default());
        self.frames.len() - 1
    }

    /// Plain names in an assignment-like target (attributes and subscripts
    /// do not bind names). `assigned` feeds [`Bindings::assigned`].
    fn targets(&mut self, target: Node, effect: usize, frame: Option<usize>, assigned: bool) {
        match target.kind() {
            "identifier" => {
                let name = text(target, self.src).to_string();
                if assigned {
                    let names = self.out.assigned.entry(line(target)).or_default();
                    if !names.contains(&name) {
                        names.push(name.clone());
                    }
                }
                self.bind(name, effect, frame);
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "tuple"
            | "list"
            | "expression_list"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "list_splat"
            | "as_pattern_target" => {
                for c in named(target) {
                    self.targets(c, effect, frame, assigned);
                }
            }
            _ => {}
        }
    }

    /// Capture patterns bind; dotted value patterns (`Color.RED`) and class
    /// names are reads, handled by the walker.
    fn pattern(&mut self, node: Node, effect: usize, frame: Option<usize>) {
        match node.kind() {
            "dotted_name" => {
                let parts: Vec<Node> = named(node).collect();
                if let [id] = parts.as_slice() {
                    self.capture(*id, effect, frame);
                }
            }
            "splat_pattern" | "as_pattern_target" => {
                for id in named(node) {
                    self.capture(id, effect, frame);
                }
            }
            "identifier" => self.capture(node, effect, frame),
            "class_pattern" => {
                for c in named(node).skip(1) {
                    self.pattern(c, effect, frame);
                }
            }
            "keyword_pattern" => {
                for c in named(node).skip(1) {
                    self.pattern(c, effect, frame);
                }
            }
            "dict_pattern" => {
                for v in node.children_by_field_name("value") {
                    self.pattern(v, effect, frame);
                }
                for s in named(node).filter(|c| c.kind() == "splat_pattern") {
                    self.pattern(s, effect, frame);
                }
            }
            "as_pattern" => {
                for c in named(node) {
                    self.pattern(c, effect, frame);
                }
            }
            "case_pattern" | "list_pattern" | "tuple_pattern" | "union_pattern" => {
                for c in named(node) {
                    self.pattern(c, effect, frame);
                }
            }
            _ => {}
        }
    }

    fn capture(&mut self, id: Node, effect: usize, frame: Option<usize>) {
        let name = text(id, self.src);
        if id.kind() == "identifier" && name != "_" {
            self.bind(name.to_string(), effect, frame);
        }
    }

    fn bind(&mut self, name: String, effect: usize, frame: Option<usize>) {
        match frame {
            None => {
                let info = self.out.names.entry(name).or_default();
                info.count += 1;
                info.top_effect = Some(info.top_effect.map_or(effect, |e| e.min(effect)));
            }
            Some(f) => {
                self.out.names.entry(name.clone()).or_default().count += 1;
                self.frames[f].pending.push((name, effect));
            }
        }
    }

    fn finish(mut self) -> Bindings {
        for frame in std::mem::take(&mut self.frames) {
            for (name, effect) in frame.pending {
                if frame.globals.contains(&name) {
                    let info = self.out.names.entry(name).or_default();
                    info.top_effect = Some(info.top_effect.map_or(effect, |e| e.min(effect)));
                }
            }
        }
        for (name, value) in std::mem::take(&mut self.value_candidates) {
            if self.out.count(&name) == 1 {
                self.out.values.insert(name, value);
            }
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse;

    fn binds(src: &str) -> Bindings {
        collect(parse(src).root(), src)
    }

    fn bound(src: &str) -> Vec<String> {
        let mut v: Vec<String> = binds(src).names.into_keys().collect();
        v.sort();
        v
    }

    #[test]
    fn assignment_forms() {
        assert_eq!(
            bound("a = b = 1\nc, (d, *e) = x\nf += 1\ng: int = 2\nh: int\ny.z = 3\nw[0] = 4\n"),
            ["a", "b", "c", "d", "e", "f", "g"]
        );
    }

    #[test]
    fn loops_with_except_walrus_imports_defs() {
        let src = "for i, j in x: pass\nwith open(p) as fh, q: pass\ntry: pass\nexcept E as err: pass\n\
                   if (n := 3): pass\nimport os.path, numpy as np\nfrom m import a as b, c\nfrom k import *\n\
                   def f(param): local = 1\nclass C: attr = 1\n";
        assert_eq!(
            bound(src),
            ["C", "attr", "b", "c", "err", "f", "fh", "i", "j", "local", "n", "np", "os"]
        );
    }

    #[test]
    fn comprehension_variables_and_params_are_not_flat_bindings() {
        assert_eq!(
            bound("ys = [x for x in xs if x]\nf = lambda a: a\ndef g(b, *c, **d): pass\n"),
            ["f", "g", "ys"]
        );
    }

    #[test]
    fn match_captures() {
        let src = "match p:\n    case [a, *rest]: pass\n    case {'k': v, **kw}: pass\n    case Point(x=px) as pt: pass\n    case Color.RED | _: pass\n    case other: pass\n";
        assert_eq!(bound(src), ["a", "kw", "other", "pt", "px", "rest", "v"]);
    }

    #[test]
    fn counts_and_top_level_effect() {
        let src = "x = 1\nx = 2\ny = 3\ndef f():\n    global g\n    g = 1\n    loc = 2\n";
        let b = binds(src);
        assert_eq!(b.count("x"), 2);
        assert_eq!(b.names["x"].top_effect, Some(5));
        assert_eq!(b.count("y"), 1);
        assert!(b.names["g"].top_effect.is_some());
        assert_eq!(b.names["loc"].top_effect, None);
        // The binding of `for` targets is in effect after the iterable.
        let b = binds("for x in x: pass\n");
        assert_eq!(b.names["x"].top_effect, Some(10));
    }

    #[test]
    fn assigned_per_line() {
        let b =
            binds("a, b = 1, 2\nfor i in x: c = i\nwith f() as g: pass\nh += 1\nobj.attr = 2\n");
        let got: Vec<(u32, Vec<String>)> = b.assigned.into_iter().collect();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            vec![
                (1, s(&["a", "b"])),
                (2, s(&["i", "c"])),
                (3, s(&["g"])),
                (4, s(&["h"]))
            ]
        );
    }

    #[test]
    fn values_of_names_bound_once() {
        let b = binds("fname = 'data.csv'\nother = 'x'\nother = 'y'\n");
        assert_eq!(b.values.get("fname"), Some(&(8..18)));
        assert!(!b.values.contains_key("other"));
    }
}
