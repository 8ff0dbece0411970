//! Command-line entry points (click and typer): which functions are
//! commands, the parameters each declares, and the argument vector that
//! runs it. A command's body runs only when its library parses a command
//! line: called bare, `hello(ctx, name)` is a `click.Command` object's
//! `__call__`, which parses `sys.argv` and exits with status 2 on a
//! missing option. So the driver runs each command through the library's
//! own test API (`CliRunner().invoke(cli, [...])`), once per subcommand,
//! with arguments built from what the decorators (click) or the signature
//! (typer) declare. Read from the analysis' trees, never from text. Pure.
//!
//! Each value the argument vector carries is a prefix binding named like
//! the parameter (the value the command's body sees under that name), so
//! refinements and evolution edit it as any other value; the vector only
//! spells the bindings as the library parses them.

use super::drivers::argument_name;
use super::infer;
use super::prefix::{Binding, Candidate, Prefix};
use super::render::py_str;
use super::session::Context;
use super::value::Value;
use crate::analysis::{merge_usage, Condition, Constant, Decorator, FunctionDef, Literal, Usage};

/// Which library declares the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    Click,
    Typer,
}

impl Library {
    /// The test runner of the library (typer's wraps click's, and typer
    /// ships its own copy of click in recent releases).
    fn runner_import(self) -> &'static str {
        match self {
            Library::Click => "from click.testing import CliRunner",
            Library::Typer => "from typer.testing import CliRunner",
        }
    }
}

/// The type a parameter converts its text to.
#[derive(Debug, Clone, PartialEq)]
pub enum CliType {
    Str,
    Int,
    Float,
    Bool,
    /// `click.Choice([...])`: one of these.
    Choice(Vec<String>),
    /// `type=(str, int)`: one value per entry.
    Tuple(Vec<CliType>),
}

/// How a parameter appears on the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum Spelling {
    /// Positional.
    Argument,
    /// `--name VALUE`.
    Option(String),
    /// `--name` alone, present when true.
    Flag(String),
    /// `--name/--no-name`.
    FlagPair(String, String),
}

/// One parameter a command declares and the driver passes.
#[derive(Debug, Clone, PartialEq)]
pub struct CliParam {
    /// The Python parameter it fills.
    pub name: String,
    pub spelling: Spelling,
    pub ty: CliType,
    /// Several values: `multiple=True`, `nargs=-1`, `List[str]`.
    pub many: bool,
    /// A fixed count of values per occurrence (`nargs=2`).
    pub nargs: usize,
    /// How the body (and a validating callback) uses it.
    pub usage: Usage,
}

/// One command and the path of group names that reaches it.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The decorated function.
    pub function: String,
    /// The (sub)command names on the command line before its own
    /// parameters, outermost first, each with its group's parameters
    /// (empty for the entry command itself).
    pub path: Vec<Segment>,
    /// Parameters to pass, in the order the library expects them.
    pub params: Vec<CliParam>,
}

/// One name on the command line that selects a subcommand or a nested
/// group, and the group's own parameters that follow it.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub name: String,
    pub params: Vec<CliParam>,
    /// The function that declares `params` (names their bindings when the
    /// parameter's own name is taken).
    pub owner: String,
}

/// An entry point: the object that is invoked and the commands under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The invoked object: a click command or group function, a `typer.Typer()`.
    pub object: String,
    pub library: Library,
    /// The entry command's own parameters (a click group's options, a
    /// typer callback's), passed before any subcommand.
    pub params: Vec<CliParam>,
    /// The commands to run, each once: the entry itself when it is a
    /// plain command, else its subcommands.
    pub commands: Vec<Command>,
    /// Functions that run through the entry (commands, groups, callbacks):
    /// the plain driver leaves them alone.
    pub driven: Vec<String>,
    /// The line where the fragment calls the entry itself (`cli()` under
    /// the main guard), if it does.
    pub called_at: Option<u32>,
}

