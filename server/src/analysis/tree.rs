//! A flat, read-only copy of the tree-sitter tree.
//!
//! Every tree-sitter node access goes through the C API (cursor moves,
//! field-name lookups by string, UTF-8 checks of kind names), which made the
//! half-dozen passes cost several times the parse itself. Copying the tree
//! once into an arena with `&'static str` kinds and fields makes the passes
//! plain slice walks. [`Node`] mirrors the subset of the tree-sitter API the
//! passes use.

use std::sync::LazyLock;
use tree_sitter::{Language, Point};

static PYTHON: LazyLock<Language> = LazyLock::new(|| tree_sitter_python::LANGUAGE.into());

/// Kind and field names by id, borrowed from the static language.
struct Names {
    kinds: Vec<&'static str>,
    named: Vec<bool>,
    fields: Vec<&'static str>,
}

static NAMES: LazyLock<Names> = LazyLock::new(|| {
    let lang: &'static Language = &PYTHON;
    let count = lang.node_kind_count();
    let kinds = (0..count)
        .map(|i| lang.node_kind_for_id(i as u16).unwrap_or(""))
        .collect();
    let named = (0..count)
        .map(|i| lang.node_kind_is_named(i as u16))
        .collect();
    let fields = (0..=lang.field_count())
        .map(|i| lang.field_name_for_id(i as u16).unwrap_or(""))
        .collect();
    Names {
        kinds,
        named,
        fields,
    }
});

pub(crate) fn language() -> &'static Language {
    &PYTHON
}

const NAMED: u8 = 1;
const MISSING: u8 = 2;
const HAS_ERROR: u8 = 4;
const ERROR: u8 = 8;

struct Raw {
    kind: &'static str,
    field: Option<&'static str>,
    flags: u8,
    bytes: (u32, u32),
    start: (u32, u32),
    end: (u32, u32),
    /// Range in [`Flat::children`].
    children: (u32, u32),
}

pub(crate) struct Flat {
    nodes: Vec<Raw>,
    children: Vec<u32>,
}

impl Flat {
    pub fn new(tree: &tree_sitter::Tree) -> Flat {
        let names = &*NAMES;
        let mut flat = Flat {
            nodes: Vec::new(),
            children: Vec::new(),
        };
        // Children of the nodes being visited, and where each open node's start.
        let mut pending: Vec<u32> = Vec::new();
        let mut open: Vec<(u32, usize)> = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let n = cursor.node();
            let id = flat.nodes.len() as u32;
            // Kind and named-ness from the id: each `Node` accessor would
            // resolve aliases again through the language tables.
            let kind_id = n.kind_id();
            let is_error = kind_id == u16::MAX;
            let (kind, is_named) = if is_error {
                ("ERROR", true)
            } else {
                let k = names.kinds.get(kind_id as usize).copied().unwrap_or("");
                let named = names.named.get(kind_id as usize).copied().unwrap_or(true);
                (if k.is_empty() { "_unknown" } else { k }, named)
            };
            let field = cursor
                .field_id()
                .and_then(|f| names.fields.get(f.get() as usize).copied());
            let flags = (is_named as u8 * NAMED)
                | (n.is_missing() as u8 * MISSING)
                | (n.has_error() as u8 * HAS_ERROR)
                | (is_error as u8 * ERROR);
            let (s, e) = (n.start_position(), n.end_position());
            flat.nodes.push(Raw {
                kind,
                field,
                flags,
                bytes: (n.start_byte() as u32, n.end_byte() as u32),
                start: (s.row as u32, s.column as u32),
                end: (e.row as u32, e.column as u32),
                children: (0, 0),
            });
            pending.push(id);
            if cursor.goto_first_child() {
                open.push((id, pending.len()));
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return flat;
                }
                let (parent, mark) = open.pop().expect("a parent for every goto_parent");
                let start = flat.children.len() as u32;
                flat.children.extend(pending.drain(mark..));
                flat.nodes[parent as usize].children = (start, flat.children.len() as u32);
            }
        }
    }

    pub fn root(&self) -> Node<'_> {
        Node { flat: self, id: 0 }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct Node<'t> {
    flat: &'t Flat,
    id: u32,
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{:?}", self.kind(), self.byte_range())
    }
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.flat, other.flat) && self.id == other.id
    }
}

