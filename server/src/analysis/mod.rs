//! Pure static analysis of a Python fragment (tree-sitter-python). No I/O.
//!
//! Everything the synthesiser and the coverage metric need to know about a
//! fragment before it runs: syntax errors, whether it must be wrapped in a
//! function to run, the statement table of the published coverage metric,
//! imports, free names with their usage facts, literal file paths, and which
//! names each line assigns (for value hints).
//!
//! All line numbers are 1-based and relative to the fragment text given to
//! [`analyze`]; columns are 0-based UTF-8 byte offsets within the line.
//!
//! Passes, each linear in the tree: `parse` (dedent, tree-sitter, wrap),
//! `tree` (a flat copy of the tree the other passes walk), `syntax` (syntax
//! errors), `statements` (coverage table), `bindings` (where names are
//! bound, imports), `walker` (reads and usage facts, through `usage` paths),
//! `scope` (free names), `files` (literal paths), `defs` (functions, classes).
//! Conditions and `for` iterables become [`Condition`] trees (`condition_tree`).

mod bindings;
mod builtins;
mod condition;
mod condition_tree;
mod config_reads;
mod defs;
mod env_vars;
mod facts;
mod files;
mod frame_columns;
mod generated_init;
mod html_queries;
mod imports;
mod isinstance_tests;
mod later_values;
mod compiled_patterns;
mod line_statement;
mod literal;
mod module_calls;
mod parse;
mod scope;
mod statements;
mod syntax;
pub mod tokens;
mod tree;
mod try_blocks;
mod usage;
mod walker;
mod xml_reads;

pub use facts::*;
pub use frame_columns::formula_columns;
pub use try_blocks::{Handler, TryBlock};
pub use isinstance_tests::isinstance_calls;
pub use line_statement::{assigned_source, expression, line_statement, string_list, LineStatement};
pub(crate) use builtins::is_builtin;
pub use usage::merge as merge_usage;
/// The names an import statement binds (`np` for `import numpy as np`).
pub(crate) use imports::bound_names as import_bound_names;

use std::collections::{BTreeMap, HashSet};

