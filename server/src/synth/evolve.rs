//! Evolution: variants of the best prefix that take branches it did not
//! (other values for what a condition tests, both sides of an equality,
//! every clause of a conjunction, members reached through names the
//! fragment assigns, a container holding what is looked up in it), reach
//! `except` handlers, and call bodies nothing called. Pure: the session
//! runs what this proposes.

use super::alternatives::{abstract_instance, alternatives, falsy};
use super::deterministic::{
    add_import, argument_name, block_span, import_binding, isinstance_calls, key_value, parse_literal_key, related_bindings, set_env, with_candidate,
};
use super::infer;
use super::knowledge;
use super::lexical::{dotted_paths, identifiers, is_dotted};
use super::paths::{grow_loop, is_item_path, value_at_mut, value_through_call, value_through_item};
use super::prefix::{module_of_import, names_bound_by_import, Binding, Candidate, Prefix};
use super::type_wants;
use super::resources::files_at;
use super::session::{Attempt, Context};
use super::value::{self, Value};
use crate::analysis::Usage;

/// Variants that may take the branch at `line` (testing `condition`, which
/// reads the free names `gnames`) the other way.
fn guard_variants(ctx: &Context, best: &Attempt, line: u32, gnames: &[String], condition: &str) -> Vec<Prefix> {
    let mut out = Vec::new();
    // What names in the condition were assigned from tells which
    // members of a prefix value decide it (`h = self.find(e)`; `if h is None`).
    let br_condition = &with_assignments(ctx, line, condition);
    out.extend(membership_variants(ctx, best, line));
    out.extend(equality_variants(ctx, best, line, condition));
    out.extend(identity_variants(ctx, best, line, condition));
    out.extend(conjunction_variants(ctx, best, line, condition));
    out.extend(path_variants(ctx, best, line, condition));
    let mut names = gnames.to_vec();
    names.extend(identifiers(condition));
    names.extend(related_bindings(ctx, &best.prefix, line));
    let mut seen = Vec::new();
    names.retain(|n| if seen.contains(n) { false } else { seen.push(n.clone()); true });
    for n in names {
        let Some(b) = best.prefix.binding(&n) else { continue };
        for alt in alternatives(b, br_condition).into_iter().chain(shared_keys(&best.prefix, b)) {
            out.push(with_candidate(&best.prefix, &n, alt));
        }
    }
    out
}

/// Variables read with a fallback (`os.environ.get("X")`, `os.getenv`)
/// before lines still uncovered: a variant where each is set, or unset.
fn environment_variants(ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
    let mut out = Vec::new();
    for read in ctx.analysis.env_reads.iter().filter(|r| !r.required && uncovered.iter().any(|&u| u >= r.line)) {
        let mut p = best.prefix.clone();
        if p.environment.iter().any(|(n, _)| *n == read.name) {
            p.environment.retain(|(n, _)| *n != read.name);
        } else {
            set_env(&mut p, &read.name);
        }
        out.push(p);
    }
    out
}

/// Variants of the best prefix that may reach the `uncovered` lines, most
/// direct first.
pub(super) fn variants(ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
    let mut out = Vec::new();
    // Conditions, and `for` loops whose body never ran (an empty iterable).
    let mut guards: Vec<(u32, Vec<String>, String)> =
        ctx.analysis.branches.iter().map(|b| (b.line, b.names.clone(), b.condition.clone())).collect();
    for (i, l) in ctx.fragment.lines().enumerate() {
        let t = l.trim_start();
        if (t.starts_with("for ") || t.starts_with("async for ")) && uncovered.contains(&(i as u32 + 2)) {
            let iterable = t.split_once(" in ").map(|(_, r)| r.trim_end_matches(':').to_string()).unwrap_or_default();
            guards.push((i as u32 + 1, Vec::new(), iterable));
        }
    }
    guards.sort_by_key(|g| g.0);
    for (line, gnames, condition) in &guards {
        let in_play = uncovered.iter().any(|u| u > line) || uncovered.contains(line);
        if in_play {
            out.extend(guard_variants(ctx, best, *line, gnames, condition));
        }
    }
    out.extend(environment_variants(ctx, best, uncovered));
    out.extend(handler_variants(ctx, best, uncovered));
    out.extend(body_drivers(ctx, best, uncovered));
    out
}

