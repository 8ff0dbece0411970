//! The built-in deterministic proposer: rules about Python semantics and
//! library APIs, no model. It proposes the first prefix from usage facts,
//! refinements from a run's structured feedback, and variants that flip
//! branches.

use super::infer::{self, camel};
use super::lexical::{identifiers, is_dotted};
use super::knowledge::{kinds, well_known_import};
use super::prefix::{module_of_import, names_bound_by_import, Binding, Candidate, LocalModule, Prefix};
use super::resources::{directory_for, files_at, resource_for};
use super::session::{Attempt, Context};
use super::alternatives::alternatives;
use super::paths::{value_at_mut, value_through_item};
use super::value::Value;
use super::type_wants::{self, Wanted};
use super::evolve;
use super::library_names::{self, library_imports};
use super::library_errors;
use super::library_types;
use super::offline;
use super::Proposer;
use crate::analysis::{FreeName, Key, Usage, Wrap};
use crate::exec::RunStatus;
use crate::knowledge::conventional_import;

pub struct Deterministic;

impl Proposer for Deterministic {
    fn initial(&self, ctx: &Context) -> Prefix {
        let mut p = Prefix::default();
        let a = ctx.analysis;
        for f in a.free_names.iter() {
            p.bindings.push(binding_for(ctx, f, true));
        }
        // Names read before the fragment assigns them would fail at once;
        // in a function body they are its parameters.
        for f in &a.used_before_bound {
            if p.binding(&f.name).is_none() {
                let mut b = binding_for(ctx, f, false);
                // Used before the fragment imports it: that import, earlier.
                if let Some(stmt) = import_binding(ctx, &f.name).or_else(|| conventional_import(&f.name).map(str::to_string)) {
                    if !b.candidates.contains(&Candidate::Import(stmt.clone())) {
                        b.candidates.insert(0, Candidate::Import(stmt));
                    }
                }
                p.bindings.push(b);
            }
            if a.wrap != Wrap::None {
                p.wrapper_params.push(f.name.clone());
            }
        }
        let patterns = glob_patterns(ctx.fragment);
        // Relative paths written as literals ("./data") are created too.
        for path in relative_path_literals(ctx.fragment) {
            if a.files.iter().any(|f| f.path == path) {
                continue;
            }
            let mut pats = patterns.clone();
            pats.extend(extension_literals(ctx.fragment).into_iter().map(|e| format!("*{e}")));
            for r in files_at(&path, &pats) {
                p.add_resource(r);
            }
        }
        for file in &a.files {
            if file.writes {
                continue;
            }
            let last = file.path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            if ["listdir", "walk", "scandir", "glob", "iglob", "rglob", "iterdir"].contains(&file.how.as_str()) && !last.contains('.') {
                for r in directory_for(&file.path, &patterns) {
                    p.add_resource(r);
                }
            } else if let Some(r) = resource_for(&file.path, &file.how) {
                p.add_resource(r);
            }
        }
        // `os.environ["API_TOKEN"]` fails unless the variable is set.
        for read in a.env_reads.iter().filter(|r| r.required) {
            set_env(&mut p, &read.name);
        }
        add_driver(ctx, &mut p);
        apply_isinstance_bases(ctx, &mut p);
        // `super()` in a method body needs the body to be a method.
        if a.wrap != Wrap::None && ctx.fragment.contains("super(") {
            if let Some(Value::Object { class, .. }) = p.binding("self").and_then(Binding::value) {
                p.host = Some(super::value::class_ident(class).to_string());
            }
        }
        p
    }