/// The entry points the fragment declares, in source order.
pub fn entries(ctx: &Context) -> Vec<Entry> {
    let a = ctx.analysis;
    let mut out: Vec<Entry> = Vec::new();
    // click: a function decorated `@click.command()`/`@click.group()`.
    for f in &a.functions {
        if f.is_method {
            continue;
        }
        let Some(kind) = f.decorators.iter().find_map(|d| click_kind(ctx, d)) else { continue };
        if f.decorators.iter().any(|d| subcommand_of(d).is_some()) {
            continue;
        }
        let mut e = Entry { object: f.name.clone(), library: Library::Click, params: click_params(ctx, f), commands: Vec::new(), driven: vec![f.name.clone()], called_at: None };
        if kind == "command" {
            e.commands.push(Command { function: f.name.clone(), path: Vec::new(), params: std::mem::take(&mut e.params) });
        } else {
            click_subcommands(ctx, &f.name, &mut Vec::new(), &mut e, 0);
        }
        out.push(e);
    }
    // typer: `app = typer.Typer()` and its `@app.command()` functions.
    for (object, expr) in &a.literal_assignments {
        let callee = expr.split('(').next().unwrap_or("").trim();
        if !(callee == "typer.Typer" || callee == "Typer" && imports_from(ctx, "typer", "Typer")) {
            continue;
        }
        let mut e = Entry { object: object.clone(), library: Library::Typer, params: Vec::new(), commands: Vec::new(), driven: Vec::new(), called_at: None };
        let decorated = |verb: &str| -> Vec<&FunctionDef> {
            let target = format!("{object}.{verb}");
            a.functions.iter().filter(|f| !f.is_method && f.decorators.iter().any(|d| d.target == target)).collect()
        };
        let callback = decorated("callback").into_iter().next();
        if let Some(cb) = callback {
            e.params = typer_params(ctx, cb);
            e.driven.push(cb.name.clone());
        }
        let commands = decorated("command");
        // Typer runs a lone command without its name unless a callback
        // makes the application a group.
        let lone = commands.len() == 1 && callback.is_none();
        for f in commands {
            let d = f.decorators.iter().find(|d| d.target == format!("{object}.command")).expect("decorated");
            let name = explicit_name(d).unwrap_or_else(|| f.name.to_lowercase().replace('_', "-"));
            e.commands.push(Command { function: f.name.clone(), path: if lone { Vec::new() } else { vec![Segment { name, params: Vec::new(), owner: f.name.clone() }] }, params: typer_params(ctx, f) });
            e.driven.push(f.name.clone());
        }
        if !e.commands.is_empty() {
            out.push(e);
        }
    }
    for e in &mut out {
        e.called_at = a.module_calls.iter().find(|c| c.name == e.object).map(|c| c.line);
        let callbacks: Vec<String> = callback_names(ctx, e);
        e.driven.extend(callbacks);
    }
    out.sort_by_key(|e| a.functions.iter().find(|f| f.name == e.object).map_or(0, |f| f.line));
    out
}

fn imports_from(ctx: &Context, module: &str, name: &str) -> bool {
    ctx.analysis.imports.iter().any(|i| i.is_from && i.module == module && i.names.iter().any(|(n, _)| n == name))
}

/// `command` or `group` when `d` makes a top-level click command.
fn click_kind(ctx: &Context, d: &Decorator) -> Option<&'static str> {
    let verb = match d.target.as_str() {
        "click.command" => "command",
        "click.group" => "group",
        t @ ("command" | "group") if imports_from(ctx, "click", t) => {
            if t == "command" { "command" } else { "group" }
        }
        _ => return None,
    };
    Some(verb)
}

/// `(group, verb)` for `@group.command()` / `@group.group()`.
fn subcommand_of(d: &Decorator) -> Option<(&str, &str)> {
    let (group, verb) = d.target.rsplit_once('.')?;
    (matches!(verb, "command" | "group") && group != "click" && !group.contains('.')).then_some((group, verb))
}