/// Variants that call functions and methods whose bodies never ran, even
/// though the fragment refers to them (a method only a library would call).
fn body_drivers(ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
    let mut out = Vec::new();
    // Driver calls run after the fragment: a value spelled through a module
    // the fragment rebinds (`from datetime import datetime`) cannot be used.
    // The imports an argument expression needs, added to the prefix of the
    // variant that uses it.
    let needs = std::cell::RefCell::new(Vec::<(String, Vec<String>)>::new());
    // Arguments that need a definition (an object's class, a callback) get
    // a binding of their own, `{param}_{callee}`, added with the call.
    let defined = std::cell::RefCell::new(Vec::<Binding>::new());
    let arg = |name: &str, usage: &Usage, callee: &str| -> String {
        let v = infer::best(name, usage, 1);
        let mut imports = Vec::new();
        v.imports(&mut imports);
        let shadowed = imports.iter().flat_map(|i| names_bound_by_import(i)).any(|n| ctx.analysis.bound_names.contains(&n));
        if shadowed {
            return "None".to_string();
        }
        if v.needs_definition() {
            let own = argument_name(name, callee);
            if !defined.borrow().iter().any(|b| b.name == own) {
                defined.borrow_mut().push(Binding::new(own.clone(), vec![Candidate::Value(v)]));
            }
            return own;
        }
        let expr = v.expr();
        if !imports.is_empty() {
            needs.borrow_mut().push((expr.clone(), imports));
        }
        expr
    };
    // Earlier calls stay when the run completed: they did not raise, and
    // calls with different values take different branches in one run.
    let keep_earlier = best.completed();
    let call = |callee: &str, args: &[String]| {
        let mut p = with_driver_call(&best.prefix, callee, args, keep_earlier);
        for (_, imports) in needs.borrow().iter().filter(|(expr, _)| args.contains(expr)) {
            for stmt in imports {
                add_import(&mut p, stmt);
            }
        }
        for b in defined.borrow().iter().filter(|b| args.contains(&b.name)) {
            if p.binding(&b.name).is_none() && !ctx.analysis.bound_names.contains(&b.name) {
                p.bindings.push(b.clone());
            }
        }
        p
    };
    let lines: Vec<&str> = ctx.fragment.lines().collect();
    // Lines of a def's block still uncovered: the body never ran, or a
    // branch on a defaulted parameter did not (then pass every parameter).
    let block_uncovered = |line: u32| {
        let (a, b) = block_span(&lines, line as usize - 1);
        uncovered.iter().any(|&u| u as usize > a && u as usize <= b + 1)
    };
    for f in ctx.analysis.functions.iter().filter(|f| block_uncovered(f.line)) {
        // `*args` and `**kwargs` may stay empty.
        let params: Vec<_> = f.params.iter().filter(|x| x.star.is_empty()).collect();
        let required_params: Vec<_> = params.iter().filter(|x| !x.has_default).collect();
        let required: Vec<String> = required_params.iter().map(|x| arg(&x.name, &x.usage, &f.name)).collect();
        let all: Vec<String> = params.iter().map(|x| arg(&x.name, &x.usage, &f.name)).collect();
        let mut calls = vec![required.clone(), all];
        // Edge values for one argument at a time: guards like `if not s:`,
        // `if os.path.exists(p):`.
        for i in 0..required.len() {
            let path = required_params[i].usage.passed_to.iter().any(|a| knowledge::argument_kind(&a.callee, a.position, a.keyword.as_deref()) == Some("path"));
            let fresh = path.then_some("'not_there_yet.txt'");
            for edge in ["None", "''", "0"].into_iter().chain(fresh) {
                let mut args = required.clone();
                args[i] = edge.to_string();
                calls.push(args);
            }
        }
        let names: Vec<&str> = params.iter().map(|x| x.name.as_str()).collect();
        calls.extend(typed_calls(ctx, &lines, f.line, &names, &calls[1]));
        for args in calls {
            out.push(call(&f.name, &args));
        }
    }
    for c in &ctx.analysis.classes {
        // An instance without running a constructor that needs arguments.
        let init_args = c.methods.iter().find(|x| x.name == "__init__").map(|i| i.params.iter().skip(1).filter(|x| x.star.is_empty() && !x.has_default).count()).unwrap_or(0);
        let instance = if init_args == 0 { format!("{}()", c.name) } else { format!("{}.__new__({})", c.name, c.name) };
        for m in c.methods.iter().filter(|m| block_uncovered(m.line) && !m.name.starts_with("__")) {
            let params: Vec<_> = m.params.iter().skip(1).filter(|x| x.star.is_empty()).collect();
            let required: Vec<String> = params.iter().filter(|x| !x.has_default).map(|x| arg(&x.name, &x.usage, &m.name)).collect();
            let all: Vec<String> = params.iter().map(|x| arg(&x.name, &x.usage, &m.name)).collect();
            let names: Vec<&str> = params.iter().map(|x| x.name.as_str()).collect();
            let typed = typed_calls(ctx, &lines, m.line, &names, &all);
            for args in [required, all].into_iter().chain(typed) {
                out.push(call(&format!("{instance}.{}", m.name), &args));
            }
        }
    }
    out
}