    fn refine(&self, ctx: &Context, attempt: &Attempt) -> Vec<Prefix> {
        if attempt.outcome.status == RunStatus::Timeout {
            // A loop that never ends waits for a value that ends it.
            let all: Vec<u32> = attempt.coverage.executable.clone();
            return self.variants(ctx, attempt, &all);
        }
        let Some(e) = &attempt.outcome.exception else { return Vec::new() };
        let base = &attempt.prefix;
        let mut out = Vec::new();
        let line = attempt.failing_line();
        let names_on_line: Vec<String> = line.map(|l| related_bindings(ctx, base, l)).unwrap_or_default();
        let is = |t: &str| e.type_name == t || e.bases.iter().any(|b| b == t);
        if is("NameError") || is("UnboundLocalError") {
            if let Some(name) = e.name.clone().or_else(|| quoted(&e.message)) {
                if base.binding(&name).is_none() {
                    let usage = usage_of(ctx, &name);
                    let f = FreeName { name: name.clone(), first_line: line.unwrap_or(1), usage };
                    let mut p = base.clone();
                    p.bindings.push(binding_for(ctx, &f, true));
                    if is("UnboundLocalError") && ctx.analysis.wrap != Wrap::None {
                        p.wrapper_params.push(name.clone());
                    }
                    out.push(p);
                }
            }
        }
        if is("ModuleNotFoundError") {
            if let Some(m) = e.module.clone().or_else(|| e.name.clone()) {
                if !ctx.stdlib.contains(m.split('.').next().unwrap_or("")) && crate_dist_unknown(&m) {
                    let mut p = base.clone();
                    if p.module_mut(&m).is_none() {
                        p.modules.push(local_module(ctx, &m));
                        out.push(p);
                    }
                }
            }
        }
        if is("FileNotFoundError") || is("IsADirectoryError") {
            if let Some(path) = &e.path {
                let how = ctx.analysis.files.iter().find(|f| &f.path == path).map(|f| f.how.as_str()).unwrap_or("open");
                if let Some(r) = resource_for(path, how) {
                    let mut p = base.clone();
                    p.add_resource(r);
                    out.push(p);
                }
            }
        }
        if is("FileNotFoundError") && e.path.is_none() {
            // The path is in a synthesised string the line reads.
            for n in &names_on_line {
                if let Some(Value::Str(path)) = base.binding(n).and_then(Binding::value) {
                    if let Some(r) = resource_for(path, "open") {
                        let mut p = base.clone();
                        p.add_resource(r);
                        out.push(p);
                    }
                }
            }
        }
        let pandas_labels = if is("KeyError") { pandas_missing_labels(&e.message) } else { Vec::new() };
        if !pandas_labels.is_empty() {
            // pandas names every missing label at once: add them all.
            for n in &names_on_line {
                let mut p = base.clone();
                let b = p.binding_mut(n).unwrap();
                if pandas_labels.iter().rev().fold(false, |acc, c| add_key(b, c) || acc) {
                    out.push(p);
                }
            }
        } else if is("KeyError") {
            // pandas groupby: KeyError('Column not found: amount').
            let key = match e.message.trim_matches(['\'', '"']).strip_prefix("Column not found: ") {
                Some(col) => Some(KeyLit::Str(col.to_string())),
                None => e.key.as_deref().and_then(parse_literal_key),
            };
            // `kwds = locals().copy(); del kwds['sep']`: the function the
            // body was cut from had that parameter; the wrapper gets it.
            if let (Some(KeyLit::Str(k)), true) = (&key, ctx.analysis.wrap != Wrap::None && ctx.fragment.contains("locals()")) {
                let is_name = k.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && k.chars().all(|c| c.is_alphanumeric() || c == '_');
                if is_name && !base.wrapper_params.contains(k) {
                    let mut p = base.clone();
                    if p.binding(k).is_none() {
                        let f = FreeName { name: k.clone(), first_line: line.unwrap_or(1), usage: Usage::default() };
                        p.bindings.push(binding_for(ctx, &f, true));
                    }
                    p.wrapper_params.push(k.clone());
                    out.push(p);
                }
            }
            if let Some(key) = key {
                for n in &names_on_line {
                    let mut p = base.clone();
                    if add_key(p.binding_mut(n).unwrap(), &key) {
                        out.push(p);
                    }
                }
            }
        }
        if is("AttributeError") && e.obj_type.as_deref() == Some("module") {
            // `module 'signal' has no attribute 'code'`: the fragment's
            // `signal` is a variable named like a module, not the module.
            if let Some(module) = quoted(&e.message) {
                // `module 'urllib' has no attribute 'request'`: a submodule
                // that `import urllib` does not load; import it (still an import).
                // Only for an attribute the fragment uses like a module itself
                // (`urllib.request.urlopen`, not `signal.code is None`).
                let submodule_use = e.name.as_deref().and_then(|a| usage_of(ctx, &module).attrs.get(a).cloned()).is_some_and(|u| library_names::used_like_a_module(&u));
                if let (Some(attr), Some(b), true) = (e.name.as_deref(), base.binding(&module), submodule_use) {
                    let stmt = Candidate::Import(format!("import {module}.{attr}"));
                    let plain = attr.chars().all(|c| c.is_alphanumeric() || c == '_') && !module.contains('.');
                    if plain && b.import_only() && !b.candidates.contains(&stmt) && !module.starts_with('_') {
                        let mut p = base.clone();
                        let b = p.binding_mut(&module).unwrap();
                        b.candidates.insert(b.choice + 1, stmt);
                        b.choice += 1;
                        out.push(p);
                    }
                }
                let last_import = base.binding(&module).is_some_and(|b| b.import_only() && b.choice + 1 >= b.candidates.len());
                let usage = usage_of(ctx, &module);
                if last_import && library_names::may_be_a_variable(ctx, &module, &usage) && !base.not_modules.contains(&module) {
                    let f = FreeName { name: module.clone(), first_line: line.unwrap_or(1), usage };
                    let values = value_binding(ctx, &f, false);
                    if !values.candidates.is_empty() {
                        let mut p = base.clone();
                        p.not_modules.push(module.clone());
                        if let Some(b) = p.binding_mut(&module) {
                            *b = values;
                        }
                        out.push(p);
                    }
                }
            }
        }
        if is("AttributeError") {
            if let Some(attr) = e.name.clone() {
                let called = line.is_some_and(|l| ctx.line_text(l).contains(&format!(".{attr}(")));
                // `super()` stands for `self`: the base class (self's own) lacks it.
                let mut targets = names_on_line.clone();
                if e.obj_type.as_deref() == Some("super") && base.binding("self").is_some() {
                    let mut p = base.clone();
                    let member = Value::Function { returns: Box::new(Value::None), is_async: false };
                    if let Some(Candidate::Value(Value::Object { attrs, methods, .. })) = p.binding_mut("self").map(Binding::current_mut) {
                        if !attrs.iter().chain(methods.iter()).any(|(n, _)| *n == attr) {
                            if called { methods.push((attr.clone(), member)) } else { attrs.push((attr.clone(), Value::None)) }
                            out.push(p);
                        }
                    }
                    targets.clear();
                }
                for n in &targets {
                    let mut p = base.clone();
                    let whole = usage_of(ctx, n);
                    let own_type = base.binding(n).and_then(Binding::value).map(Value::type_name);
                    if own_type.is_some() && own_type.as_deref() != e.obj_type.as_deref() {
                        // The value lacking it sits inside this one (`parcel.sender.name`).
                        let member = if called { Value::Function { returns: Box::new(Value::None), is_async: false } } else { Value::Str(attr.clone()) };
                        if let Some(Candidate::Value(v)) = p.binding_mut(n).map(Binding::current_mut) {
                            if v.give_nested_attr(e.obj_type.as_deref().unwrap_or(""), &attr, &member, n, 0) {
                                out.push(p);
                                continue;
                            }
                        }
                    }
                    let returns = whole.attrs.get(&attr).cloned().unwrap_or_default();
                    if add_member(p.binding_mut(n).unwrap(), &attr, called, &returns, &whole, |v| buildable(ctx, v)) {
                        out.push(p);
                    }
                }
                // An instance of a class of a created module lacks it: add it there.
                if let Some(class) = e.obj_type.as_deref() {
                    if let Some(p) = add_to_local_class(base, class, &attr, called) {
                        out.push(p);
                    }
                }
                // A module this prefix created lacks the member: add it.
                if e.obj_type.as_deref() == Some("module") {
                    if let Some(module) = quoted(&e.message) {
                        if let Some(p) = add_to_local_module(base, &module, &attr, called) {
                            out.push(p);
                        }
                    }
                }
            }
        }
        if is("TypeError") {
            // `partial(f, ...)`, `defaultdict(f)`: "the first argument must be
            // callable" names the argument by position, not by type.
            let suspects = match (e.message.contains("first argument must be"), line) {
                (true, Some(l)) => first_arguments(ctx.line_text(l)).into_iter().filter(|n| names_on_line.contains(n)).collect(),
                _ => names_on_line.clone(),
            };
            // `magics[node.lineno]` with a str lineno: a member used as an
            // index is a position more often than the list is a mapping.
            if let (true, Some(l)) = (e.message.contains("indices must be integers"), line) {
                for path in subscript_paths(ctx.line_text(l)) {
                    let mut p = base.clone();
                    let mut changed = false;
                    // Every item a loop variable stands for.
                    for item in 0..16 {
                        match value_through_item(ctx, &mut p, &path, l, item) {
                            Some(slot @ (Value::Str(_) | Value::Float(_) | Value::None)) => {
                                *slot = Value::Int(1);
                                changed = true;
                            }
                            Some(_) => {}
                            None => break,
                        }
                    }
                    if changed {
                        out.push(p);
                    }
                }
            }
            out.extend(type_error_fixes(ctx, base, &suspects, &e.message));
        }
        if (is("TypeError") || is("AttributeError")) && names_a_builtin(&e.message) {
            // A builtin used as data (`del dict[key]`, `for x in list`): the
            // fragment was cut from code that bound that name to a value.
            for f in line.map(|l| identifiers(ctx.line_text(l))).unwrap_or_default().iter().filter_map(|n| builtin_used_as_data(ctx, n)) {
                if base.binding(&f.name).is_none() {
                    let mut p = base.clone();
                    p.bindings.push(binding_for(ctx, f, true));
                    out.push(p);
                }
            }
        }
        if is("ImportError") && !is("ModuleNotFoundError") {
            // `cannot import name 'x' from 'm'` for a module this prefix created.
            let mut quotes = e.message.split('\'').skip(1).step_by(2);
            if let (Some(name), Some(module)) = (quotes.next(), quotes.next()) {
                let called = name.chars().next().is_some_and(char::is_lowercase);
                if let Some(p) = add_to_local_module(base, module, name, called) {
                    out.push(p);
                }
            }
        }
        if offline::NETWORK_ERRORS.iter().any(|t| is(t) || e.type_name.ends_with(t)) {
            let mut p = base.clone();
            if offline::add_offline_network(ctx, &mut p) {
                out.push(p);
            }
        }
        // A library raised on the inputs: shape them as its error asks.
        out.extend(library_errors::refinements(ctx, base, e, line));
        if is("ValueError") {
            // `invalid literal for int() with base 10: 'The quick ...'`: the
            // quoted text is a string the prefix gave; another kind of text.
            if let Some(text) = e.message.rsplit_once(": '").map(|(_, t)| t.trim_end_matches('\'')).filter(|t| t.len() >= 3) {
                for replacement in texts_for(&e.message) {
                    let mut p = base.clone();
                    let mut changed = false;
                    for b in p.bindings.iter_mut() {
                        if let Candidate::Value(v) = b.current_mut() {
                            changed |= replace_text(v, text, replacement, 0);
                        }
                    }
                    if changed {
                        out.push(p);
                    }
                }
            }
            // `Length of values (5) does not match length of index (3)`: a
            // list on the line has one of the lengths and must have the other.
            if let Some(lengths) = mismatched_lengths(&e.message) {
                for n in &names_on_line {
                    let mut p = base.clone();
                    if resize(p.binding_mut(n).unwrap(), lengths) {
                        out.push(p);
                    }
                }
            }
        }
        if is("IndexError") {
            for n in &names_on_line {
                let mut p = base.clone();
                if grow(p.binding_mut(n).unwrap()) {
                    out.push(p);
                }
            }
        }
        if is("AssertionError") {
            // The assertion states what the values must be: try the values
            // its condition suggests.
            if let Some(l) = line {
                let text = ctx.line_text(l).to_string();
                for n in &names_on_line {
                    let b = base.binding(n).unwrap();
                    for alt in alternatives(b, &text) {
                        out.push(with_candidate(base, n, alt));
                    }
                }
            }
        }
        // Whatever the error: the next candidate of each name on the line,
        // and of a name whose own definition failed.
        let mut suspects = names_on_line.clone();
        if line.is_none() {
            if let Some(pl) = e.line {
                if let Some(n) = defining_binding(attempt, pl) {
                    suspects.push(n);
                }
            }
        }
        if is("ModuleNotFoundError") {
            // A value of ours needs a library that is not there (`pd.Series`
            // where pandas is not installed): its name's next candidate.
            if let Some(m) = e.name.clone().or_else(|| e.module.clone()) {
                let top = m.split('.').next().unwrap_or_default();
                for b in &base.bindings {
                    let mut imports = Vec::new();
                    if let Some(v) = b.value() {
                        v.imports(&mut imports);
                    }
                    let needs = imports.iter().any(|i| import_top(i) == top);
                    if needs && !suspects.contains(&b.name) {
                        suspects.push(b.name.clone());
                    }
                }
            }
        }
        for n in suspects {
            let mut p = base.clone();
            let b = p.binding_mut(&n).unwrap();
            if b.choice + 1 < b.candidates.len() {
                b.choice += 1;
                out.push(p);
            }
        }
        // No rule may bind a library name to a value (the last line of the
        // invariant; `binding_for` already gives such names imports only).
        out.retain(|p| library_names::faked_library_name(ctx, p).is_none() && library_names::patched_library_attribute(p).is_none());
        out
    }