/// Analyse a fragment. Never fails: syntax errors are reported in
/// [`Analysis::syntax_errors`] and the rest is computed on a best-effort basis.
pub fn analyze(source: &str) -> Analysis {
    let (text, common_indent) = parse::dedent(source);
    let tree = parse::parse(&text);
    let root = tree.root();
    let wrap = parse::wrap(root);
    let binds = bindings::collect(root, &text);

    let mut walk = walker::Walker::new(&text, &binds, wrap != Wrap::None);
    walk.block(root);
    let resolved = scope::resolve(&walk.reads, &binds, &mut walk.store);

    // What the fragment does with names it imports (from a module the
    // prefix may have to create: `reactor.callLater(...)`; a package whose
    // submodule it reads: `jinja2.nativetypes`).
    let mut imported_usage = BTreeMap::new();
    // A module's usage stays in the store too: what a loader it has reads
    // (`json.load(f)`) is taken from there below.
    for i in &binds.imports {
        for bound in imports::bound_names(i) {
            let name = usage::Root::Name(bound.clone());
            let u = if i.is_from { walk.store.take(&name) } else { walk.store.get(&usage::Path::root(name)).cloned().unwrap_or_default() };
            if u != Usage::default() {
                imported_usage.insert(bound, u);
            }
        }
    }

    let (functions, classes) = defs::definitions(root, &text, &mut |def_id| {
        let roots = walk.params.get(&def_id).cloned().unwrap_or_default();
        roots.iter().map(|r| walk.store.take(r)).collect()
    });

    let needed: HashSet<&str> = resolved
        .free
        .iter()
        .chain(&resolved.used_before_bound)
        .map(|f| f.name.as_str())
        .collect();
    let branches = walk
        .branches
        .iter()
        .map(|b| Branch {
            line: b.line,
            names: b
                .names
                .iter()
                .filter(|n| needed.contains(n.as_str()))
                .cloned()
                .collect(),
            condition: b.condition.clone(),
            text: b.text.clone(),
        })
        .collect();

    let (mut files, files_through_names) = files::all_file_uses(root, &text, &binds);
    let config_reads = config_reads::config_reads(root, &text);
    // What a parser reads is a file the fragment reads (`configparser`
    // skips a missing one silently).
    for c in &config_reads {
        for p in &c.paths {
            if !files.iter().any(|f| &f.path == p) {
                files.push(FileUse { line: c.line, path: p.clone(), how: "read".into(), mode: None, writes: false, callee: format!("{}.read", c.parser), loader: None, target: None, keywords: Vec::new() });
            }
        }
    }
    // A name assigned a call's result is the walker's alias for that call
    // (`data = pickle.load(f)`: `data[...]` is recorded on `pickle.load()`),
    // else its own root.
    let mut loaded_usage: BTreeMap<String, Usage> = BTreeMap::new();
    for f in files.iter().chain(files_through_names.iter().map(|(_, f)| f)) {
        let t = f.loaded_key();
        let dotted = f.loader.as_deref().unwrap_or(&f.callee);
        let mut segments = dotted.split('.');
        let via_call = segments.next().and_then(|head| {
            let mut path = usage::Path::root(usage::Root::Name(head.to_string()));
            for s in segments {
                path = path.then(usage::Step::Attr(s.to_string()))?;
            }
            let path = path.then(usage::Step::Call)?;
            walk.store.at(&path).map(|u| u.clone())
        });
        // A module the fragment does not import is a free name: its usage
        // has already left the store.
        let via_free = || {
            let mut parts = dotted.split('.');
            let head = parts.next()?;
            let free = resolved.free.iter().chain(&resolved.used_before_bound).chain(&resolved.builtins_read).find(|f| f.name == head)?;
            let mut u = &free.usage;
            for p in parts {
                u = u.attrs.get(p)?;
            }
            u.returns.as_deref().cloned()
        };
        let u = via_call
            .filter(|u| *u != Usage::default())
            .or_else(via_free)
            .filter(|u| *u != Usage::default())
            .or_else(|| f.target.as_ref().map(|t| walk.store.take(&usage::Root::Name(t.clone()))))
            .unwrap_or_default();
        // A value loaded without a name (`for row in csv.DictReader(f)`)
        // counts when its use shows a shape: the call's usage merges every
        // call of that loader, and only shape tells the files apart at all.
        let shaped = f.target.is_some() || u.element.is_some() || !u.subscripts.is_empty() || !u.attrs.is_empty();
        if u != Usage::default() && shaped {
            loaded_usage.insert(t, u);
        }
    }

    let http_response = http_response(&walk.store, resolved.free.iter().chain(&resolved.used_before_bound));

    let mut analysis = Analysis {
        syntax_errors: syntax::syntax_errors(root, &text, common_indent),
        wrap,
        common_indent,
        statements: statements::statement_table(root, &text),
        imports: binds.imports.clone(),
        free_names: resolved.free,
        used_before_bound: resolved.used_before_bound,
        builtins_read: resolved.builtins_read,
        bound_names: binds.names.keys().cloned().collect(),
        assigned: binds.assigned.clone(),
        files,
        files_through_names,
        loaded_usage,
        html_queries: html_queries::html_queries(root, &text),
        xml_reads: xml_reads::xml_reads(root, &text),
        env_reads: env_vars::env_reads(root, &text),
        config_reads,
        http_response,
        functions,
        classes,
        branches,
        for_loops: std::mem::take(&mut walk.for_loops),
        try_blocks: try_blocks::try_blocks(root, &text),
        literal_assignments: later_values::literal_assignments(root, &text, &binds),
        compiled_patterns: compiled_patterns::compiled_patterns(root, &text),
        imported_usage,
        module_calls: module_calls::module_calls(root, &text),
        frame_columns: frame_columns::frame_columns(root, &text, &binds),
    };
    keep_reachable_constants(&mut analysis);
    flow_into_parameters(&mut analysis);
    let loop_keys = literal_loop_keys(root, &text, &binds);
    if !loop_keys.is_empty() {
        for f in analysis.free_names.iter_mut().chain(&mut analysis.used_before_bound) {
            expand_loop_keys(&mut f.usage, &loop_keys, 0);
        }
    }
    analysis
}

