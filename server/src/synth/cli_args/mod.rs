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
//!
//! `click` and `typer` read each library's declarations into the same
//! [`Entry`]; `values` gives a parameter's binding its value and spells it.

mod click;
mod typer;
mod values;

use super::drivers::argument_name;
use super::prefix::{Binding, Candidate, Prefix};
use super::render::py_str;
use super::session::Context;
use crate::analysis::{merge_usage, Condition, Decorator, Usage};
use values::{spell, value_for};

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
    let mut out = click::entries(ctx);
    out.extend(typer::entries(ctx));
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

/// The name a decorator gives its command: its first string or `name=`.
fn explicit_name(d: &Decorator) -> Option<String> {
    if let Some(Some(s)) = d.strings.first() {
        return Some(s.clone());
    }
    d.keywords.iter().find(|(k, _)| k == "name").and_then(|(_, v)| v.first().cloned())
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

    /// Each entry's object and the argument vector of each of its commands.
    pub(super) fn shapes(src: &str) -> Vec<(String, Vec<Vec<String>>)> {
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

    /// The first entry, its first command's argument vector and the
    /// bindings that vector adds (`name = value`).
    pub(super) fn first_command(src: &str) -> (Entry, Vec<String>, Vec<String>) {
        with_ctx(src, |ctx| {
            let e = entries(ctx).remove(0);
            let mut p = Prefix::default();
            let items = argv(ctx, &mut p, &e, &e.commands[0]);
            (e, items, p.bindings.iter().map(|b| format!("{} = {}", b.name, b.value().unwrap().expr())).collect())
        })
    }

    #[test]
    fn a_fragment_that_starts_its_entry_itself_is_known() {
        let src = "import click\n@click.command()\n@click.argument('name')\ndef hi(name):\n    print(name)\nif __name__ == '__main__':\n    hi()\n";
        let line = with_ctx(src, |ctx| entries(ctx)[0].called_at);
        assert_eq!(line, Some(7));
    }
}