    fn variants(&self, ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
        let mut out = evolve::variants(ctx, best, uncovered);
        out.retain(|p| library_names::faked_library_name(ctx, p).is_none() && library_names::patched_library_attribute(p).is_none());
        out
    }
}

/// Bind what `stmt` imports, unless the prefix binds those names already.
pub(super) fn add_import(p: &mut Prefix, stmt: &str) {
    for name in names_bound_by_import(stmt) {
        if p.binding(&name).is_none() {
            p.bindings.insert(0, Binding::new(name, vec![Candidate::Import(stmt.to_string())]));
        }
    }
}

/// `isinstance(path, T)` and `isinstance(path, (A, B))` calls in `text`:
/// the tested dotted path and the leading dotted name of each type.
pub(super) fn isinstance_calls(text: &str) -> Vec<(String, Vec<String>)> {
    let token = |s: &str| -> String { s.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.').collect() };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("isinstance(") {
        rest = &rest[at + "isinstance(".len()..];
        let Some((path, after)) = rest.split_once(',') else { break };
        let path = path.trim();
        let after = after.trim_start();
        let types: Vec<String> = match after.strip_prefix('(') {
            Some(inner) => inner.split(')').next().unwrap_or("").split(',').map(token).collect(),
            None => vec![token(after)],
        };
        let types: Vec<String> = types.into_iter().filter(|t| is_dotted(t)).collect();
        if is_dotted(path) && !types.is_empty() {
            out.push((path.to_string(), types));
        }
    }
    out
}

/// `isinstance(path, Type)` tests in the fragment against library types,
/// as (path, type); for a tuple of types, the first.
fn isinstance_tests(fragment: &str) -> Vec<(String, String)> {
    fragment
        .lines()
        .flat_map(isinstance_calls)
        .filter_map(|(path, types)| types.into_iter().next().filter(|t| t.contains('.')).map(|t| (path, t)))
        .collect()
}

/// Objects the fragment type-tests against a library class become
/// instances of a subclass of it, so the tested branch runs.
fn apply_isinstance_bases(ctx: &Context, p: &mut Prefix) {
    for (path, ty) in isinstance_tests(ctx.fragment) {
        let root = ty.split('.').next().unwrap_or("");
        let importable = import_binding(ctx, root).is_some() || p.binding(root).is_some_and(|b| matches!(b.current(), Candidate::Import(_)));
        if !importable {
            continue;
        }
        if let Some(Value::Object { class, .. }) = value_at_mut(p, &path) {
            if !class.contains('(') {
                *class = format!("{class}({ty})");
            }
        }
    }
}

/// The fragment's own import statement that binds `name`, if any.
pub(super) fn import_binding(ctx: &Context, name: &str) -> Option<String> {
    ctx.analysis.imports.iter().find_map(|i| {
        if i.level > 0 {
            return None;
        }
        if i.is_from {
            let (n, alias) = i.names.iter().find(|(n, a)| a.as_deref().unwrap_or(n) == name)?;
            Some(match alias {
                Some(a) => format!("from {} import {n} as {a}", i.module),
                None => format!("from {} import {n}", i.module),
            })
        } else {
            match &i.alias {
                Some(a) if a == name => Some(format!("import {} as {a}", i.module)),
                None if i.module.split('.').next() == Some(name) => Some(format!("import {}", i.module)),
                _ => None,
            }
        }
    })
}