/// The name a decorator gives its command: its first string or `name=`.
fn explicit_name(d: &Decorator) -> Option<String> {
    if let Some(Some(s)) = d.strings.first() {
        return Some(s.clone());
    }
    d.keywords.iter().find(|(k, _)| k == "name").and_then(|(_, v)| v.first().cloned())
}

/// click's name for a command function: lower case, `_` → `-` (click 8.2
/// also drops a `_command`/`_cmd`/`_group`/`_grp` suffix; either release
/// accepts the name an explicit decorator string gives).
fn click_name(function: &str) -> String {
    let mut n = function.to_lowercase();
    for suffix in ["_command", "_cmd", "_group", "_grp"] {
        if let Some(stem) = n.strip_suffix(suffix).filter(|s| !s.is_empty()) {
            n = stem.to_string();
            break;
        }
    }
    n.replace('_', "-")
}

fn click_subcommands(ctx: &Context, group: &str, path: &mut Vec<Segment>, e: &mut Entry, depth: usize) {
    if depth > 4 {
        return;
    }
    for f in ctx.analysis.functions.iter().filter(|f| !f.is_method) {
        let Some((d, verb)) = f.decorators.iter().find_map(|d| subcommand_of(d).filter(|(g, _)| *g == group).map(|(_, v)| (d, v))) else { continue };
        // Without an explicit name the default may differ between click
        // releases (`count_cmd`): only a name every release gives is used.
        let plain = f.name.to_lowercase().replace('_', "-");
        let Some(name) = explicit_name(d).or_else(|| (click_name(&f.name) == plain).then_some(plain)) else { continue };
        e.driven.push(f.name.clone());
        if verb == "group" {
            path.push(Segment { name, params: click_params(ctx, f), owner: f.name.clone() });
            click_subcommands(ctx, &f.name, path, e, depth + 1);
            path.pop();
        } else {
            let mut full = path.clone();
            full.push(Segment { name, params: Vec::new(), owner: f.name.clone() });
            e.commands.push(Command { function: f.name.clone(), path: full, params: click_params(ctx, f) });
        }
    }
}

/// The parameters a click command declares in its `@click.option` and
/// `@click.argument` decorators (innermost first is the order click
/// lists them; arguments keep that order on the command line).
fn click_params(ctx: &Context, f: &FunctionDef) -> Vec<CliParam> {
    let mut out = Vec::new();
    for d in f.decorators.iter().rev() {
        let Some(Condition::Call { func, args, keywords }) = &d.expr else { continue };
        let kind = match func.dotted().as_deref() {
            Some("click.option") => "option",
            Some("click.argument") => "argument",
            Some(t @ ("option" | "argument")) if imports_from(ctx, "click", t) => {
                if t == "option" { "option" } else { "argument" }
            }
            _ => continue,
        };
        let decls: Vec<&str> = args.iter().filter_map(as_str).collect();
        let Some(name) = python_name(&decls) else { continue };
        let kw = |k: &str| keywords.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let truthy = |k: &str| kw(k).is_some_and(|v| matches!(v, Condition::Constant { value: Constant::Bool(true) }));
        let has_default = kw("default").is_some_and(|v| !matches!(v, Condition::Constant { value: Constant::None }));
        let nargs = kw("nargs").and_then(int_of).unwrap_or(1);
        let many = truthy("multiple") || nargs < 0;
        let ty = kw("type").map(click_type).unwrap_or_else(|| kw("default").map(type_of_constant).unwrap_or(CliType::Str));
        let Some(param) = f.params.iter().find(|p| p.name == name) else { continue };
        let usage = with_callback_usage(ctx, param.usage.clone(), kw("callback"), Library::Click);
        let spelling = if kind == "argument" {
            // An argument with a default or `required=False` may be left out.
            if has_default || kw("required").is_some_and(|v| matches!(v, Condition::Constant { value: Constant::Bool(false) })) {
                continue;
            }
            Spelling::Argument
        } else {
            let long = decls.iter().find(|d| d.starts_with("--")).or_else(|| decls.iter().find(|d| d.starts_with('-'))).copied().unwrap_or("");
            if let Some((on, off)) = long.split_once('/') {
                Spelling::FlagPair(on.trim().to_string(), off.trim().to_string())
            } else if truthy("is_flag") || truthy("count") {
                Spelling::Flag(long.to_string())
            } else if truthy("required") || truthy("prompt") || kw("prompt").is_some_and(|v| matches!(v, Condition::Constant { value: Constant::Str(_) })) || (many && !has_default) || (matches!(ty, CliType::Tuple(_)) && !has_default) {
                // What the command cannot run without, or what it reads
                // in a loop that an empty default leaves unrun.
                Spelling::Option(long.to_string())
            } else {
                continue;
            }
        };
        out.push(CliParam { name, spelling, ty, many, nargs: nargs.max(1) as usize, usage });
    }
    out
}

