//! Expressions: what each one evaluates to (an access path, when it
//! denotes something reachable from a root) and the facts its context adds
//! (called, compared, iterated, formatted, ...).

use super::{fields, split_as, Scope, ScopeKind, Val, Walker, MAX_DEPTH};
use crate::analysis::builtins::is_builtin;
use crate::analysis::defs::param_syntax;
use crate::analysis::facts::{ArgUse, CallShape, Literal};
use crate::analysis::literal::{dotted_constant, is_plain_str, literal, named, subscript_key, text, unparen};
use crate::analysis::tree::Node;
use crate::analysis::usage::{push_unique, record_arg, record_call, record_literal_op, Path, Step};
use std::collections::HashMap;

impl<'a> Walker<'a> {
    /// Evaluate an expression, recording facts; returns its access path.
    pub(super) fn expr(&mut self, node: Node) -> Option<Path> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let p = self.expr_inner(node);
        self.depth -= 1;
        p
    }

    pub(super) fn expr_inner(&mut self, node: Node) -> Option<Path> {
        let f = |name: &str| node.child_by_field_name(name);
        match node.kind() {
            "identifier" => self.read(node),
            "attribute" => {
                let p = self.expr(f("object")?);
                let attr = self.text(f("attribute")?).to_string();
                let p = p?.then(Step::Attr(attr))?;
                self.store.at(&p);
                Some(p)
            }
            "call" => self.call(node).0,
            "subscript" => {
                let p = f("value").and_then(|v| self.expr(v));
                for k in fields(node, "subscript") {
                    let key = self.expr(k);
                    // `for k in prices: prices[k]`: looked up by its own items.
                    if let (Some(key), Some(p)) = (&key, &p) {
                        if key.root == p.root && key.steps.len() == p.steps.len() + 1 && key.steps.starts_with(&p.steps) && key.steps.last() == Some(&Step::Elem) {
                            self.store.with(Some(p), |u| u.keyed_by_items = true);
                        }
                    }
                }
                let p = p?.then(Step::Sub(subscript_key(node, self.src)))?;
                self.store.at(&p);
                Some(p)
            }
            "parenthesized_expression" => {
                let inner: Vec<Node> = named(node).collect();
                if let [one] = inner.as_slice() {
                    return self.expr(*one);
                }
                inner.into_iter().for_each(|c| {
                    self.expr(c);
                });
                None
            }
            "await" => {
                // What `await x` gives is recorded on `x` itself (usage has no
                // step for awaiting): the synthesiser builds an awaitable whose
                // result has that usage.
                let mut last = None;
                for c in named(node) {
                    let p = self.expr(c);
                    self.store.with(p.as_ref(), |u| u.awaited = true);
                    last = p;
                }
                last
            }
            "boolean_operator" => {
                for side in [f("left"), f("right")].into_iter().flatten() {
                    let p = self.expr(side);
                    self.truth(p);
                }
                None
            }
            "not_operator" => {
                let p = self.expr(f("argument")?);
                self.truth(p);
                None
            }
            "comparison_operator" => {
                self.comparison(node);
                None
            }
            "binary_operator" => {
                self.binary(node);
                None
            }
            "unary_operator" => {
                let p = self.expr(f("argument")?);
                let op = format!("unary {}", f("operator")?.kind());
                self.store.with(p.as_ref(), |u| {
                    u.operators.insert(op);
                });
                None
            }
            "conditional_expression" => {
                // `A if c else None`: what is read from the result is read
                // from A, when only one side is a value that can be traced.
                let mut sides = Vec::new();
                for (i, c) in named(node).enumerate() {
                    let p = self.expr(c);
                    if i == 1 {
                        self.truth(p);
                    } else {
                        sides.push(p);
                    }
                }
                match sides.as_slice() {
                    [Some(p), None] | [None, Some(p)] => Some(p.clone()),
                    _ => None,
                }
            }
            "named_expression" => {
                let p = self.expr(f("value")?);
                if let Some(name) = f("name") {
                    self.bind(name, p.clone().into(), false);
                }
                p
            }
            "lambda" => {
                self.lambda(node);
                None
            }
            "list_comprehension" | "set_comprehension" | "generator_expression" => {
                self.comprehension(node).and_then(|item| item.then(Step::Collect))
            }
            "dictionary_comprehension" => {
                self.comprehension(node);
                None
            }
            "string" => {
                for interp in named(node).filter(|c| c.kind() == "interpolation") {
                    if let Some(e) = interp.child_by_field_name("expression") {
                        let p = self.expr(e);
                        self.store.with(p.as_ref(), |u| u.formatted = true);
                    }
                    if let Some(spec) = interp.child_by_field_name("format_specifier") {
                        self.nested_interpolations(spec);
                    }
                }
                None
            }
            "list_splat" => {
                for c in named(node) {
                    let p = self.expr(c);
                    self.store.with(p.as_ref(), |u| u.iterated = true);
                }
                None
            }
            "yield" => {
                let is_from = node.child(1).is_some_and(|c| c.kind() == "from");
                for c in named(node) {
                    let p = self.expr(c);
                    if is_from {
                        self.store.with(p.as_ref(), |u| u.iterated = true);
                    }
                }
                None
            }
            "as_pattern" => {
                let (inner, _) = split_as(node);
                self.expr(inner)
            }
            "keyword_argument" => {
                self.expr(f("value")?);
                None
            }
            "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "ellipsis"
            | "comment"
            | "keyword_separator"
            | "positional_separator" => None,
            // Displays, slices, pairs, splats, ERROR, ...: evaluate the parts.
            _ => {
                for c in named(node) {
                    self.any(c);
                }
                None
            }
        }
    }

    pub(super) fn nested_interpolations(&mut self, spec: Node) {
        for c in named(spec) {
            if let Some(e) = c.child_by_field_name("expression") {
                self.expr(e);
            }
        }
    }

    /// A builtin function that the fragment does not shadow.
    pub(super) fn builtin_callee(&self, func: Node) -> Option<&'a str> {
        let name = self.text(func);
        let shadowed =
            self.binds.count(name) > 0 || self.scopes.iter().any(|s| s.names.contains_key(name));
        (func.kind() == "identifier" && is_builtin(name) && !shadowed).then_some(name)
    }

    /// Returns the call's path and the paths of its positional arguments.
    pub(super) fn call(&mut self, node: Node) -> (Option<Path>, Vec<Option<Path>>) {
        let Some(func) = node.child_by_field_name("function") else {
            return (None, Vec::new());
        };
        let callee_path = self.expr(func);
        let callee = callee_text(func, self.src);
        let builtin = self.builtin_callee(func);
        // `'sep'.join(x)`, `'{}'.format(x)`
        let str_method = (func.kind() == "attribute"
            && func
                .child_by_field_name("object")
                .is_some_and(|o| is_plain_str(unparen(o), self.src)))
        .then(|| {
            func.child_by_field_name("attribute")
                .map_or("", |a| self.text(a))
        });
        let mut shape = CallShape {
            positional: 0,
            keywords: Vec::new(),
            star_args: false,
        };
        let mut positional = Vec::new();
        let mut first_str = None;
        let mut first_int = None;
        let args = node.child_by_field_name("arguments");
        let args = match args {
            Some(g) if g.kind() == "generator_expression" => vec![g],
            Some(a) => named(a).collect(),
            None => Vec::new(),
        };
        // `max(a, b)`, `min(a, b, c)`: the values are compared with one
        // another, not an iterable of them as `max(values)` takes.
        let positional_nodes: Vec<Node> = args.iter().copied().filter(|a| !matches!(a.kind(), "keyword_argument" | "list_splat" | "dictionary_splat")).collect();
        let compares_args = matches!(builtin, Some("max" | "min")) && positional_nodes.len() >= 2;
        for &a in &args {
            match a.kind() {
                "keyword_argument" => {
                    let kw = a
                        .child_by_field_name("name")
                        .map_or("", |n| self.text(n))
                        .to_string();
                    // `sorted(rows, key=lambda r: r['dept'])`: the lambda's
                    // parameter is each item of the iterable.
                    if kw == "key" && a.child_by_field_name("value").is_some_and(|v| v.kind() == "lambda") {
                        let iterable = match callee.rsplit('.').next() {
                            Some("sorted" | "min" | "max" | "groupby") => positional.first(),
                            Some("nlargest" | "nsmallest") => positional.get(1),
                            _ => None,
                        };
                        self.lambda_item = iterable.and_then(|p: &Option<Path>| p.as_ref()).and_then(|p| p.then(Step::Elem));
                    }
                    let p = a.child_by_field_name("value").and_then(|v| self.expr(v));
                    let formats = builtin == Some("print") || str_method == Some("format");
                    self.store.with(p.as_ref(), |u| {
                        record_arg(
                            u,
                            ArgUse {
                                callee: callee.clone(),
                                position: None,
                                keyword: Some(kw.clone()),
                            },
                        );
                        u.formatted |= formats;
                    });
                    shape.keywords.push(kw);
                }
                "list_splat" | "dictionary_splat" => {
                    shape.star_args = true;
                    for c in named(a) {
                        let p = self.expr(c);
                        if a.kind() == "list_splat" {
                            self.store.with(p.as_ref(), |u| u.iterated = true);
                        } else {
                            self.store.with(p.as_ref(), |u| u.keyword_splat = true);
                        }
                    }
                }
                _ => {
                    if shape.positional == 0 {
                        match literal(a, self.src) {
                            Some(Literal::Str(t)) => first_str = Some(t),
                            Some(Literal::Int(n)) => first_int = Some(n),
                            _ => {}
                        }
                    }
                    let p = self.expr(a);
                    let i = shape.positional;
                    self.store.with(p.as_ref(), |u| {
                        if compares_args {
                            u.operators.extend([">".to_string(), "<".to_string()]);
                            return;
                        }
                        record_arg(
                            u,
                            ArgUse {
                                callee: callee.clone(),
                                position: Some(i),
                                keyword: None,
                            },
                        )
                    });
                    positional.push(p);
                    shape.positional += 1;
                }
            }
        }
        // `filter(keep, items)`, `map(f, items)`: each item is passed to the
        // function, as `keep(item)` would pass it (the fragment's own
        // function then lends the item its parameter's usage).
        if matches!(builtin, Some("filter" | "map")) && positional.len() == 2 {
            let f = args.first().filter(|a| a.kind() == "identifier").map(|a| self.text(*a).to_string());
            if let (Some(f), Some(Some(items))) = (f, positional.get(1)) {
                if let Some(item) = items.then(Step::Elem) {
                    self.store.with(Some(&item), |u| record_arg(u, ArgUse { callee: f, position: Some(0), keyword: None }));
                }
            }
        }
        // `strptime(text, '%Y-%m-%d')`: the text is a date in that format.
        if callee.rsplit('.').next() == Some("strptime") {
            let format = positional_nodes.get(1).and_then(|a| literal(*a, self.src));
            if let (Some(Literal::Str(f)), Some(Some(text))) = (format, positional.first()) {
                self.store.with(Some(text), |u| push_unique(&mut u.date_formats, f));
            }
        }
        // `re.findall(r'(\d{4})-(\d{2})', text)`: the text holds a match.
        let subject_at = match callee.strip_prefix("re.") {
            Some("match" | "search" | "fullmatch" | "findall" | "finditer" | "split") => Some(1),
            Some("sub" | "subn") => Some(2),
            _ => None,
        };
        if let Some(at) = subject_at {
            let pattern = positional_nodes.first().and_then(|a| literal(*a, self.src));
            if let (Some(Literal::Str(pattern)), Some(Some(text))) = (pattern, positional.get(at)) {
                self.store.with(Some(text), |u| push_unique(&mut u.searched_with, pattern));
            }
        }
        let n = positional.len();
        for (i, p) in positional.iter().enumerate() {
            let effect = match (builtin, str_method) {
                (Some(b), _) => builtin_effect(b, i, n),
                (None, Some("join")) if i == 0 => Effect::Iter,
                (None, Some("format")) => Effect::Format,
                _ => Effect::None,
            };
            self.store.with(p.as_ref(), |u| match effect {
                Effect::Iter => u.iterated = true,
                Effect::Len => u.len = true,
                Effect::Format => u.formatted = true,
                Effect::None => {}
            });
        }
        let Some(cp) = callee_path else {
            return (None, positional);
        };
        self.store.with(Some(&cp), |u| {
            record_call(u, shape);
            if let Some(t) = first_str {
                push_unique(&mut u.first_str_args, t);
            }
            if let Some(n) = first_int {
                push_unique(&mut u.first_int_args, n);
            }
        });
        let result = cp.then(Step::Call);
        if let Some(r) = &result {
            self.store.at(r);
        }
        (result, positional)
    }

    pub(super) fn comparison(&mut self, node: Node) {
        let operands: Vec<Node> = named(node).collect();
        let ops: Vec<String> = fields(node, "operators")
            .iter()
            .map(|o| {
                self.text(*o)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let paths: Vec<Option<Path>> = operands.iter().map(|o| self.expr(*o)).collect();
        let lits: Vec<Option<Literal>> = operands.iter().map(|o| literal(*o, self.src)).collect();
        let dotted: Vec<Option<String>> = operands.iter().map(|o| dotted_constant(*o, self.src)).collect();
        for (i, op) in ops.iter().enumerate() {
            let (l, r) = (i, i + 1);
            if r >= operands.len() {
                break;
            }
            if op == "==" || op == "!=" {
                let (left_takes, right_takes) = takes_constant(&dotted[l], &dotted[r]);
                for (takes, side, other) in [(left_takes, l, r), (right_takes, r, l)] {
                    if let (true, Some(p), Some(constant)) = (takes, &paths[side], &dotted[other]) {
                        let constant = constant.clone();
                        self.store.with(Some(p), |u| push_unique(&mut u.equals, constant));
                    }
                }
            }
            let membership = op == "in" || op == "not in";
            if let Some(lp) = &paths[l] {
                let lit = lits[r].clone();
                self.store.with(Some(lp), |u| match lit {
                    Some(lit) => record_literal_op(&mut u.compared, op, lit),
                    None => {
                        u.operators.insert(op.clone());
                    }
                });
            }
            if let Some(rp) = &paths[r] {
                let lit = lits[l].clone();
                let flipped = flip(op);
                self.store.with(Some(rp), |u| match (lit, membership) {
                    (Some(lit), true) => push_unique(&mut u.contains, lit),
                    (Some(lit), false) => record_literal_op(&mut u.compared, flipped, lit),
                    // The container side of `a in b`: it must be a collection.
                    (None, true) => {
                        u.operators.insert("contains".to_string());
                    }
                    (None, false) => {
                        u.operators.insert(flipped.to_string());
                    }
                });
            }
        }
    }

    pub(super) fn binary(&mut self, node: Node) {
        let Some((left, op, right)) = operands(node) else {
            return;
        };
        // `'%s: %d' % (a, b)` formats its operands.
        if op == "%" && is_plain_str(unparen(left), self.src) {
            let right = unparen(right);
            let parts = if right.kind() == "tuple" {
                named(right).collect()
            } else {
                vec![right]
            };
            for part in parts {
                let p = self.expr(part);
                self.store.with(p.as_ref(), |u| u.formatted = true);
            }
            return;
        }
        self.operation(left, op, right);
    }

    /// `left op right`: each side records the operator, with the other
    /// side's literal when it is one.
    pub(super) fn operation(&mut self, left: Node, op: &str, right: Node) {
        let lp = self.expr(left);
        let rp = self.expr(right);
        let (ll, rl) = (literal(left, self.src), literal(right, self.src));
        self.arith(lp.as_ref(), op, rl);
        self.arith(rp.as_ref(), op, ll);
    }

    pub(super) fn arith(&mut self, p: Option<&Path>, op: &str, other: Option<Literal>) {
        self.store.with(p, |u| match other {
            Some(lit) => record_literal_op(&mut u.arithmetic, op, lit),
            None => {
                u.operators.insert(op.to_string());
            }
        });
    }

    pub(super) fn lambda(&mut self, node: Node) {
        let params = node
            .child_by_field_name("parameters")
            .map(|p| param_syntax(p, self.src))
            .unwrap_or_default();
        for p in &params {
            if let Some(d) = p.default {
                self.expr(d);
            }
        }
        let mut item = self.lambda_item.take();
        let names = params.into_iter().map(|p| (p.name, item.take())).collect();
        self.scopes.push(Scope {
            kind: ScopeKind::Lambda,
            names,
        });
        self.fn_depth += 1;
        if let Some(body) = node.child_by_field_name("body") {
            self.expr(body);
        }
        self.fn_depth -= 1;
        self.scopes.pop();
    }

    /// The first iterable is evaluated outside the comprehension's scope,
    /// everything else inside it.
    /// Walks a comprehension; the path of its item (the body), if any.
    pub(super) fn comprehension(&mut self, node: Node) -> Option<Path> {
        let mut pushed = false;
        for clause in named(node) {
            match clause.kind() {
                "for_in_clause" => {
                    let rights = fields(clause, "right");
                    let v = match rights.as_slice() {
                        [one] => self.iter_source(*one),
                        many => {
                            for r in many {
                                self.expr(*r);
                            }
                            Val::Opaque
                        }
                    };
                    if !pushed {
                        self.scopes.push(Scope {
                            kind: ScopeKind::Comprehension,
                            names: HashMap::new(),
                        });
                        pushed = true;
                    }
                    if let Some(left) = clause.child_by_field_name("left") {
                        self.bind(left, v, true);
                    }
                }
                "if_clause" => {
                    for e in named(clause) {
                        let p = self.expr(e);
                        self.truth(p);
                    }
                }
                _ => {}
            }
        }
        let item = node.child_by_field_name("body").and_then(|body| self.expr(body));
        if pushed {
            self.scopes.pop();
        }
        item
    }

    /// What a loop over `node` yields. `enumerate`, `zip`, `sorted` and
    /// friends pass their argument's elements through.
    pub(super) fn iter_source(&mut self, node: Node) -> Val {
        let node = unparen(node);
        if node.kind() == "call" {
            if let Some(b) = node
                .child_by_field_name("function")
                .and_then(|f| self.builtin_callee(f))
            {
                let elem = |p: Option<&Option<Path>>| -> Val {
                    p.and_then(|p| p.as_ref())
                        .and_then(|p| p.then(Step::Elem))
                        .into()
                };
                let passes = matches!(
                    b,
                    "enumerate"
                        | "zip"
                        | "sorted"
                        | "reversed"
                        | "list"
                        | "tuple"
                        | "iter"
                        | "filter"
                        | "set"
                );
                if passes {
                    let (_, args) = self.call(node);
                    let v = match b {
                        "enumerate" => Val::Tuple(vec![Val::Opaque, elem(args.first())]),
                        "zip" => Val::Tuple(args.iter().map(|a| elem(Some(a))).collect()),
                        "filter" => elem(args.get(1)),
                        _ => elem(args.first()),
                    };
                    if let Val::Path(p) = &v {
                        self.store.at(p);
                    }
                    return v;
                }
            }
        }
        // `for key, group in itertools.groupby(rows, key=...)`: each group
        // holds items of `rows`.
        if node.kind() == "call" {
            let func = node.child_by_field_name("function");
            let grouping = func.is_some_and(|f| matches!(callee_text(f, self.src).as_str(), "itertools.groupby" | "groupby"));
            if let (true, Some(f)) = (grouping, func) {
                self.expr(f);
                let args: Vec<Node> = node.child_by_field_name("arguments").map(|a| named(a).collect()).unwrap_or_default();
                // The items grouped, through `sorted(rows, key=...)` too.
                let item = match args.first() {
                    Some(a) if a.kind() != "keyword_argument" => match self.iter_source(*a) {
                        Val::Path(p) => Some(p),
                        _ => None,
                    },
                    _ => None,
                };
                for a in args.iter().skip(usize::from(item.is_some())) {
                    match (a.kind(), a.child_by_field_name("value")) {
                        ("keyword_argument", Some(v)) => {
                            let key = a.child_by_field_name("name").is_some_and(|n| self.text(n) == "key");
                            if key && v.kind() == "lambda" {
                                self.lambda_item = item.clone();
                            }
                            self.expr(v);
                        }
                        _ => {
                            self.expr(*a);
                        }
                    }
                }
                let group = item.and_then(|e| e.then(Step::Collect));
                return Val::Tuple(vec![Val::Opaque, group.into()]);
            }
        }
        let p = self.expr(node);
        self.store.with(p.as_ref(), |u| u.iterated = true);
        let e = p.and_then(|p| p.then(Step::Elem));
        if let Some(e) = &e {
            self.store.at(e);
        }
        e.into()
    }
}

#[derive(Clone, Copy)]
enum Effect {
    None,
    Iter,
    Len,
    Format,
}

fn builtin_effect(name: &str, pos: usize, n: usize) -> Effect {
    match name {
        "len" if pos == 0 => Effect::Len,
        "list" | "tuple" | "set" | "frozenset" | "sorted" | "reversed" | "enumerate" | "sum"
        | "any" | "all" | "iter"
            if pos == 0 =>
        {
            Effect::Iter
        }
        "zip" => Effect::Iter,
        "map" if pos >= 1 => Effect::Iter,
        "filter" if pos == 1 => Effect::Iter,
        "min" | "max" if n == 1 => Effect::Iter,
        "print" => Effect::Format,
        "str" | "repr" | "format" | "ascii" if pos == 0 => Effect::Format,
        _ => Effect::None,
    }
}

/// The comparison as seen from the right operand: `0 < x` is `x > 0`.
fn flip(op: &str) -> &str {
    match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        other => other,
    }
}