/// A builtin type named by the annotation of a fragment function's
/// parameter that this name is passed to.
fn annotated_kind(ctx: &Context, usage: &Usage) -> Option<&'static str> {
    usage.passed_to.iter().find_map(|arg| {
        let f = ctx.analysis.functions.iter().find(|f| f.name == arg.callee)?;
        let param = match (&arg.keyword, arg.position) {
            (Some(k), _) => f.params.iter().find(|p| &p.name == k)?,
            (None, Some(i)) => f.params.get(i)?,
            _ => return None,
        };
        let ann = param.annotation.as_deref()?.trim();
        ["str", "int", "float", "bool", "list", "dict", "bytes", "set", "tuple"].into_iter().find(|t| ann == *t || ann.starts_with(&format!("{t}[")) || ann.starts_with(&format!("{}[", capitalize(t))))
    })
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// How a name can be defined: an import when it names a module or a
/// well-known library member, else values inferred from its usage.
fn binding_for(ctx: &Context, f: &FreeName, allow_import: bool) -> Binding {
    // A module or a library member: its imports and nothing else, so that
    // when the library raises, the inputs change and the library stays.
    if let Some(imports) = library_imports(ctx, &f.name, &f.usage) {
        return Binding::new(f.name.clone(), imports.into_iter().map(Candidate::Import).collect());
    }
    value_binding(ctx, f, allow_import)
}

/// How a name that is not a library name can be defined: values inferred
/// from its usage, after an import where it may still name a module.
fn value_binding(ctx: &Context, f: &FreeName, allow_import: bool) -> Binding {
    let mut c = Vec::new();
    // Read before the fragment assigns it a value of its own: that value, moved up.
    if let Some(code) = ctx.analysis.literal_assignments.get(&f.name) {
        c.push(Candidate::Value(Value::Expr { code: code.clone(), imports: vec![] }));
    }
    if let Some(kind) = annotated_kind(ctx, &f.usage) {
        c.push(Candidate::Value(infer::value_of_kind(kind, &f.name, &f.usage)));
    }
    // Used as an instance of a library type (`@app.route` where the fragment
    // imports flask): a real one, built with the library's own API.
    if let Some(v) = library_types::real_instance(ctx, f.usage.attrs.keys().map(String::as_str)) {
        c.push(Candidate::Value(v));
    }
    if allow_import {
        if ctx.stdlib.contains(&f.name) && !f.name.starts_with('_') {
            c.push(Candidate::Import(format!("import {}", f.name)));
        } else if let Some(stmt) = conventional_import(&f.name).or_else(|| well_known_import(&f.name)) {
            c.push(Candidate::Import(stmt.to_string()));
        } else if !f.usage.attrs.is_empty() && f.usage.calls.is_empty() && crate::knowledge::distribution_for(&f.name).is_some_and(|_| f.name.chars().all(|c| c.is_ascii_lowercase() || c == '_')) {
            // A known library's module name used with attributes (`sklearn.utils`).
            let sub = f.usage.attrs.iter().find(|(a, u)| !u.attrs.is_empty() && u.calls.is_empty() && crate::knowledge::distribution_for(&format!("{}.{a}", f.name)).is_some()).map(|(a, _)| a.clone());
            c.push(Candidate::Import(match sub {
                Some(a) => format!("import {}.{a}", f.name),
                None => format!("import {}", f.name),
            }));
        }
    }
    c.extend(infer::candidates(&f.name, &f.usage).into_iter().map(Candidate::Value));
    Binding::new(f.name.clone(), c)
}

fn usage_of(ctx: &Context, name: &str) -> Usage {
    ctx.analysis
        .free_names
        .iter()
        .chain(&ctx.analysis.used_before_bound)
        .find(|f| f.name == name)
        .map(|f| f.usage.clone())
        .unwrap_or_default()
}

/// Whether an error is about a builtin type or function used as a value.
fn names_a_builtin(message: &str) -> bool {
    ["'type' object", "type 'type'", "'builtin_function_or_method' object", "type object '"].iter().any(|m| message.contains(m))
}

/// A builtin name the fragment reads but never binds, used the way data is
/// (indexed, iterated, tested for membership), not called.
fn builtin_used_as_data<'a>(ctx: &'a Context, name: &str) -> Option<&'a FreeName> {
    let f = ctx.analysis.builtins_read.iter().find(|f| f.name == name)?;
    let u = &f.usage;
    let as_data = !u.subscripts.is_empty() || !u.subscript_writes.is_empty() || u.iterated || u.element.is_some() || !u.contains.is_empty() || u.operators.contains("contains");
    (as_data && u.calls.is_empty()).then_some(f)
}

fn crate_dist_unknown(module: &str) -> bool {
    crate::knowledge::distribution_for(module).is_none()
}

/// A local module the fragment imports (`from helpers import parse`),
/// created with the names taken from it.
fn local_module(ctx: &Context, module: &str) -> LocalModule {
    let mut m = LocalModule { name: module.to_string(), members: Vec::new() };
    for imp in ctx.analysis.imports.iter().filter(|i| i.is_from && i.module == module) {
        for (name, alias) in &imp.names {
            if name == "*" {
                continue;
            }
            // Used with members of its own (`reactor.callLater(...)`): an object that has them.
            let usage = ctx.analysis.imported_usage.get(alias.as_deref().unwrap_or(name));
            let value = match usage {
                Some(u) if !u.attrs.is_empty() && u.calls.is_empty() && !name.starts_with(char::is_uppercase) => infer::best(name, u, 1),
                _ => member_value(name, true),
            };
            m.members.push((name.clone(), value));
        }
    }
    m
}

/// A member of a created module: classes for capitalised names (taking any
/// arguments), functions for called names, else a plain value.
fn member_value(name: &str, called: bool) -> Value {
    if infer::is_exception_name(name) {
        infer::best(name, &Usage::default(), 1)
    } else if name.chars().next().is_some_and(char::is_uppercase) {
        Value::Class { attrs: vec![], methods: vec![("__init__".into(), Value::Function { returns: Box::new(Value::None), is_async: false })] }
    } else if called {
        Value::Function { returns: Box::new(Value::None), is_async: false }
    } else {
        Value::Int(1)
    }
}

/// Whether `name` is referenced outside its own `def`/`class` blocks (a
/// local variable of the same name inside the body does not count).
fn referenced(ctx: &Context, name: &str, def_lines: &[u32]) -> bool {
    let lines: Vec<&str> = ctx.fragment.lines().collect();
    let spans: Vec<(usize, usize)> = def_lines.iter().map(|&d| block_span(&lines, d as usize - 1)).collect();
    lines.iter().enumerate().any(|(i, l)| {
        !spans.iter().any(|&(a, b)| i >= a && i <= b) && identifiers(l).iter().any(|w| w == name)
    })
}

/// Whether the function defined at `line` yields (its calls must be drained).
fn is_generator(ctx: &Context, line: u32) -> bool {
    let lines: Vec<&str> = ctx.fragment.lines().collect();
    let (a, b) = block_span(&lines, line as usize - 1);
    lines[a + 1..=b].iter().any(|l| {
        let t = l.trim_start();
        t.starts_with("yield") || t.contains(" yield ") || t.contains("= yield") || t.contains("(yield")
    })
}

/// First and last line index of the block headed at `start` (by indentation).
pub(super) fn block_span(lines: &[&str], start: usize) -> (usize, usize) {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let head = indent(lines[start]);
    let mut end = start;
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        if l.trim().is_empty() {
            continue;
        }
        if indent(l) <= head {
            break;
        }
        end = i;
    }
    (start, end)
}