/// The Python name click gives a parameter from its declarations: a bare
/// name, else the longest `--long` (or `-s`) with dashes turned into `_`.
fn python_name(decls: &[&str]) -> Option<String> {
    if let Some(bare) = decls.iter().find(|d| !d.starts_with('-') && !d.contains('/')) {
        return Some(bare.to_string());
    }
    let first_of = |d: &&str| d.split('/').next().unwrap_or("").trim().to_string();
    let opts: Vec<String> = decls.iter().map(first_of).collect();
    let best = opts.iter().filter(|o| o.starts_with("--")).max_by_key(|o| o.len()).or_else(|| opts.iter().find(|o| o.starts_with('-')))?;
    let n = best.trim_start_matches('-').replace('-', "_").to_lowercase();
    (!n.is_empty()).then_some(n)
}

fn as_str(c: &Condition) -> Option<&str> {
    match c {
        Condition::Constant { value: Constant::Str(s) } => Some(s),
        _ => None,
    }
}

fn int_of(c: &Condition) -> Option<i64> {
    match c {
        Condition::Constant { value: Constant::Int(i) } => Some(*i),
        _ => None,
    }
}

fn type_of_constant(c: &Condition) -> CliType {
    match c {
        Condition::Constant { value: Constant::Int(_) } => CliType::Int,
        Condition::Constant { value: Constant::Float(_) } => CliType::Float,
        Condition::Constant { value: Constant::Bool(_) } => CliType::Bool,
        _ => CliType::Str,
    }
}

/// click's `type=`: a builtin, a click type object or call, a tuple.
fn click_type(c: &Condition) -> CliType {
    match c {
        Condition::Other { node, parts, .. } if node == "tuple" => CliType::Tuple(parts.iter().map(click_type).collect()),
        Condition::Call { func, args, .. } => match func.dotted().as_deref().map(|d| d.rsplit('.').next().unwrap_or(d)) {
            Some("Choice") => {
                let choices = args.first().map(|a| match a {
                    Condition::Other { parts, .. } => parts.iter().filter_map(as_str).map(str::to_string).collect(),
                    _ => Vec::new(),
                });
                CliType::Choice(choices.unwrap_or_default())
            }
            Some("IntRange") => CliType::Int,
            Some("FloatRange") => CliType::Float,
            Some("Tuple") => match args.first() {
                Some(Condition::Other { parts, .. }) => CliType::Tuple(parts.iter().map(click_type).collect()),
                _ => CliType::Str,
            },
            _ => CliType::Str,
        },
        other => match other.dotted().as_deref().map(|d| d.rsplit('.').next().unwrap_or(d)) {
            Some("int" | "INT") => CliType::Int,
            Some("float" | "FLOAT") => CliType::Float,
            Some("bool" | "BOOL") => CliType::Bool,
            _ => CliType::Str,
        },
    }
}