impl<'t> Node<'t> {
    fn raw(&self) -> &'t Raw {
        &self.flat.nodes[self.id as usize]
    }

    pub fn id(&self) -> usize {
        self.id as usize
    }

    pub fn kind(&self) -> &'static str {
        self.raw().kind
    }

    pub fn is_named(&self) -> bool {
        self.raw().flags & NAMED != 0
    }

    pub fn is_missing(&self) -> bool {
        self.raw().flags & MISSING != 0
    }

    pub fn is_error(&self) -> bool {
        self.raw().flags & ERROR != 0
    }

    pub fn has_error(&self) -> bool {
        self.raw().flags & HAS_ERROR != 0
    }

    pub fn start_byte(&self) -> usize {
        self.raw().bytes.0 as usize
    }

    pub fn end_byte(&self) -> usize {
        self.raw().bytes.1 as usize
    }

    pub fn byte_range(&self) -> std::ops::Range<usize> {
        self.start_byte()..self.end_byte()
    }

    pub fn start_position(&self) -> Point {
        let (row, column) = self.raw().start;
        Point {
            row: row as usize,
            column: column as usize,
        }
    }

    pub fn end_position(&self) -> Point {
        let (row, column) = self.raw().end;
        Point {
            row: row as usize,
            column: column as usize,
        }
    }

    fn child_ids(&self) -> &'t [u32] {
        let (s, e) = self.raw().children;
        &self.flat.children[s as usize..e as usize]
    }

    pub fn child_count(&self) -> usize {
        self.child_ids().len()
    }

    pub fn child(&self, i: usize) -> Option<Node<'t>> {
        self.child_ids().get(i).map(|&id| Node {
            flat: self.flat,
            id,
        })
    }

    /// All children, named and anonymous.
    pub fn children(&self) -> impl DoubleEndedIterator<Item = Node<'t>> + 't {
        let flat = self.flat;
        self.child_ids().iter().map(move |&id| Node { flat, id })
    }

    pub fn named_children(&self) -> impl DoubleEndedIterator<Item = Node<'t>> + 't {
        self.children().filter(|c| c.is_named())
    }

    pub fn field_name(&self) -> Option<&'static str> {
        self.raw().field
    }

    pub fn child_by_field_name(&self, field: &str) -> Option<Node<'t>> {
        self.children().find(|c| c.field_name() == Some(field))
    }

    pub fn children_by_field_name<'f>(&self, field: &'f str) -> impl Iterator<Item = Node<'t>> + 'f
    where
        't: 'f,
    {
        self.children()
            .filter(move |c| c.field_name() == Some(field))
    }

    /// The smallest node that spans `start..end`, as tree-sitter defines it.
    pub fn descendant_for_byte_range(&self, start: usize, end: usize) -> Option<Node<'t>> {
        if start < self.start_byte() || end > self.end_byte() {
            return None;
        }
        let mut node = *self;
        'descend: loop {
            for c in node.children() {
                if c.start_byte() <= start && end <= c.end_byte() && c.end_byte() > c.start_byte() {
                    node = c;
                    continue 'descend;
                }
            }
            return Some(node);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse_raw as parse;

    #[test]
    fn mirrors_tree_sitter() {
        for src in [
            "x = f(a, b=1)\nif x:\n    pass\n",
            "x = f(a, b=1\nif x\n  pass\nprint 'a'\ny = (\n",
            "match p:\n    case [a, *_]:\n        pass\n",
        ] {
            let tree = parse(src);
            let flat = Flat::new(&tree);
            // Same preorder, kinds, fields, positions and flags as tree-sitter.
            let mut ours = Vec::new();
            let mut stack = vec![flat.root()];
            while let Some(n) = stack.pop() {
                ours.push((
                    n.kind(),
                    n.field_name(),
                    n.byte_range(),
                    n.start_position(),
                    n.end_position(),
                    (n.is_named(), n.is_error(), n.is_missing(), n.has_error()),
                ));
                stack.extend(n.children().rev());
            }
            let mut theirs = Vec::new();
            let mut c = tree.walk();
            'outer: loop {
                let n = c.node();
                theirs.push((
                    n.kind(),
                    c.field_name(),
                    n.byte_range(),
                    n.start_position(),
                    n.end_position(),
                    (n.is_named(), n.is_error(), n.is_missing(), n.has_error()),
                ));
                if c.goto_first_child() {
                    continue;
                }
                loop {
                    if c.goto_next_sibling() {
                        break;
                    }
                    if !c.goto_parent() {
                        break 'outer;
                    }
                }
            }
            assert_eq!(ours, theirs, "{src:?}");
        }
    }

    #[test]
    fn fields_and_descendants() {
        let src = "x = f(a, b=1)\n";
        let tree = parse(src);
        let flat = Flat::new(&tree);
        let assign = flat.root().child(0).unwrap().child(0).unwrap();
        assert_eq!(assign.kind(), "assignment");
        assert_eq!(assign.child_by_field_name("right").unwrap().kind(), "call");
        assert_eq!(
            flat.root().descendant_for_byte_range(4, 13).unwrap().kind(),
            "call"
        );
        assert_eq!(
            flat.root().descendant_for_byte_range(6, 7).unwrap().kind(),
            "identifier"
        );
    }

    #[test]
    fn errors_and_missing_are_flagged() {
        let tree = parse("if x\n    y = 1\n");
        let flat = Flat::new(&tree);
        assert!(flat.root().has_error());
        assert!(flat
            .root()
            .children()
            .any(|c| c.is_error() && c.kind() == "ERROR"));
    }
}