/// The prefix binding that holds the argument of `param` in a driver call
/// of `callee`, where the parameter's own name is taken.
pub(super) fn argument_name(param: &str, callee: &str) -> String {
    format!("{param}_{}", callee.to_lowercase())
}

/// Arguments for a call of `f`: one prefix binding per required parameter,
/// named like the parameter (so refinements on the body's lines find it)
/// unless that name is taken, then an inline value.
fn driver_args(ctx: &Context, p: &mut Prefix, f: &crate::analysis::FunctionDef, skip_self: bool) -> String {
    let mut args = Vec::new();
    for (i, param) in f.params.iter().enumerate() {
        if (skip_self && i == 0) || !param.star.is_empty() || param.has_default {
            continue;
        }
        let taken = ctx.analysis.bound_names.contains(&param.name)
            || ctx.analysis.free_names.iter().any(|n| n.name == param.name)
            || p.binding(&param.name).is_some();
        let value = if taken { Some(infer::best(&param.name, &param.usage, 1)) } else { None };
        if let Some(v) = value.filter(|v| !v.needs_definition()) {
            args.push(v.expr());
        } else if taken {
            // The name is the fragment's own: an argument of this call under
            // a name of its own (an object needs its class defined first).
            let name = argument_name(&param.name, &f.name);
            if p.binding(&name).is_none() {
                let fname = FreeName { name: name.clone(), first_line: f.line, usage: param.usage.clone() };
                p.bindings.push(binding_for(ctx, &fname, false));
            }
            args.push(name);
        } else {
            let fname = FreeName { name: param.name.clone(), first_line: f.line, usage: param.usage.clone() };
            p.bindings.push(binding_for(ctx, &fname, false));
            args.push(param.name.clone());
        }
    }
    args.join(", ")
}

/// Calls of the functions and methods the fragment defines but never uses,
/// so that their bodies run.
fn add_driver(ctx: &Context, p: &mut Prefix) {
    let a = ctx.analysis;
    if a.wrap != Wrap::None {
        // Definitions inside a wrapped body are local to the wrapper.
        return;
    }
    let def_lines = |name: &str| -> Vec<u32> {
        a.functions.iter().filter(|f| f.name == name).map(|f| f.line).chain(a.classes.iter().filter(|c| c.name == name).map(|c| c.line)).collect()
    };
    let mut done: Vec<&str> = Vec::new();
    // The last definition of a name is the one a call reaches.
    for f in a.functions.iter().rev() {
        if done.contains(&f.name.as_str()) || referenced(ctx, &f.name, &def_lines(&f.name)) {
            continue;
        }
        done.push(&f.name);
        let mut call = format!("{}({})", f.name, driver_args(ctx, p, f, false));
        if is_generator(ctx, f.line) {
            call = format!("list({call})");
        }
        p.driver.insert(0, if f.is_async { format!("asyncio.run({call})") } else { call });
        if f.is_async && !p.driver.iter().any(|d| d == "import asyncio") {
            p.driver.insert(0, "import asyncio".into());
        }
    }
    for c in &a.classes {
        if referenced(ctx, &c.name, &def_lines(&c.name)) {
            continue;
        }
        let init = c.methods.iter().find(|m| m.name == "__init__");
        let init_args = init.map(|m| driver_args(ctx, p, m, true)).unwrap_or_default();
        let obj = format!("{}_instance", c.name.to_lowercase());
        p.driver.push(format!("{obj} = {}({init_args})", c.name));
        for m in c.methods.iter().filter(|m| !m.name.starts_with("__")) {
            let is_static = m.params.first().is_none_or(|p| p.name != "self" && p.name != "cls");
            let call = format!("{obj}.{}({})", m.name, driver_args(ctx, p, m, !is_static));
            p.driver.push(if m.is_async { format!("asyncio.run({call})") } else { call });
        }
        if c.methods.iter().any(|m| m.is_async) && !p.driver.iter().any(|d| d == "import asyncio") {
            p.driver.insert(0, "import asyncio".into());
        }
    }
}