/// The parameters of a typer command, from its signature: a parameter
/// without a default or with `typer.Argument(...)` is positional, one with
/// `typer.Option(...)` or a plain default is an option (`--dashed-name`);
/// only required ones, and booleans, are passed.
fn typer_params(ctx: &Context, f: &FunctionDef) -> Vec<CliParam> {
    let mut out = Vec::new();
    for p in f.params.iter().filter(|p| p.star.is_empty()) {
        let ann = p.annotation.as_deref().unwrap_or("");
        let bare_ann = ann.rsplit('.').next().unwrap_or(ann);
        if matches!(bare_ann, "Context" | "CallbackParam") {
            continue;
        }
        let (ty, many) = typer_type(ann);
        let marker = match &p.default_expr {
            Some(Condition::Call { func, args, keywords }) => {
                let callee = func.dotted().unwrap_or_default();
                let m: Option<&'static str> = match callee.rsplit('.').next() {
                    Some("Argument") => Some("Argument"),
                    Some("Option") => Some("Option"),
                    _ => None,
                };
                m.map(|m| {
                    let default = args.first().or_else(|| keywords.iter().find(|(k, _)| k == "default").map(|(_, v)| v));
                    let required = default.is_none_or(|d| matches!(d, Condition::Constant { value: Constant::Ellipsis }));
                    let callback = keywords.iter().find(|(k, _)| k == "callback").map(|(_, v)| v);
                    (m, required, callback)
                })
            }
            _ => None,
        };
        let (kind, required, callback) = match marker {
            Some((m, required, callback)) => (m, required, callback),
            None if p.default.is_none() => ("Argument", true, None),
            None => ("Option", false, None),
        };
        let flag = format!("--{}", p.name.to_lowercase().replace('_', "-"));
        let spelling = match (kind, &ty) {
            ("Argument", _) if required => Spelling::Argument,
            ("Option", CliType::Bool) => Spelling::FlagPair(flag.clone(), format!("--no-{}", &flag[2..])),
            ("Option", _) if required => Spelling::Option(flag),
            _ => continue,
        };
        let usage = with_callback_usage(ctx, p.usage.clone(), callback, Library::Typer);
        out.push(CliParam { name: p.name.clone(), spelling, ty, many, nargs: 1, usage });
    }
    out
}

/// The type an annotation converts to, and whether it takes several values.
fn typer_type(ann: &str) -> (CliType, bool) {
    let a = ann.trim();
    let inner = |a: &str| a.split_once('[').map(|(_, r)| r.trim_end_matches(']').to_string());
    let bare = a.rsplit('.').next().unwrap_or(a);
    if let Some(head) = a.split('[').next().filter(|_| a.contains('[')) {
        let head = head.rsplit('.').next().unwrap_or(head);
        let arg = inner(a).unwrap_or_default();
        return match head {
            "List" | "list" | "Sequence" | "Tuple" | "tuple" | "Set" | "set" => (typer_type(&arg).0, true),
            "Optional" => typer_type(&arg),
            _ => (CliType::Str, false),
        };
    }
    let ty = match bare {
        "int" => CliType::Int,
        "float" => CliType::Float,
        "bool" => CliType::Bool,
        _ => CliType::Str,
    };
    (ty, false)
}

/// A validating callback's value parameter is used like the parameter it
/// checks (click calls `callback(ctx, param, value)`; typer passes the
/// value to the parameter not annotated as its context or parameter).
fn with_callback_usage(ctx: &Context, mut usage: Usage, callback: Option<&Condition>, lib: Library) -> Usage {
    let Some(name) = callback.and_then(|c| c.dotted()) else { return usage };
    let Some(f) = ctx.analysis.functions.iter().find(|f| f.name == name) else { return usage };
    let value = match lib {
        Library::Click => f.params.get(2),
        Library::Typer => f.params.iter().rfind(|p| !p.annotation.as_deref().is_some_and(|a| a.ends_with("Context") || a.ends_with("CallbackParam") || a.ends_with("Parameter"))),
    };
    if let Some(p) = value {
        merge_usage(&mut usage, &p.usage);
    }
    usage
}