/// Calls of the def at `line` with every argument (`all`, one per name
/// of `params`), one more per `isinstance(param, T)` in its body, where
/// that parameter takes a value of type T. Library types are spelled
/// through the fragment's own import of their module.
fn typed_calls(ctx: &Context, lines: &[&str], line: u32, params: &[&str], all: &[String]) -> Vec<Vec<String>> {
    let (a, b) = block_span(lines, line as usize - 1);
    let mut out: Vec<Vec<String>> = Vec::new();
    for (path, types) in isinstance_calls(&lines[a..=b].join("\n")) {
        let Some(i) = params.iter().position(|p| *p == path) else { continue };
        for ty in types {
            let Some(expr) = instance_expr(ctx, &path, &ty) else { continue };
            let mut args = all.to_vec();
            args[i] = expr;
            if !out.contains(&args) {
                out.push(args);
            }
        }
    }
    out
}

/// An expression of type `ty` as the fragment spells it (`str`, `np.integer`).
fn instance_expr(ctx: &Context, name: &str, ty: &str) -> Option<String> {
    let Some((alias, member)) = ty.rsplit_once('.') else {
        let builtin = ["str", "int", "float", "list", "dict", "tuple", "bytes", "set", "bool"].contains(&ty);
        if builtin {
            return Some(infer::value_of_kind(ty, name, &Usage::default()).expr());
        }
        // `Mapping`, `Iterable`: a builtin that passes; not one that needs a definition.
        return abstract_instance(ty, name).filter(|v| !matches!(v, Value::Code { .. })).map(|v| v.expr());
    };
    let module = ctx.analysis.imports.iter().find(|imp| !imp.is_from && imp.alias.as_deref().unwrap_or(&imp.module) == alias)?;
    let Value::Expr { code, imports } = type_wants::library_value(&format!("{}.{member}", module.module))? else { return None };
    // The table spells it through the conventional alias: only when the fragment uses the same one.
    imports.iter().any(|i| i.ends_with(&format!(" {alias}"))).then_some(code)
}

/// A copy of `prefix` whose driver also calls `callee(args)`. A call of the
/// same callee already there is replaced unless `keep_earlier`: one that
/// raised would stop the program before the new one runs.
fn with_driver_call(prefix: &Prefix, callee: &str, args: &[String], keep_earlier: bool) -> Prefix {
    let mut p = prefix.clone();
    let head = format!("{callee}(");
    if !keep_earlier {
        p.driver.retain(|d| !d.starts_with(&head));
    }
    let call = format!("{callee}({})", args.join(", "));
    if !p.driver.contains(&call) {
        p.driver.push(call);
    }
    p
}

/// `condition` followed by the lines before `line` that assign the names it reads.
fn with_assignments(ctx: &Context, line: u32, condition: &str) -> String {
    let names = identifiers(condition);
    let mut text = condition.to_string();
    for (l, assigned) in ctx.analysis.assigned.range(..line) {
        if assigned.iter().any(|n| names.contains(n)) {
            text.push('\n');
            text.push_str(ctx.line_text(*l).trim());
        }
    }
    text
}