/// Names a `for` loop binds to each of a literal list of strings (`for
/// start in ['A', 'B']`), bound nowhere else: a mapping indexed by one is
/// indexed by each of those strings.
fn literal_loop_keys(root: tree::Node, src: &str, binds: &bindings::Bindings) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "for_statement" {
            let left = node.child_by_field_name("left").filter(|l| l.kind() == "identifier");
            let right = node.child_by_field_name("right").filter(|r| matches!(r.kind(), "list" | "tuple" | "set"));
            if let (Some(left), Some(right)) = (left, right) {
                let items: Vec<tree::Node> = literal::named(right).collect();
                let strings: Vec<String> = items.iter().filter_map(|i| literal::str_value(*i, src)).collect();
                let name = literal::text(left, src);
                if !strings.is_empty() && strings.len() == items.len() && strings.len() <= usage::CAP && binds.count(name) == 1 {
                    out.insert(name.to_string(), strings);
                }
            }
        }
        stack.extend(literal::named(node));
    }
    out
}

/// `m[start]` with `start` one of a loop's literal strings: `m['A']`,
/// `m['B']`, ... each used the same way.
fn expand_loop_keys(u: &mut Usage, keys: &BTreeMap<String, Vec<String>>, depth: usize) {
    if depth > 6 {
        return;
    }
    let mut expanded: Vec<(Key, Usage)> = Vec::new();
    for (k, item) in std::mem::take(&mut u.subscripts) {
        match &k {
            Key::Expr(e) if keys.contains_key(e.as_str()) => {
                for s in &keys[e.as_str()] {
                    if expanded.len() < usage::CAP && !expanded.iter().any(|(x, _)| matches!(x, Key::Str(y) if y == s)) {
                        expanded.push((Key::Str(s.clone()), item.clone()));
                    }
                }
            }
            _ => expanded.push((k, item)),
        }
    }
    u.subscripts = expanded;
    usage::children_mut(u).for_each(|x| expand_loop_keys(x, keys, depth + 1));
}

/// A free name passed to a function the fragment defines (`def f(handler):
/// handler.invoke()`, then `f(dispatcher)`) is used the way that function
/// uses its parameter: its usage gains the parameter's.
fn flow_into_parameters(a: &mut Analysis) {
    let functions: Vec<FunctionDef> = a.functions.iter().filter(|f| !f.is_method).cloned().collect();
    if functions.is_empty() {
        return;
    }
    // Recursive functions (`def walk(node): walk(node.child)`) would feed
    // each level's usage into the next forever: a few levels are enough.
    fn flow(u: &mut Usage, functions: &[FunctionDef], depth: usize) {
        if depth > 4 {
            return;
        }
        let params: Vec<Usage> = u
            .passed_to
            .iter()
            .filter_map(|arg| {
                let f = functions.iter().find(|f| f.name == arg.callee)?;
                let p = match (&arg.keyword, arg.position) {
                    (Some(k), _) => f.params.iter().find(|p| p.name == *k),
                    (None, Some(i)) => f.params.get(i).filter(|p| p.star.is_empty() && f.params[..i].iter().all(|q| q.star.is_empty())),
                    _ => None,
                }?;
                Some(p.usage.clone())
            })
            .collect();
        for p in &params {
            usage::merge(u, p);
        }
        usage::children_mut(u).for_each(|x| flow(x, functions, depth + 1));
    }
    for f in a.free_names.iter_mut().chain(&mut a.used_before_bound) {
        flow(&mut f.usage, &functions, 0);
    }
    // What a file holds is read the same way (`data = json.load(f)`, then
    // `filter(isbig, data['features'])`).
    for u in a.loaded_usage.values_mut() {
        flow(u, &functions, 0);
    }
}