/// String literals that are relative paths (`'./python'`, `'data/in.csv'` is not: only `./`).
fn relative_path_literals(fragment: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, part) in fragment.split(['\'', '"']).enumerate() {
        let ok = i % 2 == 1 && part.starts_with("./") && part.len() > 2 && part.len() < 60 && !part.contains(' ') && !part.contains('*');
        if ok && !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// Extension literals (`'.py'`).
fn extension_literals(fragment: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, part) in fragment.split(['\'', '"']).enumerate() {
        let ok = i % 2 == 1 && part.starts_with('.') && part.len() > 1 && part.len() < 8 && part[1..].chars().all(|c| c.is_ascii_alphanumeric());
        if ok && !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// Glob patterns written as string literals (`'*.csv'`).
fn glob_patterns(fragment: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in fragment.split(['\'', '"']) {
        if part.starts_with("*.") && part.len() < 12 && !out.iter().any(|p| p == part) {
            out.push(part.to_string());
        }
    }
    out
}

/// Methods that fill a collection with their arguments.
const MUTATORS: [&str; 6] = ["update", "extend", "append", "add", "insert", "setdefault"];

/// Prefix names the failing line depends on: read there directly, or
/// through fragment variables assigned from them (a short backward slice).
pub(super) fn related_bindings(ctx: &Context, prefix: &Prefix, line: u32) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut frontier = identifiers(ctx.line_text(line));
    for _ in 0..5 {
        let mut next = Vec::new();
        for name in frontier {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            if prefix.binding(&name).is_some() {
                out.push(name);
                continue;
            }
            for (l, names) in &ctx.analysis.assigned {
                if *l <= line && names.contains(&name) {
                    next.extend(identifiers(ctx.line_text(*l)));
                }
            }
            // Filled in place (`merged.update(mapping)`, `out.append(item)`).
            for text in ctx.fragment.lines().take(line as usize) {
                if MUTATORS.iter().any(|m| text.trim_start().starts_with(&format!("{name}.{m}("))) {
                    next.extend(identifiers(text));
                }
            }
        }
        frontier = next;
    }
    out
}

fn quoted(msg: &str) -> Option<String> {
    let start = msg.find('\'')? + 1;
    let end = start + msg[start..].find('\'')?;
    Some(msg[start..end].to_string())
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum KeyLit {
    Str(String),
    Int(i64),
}

pub(super) fn parse_literal_key(repr: &str) -> Option<KeyLit> {
    let r = repr.trim();
    if let Ok(i) = r.parse::<i64>() {
        return Some(KeyLit::Int(i));
    }
    let q = r.chars().next()?;
    if (q == '\'' || q == '"') && r.ends_with(q) && r.len() >= 2 {
        return Some(KeyLit::Str(r[1..r.len() - 1].replace("\\'", "'")));
    }
    None
}

/// The labels a pandas KeyError lists: `"['a', 'b'] not in index"` or
/// `"None of [Index([0, 3], dtype='int64')] are in the [columns]"`.
fn pandas_missing_labels(message: &str) -> Vec<KeyLit> {
    let m = message.trim_matches(['\'', '"']);
    let list = if let Some(rest) = m.strip_prefix("None of [Index([") {
        rest.split_once(']').map(|(items, _)| items)
    } else if let Some(head) = m.strip_suffix(" not in index") {
        head.strip_prefix('[').and_then(|h| h.strip_suffix(']'))
    } else {
        None
    };
    let Some(list) = list else { return Vec::new() };
    split_items(list).iter().filter_map(|item| parse_literal_key(item)).collect()
}

/// Split a printed list's items at the commas outside quotes.
fn split_items(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quote) = (0, None);
    for (i, c) in list.char_indices() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (q, Some(open)) if q == open => quote = None,
            (',', None) => {
                items.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(list[start..].trim());
    items.retain(|i| !i.is_empty());
    items
}

pub(super) fn key_value(key: &KeyLit) -> Value {
    match key {
        KeyLit::Str(s) => Value::Str(s.clone()),
        KeyLit::Int(i) => Value::Int(*i),
    }
}

fn add_key(b: &mut Binding, key: &KeyLit) -> bool {
    let Candidate::Value(v) = b.current_mut() else { return false };
    let k = key_value(key);
    match v {
        Value::Dict(items) if !items.iter().any(|(x, _)| *x == k) => {
            let sample = items.first().map(|(_, v)| v.clone()).unwrap_or(Value::Int(1));
            items.push((k, sample));
            true
        }
        Value::Expr { code, .. } if code.starts_with("pd.DataFrame({") => {
            let label = match key {
                KeyLit::Str(s) => super::value::py_str(s),
                KeyLit::Int(i) => i.to_string(),
            };
            if code.contains(&format!("{{{label}: [")) || code.contains(&format!(", {label}: [")) {
                return false;
            }
            // The placeholder columns go once real ones are known.
            for default in [", 'A': [3, 4, 5], 'B': [3, 4, 5]", "'A': [3, 4, 5], 'B': [3, 4, 5]"] {
                if code.contains(default) {
                    *code = code.replacen(default, "", 1);
                    break;
                }
            }
            let col = format!("{label}: [1, 2, 3]");
            let sep = if code == "pd.DataFrame({})" { "" } else { ", " };
            *code = code.replacen("pd.DataFrame({", &format!("pd.DataFrame({{{col}{sep}"), 1);
            true
        }
        _ => false,
    }
}

/// Add a member to a module this prefix created.
fn add_to_local_module(base: &Prefix, module: &str, name: &str, called: bool) -> Option<Prefix> {
    let mut p = base.clone();
    let m = p.module_mut(module)?;
    if m.members.iter().any(|(n, _)| n == name) {
        return None;
    }
    m.members.push((name.to_string(), member_value(name, called)));
    Some(p)
}

/// A created module's class lacks an attribute its instances are used
/// with: add it; a method returns an instance of a new class named after
/// it, so a chain of calls can be discovered one link at a time.
fn add_to_local_class(base: &Prefix, class: &str, attr: &str, called: bool) -> Option<Prefix> {
    let mut p = base.clone();
    let m = p.modules.iter_mut().find(|m| m.members.iter().any(|(n, v)| n == class && matches!(v, Value::Class { .. })))?;
    let result_class = camel(attr);
    let needs_result = called && !m.members.iter().any(|(n, _)| *n == result_class);
    let (_, Value::Class { attrs, methods }) = m.members.iter_mut().find(|(n, _)| n == class)? else { return None };
    if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
        return None;
    }
    if called {
        methods.push((attr.to_string(), Value::Function { returns: Box::new(Value::Expr { code: format!("{result_class}()"), imports: vec![] }), is_async: false }));
    } else {
        attrs.push((attr.to_string(), Value::Str(attr.to_string())));
    }
    if needs_result {
        m.members.push((result_class, Value::Class { attrs: vec![], methods: vec![] }));
    }
    Some(p)
}

fn add_member(b: &mut Binding, attr: &str, called: bool, usage: &Usage, usage_whole: &Usage, buildable: impl Fn(&Value) -> bool) -> bool {
    let class = camel(&b.name);
    let Some(current) = b.value().cloned() else { return false };
    let returns = usage.returns.as_deref().filter(|r| **r != Usage::default()).map(|r| infer::best(attr, r, 1)).unwrap_or(Value::None);
    let member = if called { Value::Function { returns: Box::new(returns), is_async: false } } else if *usage != Usage::default() { infer::best(attr, usage, 1) } else { Value::Str(attr.to_string()) };
    if let Some(base) = builtin_base(&current) {
        // Another builtin kind that has the attribute (`decode`: bytes, not str),
        // keeping the text where both are strings of some sort.
        let other = kinds().iter().find(|(k, attrs)| k != base && attrs.contains(attr)).map(|(k, _)| k.as_str());
        // A builtin value lacks the attribute: a subclass of its type that has it.
        let member = if called { infer::legacy_method(base, attr).unwrap_or(member) } else { member };
        let (attrs, methods) = if called { (vec![], vec![(attr.to_string(), member)]) } else { (vec![(attr.to_string(), member)], vec![]) };
        let derived = Value::Derived { class, base: base.into(), value: Box::new(current.clone()), attrs, methods };
        b.candidates.insert(b.choice + 1, Candidate::Value(derived));
        if let Some(kind) = other {
            let alt = match (&current, kind) {
                (Value::Str(s), "bytes") => Value::Bytes(s.clone()),
                (Value::Bytes(s), "str") => Value::Str(s.clone()),
                _ => infer::value_of_kind(kind, &b.name, usage_whole),
            };
            // First the other builtin kind (unless it needs a library the
            // fragment does not use); the subclass stays next in line.
            if buildable(&alt) && !b.candidates.contains(&Candidate::Value(alt.clone())) {
                b.candidates.insert(b.choice + 1, Candidate::Value(alt));
            }
        }
        b.choice += 1;
        return true;
    }
    let Candidate::Value(v) = b.current_mut() else { return false };
    match v {
        Value::Derived { attrs, methods, .. } => {
            if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
                return false;
            }
            if called { methods.push((attr.to_string(), member)) } else { attrs.push((attr.to_string(), member)) }
            true
        }
        Value::Object { attrs, methods, .. } | Value::Class { attrs, methods } => {
            if attrs.iter().chain(methods.iter()).any(|(n, _)| n == attr) {
                return false;
            }
            if called { methods.push((attr.to_string(), member)) } else { attrs.push((attr.to_string(), member)) }
            true
        }
        other if !matches!(other, Value::Anything | Value::Function { .. }) => {
            // Another kind of value lacks it: an object of its own that has it.
            let (attrs, methods) = if called { (vec![], vec![(attr.to_string(), member)]) } else { (vec![(attr.to_string(), member)], vec![]) };
            b.choose(Value::Object { class, attrs, methods });
            true
        }
        _ => false,
    }
}

/// The builtin type a value can be subclassed from.
fn builtin_base(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Dict(_) => "dict",
        Value::List(_) => "list",
        Value::Str(_) => "str",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Set(_) => "set",
        Value::Tuple(_) => "tuple",
        _ => return None,
    })
}