/// Collections and strings that refer to the keys of a dict the prefix
/// defines (`for k in keys: d[k]`, `if key in d`): data that fits together.
fn shared_keys(prefix: &Prefix, b: &Binding) -> Vec<Value> {
    let mut out = Vec::new();
    for other in &prefix.bindings {
        if other.name == b.name {
            continue;
        }
        let Some(Value::Dict(items)) = other.value() else { continue };
        let keys: Vec<Value> = items.iter().map(|(k, _)| k.clone()).collect();
        match b.value() {
            Some(Value::List(_)) => out.push(Value::List(keys.clone())),
            Some(Value::Str(_)) => out.extend(keys.iter().filter(|k| matches!(k, Value::Str(_))).cloned()),
            _ => {}
        }
    }
    out
}

/// Variants that reach `except` handlers still uncovered: a function called
/// in the `try` body raises, or a name it reads is left undefined.
fn handler_variants(ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
    let lines: Vec<&str> = ctx.fragment.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        // The handler's block (comments and blank lines aside) never ran.
        let (_, end) = block_span(&lines, i);
        if !(t.starts_with("except") && (i as u32 + 2..=end as u32 + 1).any(|n| uncovered.contains(&n))) {
            continue;
        }
        let Some(try_at) = (0..i).rev().find(|&j| indent(lines[j]) == indent(l) && lines[j].trim_start().starts_with("try")) else { continue };
        let mut names: Vec<String> = Vec::new();
        for j in try_at + 1..i {
            for n in related_bindings(ctx, &best.prefix, j as u32 + 1) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        let exc = t.trim_start_matches("except").trim().trim_end_matches(':').split([' ', ',', '(', ')']).find(|w| !w.is_empty() && *w != "as").unwrap_or("Exception");
        let exc = if exc.chars().next().is_some_and(char::is_uppercase) && !exc.contains('.') { exc } else { "Exception" };
        if exc == "ImportError" || exc == "ModuleNotFoundError" {
            // The fallback for a missing library: make its import fail.
            for j in try_at + 1..i {
                if let Some(m) = module_of_import(lines[j].trim()) {
                    out.push(without_module(&best.prefix, &m));
                }
            }
        }
        if exc == "FileExistsError" {
            // `os.makedirs("out/data")` in the try body: it exists already.
            for path in (try_at + 1..i).flat_map(|j| path_literals(lines[j])) {
                let mut p = best.prefix.clone();
                let files = files_at(&path, &[]);
                if !files.is_empty() {
                    files.into_iter().for_each(|r| p.add_resource(r));
                    out.push(p);
                }
            }
        }
        for n in names {
            let b = best.prefix.binding(&n).unwrap();
            if exc == "NameError" {
                let mut p = best.prefix.clone();
                p.bindings.retain(|x| x.name != n);
                out.push(p);
            } else if matches!(b.value(), Some(Value::Function { .. })) {
                out.push(with_candidate(&best.prefix, &n, Value::Raises(exc.to_string())));
            } else if matches!(b.value(), Some(Value::Object { .. })) {
                // A method of it (or of a member) called in the `try` body raises.
                for call in (try_at + 1..i).flat_map(|j| method_calls_on(lines[j], &n)) {
                    let (owner, method) = call.rsplit_once('.').unwrap();
                    let mut p = best.prefix.clone();
                    if let Some(Value::Object { methods, .. }) = value_at_mut(&mut p, owner) {
                        if let Some(m) = methods.iter_mut().find(|(name, _)| name == method) {
                            m.1 = Value::Raises(exc.to_string());
                            out.push(p);
                        }
                    }
                }
            }
        }
    }
    out
}

/// String literals of a line that look like relative paths (`"out/data"`,
/// `'report.csv'`): no spaces, no absolute or parent paths.
fn path_literals(line: &str) -> Vec<String> {
    line.split(['\'', '"'])
        .skip(1)
        .step_by(2)
        .filter(|s| !s.is_empty() && s.len() < 80 && !s.starts_with('/') && !s.contains("..") && (s.contains('/') || s.contains('.')))
        .filter(|s| s.chars().all(|c| c.is_alphanumeric() || "._-/".contains(c)))
        .map(str::to_string)
        .collect()
}