/// A value compared with `token.LPAR` can be that constant only where a
/// prefix can spell it: through a name the prefix defines (a free name),
/// not a local of the fragment or a module the fragment imports later.
fn keep_reachable_constants(a: &mut Analysis) {
    let free: HashSet<String> = a.free_names.iter().map(|f| f.name.clone()).collect();
    fn prune(u: &mut Usage, free: &HashSet<String>) {
        u.equals.retain(|c| c.split('.').next().is_some_and(|root| free.contains(root)));
        usage::children_mut(u).for_each(|x| prune(x, free));
    }
    let params = a.functions.iter_mut().chain(a.classes.iter_mut().flat_map(|c| c.methods.iter_mut())).flat_map(|f| f.params.iter_mut()).map(|p| &mut p.usage);
    let names = a.free_names.iter_mut().chain(&mut a.used_before_bound).chain(&mut a.builtins_read).map(|f| &mut f.usage);
    for u in params.chain(names) {
        prune(u, &free);
    }
}

/// How the fragment uses the responses of an HTTP client
/// (`requests.get(u).json()['data']`, `r.status_code == 204`, through `r =
/// requests.get(u)` and a client object, `s = requests.Session()`,
/// `c = httpx.Client()`), merged over the clients' request functions: what
/// the offline transport answers with.
fn http_response<'f>(store: &usage::Store, free: impl Iterator<Item = &'f FreeName>) -> Usage {
    const CLIENTS: &[&str] = &["requests", "httpx"];
    const SESSIONS: &[&str] = &["Session", "Client", "AsyncClient"];
    const METHODS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "request"];
    let free: Vec<&FreeName> = free.collect();
    let mut out = Usage::default();
    let name = |client: &str| usage::Path::root(usage::Root::Name(client.to_string()));
    for client in CLIENTS {
        // The request functions, and a client object's methods.
        let mut owners: Vec<usage::Path> = vec![name(client)];
        owners.extend(SESSIONS.iter().filter_map(|s| name(client).then(usage::Step::Attr(s.to_string()))?.then(usage::Step::Call)));
        for owner in &owners {
            for m in METHODS {
                let path = owner.then(usage::Step::Attr(m.to_string())).and_then(|p| p.then(usage::Step::Call));
                if let Some(u) = path.and_then(|p| store.get(&p)) {
                    merge_usage(&mut out, u);
                }
            }
        }
        // A client cut off with its import: its free name's usage.
        if let Some(f) = free.iter().find(|f| f.name == *client) {
            let sessions = SESSIONS.iter().filter_map(|s| f.usage.attrs.get(*s)?.returns.as_deref());
            for u in std::iter::once(&f.usage).chain(sessions) {
                for m in METHODS {
                    if let Some(r) = u.attrs.get(*m).and_then(|a| a.returns.as_deref()) {
                        merge_usage(&mut out, r);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapping_indexed_by_a_loop_over_literal_strings_has_each_of_them() {
        let src = "for a in ['x', 'y']:\n    for b in ('x', 'y'):\n        print(paths[a][b].upper())\nfor k in keys:\n    print(other[k])\n";
        let an = analyze(src);
        let u = &an.free_names.iter().find(|f| f.name == "paths").unwrap().usage;
        let outer: Vec<&Key> = u.subscripts.iter().map(|(k, _)| k).collect();
        assert_eq!(outer, [&Key::Str("x".into()), &Key::Str("y".into())]);
        assert!(u.subscripts.iter().all(|(_, inner)| inner.subscripts.len() == 2 && inner.subscripts[1].1.attrs.contains_key("upper")));
        // A loop over something else keeps the key an expression.
        let other = &an.free_names.iter().find(|f| f.name == "other").unwrap().usage;
        assert!(matches!(other.subscripts[0].0, Key::Expr(_)));
    }
}