/// Dotted text of a callee (`np.array`, `df.groupby('a').agg`); string
/// methods as `str.join`; anything else as its whitespace-collapsed text.
fn callee_text(func: Node, src: &str) -> String {
    if func.kind() == "attribute" {
        if let (Some(obj), Some(attr)) = (
            func.child_by_field_name("object"),
            func.child_by_field_name("attribute"),
        ) {
            if is_plain_str(unparen(obj), src) {
                return format!("str.{}", text(attr, src));
            }
        }
    }
    let t: String = text(func, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let dotted = matches!(func.kind(), "identifier" | "attribute");
    let t = if dotted { t.replace(' ', "") } else { t };
    if t.len() > 80 {
        let cut = (0..=80).rev().find(|i| t.is_char_boundary(*i)).unwrap_or(0);
        format!("{}...", &t[..cut])
    } else {
        t
    }
}

/// For `a == b` with the dotted names of each side: whether the left and
/// whether the right may become the other one's constant. Between two
/// dotted names only one may, or each would be defined through the other:
/// the one that is not an UPPER_CASE constant (`tok.type == token.LPAR`),
/// else the left.
fn takes_constant(left: &Option<String>, right: &Option<String>) -> (bool, bool) {
    let upper = |c: &Option<String>| {
        let last = c.as_deref().and_then(|c| c.rsplit('.').next()).unwrap_or("");
        last.chars().any(char::is_alphabetic) && !last.chars().any(char::is_lowercase)
    };
    match (left.is_some(), right.is_some()) {
        (true, true) if upper(left) && !upper(right) => (false, true),
        (true, true) => (true, false),
        _ => (true, true),
    }
}

/// The left operand, operator and right operand of a binary operator or an
/// augmented assignment (`+=` keeps its `=`).
pub(super) fn operands(node: Node) -> Option<(Node, &'static str, Node)> {
    let left = node.child_by_field_name("left")?;
    let right = node.child_by_field_name("right")?;
    let op = node.child_by_field_name("operator").map_or("", |o| o.kind());
    Some((left, op, right))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{arg, shape, sub, usage};
    use crate::analysis::{Key, Literal};

    #[test]
    pub(super) fn attributes_and_calls_nest() {
        let u = usage("x.a.b()\nx.c(1, 2, k=3, *rest)\n", "x");
        let b = &u.attrs["a"].attrs["b"];
        assert_eq!(b.calls, vec![shape(0, &[], false)]);
        assert!(b.returns.is_some());
        assert_eq!(u.attrs["c"].calls, vec![shape(2, &["k"], true)]);
        let u = usage("f(1)\nf(2)\nf(a=1)\n", "f");
        assert_eq!(u.calls, vec![shape(1, &[], false), shape(0, &["a"], false)]);
    }

    #[test]
    pub(super) fn subscripts_and_their_items() {
        let u = usage(
            "x['a'].strip()\nx[0]\nx[-1]\nx[1:2]\nx[i]\nx['k'] = 1\n",
            "x",
        );
        let keys: Vec<&Key> = u.subscripts.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                &Key::Str("a".into()),
                &Key::Int(0),
                &Key::Int(-1),
                &Key::Slice,
                &Key::Expr("i".into())
            ]
        );
        assert!(sub(&u, &Key::Str("a".into())).attrs.contains_key("strip"));
        assert_eq!(u.subscript_writes, vec![Key::Str("k".into())]);
    }

    #[test]
    pub(super) fn iteration_forms() {
        for src in [
            "for e in x: pass\n",
            "[e for e in x]\n",
            "list(x)\n",
            "sorted(x)\n",
            "f(*x)\n",
            "a, *b = *x, 1\n",
        ] {
            assert!(usage(src, "x").iterated, "{src}");
        }
        let u = usage("for row in rows:\n    print(row['id'])\n", "rows");
        assert!(sub(u.element.as_ref().unwrap(), &Key::Str("id".into())).formatted);
        let u = usage("for i, row in enumerate(rows):\n    row.go()\n", "rows");
        assert!(u.iterated);
        assert!(u.element.as_ref().unwrap().attrs.contains_key("go"));
        let src = "for a, b in zip(xs, ys):\n    a.p\n    b.q\n";
        assert!(usage(src, "xs").element.unwrap().attrs.contains_key("p"));
        assert!(usage(src, "ys").element.unwrap().attrs.contains_key("q"));
        let u = usage("for k, v in d.items():\n    v.append(k)\n", "d");
        let elem = u.attrs["items"]
            .returns
            .as_ref()
            .unwrap()
            .element
            .as_ref()
            .unwrap();
        assert_eq!(elem.unpack, Some(2));
        assert!(elem.unpacked_items[1].attrs.contains_key("append"));
        let u = usage("ids = [r.id for r in sorted(rs) if r.ok]\n", "rs");
        let e = u.element.unwrap();
        assert!(e.attrs.contains_key("id"));
        assert!(e.attrs["ok"].truth_tested);
    }

    #[test]
    pub(super) fn comparisons_and_arithmetic() {
        let u = usage(
            "if x > 0: pass\nif 10 < x: pass\nx == 'a'\nx is None\nx + 1\nx % 2\n3 * x\nx - y\n",
            "x",
        );
        assert_eq!(
            u.compared,
            vec![
                (">".into(), Literal::Int(0)),
                (">".into(), Literal::Int(10)),
                ("==".into(), Literal::Str("a".into())),
                ("is".into(), Literal::None),
            ]
        );
        assert_eq!(
            u.arithmetic,
            vec![
                ("+".into(), Literal::Int(1)),
                ("%".into(), Literal::Int(2)),
                ("*".into(), Literal::Int(3))
            ]
        );
        assert!(u.operators.contains("-"));
        assert!(u.truth_tested.eq(&false));
        assert_eq!(
            usage("n += 1.5\n", "n").arithmetic,
            vec![("+".into(), Literal::Float(1.5))]
        );
        assert_eq!(
            usage("x in (1, 2)\n", "x").compared,
            vec![("in".into(), Literal::Other("(1, 2)".into()))]
        );
    }

    #[test]
    pub(super) fn what_an_await_gives_is_used_like_the_awaited_value() {
        let u = usage("async def g():\n    x = await f()\n    return x['k']\n", "f");
        let r = u.returns.unwrap();
        assert!(r.awaited);
        assert!(matches!(r.subscripts[0].0, Key::Str(ref k) if k == "k"), "{r:?}");
    }

    #[test]
    pub(super) fn comparisons_with_dotted_constants() {
        let a = crate::analysis::analyze("if tok.type == token.LPAR and token.RPAR != tok.type: pass\nif x == y.z: pass\n");
        let tok = &a.free_names.iter().find(|f| f.name == "tok").unwrap().usage;
        assert_eq!(tok.attrs["type"].equals, vec!["token.LPAR".to_string(), "token.RPAR".to_string()]);
        // `y` is free too, but `self.a` or a local's attribute would not be kept.
        let x = &a.free_names.iter().find(|f| f.name == "x").unwrap().usage;
        assert_eq!(x.equals, vec!["y.z".to_string()]);
        let local = crate::analysis::analyze("obj = make()\nif tok.kind == obj.KIND: pass\n");
        assert!(local.free_names.iter().find(|f| f.name == "tok").unwrap().usage.attrs["kind"].equals.is_empty());
        // Never both ways round: each would be defined through the other.
        let both = crate::analysis::analyze("if req.kind == kinds.NAME: pass\nif a.b == c.d: pass\n");
        let usage = |n: &str| both.free_names.iter().find(|f| f.name == n).unwrap().usage.clone();
        assert_eq!(usage("req").attrs["kind"].equals, vec!["kinds.NAME".to_string()]);
        assert!(usage("kinds").attrs["NAME"].equals.is_empty());
        assert_eq!(usage("a").attrs["b"].equals, vec!["c.d".to_string()]);
        assert!(usage("c").attrs["d"].equals.is_empty());
    }

    #[test]
    pub(super) fn truth_len_contains_with_await() {
        for src in [
            "if x: pass\n",
            "while x: pass\n",
            "not x\n",
            "x and y\n",
            "assert x\n",
            "a if x else b\n",
        ] {
            assert!(usage(src, "x").truth_tested, "{src}");
        }
        assert!(usage("len(x)\n", "x").len);
        assert_eq!(
            usage("'k' in x\n", "x").contains,
            vec![Literal::Str("k".into())]
        );
        assert!(usage("k in x\n", "x").operators.contains("contains"));
        assert!(usage("with x:\n    pass\n", "x").with_ctx);
        assert!(
            usage("with x.open() as f:\n    f.read()\n", "x").attrs["open"]
                .returns
                .as_ref()
                .unwrap()
                .with_ctx
        );
        assert!(usage("await x\n", "x").awaited);
    }

    #[test]
    pub(super) fn passed_as_argument() {
        let u = usage("np.array(x)\nopen(p, mode=x)\nprint(1, x)\n", "x");
        assert_eq!(
            u.passed_to,
            vec![
                arg("np.array", Some(0), None),
                arg("open", None, Some("mode")),
                arg("print", Some(1), None)
            ]
        );
        assert!(u.formatted);
        assert_eq!(
            usage("', '.join(x)\n", "x").passed_to,
            vec![arg("str.join", Some(0), None)]
        );
    }

    #[test]
    pub(super) fn formatting() {
        for src in [
            "f'{x}'\n",
            "'%s' % x\n",
            "'%s %d' % (x, 1)\n",
            "'{}'.format(x)\n",
            "'{a}'.format(a=x)\n",
            "print(x)\n",
            "str(x)\n",
        ] {
            assert!(usage(src, "x").formatted, "{src}");
        }
        assert!(!usage("x % 3\n", "x").formatted);
    }
}