/// The functions an entry's parameters name as `callback=`: they run
/// inside the command line's parsing.
fn callback_names(ctx: &Context, e: &Entry) -> Vec<String> {
    let mut out = Vec::new();
    let functions = e.driven.iter().filter_map(|n| ctx.analysis.functions.iter().find(|f| &f.name == n));
    let mut visit = |c: &Condition| {
        if let Condition::Call { keywords, .. } = c {
            for (k, v) in keywords {
                if k == "callback" {
                    if let Some(n) = v.dotted().filter(|n| ctx.analysis.functions.iter().any(|f| &f.name == n)) {
                        out.push(n);
                    }
                }
            }
        }
    };
    for f in functions {
        f.decorators.iter().filter_map(|d| d.expr.as_ref()).for_each(&mut visit);
        f.params.iter().filter_map(|p| p.default_expr.as_ref()).for_each(&mut visit);
    }
    out
}

/// A value of the declared type that suits how the body uses it: a
/// string the body (or its callback) tests membership in a list of
/// strings with is one of them; else what inference gives when it is of
/// that type.
fn scalar_value(name: &str, ty: &CliType, usage: &Usage) -> Value {
    match ty {
        CliType::Str => {
            if let Some(s) = member_of_tested_list(usage) {
                return Value::Str(s);
            }
            match infer::best(name, usage, 1) {
                v @ Value::Str(_) => v,
                _ => Value::Str("example".into()),
            }
        }
        CliType::Int => match infer::best(name, usage, 1) {
            v @ Value::Int(_) => v,
            _ => Value::Int(3),
        },
        CliType::Float => match infer::best(name, usage, 1) {
            v @ Value::Float(_) => v,
            _ => Value::Float(1.5),
        },
        CliType::Bool => Value::Bool(true),
        CliType::Choice(cs) => Value::Str(cs.first().cloned().unwrap_or_else(|| "example".into())),
        CliType::Tuple(items) => {
            let parts = usage.unpacked_items.clone();
            Value::Tuple(items.iter().enumerate().map(|(i, t)| scalar_value(&format!("{name}_{i}"), t, parts.get(i).unwrap_or(&Usage::default()))).collect())
        }
    }
}

/// `x in ['a', 'b']` / `x not in [...]` (a check that raises unless it
/// holds): the first of the strings.
fn member_of_tested_list(usage: &Usage) -> Option<String> {
    usage.compared.iter().find_map(|(op, l)| match l {
        Literal::Str(s) if op == "==" => Some(s.clone()),
        Literal::Other(display) if op == "in" || op == "not in" => crate::analysis::string_list(display).into_iter().next(),
        _ => None,
    })
}

/// The value a parameter's binding starts with.
pub fn value_for(p: &CliParam) -> Value {
    let element = if p.many { p.usage.element.as_deref().cloned().unwrap_or_default() } else { p.usage.clone() };
    let one = |u: &Usage| {
        if p.nargs > 1 {
            let v = scalar_value(&p.name, &p.ty, u);
            Value::Tuple((0..p.nargs).map(|i| infer::vary(&v, i)).collect())
        } else {
            scalar_value(&p.name, &p.ty, u)
        }
    };
    match &p.spelling {
        Spelling::Flag(_) | Spelling::FlagPair(..) => Value::Bool(true),
        _ if p.many => {
            let first = one(&element);
            // Two items, so a loop over them runs more than once; items a
            // membership check picked stay the same.
            let second = if member_of_tested_list(&element).is_some() { first.clone() } else { infer::vary(&first, 1) };
            Value::List(vec![first, second])
        }
        _ => one(&p.usage),
    }
}

/// How the argument vector spells binding `b` of parameter `p` (Python
/// expressions, one or more items of the list).
fn spell(p: &CliParam, b: &str) -> Vec<String> {
    let text_of = |x: &str, ty: &CliType| if *ty == CliType::Str || matches!(ty, CliType::Choice(_)) { x.to_string() } else { format!("str({x})") };
    let tuple_like = p.nargs > 1 || matches!(p.ty, CliType::Tuple(_));
    let one = |x: &str| if tuple_like { format!("*map(str, {x})") } else { text_of(x, &p.ty) };
    match &p.spelling {
        Spelling::Argument if p.many => vec![if tuple_like { format!("*[a for v in {b} for a in map(str, v)]") } else if text_of("", &p.ty).is_empty() { format!("*{b}") } else { format!("*map(str, {b})") }],
        Spelling::Argument => vec![one(b)],
        Spelling::Option(flag) if p.many => vec![format!("*[a for v in {b} for a in ({}, {})]", py_str(flag), one("v"))],
        Spelling::Option(flag) => vec![py_str(flag), one(b)],
        Spelling::Flag(flag) => vec![format!("*([{}] if {b} else [])", py_str(flag))],
        Spelling::FlagPair(on, off) => vec![format!("{} if {b} else {}", py_str(on), py_str(off))],
    }
}

