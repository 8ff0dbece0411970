//! Second pass: every read of a name, and what the code does with values.
//!
//! Each expression evaluates to an access path when it denotes something
//! reachable from a root name or parameter (`x.a()[0]`); the context then
//! records a fact on that path (called, compared, iterated, ...). Names bound
//! to a path become aliases of it until they are bound again,
//! so `for row in rows: row['id']` records on `rows.element`.
//! Parameters, lambda parameters and comprehension variables live in scopes;
//! everything else is flat, as in [`super::bindings`].

mod exprs;

use super::bindings::Bindings;
use super::condition::Condition;
use super::condition_tree;
use super::facts::ForLoop;
use super::defs::param_syntax;
use super::literal::{line, named, subscript_key, text};
use super::statements::is_statement;
use super::tree::Node;
use super::usage::{push_unique, Path, Root, Step, Store};
use std::collections::HashMap;

/// Deeper expression nesting than this is skipped (stack safety on
/// generated code; real code never gets close).
const MAX_DEPTH: usize = 200;

/// First reads of a name that is not a scoped local.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reads {
    /// (byte offset, line) of the first read anywhere.
    pub first: (usize, u32),
    /// The first read in top-level straight-line code (not in a def/lambda).
    pub top: Option<(usize, u32)>,
}

#[derive(Debug)]
pub(crate) struct BranchDraft {
    pub line: u32,
    pub condition: Condition,
    pub text: String,
    /// Names read by the condition, and the roots of aliases it reads.
    pub names: Vec<String>,
}

/// What a binding target receives.
#[derive(Debug, Clone)]
enum Val {
    Opaque,
    Path(Path),
    /// Per-position values (`a, b = x, y`; `enumerate`/`zip` elements).
    Tuple(Vec<Val>),
}

impl From<Option<Path>> for Val {
    fn from(p: Option<Path>) -> Val {
        p.map_or(Val::Opaque, Val::Path)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum ScopeKind {
    Function,
    Lambda,
    Comprehension,
}

struct Scope {
    kind: ScopeKind,
    /// `Some(path)`: reads resolve to that path; `None`: an opaque local.
    names: HashMap<String, Option<Path>>,
}

pub(crate) struct Walker<'a> {
    src: &'a str,
    binds: &'a Bindings,
    /// The fragment is a function body: its top-level annotations are not evaluated.
    wrapped: bool,
    pub store: Store,
    pub reads: HashMap<String, Reads>,
    pub branches: Vec<BranchDraft>,
    pub for_loops: Vec<ForLoop>,
    /// def node id -> its parameters' roots, in order.
    pub params: HashMap<usize, Vec<Root>>,
    scopes: Vec<Scope>,
    aliases: HashMap<String, Path>,
    fn_depth: usize,
    depth: usize,
    cond: Option<usize>,
    next_param: u32,
    /// What the next lambda walked takes as its first parameter: an item
    /// of the iterable a `key=` function is applied to.
    lambda_item: Option<Path>,
}

fn fields<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    node.children_by_field_name(field).collect()
}

impl<'a> Walker<'a> {
    pub fn new(src: &'a str, binds: &'a Bindings, wrapped: bool) -> Self {
        Walker {
            src,
            binds,
            wrapped,
            store: Store::default(),
            reads: HashMap::new(),
            branches: Vec::new(),
            for_loops: Vec::new(),
            params: HashMap::new(),
            scopes: Vec::new(),
            aliases: HashMap::new(),
            fn_depth: 0,
            lambda_item: None,
            depth: 0,
            cond: None,
            next_param: 0,
        }
    }