/// Dotted paths of method calls rooted at `name` on a line (`self.queue.push(`
/// -> `self.queue.push`).
fn method_calls_on(line: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(name) {
        let before_ok = rest[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        let tail = &rest[at..];
        let path: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.').collect();
        if before_ok && path.contains('.') && tail[path.len()..].starts_with('(') && path.split('.').next() == Some(name) {
            out.push(path.clone());
        }
        rest = &rest[at + name.len()..];
    }
    out
}

/// `prefix` where importing `module` fails (as where it is not installed),
/// without the stand-ins that would import it first.
fn without_module(prefix: &Prefix, module: &str) -> Prefix {
    let top = module.split('.').next().unwrap_or(module);
    let mut p = prefix.clone();
    let imports_it = |stmt: &str| module_of_import(stmt).is_some_and(|m| m.split('.').next() == Some(top));
    p.bindings.retain(|b| match b.current() {
        Candidate::Import(stmt) => !imports_it(stmt),
        Candidate::Value(Value::Code { imports, .. }) => !imports.iter().any(|i| imports_it(i)),
        _ => true,
    });
    let source = format!("# `import {top}` fails here, as where it is not installed: the fragment's fallback runs.\nsys.modules[{}] = None", value::py_str(top));
    p.bindings.push(Binding::new(format!("_without_{top}"), vec![Candidate::Value(Value::Code { source, imports: vec!["import sys".into()] })]));
    p
}

/// `a == b` comparisons in a condition, where `a` is a value the prefix
/// defines (`leaf.type == token.COLON`): variants where they hold, each alone
/// and all together.
fn equality_variants(ctx: &Context, best: &Attempt, line: u32, condition: &str) -> Vec<Prefix> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let flat = condition.replace(['(', ')', '\n'], " ");
    for clause in flat.split(" and ").flat_map(|c| c.split(" or ")) {
        if let Some((l, r)) = clause.split_once("==").or_else(|| clause.split_once("!=")) {
            let (l, r) = (l.trim().trim_start_matches("not ").trim(), r.trim());
            // Either side may be the one to change (`src == dst` where `dst`
            // is what a prefix helper returned).
            if is_item_path(l) {
                pairs.push((l.to_string(), r.to_string()));
            }
            if is_item_path(r) {
                pairs.push((r.to_string(), l.to_string()));
            }
        }
    }
    let resolve = |p: &mut Prefix, rhs: &str| -> Option<Value> {
        if let Ok(i) = rhs.parse::<i64>() {
            return Some(Value::Int(i));
        }
        let q = rhs.chars().next()?;
        if (q == '\'' || q == '"') && rhs.ends_with(q) && rhs.len() >= 2 {
            return Some(Value::Str(rhs[1..rhs.len() - 1].to_string()));
        }
        // `path[i]`: an element of a list the prefix defines.
        if let Some((base, idx)) = rhs.strip_suffix(']').and_then(|r| r.rsplit_once('[')) {
            let i: i64 = idx.trim().parse().ok()?;
            if let Some(Value::List(items)) = value_at_mut(p, base.trim()) {
                let n = items.len() as i64;
                let at = if i < 0 { n + i } else { i };
                return (0..n).contains(&at).then(|| items[at as usize].clone());
            }
            return None;
        }
        if !is_item_path(rhs) {
            return None;
        }
        if let Some(v) = value_through_call(ctx, p, rhs, line) {
            return Some(v.clone());
        }
        let root = rhs.split('.').next()?;
        let imported = import_binding(ctx, root).is_some() || p.binding(root).is_some_and(|b| matches!(b.current(), Candidate::Import(_)));
        imported.then(|| Value::Expr { code: rhs.to_string(), imports: vec![] })
    };
    // A display of constants (`{"a": 1}`, `(1, 5)`, whose parentheses the
    // split dropped) is its own value.
    let display = |rhs: &str| -> Option<Value> {
        let constant = identifiers(rhs).iter().all(|i| ["True", "False", "None"].contains(&i.as_str()));
        let opened = rhs.starts_with(['{', '[']) || rhs.contains(',');
        (constant && opened && rhs.len() < 200).then(|| Value::Expr {
            code: if rhs.starts_with(['{', '[']) { rhs.to_string() } else { format!("({rhs})") },
            imports: vec![],
        })
    };
    let mut out = Vec::new();
    let mut all = best.prefix.clone();
    let mut changed_all = 0;
    for (lhs, rhs) in &pairs {
        let mut p = best.prefix.clone();
        let Some(v) = resolve(&mut p, rhs).or_else(|| display(rhs)) else { continue };
        // A value that fails the test.
        let other = alternatives(&Binding::new(lhs.clone(), vec![Candidate::Value(v.clone())]), "").into_iter().next();
        if let Some(slot) = value_through_call(ctx, &mut p, lhs, line) {
            if *slot != v {
                *slot = v.clone();
                out.push(p);
            } else if let Some(other) = &other {
                // Already equal: the branch on the other side of the test.
                *slot = other.clone();
                out.push(p);
            }
        }
        if let Some(slot) = value_through_call(ctx, &mut all, lhs, line) {
            *slot = v.clone();
            changed_all += 1;
        }
        // A loop variable: a later item (or one more) takes this arm, the
        // first keeps its own (`for n in nodes: if n.type == A: ... elif n.type == B:`).
        let root = lhs.split('.').next().unwrap_or_default();
        if lhs.contains('.') && best.prefix.binding(root).is_none() {
            let mut grown = best.prefix.clone();
            let extra = grow_loop(ctx, &mut grown, root, line);
            // ... or, one more item, none of them (the `else:` of the chain).
            if let (Some(i), Some(other)) = (extra, other) {
                let mut grown_other = grown.clone();
                if let Some(slot) = value_through_item(ctx, &mut grown_other, lhs, line, i) {
                    *slot = other;
                    out.push(grown_other);
                }
            }
            for (i, mut q) in (1..extra.unwrap_or(0)).map(|i| (i, best.prefix.clone())).chain(extra.map(|i| (i, grown))) {
                if let Some(slot) = value_through_item(ctx, &mut q, lhs, line, i).filter(|s| **s != v) {
                    *slot = v.clone();
                    out.push(q);
                }
            }
        }
    }
    if changed_all > 1 {
        out.insert(0, all);
    }
    out
}