/// The argument vector of `command` under `entry` (Python list items),
/// adding a binding for each value to `p`.
pub fn argv(ctx: &Context, p: &mut Prefix, entry: &Entry, command: &Command) -> Vec<String> {
    let mut items = Vec::new();
    for param in &entry.params {
        items.extend(spell(param, &bind(ctx, p, param, &entry.object)));
    }
    for seg in &command.path {
        items.push(py_str(&seg.name));
        for param in &seg.params {
            items.extend(spell(param, &bind(ctx, p, param, &seg.owner)));
        }
    }
    for param in &command.params {
        items.extend(spell(param, &bind(ctx, p, param, &command.function)));
    }
    items
}

/// The binding holding `param`'s value: named like the parameter unless
/// the fragment or an earlier binding takes the name.
fn bind(ctx: &Context, p: &mut Prefix, param: &CliParam, function: &str) -> String {
    let a = ctx.analysis;
    let value = value_for(param);
    // A group's parameter passed before each subcommand is one binding;
    // another command's parameter of the same name but another value gets
    // a name of its own.
    let fits = |n: &str| p.binding(n).is_none_or(|b| b.value() == Some(&value));
    let taken = |n: &str| a.bound_names.contains(n) || a.free_names.iter().any(|f| f.name == n) || !fits(n);
    let name = if taken(&param.name) { argument_name(&param.name, function) } else { param.name.clone() };
    if p.binding(&name).is_none() {
        p.bindings.push(Binding::new(name.clone(), vec![Candidate::Value(value)]));
    }
    name
}