    fn text(&self, n: Node) -> &'a str {
        text(n, self.src)
    }

    // ----- statements -----

    pub fn block(&mut self, block: Node) {
        for child in named(block) {
            self.any(child);
        }
    }

    /// Statement, block or expression: used where the grammar is loose
    /// (module level, ERROR recovery).
    fn any(&mut self, node: Node) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.any_inner(node);
        self.depth -= 1;
    }

    fn any_inner(&mut self, node: Node) {
        if is_statement(node.kind()) {
            self.statement(node);
        } else if matches!(node.kind(), "block" | "module" | "ERROR") {
            self.block(node);
        } else {
            self.expr(node);
        }
    }

    fn statement(&mut self, node: Node) {
        let f = |name: &str| node.child_by_field_name(name);
        match node.kind() {
            "expression_statement" => {
                for c in named(node) {
                    self.expr_or_assignment(c);
                }
            }
            "if_statement" => {
                self.condition(f("condition"));
                self.opt_block(f("consequence"));
                for alt in fields(node, "alternative") {
                    if alt.kind() == "elif_clause" {
                        self.condition(alt.child_by_field_name("condition"));
                        self.opt_block(alt.child_by_field_name("consequence"));
                    } else {
                        self.opt_block(alt.child_by_field_name("body"));
                    }
                }
            }
            "while_statement" => {
                self.condition(f("condition"));
                self.opt_block(f("body"));
                self.else_clause(f("alternative"));
            }
            "for_statement" => {
                if let (Some(right), Some(body)) = (f("right"), f("body")) {
                    self.for_loops.push(ForLoop {
                        line: line(node),
                        body_line: line(body),
                        iterable: condition_tree::build(right, self.src),
                        text: self.text(right).to_string(),
                    });
                }
                if let (Some(left), Some(right)) = (f("left"), f("right")) {
                    let v = self.iter_source(right);
                    self.bind(left, v, false);
                }
                self.opt_block(f("body"));
                self.else_clause(f("alternative"));
            }
            "with_statement" => {
                for clause in named(node).filter(|c| c.kind() == "with_clause") {
                    for item in named(clause) {
                        let Some(value) = item.child_by_field_name("value") else {
                            continue;
                        };
                        let (inner, alias) = split_as(value);
                        let p = self.expr(inner);
                        self.store.with(p.as_ref(), |u| u.with_ctx = true);
                        if let Some(alias) = alias {
                            self.bind(alias, p.into(), false);
                        }
                    }
                }
                self.opt_block(f("body"));
            }
            "try_statement" => {
                self.opt_block(f("body"));
                for c in named(node) {
                    match c.kind() {
                        "except_clause" => {
                            for v in fields(c, "value") {
                                let (inner, alias) = split_as(v);
                                let caught: Vec<Node> = if inner.kind() == "tuple" || inner.kind() == "parenthesized_expression" { named(inner).collect() } else { vec![inner] };
                                for class in caught {
                                    let p = self.expr(class);
                                    self.store.with(p.as_ref(), |u| u.raised = true);
                                }
                                if let Some(alias) = alias {
                                    self.bind(alias, Val::Opaque, false);
                                }
                            }
                            for b in named(c).filter(|b| b.kind() == "block") {
                                self.block(b);
                            }
                        }
                        "else_clause" => self.opt_block(c.child_by_field_name("body")),
                        "finally_clause" => {
                            for b in named(c).filter(|b| b.kind() == "block") {
                                self.block(b);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "function_definition" => self.def(node),
            "class_definition" => {
                if let Some(sup) = f("superclasses") {
                    for a in named(sup) {
                        let v = a.child_by_field_name("value").unwrap_or(a);
                        let p = self.expr(v);
                        // A positional base is a class (a keyword, `metaclass=M`, too, but of classes).
                        if a.kind() != "keyword_argument" {
                            self.store.with(p.as_ref(), |u| u.subclassed = true);
                        }
                    }
                }
                if let Some(name) = f("name") {
                    self.bind(name, Val::Opaque, false);
                }
                self.opt_block(f("body"));
            }
            "decorated_definition" => {
                for d in named(node).filter(|d| d.kind() == "decorator") {
                    for e in named(d) {
                        self.expr(e);
                    }
                }
                if let Some(def) = f("definition") {
                    self.statement(def);
                }
            }
            "match_statement" => {
                for s in fields(node, "subject") {
                    self.expr(s);
                }
                for case in f("body").into_iter().flat_map(named) {
                    for c in named(case) {
                        match c.kind() {
                            "case_pattern" => self.pattern(c),
                            "if_clause" => {
                                for e in named(c) {
                                    let p = self.expr(e);
                                    self.truth(p);
                                }
                            }
                            "block" => self.block(c),
                            _ => {}
                        }
                    }
                }
            }
            "assert_statement" => {
                // The asserted test decides whether the lines after it run,
                // like a branch: the evolution varies what feeds it.
                for (i, e) in named(node).enumerate() {
                    if i == 0 {
                        self.condition(Some(e));
                    } else {
                        self.expr(e);
                    }
                }
            }
            "print_statement" => {
                for a in named(node) {
                    let inner = if a.kind() == "chevron" {
                        named(a).collect()
                    } else {
                        vec![a]
                    };
                    for e in inner {
                        let p = self.expr(e);
                        self.store.with(p.as_ref(), |u| u.formatted = true);
                    }
                }
            }
            "import_statement"
            | "import_from_statement"
            | "future_import_statement"
            | "global_statement"
            | "nonlocal_statement"
            | "pass_statement"
            | "break_statement"
            | "continue_statement"
            | "type_alias_statement" => {}
            "raise_statement" => {
                // `raise X`, `raise X(...)`; the cause of `from e` is only read.
                let cause = node.child_by_field_name("cause");
                for c in named(node) {
                    let class = if c.kind() == "call" { c.child_by_field_name("function") } else { Some(c) };
                    if c.kind() == "call" || Some(c) == cause {
                        self.any(c);
                    }
                    if let Some(class) = class.filter(|_| Some(c) != cause) {
                        let p = self.expr(class);
                        self.store.with(p.as_ref(), |u| u.raised = true);
                    }
                }
            }
            // return, del (a read: the name must exist), exec.
            _ => {
                for c in named(node) {
                    self.any(c);
                }
            }
        }
    }

    fn opt_block(&mut self, block: Option<Node>) {
        if let Some(b) = block {
            self.block(b);
        }
    }

    fn else_clause(&mut self, clause: Option<Node>) {
        self.opt_block(clause.and_then(|c| c.child_by_field_name("body")));
    }

    /// An `if`/`elif`/`while` condition: truth-tested, and its reads noted
    /// for the branch table.
    fn condition(&mut self, cond: Option<Node>) {
        let Some(cond) = cond else { return };
        self.branches.push(BranchDraft {
            line: line(cond),
            condition: condition_tree::build(cond, self.src),
            text: self.text(cond).to_string(),
            names: Vec::new(),
        });
        let outer = self.cond.replace(self.branches.len() - 1);
        let p = self.expr(cond);
        self.truth(p);
        self.cond = outer;
    }

    /// An evaluated annotation: the names in its type positions (`T`,
    /// `List[T]`, `A | B`, `Callable[[A], B]`) are used as classes.
    fn annotation(&mut self, node: Node) {
        match node.kind() {
            "type" | "parenthesized_expression" => {
                for c in named(node) {
                    self.annotation(c);
                }
            }
            "subscript" => {
                // Still a subscript of its value (`t.Dict[...]` needs `t.Dict` subscriptable).
                let p = node.child_by_field_name("value").and_then(|v| self.expr(v));
                for a in fields(node, "subscript") {
                    self.annotation(a);
                }
                if let Some(p) = p.and_then(|p| p.then(Step::Sub(subscript_key(node, self.src)))) {
                    self.store.at(&p);
                }
            }
            "generic_type" => {
                let mut parts = named(node);
                if let Some(v) = parts.next() {
                    self.expr(v);
                }
                for a in parts {
                    self.annotation(a);
                }
            }
            "binary_operator" | "list" | "tuple" | "expression_list" | "type_parameter" => {
                for c in named(node) {
                    self.annotation(c);
                }
            }
            "identifier" | "attribute" => {
                let p = self.expr(node);
                self.store.with(p.as_ref(), |u| u.annotates = true);
            }
            // Forward references (`'Node'`), `None`, `...`: nothing to bind.
            "string" | "none" | "ellipsis" | "integer" => {}
            _ => {
                self.expr(node);
            }
        }
    }

    fn truth(&mut self, p: Option<Path>) {
        self.store.with(p.as_ref(), |u| u.truth_tested = true);
    }

    fn def(&mut self, node: Node) {
        let params = node
            .child_by_field_name("parameters")
            .map(|p| param_syntax(p, self.src))
            .unwrap_or_default();
        // Defaults and annotations are evaluated where the def runs.
        for p in &params {
            if let Some(d) = p.default {
                self.expr(d);
            }
            if let Some(a) = p.annotation {
                self.annotation(a);
            }
        }
        if let Some(r) = node.child_by_field_name("return_type") {
            self.annotation(r);
        }
        if let Some(name) = node.child_by_field_name("name") {
            self.bind(name, Val::Opaque, false);
        }
        let mut roots = Vec::new();
        let mut names = HashMap::new();
        for p in params {
            let root = Root::Param(self.next_param);
            self.next_param += 1;
            names.insert(p.name, Some(Path::root(root.clone())));
            roots.push(root);
        }
        self.params.insert(node.id(), roots);
        self.scopes.push(Scope {
            kind: ScopeKind::Function,
            names,
        });
        self.fn_depth += 1;
        self.opt_block(node.child_by_field_name("body"));
        self.fn_depth -= 1;
        self.scopes.pop();
    }

    // ----- assignments and targets -----

    fn expr_or_assignment(&mut self, node: Node) -> Val {
        match node.kind() {
            "assignment" => self.assignment(node),
            "augmented_assignment" => {
                self.augmented(node);
                Val::Opaque
            }
            _ => self.value(node),
        }
    }

    fn assignment(&mut self, node: Node) -> Val {
        if let Some(t) = node.child_by_field_name("type") {
            // Annotations of locals are never evaluated.
            if self.fn_depth == 0 && !self.wrapped {
                self.annotation(t);
            }
        }
        let Some(right) = node.child_by_field_name("right") else {
            return Val::Opaque;
        };
        let val = self.expr_or_assignment(right);
        if let Some(left) = node.child_by_field_name("left") {
            self.bind(left, val.clone(), false);
        }
        val
    }

    /// The value of a right-hand side: a bare tuple keeps its positions.
    fn value(&mut self, node: Node) -> Val {
        match node.kind() {
            "expression_list" | "tuple" | "pattern_list" => {
                Val::Tuple(named(node).map(|c| self.expr(c).into()).collect())
            }
            "call" => self.next_item(node).unwrap_or_else(|| self.expr(node).into()),
            _ => self.expr(node).into(),
        }
    }

    /// `next(iter(d))`, `next(rows, None)`: an item of what it iterates.
    fn next_item(&mut self, call: Node) -> Option<Val> {
        let func = call.child_by_field_name("function")?;
        if self.builtin_callee(func) != Some("next") {
            return None;
        }
        let args: Vec<Node> = named(call.child_by_field_name("arguments")?).collect();
        let (first, rest) = args.split_first()?;
        if first.kind() == "keyword_argument" || first.kind() == "list_splat" {
            return None;
        }
        for default in rest {
            self.expr(*default);
        }
        Some(self.iter_source(*first))
    }

    fn augmented(&mut self, node: Node) {
        let Some((left, op, right)) = exprs::operands(node) else {
            return;
        };
        self.operation(left, op.trim_end_matches('='), right);
        self.bind(left, Val::Opaque, false);
    }

    /// Bind a target to a value. `declare` puts plain names in the innermost
    /// scope (comprehension variables); otherwise names follow Python's
    /// assignment rules as approximated here.
    fn bind(&mut self, target: Node, val: Val, declare: bool) {
        match target.kind() {
            "identifier" => self.bind_name(self.text(target), val, declare),
            "pattern_list" | "tuple_pattern" | "list_pattern" | "tuple" | "list"
            | "expression_list" => {
                let items: Vec<Node> = named(target).collect();
                if let Val::Path(p) = &val {
                    let n = items.len();
                    self.store.with(Some(p), |u| u.unpack = Some(n));
                }
                for (i, item) in items.into_iter().enumerate() {
                    let v = match &val {
                        _ if matches!(item.kind(), "list_splat_pattern" | "list_splat") => {
                            Val::Opaque
                        }
                        Val::Path(p) => p.then(Step::Item(i)).into(),
                        Val::Tuple(vs) => vs.get(i).cloned().unwrap_or(Val::Opaque),
                        Val::Opaque => Val::Opaque,
                    };
                    self.bind(item, v, declare);
                }
            }
            "parenthesized_expression"
            | "as_pattern_target"
            | "list_splat_pattern"
            | "list_splat" => {
                let inner: Vec<Node> = named(target).collect();
                let val = if inner.len() == 1 && !target.kind().contains("splat") {
                    val
                } else {
                    Val::Opaque
                };
                for c in inner {
                    self.bind(c, val.clone(), declare);
                }
            }
            "attribute" => {
                let p = target
                    .child_by_field_name("object")
                    .and_then(|o| self.expr(o));
                if let Some(attr) = target.child_by_field_name("attribute") {
                    let attr = self.text(attr).to_string();
                    self.store.with(p.as_ref(), |u| {
                        u.attr_writes.insert(attr);
                    });
                }
            }
            "subscript" => {
                let p = target
                    .child_by_field_name("value")
                    .and_then(|v| self.expr(v));
                for k in fields(target, "subscript") {
                    self.expr(k);
                }
                let key = subscript_key(target, self.src);
                self.store
                    .with(p.as_ref(), |u| push_unique(&mut u.subscript_writes, key));
            }
            _ => {
                self.expr(target);
            }
        }
    }

    fn bind_name(&mut self, name: &str, val: Val, declare: bool) {
        let path = match val {
            Val::Path(p) => Some(p),
            _ => None,
        };
        if declare {
            if let Some(scope) = self.scopes.last_mut() {
                scope.names.insert(name.to_string(), path);
            }
            return;
        }
        // Rebinding a parameter of the current function: later reads see a new value.
        if let Some(scope) = self
            .scopes
            .iter_mut()
            .rev()
            .find(|s| s.kind != ScopeKind::Comprehension)
        {
            if let Some(slot) = scope.names.get_mut(name) {
                *slot = None;
                return;
            }
        }
        // Flow-sensitive in source order: a name stands for the value of its
        // latest binding (`fig = make(); fig.clf()` records on `make()`),
        // and a binding to something untracked ends the alias.
        match path {
            Some(p) => {
                self.aliases.insert(name.to_string(), p);
            }
            None => {
                self.aliases.remove(name);
            }
        }
    }

    // ----- reads and patterns -----

    /// A read of a name: scoped locals first, then aliases, then a root.
    fn read(&mut self, node: Node) -> Option<Path> {
        let name = self.text(node);
        let scoped = self.scopes.iter().rev().find_map(|s| s.names.get(name));
        let path = match scoped {
            Some(p) => p.clone(),
            None => {
                self.note_read(name, node);
                Some(
                    self.aliases
                        .get(name)
                        .cloned()
                        .unwrap_or_else(|| Path::root(Root::Name(name.to_string()))),
                )
            }
        };
        if let (Some(b), Some(root)) = (self.cond, path.as_ref().and_then(Path::root_name)) {
            push_unique(&mut self.branches[b].names, root.to_string());
        }
        path
    }

    fn note_read(&mut self, name: &str, node: Node) {
        let at = (node.start_byte(), line(node));
        let top = (self.fn_depth == 0).then_some(at);
        match self.reads.get_mut(name) {
            Some(r) => {
                if r.top.is_none() {
                    r.top = top;
                }
            }
            None => {
                self.reads
                    .insert(name.to_string(), Reads { first: at, top });
            }
        }
        if let Some(b) = self.cond {
            push_unique(&mut self.branches[b].names, name.to_string());
        }
    }

    /// `match` patterns: captures bind, value patterns (`Color.RED`) and
    /// class patterns read.
    fn pattern(&mut self, node: Node) {
        match node.kind() {
            "dotted_name" => {
                let parts: Vec<Node> = named(node).collect();
                match parts.as_slice() {
                    [one] => self.bind_name(self.text(*one), Val::Opaque, false),
                    [first, rest @ ..] => {
                        let mut p = self.read(*first);
                        for r in rest {
                            p = p.and_then(|p| p.then(Step::Attr(self.text(*r).to_string())));
                            if let Some(p) = &p {
                                self.store.at(p);
                            }
                        }
                    }
                    [] => {}
                }
            }
            "class_pattern" => {
                for (i, c) in named(node).enumerate() {
                    if i == 0 && c.kind() == "dotted_name" {
                        // The class is a value, even if it has no dot.
                        let parts: Vec<Node> = named(c).collect();
                        if let [one] = parts.as_slice() {
                            self.read(*one);
                        } else {
                            self.pattern(c);
                        }
                    } else {
                        self.pattern(c);
                    }
                }
            }
            "keyword_pattern" => {
                for c in named(node).skip(1) {
                    self.pattern(c);
                }
            }
            "splat_pattern" | "as_pattern_target" => {
                for c in named(node) {
                    if c.kind() == "identifier" && self.text(c) != "_" {
                        self.bind_name(self.text(c), Val::Opaque, false);
                    }
                }
            }
            "identifier" if self.text(node) != "_" => {
                self.bind_name(self.text(node), Val::Opaque, false)
            }
            "case_pattern" | "list_pattern" | "tuple_pattern" | "union_pattern" | "as_pattern"
            | "dict_pattern" => {
                for c in named(node) {
                    self.pattern(c);
                }
            }
            _ => {}
        }
    }
}

/// `x as y` (with items, except clauses) -> (x, Some(y)).
fn split_as(node: Node) -> (Node, Option<Node>) {
    if node.kind() == "as_pattern" {
        if let Some(inner) = named(node).next() {
            return (inner, node.child_by_field_name("alias"));
        }
    }
    (node, None)
}

#[cfg(test)]
pub(super) mod tests {
    use crate::analysis::{analyze, ArgUse, CallShape, Key, Usage};

    /// Usage of a free (or used-before-bound) name.
    pub(super) fn usage(src: &str, name: &str) -> Usage {
        let a = analyze(src);
        a.free_names
            .into_iter()
            .chain(a.used_before_bound)
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{name} is not free in {src:?}"))
            .usage
    }

    pub(super) fn shape(positional: usize, keywords: &[&str], star_args: bool) -> CallShape {
        CallShape {
            positional,
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            star_args,
        }
    }

    pub(super) fn sub<'u>(u: &'u Usage, key: &Key) -> &'u Usage {
        &u.subscripts
            .iter()
            .find(|(k, _)| k == key)
            .unwrap_or_else(|| panic!("no key {key:?} in {u:?}"))
            .1
    }

    pub(super) fn arg(callee: &str, position: Option<usize>, keyword: Option<&str>) -> ArgUse {
        ArgUse {
            callee: callee.into(),
            position,
            keyword: keyword.map(Into::into),
        }
    }

    #[test]
    fn unpacking() {
        let u = usage("a, b = pair\na.foo()\n", "pair");
        assert_eq!(u.unpack, Some(2));
        assert!(u.unpacked_items[0].attrs.contains_key("foo"));
        // A `\` continuation is an extra node, not a target.
        let u = usage("a, \\\n    b = pair\nb.bar()\n", "pair");
        assert_eq!(u.unpack, Some(2));
        assert!(u.unpacked_items[1].attrs.contains_key("bar"));
    }

    #[test]
    fn a_key_function_s_parameter_is_an_item_of_the_iterable() {
        let u = usage("top = sorted(records, key=lambda r: r['dept'])\n", "records");
        assert!(sub(u.element.as_deref().unwrap(), &Key::Str("dept".into())).passed_to.is_empty());
        // Grouped items: each group holds items of the iterable.
        let src = "for k, g in itertools.groupby(sorted(rows, key=lambda r: r['d']), key=lambda r: r['d']):\n    total = sum(r['s'] for r in g)\n";
        let e = usage(src, "rows").element.unwrap();
        sub(&e, &Key::Str("d".into()));
        sub(&e, &Key::Str("s".into()));
    }

    #[test]
    fn text_searched_with_a_literal_pattern_keeps_it() {
        let u = usage("found = re.findall(r'(\\d{4})-(\\d{2})', text)\n", "text");
        assert_eq!(u.searched_with, vec![r"(\d{4})-(\d{2})".to_string()]);
        let u = usage("clean = re.sub('[0-9]+', '#', line)\n", "line");
        assert_eq!(u.searched_with, vec!["[0-9]+".to_string()]);
    }

    #[test]
    fn text_parsed_as_a_date_keeps_its_format() {
        let u = usage("ts = datetime.strptime(stamp, '%Y-%m-%d')\n", "stamp");
        assert_eq!(u.date_formats, vec!["%Y-%m-%d".to_string()]);
        let u = usage("ts = datetime.strptime(line[:10], '%Y-%m-%d')\n", "line");
        assert_eq!(sub(&u, &Key::Slice).date_formats, vec!["%Y-%m-%d".to_string()]);
    }

    #[test]
    fn max_of_several_values_compares_them_and_of_one_iterates_it() {
        let u = usage("best = max(low, 3)\n", "low");
        assert!(u.passed_to.is_empty());
        assert!(u.operators.contains(">"));
        let u = usage("best = max(values)\n", "values");
        assert_eq!(u.passed_to, vec![arg("max", Some(0), None)]);
        assert!(u.iterated);
    }

    #[test]
    fn aliases_flow_into_their_source() {
        let u = usage("y = x.f()\ny.g()\n", "x");
        assert!(u.attrs["f"]
            .returns
            .as_ref()
            .unwrap()
            .attrs
            .contains_key("g"));
        let u = usage("y = x['k']\ny.h\n", "x");
        assert!(sub(&u, &Key::Str("k".into())).attrs.contains_key("h"));
        let u = usage("y = x\ny.z\n", "x");
        assert!(u.attrs.contains_key("z"));
        // Rebound names are not aliases.
        let u = usage("y = x\ny = 2\ny.z\n", "x");
        assert!(!u.attrs.contains_key("z"));
        let u = usage(
            "rows = data['rows']\nfor row in rows:\n    row.id\n",
            "data",
        );
        assert!(sub(&u, &Key::Str("rows".into()))
            .element
            .as_ref()
            .unwrap()
            .attrs
            .contains_key("id"));
    }

    #[test]
    fn names_in_annotations_are_types() {
        let src = "def f(xs: List[LN], y: 'Fwd' = 1, z: A | None = None) -> Optional[Tuple[B, mod.C]]:\n    pass\nv: D = 1\n";
        for name in ["LN", "A", "B", "D"] {
            assert!(usage(src, name).annotates, "{name}");
        }
        assert!(usage(src, "mod").attrs["C"].annotates);
        assert!(!usage(src, "List").annotates, "the generic is subscripted, not annotated");
    }

    #[test]
    fn a_collection_looked_up_by_its_own_items_is_marked() {
        assert!(usage("for k in prices:\n    print(prices[k])\n", "prices").keyed_by_items);
        assert!(usage("key = next(iter(value))\nvalue[key]\n", "value").keyed_by_items);
        assert!(usage("first = next(rows, None)\nfirst.id\n", "rows").element.as_ref().unwrap().attrs.contains_key("id"));
        assert!(usage("for k in cfg.opts:\n    cfg.opts[k]\n", "cfg").attrs["opts"].keyed_by_items);
        assert!(!usage("for i in range(len(xs)):\n    xs[i]\n", "xs").keyed_by_items);
        assert!(!usage("for row in rows:\n    row[0]\n", "rows").keyed_by_items);
        assert!(usage("json.dumps(obj, **kwargs)\n", "kwargs").keyword_splat);
        // What is read of a comprehension's items is read of its item.
        let u = usage("rows = [r.split(',') for r in lines]\nprint(rows[0][1], [x for x in rows[1:]])\nrows.append(1)\n", "lines");
        let item = u.element.as_deref().unwrap().attrs["split"].returns.as_deref().unwrap();
        assert!(item.subscripts.iter().any(|(k, _)| *k == Key::Int(1)), "{item:?}");
        assert!(!u.attrs.contains_key("append"), "the list is not `lines`");
        assert!(!usage("f(*args)\n", "args").keyword_splat);
    }

    #[test]
    fn raised_and_caught_names_are_marked() {
        let src = "try:\n    raise Stop\nexcept (Busy, errors.Gone) as e:\n    raise Failed(1) from cause\nexcept Other:\n    pass\n";
        for name in ["Stop", "Busy", "Failed", "Other"] {
            assert!(usage(src, name).raised, "{name}");
        }
        assert!(usage(src, "errors").attrs["Gone"].raised);
        assert!(!usage(src, "cause").raised);
        let u = usage("v: t.Dict[str, D] = {}\n", "t");
        assert_eq!(u.attrs["Dict"].subscripts.len(), 1, "`t.Dict` must stay subscriptable");
        // Local annotations are never evaluated, so they say nothing.
        let a = analyze("def f():\n    v: E = 1\n");
        assert!(a.free_names.iter().all(|f| f.name != "E"));
    }

    #[test]
    fn arguments_take_the_usage_of_the_parameters_they_fill() {
        let src = "def forward(handler, *rest, mode=1):\n    handler.invoke(mode + 1)\n    return rest\nforward(dispatcher, extra, mode=level)\n";
        assert!(usage(src, "dispatcher").attrs["invoke"].calls.len() == 1);
        assert!(usage(src, "level").operators.contains("+") || !usage(src, "level").arithmetic.is_empty());
        assert!(usage(src, "extra").attrs.is_empty(), "a star parameter is not the argument");
        // Through `filter`/`map`: each item fills the function's parameter.
        let u = usage("def big(q):\n    return q['mag'] > 5\nprint(list(filter(big, quakes)), list(map(big, more)))\n", "quakes");
        assert!(u.element.as_ref().is_some_and(|e| e.subscripts.iter().any(|(k, _)| matches!(k, crate::analysis::Key::Str(s) if s == "mag"))), "{u:?}");
        // A recursive function's parameter feeds itself: the flow stops.
        let u = usage("def walk(node):\n    walk(node.child)\nwalk(tree)\n", "tree");
        assert!(u.attrs.contains_key("child"));
    }

    #[test]
    fn attribute_writes() {
        let u = usage("self.x = 1\nself.n += 1\n", "self");
        assert_eq!(u.attr_writes.iter().collect::<Vec<_>>(), ["n", "x"]);
    }

    #[test]
    fn parameter_usage() {
        let a = analyze("def f(df, n=1):\n    return df.head(n)\n");
        let p = &a.functions[0].params;
        assert_eq!(p[0].usage.attrs["head"].calls, vec![shape(1, &[], false)]);
        assert_eq!(p[1].usage.passed_to, vec![arg("df.head", Some(0), None)]);
        // After rebinding, the parameter's value is gone.
        let a = analyze("def f(s):\n    s = s.strip()\n    s.upper()\n");
        let u = &a.functions[0].params[0].usage;
        assert!(u.attrs.contains_key("strip") && !u.attrs.contains_key("upper"));
        let a = analyze("class C:\n    def m(self, items):\n        for it in items:\n            self.add(it.name)\n");
        let m = &a.classes[0].methods[0];
        assert!(m.params[0].usage.attrs.contains_key("add"));
        assert!(m.params[1]
            .usage
            .element
            .as_ref()
            .unwrap()
            .attrs
            .contains_key("name"));
    }

    #[test]
    fn deep_nesting_is_safe() {
        let src = format!("y = {}x{}\n", "(".repeat(3000), ")".repeat(3000));
        let _ = analyze(&src);
        let src = format!("y = x{}\n", " + x".repeat(5000));
        let _ = analyze(&src);
    }
}