/// `ctx.app is not self.app`: a variant where one side is the very object
/// the other names (`app = self.app` in its class), so that `is` holds.
fn identity_variants(ctx: &Context, best: &Attempt, line: u32, condition: &str) -> Vec<Prefix> {
    let mut out = Vec::new();
    let flat = condition.replace('\n', " ");
    for clause in flat.split(" and ").flat_map(|c| c.split(" or ")) {
        let clause = unbalanced_parens_trimmed(clause);
        let Some((l, r)) = clause.split_once(" is not ").or_else(|| clause.split_once(" is ")) else { continue };
        let (l, r) = (l.trim().trim_start_matches("not ").trim(), r.trim());
        for (lhs, rhs) in [(l, r), (r, l)] {
            let (lroot, rroot) = (lhs.split('.').next().unwrap_or_default(), rhs.split('.').next().unwrap_or_default());
            // The other side must already exist when this one is defined.
            let named = is_dotted(lhs) && is_dotted(rhs) && rhs != "None" && lroot != rroot;
            let mut p = best.prefix.clone();
            if !named || value_at_mut(&mut p, rhs).is_none() {
                continue;
            }
            let Some(slot) = value_through_call(ctx, &mut p, lhs, line) else { continue };
            let same = Value::Expr { code: rhs.to_string(), imports: vec![] };
            if *slot != same {
                *slot = same;
                out.push(p);
            }
        }
    }
    out
}