fn grow(b: &mut Binding) -> bool {
    // An array literal of ours: more elements (columns, for a 2-D one).
    if let Candidate::Value(Value::Expr { code, .. }) = b.current_mut() {
        let bigger = match code.as_str() {
            c if c.starts_with("np.array([[") => "np.arange(1, 31).reshape(3, 10)",
            c if c.starts_with("np.array([") => "np.arange(1, 11)",
            _ => return false,
        };
        *code = bigger.to_string();
        return true;
    }
    let Candidate::Value(Value::List(items)) = b.current_mut() else { return false };
    if items.len() >= 10 {
        return false;
    }
    let first = items.first().cloned().unwrap_or(Value::Int(1));
    while items.len() < 10 {
        items.push(first.clone());
    }
    true
}

/// The top-level module an import statement imports from.
fn import_top(stmt: &str) -> String {
    let module = module_of_import(stmt).unwrap_or_default();
    module.split('.').next().unwrap_or_default().to_string()
}

/// Whether a value can be built here: what it imports is the standard
/// library, something the fragment imports, or the library of an alias or
/// a well-known name it uses (`pd`, `DataFrame`): what the environment installs.
fn buildable(ctx: &Context, v: &Value) -> bool {
    let mut imports = Vec::new();
    v.imports(&mut imports);
    imports.iter().map(|i| import_top(i)).all(|top| {
        ctx.stdlib.contains(&top)
            || ctx.analysis.imports.iter().any(|imp| imp.module.split('.').next() == Some(top.as_str()))
            || ctx.analysis.free_names.iter().filter_map(|f| conventional_import(&f.name).or_else(|| well_known_import(&f.name))).any(|stmt| import_top(stmt) == top)
    })
}

/// The two lengths a length-mismatch message names, when it names two.
fn mismatched_lengths(message: &str) -> Option<(usize, usize)> {
    if !message.to_lowercase().contains("length") {
        return None;
    }
    let mut numbers = message
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse::<usize>().ok());
    let (a, b) = (numbers.next()?, numbers.next()?);
    (a != b && numbers.next().is_none()).then_some((a, b))
}

/// A list of one of the two lengths gets the other (repeating its first
/// item with variations, or dropping the last ones).
fn resize(b: &mut Binding, (x, y): (usize, usize)) -> bool {
    let Candidate::Value(Value::List(items)) = b.current_mut() else { return false };
    let want = if items.len() == x { y } else if items.len() == y { x } else { return false };
    let Some(first) = items.first().cloned() else { return false };
    if !(1..=50).contains(&want) {
        return false;
    }
    items.truncate(want);
    for i in items.len()..want {
        items.push(infer::vary(&first, i));
    }
    true
}

/// Texts of other kinds for a string a ValueError rejected, the kind its
/// message names first (a number for `int()`, a date for a format, a
/// version for a version parser).
fn texts_for(message: &str) -> Vec<&'static str> {
    let m = message.to_lowercase();
    let mut out = Vec::new();
    if m.contains("version") {
        out.push("1.2.3");
    }
    if m.contains("date") || m.contains("time") || m.contains("format") {
        out.push("2024-01-15");
    }
    out.extend(["42", "3.5", "2024-01-15", "1.2.3"]);
    let mut seen = Vec::new();
    out.retain(|t| if seen.contains(t) { false } else { seen.push(*t); true });
    out.truncate(3);
    out
}

/// Replace the string `from` wherever it is in `v` (items, values,
/// members, what functions return).
fn replace_text(v: &mut Value, from: &str, to: &str, depth: usize) -> bool {
    if depth > 5 {
        return false;
    }
    match v {
        Value::Str(s) if s == from => {
            *s = to.to_string();
            true
        }
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter_mut().fold(false, |acc, x| replace_text(x, from, to, depth + 1) || acc),
        Value::Dict(kv) => kv.iter_mut().fold(false, |acc, (_, x)| replace_text(x, from, to, depth + 1) || acc),
        Value::Function { returns, .. } => replace_text(returns, from, to, depth + 1),
        Value::Object { attrs, methods, .. } | Value::Derived { attrs, methods, .. } | Value::Class { attrs, methods } => {
            attrs.iter_mut().chain(methods.iter_mut()).fold(false, |acc, (_, x)| replace_text(x, from, to, depth + 1) || acc)
        }
        _ => false,
    }
}

/// Dotted paths used as subscripts on `line` (`magics[node.value.lineno]`).
fn subscript_paths(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, _) in line.match_indices('[') {
        let Some(inner) = line[at + 1..].split(']').next() else { continue };
        let inner = inner.trim();
        if is_dotted(inner) && !inner.starts_with(|c: char| c.is_ascii_digit()) && !out.iter().any(|o| o == inner) {
            out.push(inner.to_string());
        }
    }
    out
}

/// Plain names passed first to a call on `line` (`partial(score, per=q)` →
/// `score`).
fn first_arguments(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices('(') {
        let arg = line[at + 1..].split([',', ')']).next().unwrap_or("").trim();
        if !arg.is_empty() && arg.chars().all(|c| c.is_alphanumeric() || c == '_') && !arg.starts_with(|c: char| c.is_ascii_digit()) && !out.iter().any(|o| o == arg) {
            out.push(arg.to_string());
        }
    }
    out
}

/// A TypeError names what a value should have been: the part of a name's
/// value that has the offending type (the value itself, what a function
/// returns, a dict's value, an attribute) becomes the wanted kind. List
/// items are left alone: an operator's other operand is more often the
/// list's own element (`text[:1] + 'Z'`).
fn type_error_fixes(ctx: &Context, base: &Prefix, names: &[String], message: &str) -> Vec<Prefix> {
    let Some(want) = type_wants::read(message) else { return Vec::new() };
    // Without the offending type, only a lone suspect can be the one.
    if want.bad.is_none() && names.len() != 1 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in names {
        let usage = usage_of(ctx, n);
        let Some(current) = base.binding(n).and_then(Binding::value) else { continue };
        for w in &want.wanted {
            let mut v = current.clone();
            if retype(&mut v, want.bad.as_deref(), w, n, &usage, want.items, 0) && v != *current {
                out.push(with_candidate(base, n, v));
            }
        }
    }
    if let (true, Some((typ, kind))) = (out.is_empty(), &want.swap) {
        // `text[:1] + 'Z'`: the name is the other operand.
        for n in names {
            if base.binding(n).and_then(Binding::value).is_some_and(|v| v.type_name() == *typ) {
                out.push(with_candidate(base, n, infer::value_of_kind(kind, n, &usage_of(ctx, n))));
            }
        }
    }
    out
}