/// Driver lines that invoke every command of `entry` through its library's
/// test runner. The runner catches what the command raises; without
/// standalone mode click does not turn it into an exit status either, so
/// the exception is raised again where the run can see it (and the
/// values get refined) instead of a silent non-zero `exit_code`.
pub fn driver_lines(ctx: &Context, p: &mut Prefix, entry: &Entry) -> Vec<String> {
    let a = ctx.analysis;
    let taken = |n: &str| a.bound_names.contains(n) || a.free_names.iter().any(|f| f.name == n);
    let runner = if taken("runner") { "cli_runner" } else { "runner" };
    let result = if taken("result") { "cli_result" } else { "result" };
    let mut lines = vec![entry.library.runner_import().to_string(), format!("{runner} = CliRunner()")];
    for c in &entry.commands {
        let items = argv(ctx, p, entry, c);
        lines.push(format!("{result} = {runner}.invoke({}, [{}], standalone_mode=False)", entry.object, items.join(", ")));
        lines.push(format!("print({result}.output, end='')"));
        lines.push(format!("if {result}.exception is not None: raise {result}.exception"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::rules::check::with_ctx;

    fn shapes(src: &str) -> Vec<(String, Vec<Vec<String>>)> {
        with_ctx(src, |ctx| {
            entries(ctx)
                .iter()
                .map(|e| {
                    let mut p = Prefix::default();
                    (e.object.clone(), e.commands.iter().map(|c| argv(ctx, &mut p, e, c)).collect())
                })
                .collect()
        })
    }

    #[test]
    fn a_click_group_passes_its_required_option_before_each_subcommand_and_its_argument() {
        let src = "import click\n@click.group()\n@click.option('--source', '-s', required=True)\n@click.option('--limit', type=int, default=3)\n@click.pass_context\ndef cli(ctx, source, limit):\n    pass\n@cli.command()\n@click.argument('abcd')\n@click.pass_context\ndef hello(ctx, abcd):\n    print(abcd)\n@cli.command('count-up')\n@click.option('--times', type=click.IntRange(1, 5), required=True)\n@click.option('--loud/--quiet')\ndef count(times, loud):\n    pass\n";
        let s = shapes(src);
        assert_eq!(s.len(), 1, "one entry, the group: {s:?}");
        assert_eq!(s[0].0, "cli");
        assert_eq!(s[0].1[0], ["'--source'", "source", "'hello'", "abcd"]);
        assert_eq!(s[0].1[1], ["'--source'", "source", "'count-up'", "'--loud' if loud else '--quiet'", "'--times'", "str(times)"]);
    }

    #[test]
    fn tuple_multiple_choice_and_nargs_are_spelled_as_click_parses_them() {
        let src = "import click\n@click.command()\n@click.option('--echo', type=(str, int), multiple=True)\n@click.option('--mode', type=click.Choice(['fast', 'slow']), required=True)\n@click.option('--tag', multiple=True)\n@click.argument('point', nargs=2, type=float)\ndef cmd(echo, mode, tag, point):\n    for s, num in echo:\n        print(s * num)\n";
        let (s, values) = with_ctx(src, |ctx| {
            let e = &entries(ctx)[0];
            let mut p = Prefix::default();
            let items = argv(ctx, &mut p, e, &e.commands[0]);
            (items, p.bindings.iter().map(|b| format!("{} = {}", b.name, b.value().unwrap().expr())).collect::<Vec<_>>())
        });
        assert_eq!(s, ["*map(str, point)", "*[a for v in tag for a in ('--tag', v)]", "'--mode'", "mode", "*[a for v in echo for a in ('--echo', *map(str, v))]"]);
        assert!(values.contains(&"mode = 'fast'".to_string()), "{values:?}");
        assert!(values.iter().any(|v| v.starts_with("echo = [(") && v.contains(", 3)")), "pairs of a string and an int: {values:?}");
        assert!(values.iter().any(|v| v.starts_with("point = (1.5, ")), "{values:?}");
    }

    #[test]
    fn a_typer_argument_checked_by_a_callback_gets_a_value_the_check_accepts() {
        let src = "from typing import List\nimport typer\napp = typer.Typer()\ndef check(values: List[str]):\n    for v in values:\n        if v not in ['wiki', 'news']:\n            raise typer.BadParameter(v)\n    return values\n@app.command()\ndef crawl(sites: List[str] = typer.Argument(..., callback=check), depth: int = typer.Option(...), verbose: bool = False, retries: int = 2):\n    print(sites, depth)\n";
        let (entry, items, values) = with_ctx(src, |ctx| {
            let e = entries(ctx).remove(0);
            let mut p = Prefix::default();
            let items = argv(ctx, &mut p, &e, &e.commands[0]);
            (e, items, p.bindings.iter().map(|b| format!("{} = {}", b.name, b.value().unwrap().expr())).collect::<Vec<_>>())
        });
        assert_eq!(entry.library, Library::Typer);
        assert!(entry.commands[0].path.is_empty(), "a lone typer command runs without its name");
        assert!(entry.driven.contains(&"check".to_string()), "the callback runs inside the command: {:?}", entry.driven);
        // A required option, and a boolean (its flag pair) so evolution can
        // turn it over; `retries` keeps its default.
        assert_eq!(items, ["*sites", "'--depth'", "str(depth)", "'--verbose' if verbose else '--no-verbose'"]);
        assert_eq!(values[0], "sites = ['wiki', 'wiki']");
    }

    #[test]
    fn a_fragment_that_starts_its_entry_itself_is_known() {
        let src = "import click\n@click.command()\n@click.argument('name')\ndef hi(name):\n    print(name)\nif __name__ == '__main__':\n    hi()\n";
        let line = with_ctx(src, |ctx| entries(ctx)[0].called_at);
        assert_eq!(line, Some(7));
    }
}