/// `not fast and not mode.is_ipynb`: a variant where every clause holds at
/// once (one name at a time never enters such a branch). Clauses are tested
/// paths (`x`, `not x`, `x is None`), or a string method's result
/// (`not text.strip()`).
fn conjunction_variants(ctx: &Context, best: &Attempt, line: u32, condition: &str) -> Vec<Prefix> {
    if condition.contains(" or ") || condition.contains('\n') {
        return Vec::new();
    }
    let mut p = best.prefix.clone();
    let mut changed = 0;
    for clause in condition.split(" and ") {
        let clause = unbalanced_parens_trimmed(clause);
        // `isinstance(e, HTTPException)`: an instance of a subclass of that type too.
        if let Some(test) = clause.strip_prefix("isinstance(").and_then(|c| c.strip_suffix(')')) {
            let Some((path, ty)) = test.split_once(',').map(|(p, t)| (p.trim(), t.trim())) else { return Vec::new() };
            if !is_dotted(ty) || crate::analysis::is_builtin(ty) {
                return Vec::new();
            }
            let Some(Value::Object { class, .. }) = value_through_call(ctx, &mut p, path, line) else { return Vec::new() };
            *class = match class.split_once('(') {
                Some((_, bases)) if bases.trim_end_matches(')').split(',').any(|b| b.trim() == ty) => continue,
                Some((name, bases)) => format!("{name}({}, {ty})", bases.trim_end_matches(')')),
                None => format!("{class}({ty})"),
            };
            changed += 1;
            continue;
        }
        let (path, want_truthy) = if let Some(rest) = clause.strip_prefix("not ") {
            (rest.trim(), false)
        } else if let Some(rest) = clause.strip_suffix(" is None") {
            (rest.trim(), false)
        } else {
            (clause, true)
        };
        // `text.strip()`: the string itself decides.
        let path = ["strip", "lstrip", "rstrip"].iter().find_map(|m| path.strip_suffix(&format!(".{m}()"))).unwrap_or(path);
        // `self.trap(e)`: what the method returns decides.
        let callee = path.strip_suffix(')').and_then(|c| c.split_once('(')).map(|(c, _)| c).filter(|c| is_dotted(c));
        let Some(slot) = value_through_call(ctx, &mut p, callee.unwrap_or(path), line) else { return Vec::new() };
        let slot = match (callee, slot) {
            (None, slot) => slot,
            (Some(_), Value::Function { returns, is_async: false }) => &mut **returns,
            (Some(_), _) => return Vec::new(),
        };
        let none_test = clause.ends_with(" is None");
        let wanted = match (truthy(slot), want_truthy) {
            (Some(t), w) if t == w && !(none_test && *slot != Value::None) => continue,
            (Some(true), false) if none_test => Value::None,
            (Some(true), false) => falsy(slot).unwrap_or(Value::None),
            (Some(false), true) => match slot {
                Value::Bool(_) => Value::Bool(true),
                Value::Int(_) => Value::Int(1),
                Value::Float(_) => Value::Float(1.5),
                Value::Str(_) => Value::Str("text".into()),
                Value::List(_) => Value::List(vec![Value::Int(1)]),
                _ => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        *slot = wanted;
        changed += 1;
    }
    if changed >= 2 { vec![p] } else { Vec::new() }
}

/// Members a condition tests through a name the fragment assigned (`p =
/// leaf.parent`; `if not p.parent`): the value each lands on, varied.
fn path_variants(ctx: &Context, best: &Attempt, line: u32, condition: &str) -> Vec<Prefix> {
    let mut out = Vec::new();
    for path in dotted_paths(condition) {
        let root = path.split('.').next().unwrap_or_default();
        if best.prefix.binding(root).is_some() {
            // A prefix value's members vary with the value itself.
            continue;
        }
        let mut p = best.prefix.clone();
        let Some(slot) = value_through_call(ctx, &mut p, &path, line) else { continue };
        let here = Binding::new(path.clone(), vec![Candidate::Value(slot.clone())]);
        for alt in alternatives(&here, condition).into_iter().take(4) {
            let mut q = best.prefix.clone();
            if let Some(slot) = value_through_call(ctx, &mut q, &path, line) {
                *slot = alt;
                out.push(q);
            }
        }
    }
    out
}

/// A clause cut out of `(a and b.strip())` without the parenthesis the cut
/// left unmatched: `(a` → `a`, `b.strip())` → `b.strip()`.
fn unbalanced_parens_trimmed(clause: &str) -> &str {
    let mut c = clause.trim();
    let count = |c: &str, p: char| c.matches(p).count();
    while c.starts_with('(') && count(c, '(') > count(c, ')') {
        c = c[1..].trim_start();
    }
    while c.ends_with(')') && count(c, ')') > count(c, '(') {
        c = c[..c.len() - 1].trim_end();
    }
    c
}

/// Whether a value is true in a test, when that is plain from it.
fn truthy(v: &Value) -> Option<bool> {
    Some(match v {
        Value::None => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::List(x) | Value::Tuple(x) | Value::Set(x) => !x.is_empty(),
        Value::Dict(x) => !x.is_empty(),
        Value::Object { .. } | Value::Function { .. } | Value::Class { .. } => true,
        _ => return None,
    })
}

/// `a in b` with both sides dotted paths: a variant where `b` holds `a`.
fn membership_variants(ctx: &Context, best: &Attempt, line: u32) -> Vec<Prefix> {
    let text = ctx.line_text(line);
    let dotted = |s: &str| -> Option<String> {
        let t: String = s.trim().trim_start_matches("not ").trim_start_matches('(').trim_end_matches(':').trim_end_matches(')').trim().to_string();
        is_dotted(&t).then_some(t)
    };
    let cond = text.trim().trim_start_matches("elif ").trim_start_matches("if ").trim_start_matches("while ");
    let Some((a, b)) = cond.split_once(" not in ").or_else(|| cond.split_once(" in ")) else { return Vec::new() };
    let (Some(a), Some(b)) = (dotted(a.rsplit(" and ").next().unwrap_or(a)), dotted(b.split(" and ").next().unwrap_or(b))) else { return Vec::new() };
    let mut p = best.prefix.clone();
    // A fragment variable (`for name in chain(bps, (None,))`) holds what the
    // best run saw it hold first.
    let Some(element) = value_at_mut(&mut p, &a).map(|v| v.clone()).or_else(|| observed_value(best, &a)) else { return Vec::new() };
    // Looked up by it afterwards (`funcs[name]`): a mapping.
    let keyed = ctx.fragment.contains(&format!("{b}[{a}]"));
    match value_at_mut(&mut p, &b) {
        Some(Value::Dict(kv)) => {
            if kv.iter().any(|(k, _)| *k == element) {
                return Vec::new();
            }
            let v = kv.first().map_or(Value::Int(1), |(_, v)| v.clone());
            kv.insert(0, (element, v));
            vec![p]
        }
        Some(container @ Value::List(_)) if keyed => {
            let Value::List(items) = container else { return Vec::new() };
            let v = items.first().cloned().unwrap_or(Value::Int(1));
            *container = Value::Dict(vec![(element, v)]);
            vec![p]
        }
        Some(container) => {
            *container = Value::List(vec![element]);
            vec![p]
        }
        None => Vec::new(),
    }
}

/// The first value the best run saw a fragment variable take (a probe), when
/// its repr is a plain constant.
fn observed_value(best: &Attempt, name: &str) -> Option<Value> {
    let repr = best.outcome.values.values().flatten().find(|(n, _)| n == name).map(|(_, r)| r.as_str())?;
    Some(match repr {
        "None" => Value::None,
        "True" => Value::Bool(true),
        "False" => Value::Bool(false),
        // Escapes would need decoding to give the same string back.
        r if r.contains('\\') => return None,
        r => key_value(&parse_literal_key(r)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_literals_are_relative_paths_in_quotes() {
        assert_eq!(path_literals(r#"    os.makedirs("path/to/dir", exist_ok=True)  # 'a b'"#), ["path/to/dir"]);
        assert_eq!(path_literals("open('report.csv', 'w'); open('/etc/passwd'); x = '..'"), ["report.csv"]);
    }

    #[test]
    fn clauses_lose_only_the_parentheses_a_split_left_unmatched() {
        assert_eq!(unbalanced_parens_trimmed(" (not a"), "not a");
        assert_eq!(unbalanced_parens_trimmed("not b.strip())"), "not b.strip()");
        assert_eq!(unbalanced_parens_trimmed("not text.strip()"), "not text.strip()");
    }
}