fn retype(v: &mut Value, bad: Option<&str>, want: &Wanted, name: &str, usage: &Usage, items: bool, depth: usize) -> bool {
    if depth > 5 {
        return false;
    }
    if bad.map_or(depth == 0, |t| v.type_name() == t) {
        *v = match want {
            Wanted::Kind(k) => infer::value_of_kind(k, name, usage),
            Wanted::Library(l) => l.clone(),
        };
        return true;
    }
    let none = Usage::default();
    let part = |u: Option<&Usage>| u.cloned().unwrap_or_default();
    match v {
        Value::Function { returns, .. } => retype(returns, bad, want, "result", usage.returns.as_deref().unwrap_or(&none), items, depth + 1),
        Value::List(xs) | Value::Tuple(xs) if items => {
            let u = part(usage.element.as_deref());
            let item = infer::singular(name);
            xs.iter_mut().fold(false, |acc, it| retype(it, bad, want, &item, &u, items, depth + 1) || acc)
        }
        Value::Dict(kv) => kv.iter_mut().fold(false, |acc, (k, it)| {
            let key = match k {
                Value::Str(s) => s.clone(),
                other => other.expr(),
            };
            let u = part(usage.subscripts.iter().find(|(uk, _)| matches!(uk, Key::Str(s) if *s == key)).map(|(_, u)| u));
            retype(it, bad, want, &key, &u, items, depth + 1) || acc
        }),
        Value::Object { attrs, methods, .. } | Value::Derived { attrs, methods, .. } | Value::Class { attrs, methods } => {
            attrs.iter_mut().chain(methods.iter_mut()).fold(false, |acc, (a, it)| {
                let u = part(usage.attrs.get(a.as_str()));
                let a = a.clone();
                retype(it, bad, want, &a, &u, items, depth + 1) || acc
            })
        }
        _ => false,
    }
}

/// Which binding's definition contains program line `pl`.
fn defining_binding(attempt: &Attempt, pl: u32) -> Option<String> {
    let prefix_lines = attempt.program.prefix.lines().count() as u32;
    if pl > prefix_lines {
        return None;
    }
    let text = attempt.program.prefix.lines().nth(pl as usize - 1)?;
    let word = identifiers(text).into_iter().find(|w| attempt.prefix.binding(w).is_some());
    word.or_else(|| {
        attempt.program.prefix.lines().take(pl as usize).collect::<Vec<_>>().iter().rev().find_map(|l| {
            let head = l.strip_prefix("def ").or_else(|| l.strip_prefix("class ")).or_else(|| l.split_once(" = ").map(|(n, _)| n))?;
            let n: String = head.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            attempt.prefix.binding(&n).map(|_| n)
        })
    })
}

/// A copy of `prefix` where `name` takes `value` (kept among its candidates).
/// Set environment variable `name` to a value its name suggests, creating
/// the file the value names.
pub(super) fn set_env(p: &mut Prefix, name: &str) {
    let (value, file) = super::environment::env_value(name);
    p.set_env(name, &value);
    if let Some(f) = file {
        p.add_resource(f);
    }
}

pub(super) fn with_candidate(prefix: &Prefix, name: &str, value: Value) -> Prefix {
    let mut p = prefix.clone();
    if let Some(b) = p.binding_mut(name) {
        b.choose(value);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_tests_size_collections_and_never_index_an_empty_one() {
        let b = |v: Value| Binding::new("xs", vec![Candidate::Value(v)]);
        let alts = alternatives(&b(Value::List(vec![])), "len(xs) == 2");
        assert!(alts.iter().all(|a| matches!(a, Value::List(items) if items.is_empty()) || matches!(a, Value::None)), "{alts:?}");
        let alts = alternatives(&b(Value::List(vec![Value::Int(1)])), "len(xs) == 2");
        assert!(alts.contains(&Value::List(vec![Value::Int(1), Value::Int(2)])), "{alts:?}");
        let three = Value::Dict(["a", "b", "c"].iter().map(|k| (Value::Str((*k).into()), Value::Int(1))).collect());
        let alts = alternatives(&b(three), "len(xs) != 1");
        assert!(alts.contains(&Value::Dict(vec![(Value::Str("a".into()), Value::Int(1))])), "{alts:?}");
    }

    #[test]
    fn pandas_key_errors_list_their_labels() {
        let labels = pandas_missing_labels("\"None of [Index([0, 3], dtype='int64')] are in the [columns]\"");
        assert_eq!(labels, vec![KeyLit::Int(0), KeyLit::Int(3)]);
        let labels = pandas_missing_labels("\"['a, b', 'c'] not in index\"");
        assert_eq!(labels, vec![KeyLit::Str("a, b".into()), KeyLit::Str("c".into())]);
        assert!(pandas_missing_labels("'plain'").is_empty());
    }

    #[test]
    fn key_reprs_parse() {
        assert_eq!(parse_literal_key("'a'"), Some(KeyLit::Str("a".into())));
        assert_eq!(parse_literal_key("3"), Some(KeyLit::Int(3)));
        assert_eq!(parse_literal_key("(1, 2)"), None);
    }

    #[test]
    fn missing_keys_and_members_are_added() {
        let mut b = Binding::new("d", vec![Candidate::Value(Value::Dict(vec![(Value::Str("a".into()), Value::Int(1))]))]);
        assert!(add_key(&mut b, &KeyLit::Str("b".into())));
        assert_eq!(b.value().unwrap().expr(), "{'a': 1, 'b': 1}");
        let mut o = Binding::new("user", vec![Candidate::Value(Value::Str("Ada".into()))]);
        assert!(add_member(&mut o, "save", true, &Usage::default(), &Usage::default(), |_| true));
        assert_eq!(
            o.value().unwrap().definition("user"),
            "class User(str):\n    def save(self, *args, **kwargs):\n        return None\n\n\nuser = User('Ada')"
        );
    }

    #[test]
    fn length_mismatches_resize_the_list_of_either_length() {
        assert_eq!(mismatched_lengths("Length of values (5) does not match length of index (3)"), Some((5, 3)));
        assert_eq!(mismatched_lengths("Length mismatch: Expected axis has 2 elements, new values have 4 elements"), Some((2, 4)));
        assert_eq!(mismatched_lengths("invalid literal for int() with base 10: '12'"), None);
        let mut b = Binding::new("labels", vec![Candidate::Value(Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)]))]);
        assert!(resize(&mut b, (5, 3)));
        assert_eq!(b.value().unwrap().expr(), "[1, 2, 3, 4, 5]");
        assert!(resize(&mut b, (5, 2)));
        assert_eq!(b.value().unwrap().expr(), "[1, 2]");
        assert!(!resize(&mut b, (7, 9)), "neither length is the list's");
    }

    #[test]
    fn a_value_is_buildable_with_the_libraries_the_fragment_uses() {
        let stdlib: std::collections::BTreeSet<String> = ["io".to_string()].into();
        let series = Value::Expr { code: "pd.Series([1])".into(), imports: vec!["import pandas as pd".into()] };
        let buffer = Value::Expr { code: "io.BytesIO()".into(), imports: vec!["import io".into()] };
        for (src, pandas_there) in [("print(pd.__version__)\n", true), ("from pandas import concat\n", true), ("x.name\n", false)] {
            let analysis = crate::analysis::analyze(src);
            let ctx = Context { fragment: src, analysis: &analysis, stdlib: &stdlib };
            assert_eq!(buildable(&ctx, &series), pandas_there, "{src}");
            assert!(buildable(&ctx, &buffer));
        }
    }

    #[test]
    fn imports_name_their_top_level_module() {
        assert_eq!(import_top("import pandas as pd"), "pandas");
        assert_eq!(import_top("from pandas.tseries import offsets"), "pandas");
        assert_eq!(import_top("import os, sys"), "os");
        assert_eq!(import_top("from io import StringIO"), "io");
    }
}
