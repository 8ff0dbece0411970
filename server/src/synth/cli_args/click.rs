//! click's side of the entry points: which decorated functions are
//! commands and groups (`@click.command()`, `@cli.group()`), the names the
//! command line calls them by, and the parameters their `@click.option` /
//! `@click.argument` decorators declare, read from the decorators'
//! expression trees.

use super::{explicit_name, imports_from, with_callback_usage, CliParam, CliType, Command, Entry, Library, Segment, Spelling};
use crate::analysis::{Condition, Constant, Decorator, FunctionDef};
use crate::synth::session::Context;

/// The click entry points: top-level commands and groups, each group with
/// the commands under it.
pub(super) fn entries(ctx: &Context) -> Vec<Entry> {
    let mut out = Vec::new();
    // A function decorated `@click.command()`/`@click.group()`.
    for f in &ctx.analysis.functions {
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
    // A group the fragment does not define (`@sammich.command()` cut out of
    // a larger file): the prefix makes it a real `click.Group`, and its
    // commands run under it as they would in the whole program.
    let mut seen: Vec<&str> = Vec::new();
    for f in ctx.analysis.functions.iter().filter(|f| !f.is_method && uses_click(ctx, f)) {
        let Some((group, _)) = f.decorators.iter().find_map(subcommand_of) else { continue };
        if seen.contains(&group) || !ctx.analysis.free_names.iter().any(|n| n.name == group) {
            continue;
        }
        seen.push(group);
        let mut e = Entry { object: group.to_string(), library: Library::Click, params: Vec::new(), commands: Vec::new(), driven: Vec::new(), called_at: None };
        click_subcommands(ctx, group, &mut Vec::new(), &mut e, 0);
        if !e.commands.is_empty() {
            out.push(e);
        }
    }
    out
}

/// Whether `f` declares click parameters, or the fragment imports click:
/// what makes a free `@group.command()` a click group.
fn uses_click(ctx: &Context, f: &FunctionDef) -> bool {
    ctx.analysis.imports.iter().any(|i| i.module == "click") || f.decorators.iter().any(|d| click_member(ctx, &d.target).is_some())
}

/// The click member a decorator names (`option` for `click.option` or for
/// `option` imported from click): the one way both spellings are read.
fn click_member<'a>(ctx: &Context, target: &'a str) -> Option<&'a str> {
    match target.strip_prefix("click.") {
        Some(member) => Some(member),
        None => (!target.contains('.') && imports_from(ctx, "click", target)).then_some(target),
    }
}

/// `command` or `group` when `d` makes a top-level click command.
fn click_kind(ctx: &Context, d: &Decorator) -> Option<&'static str> {
    match click_member(ctx, &d.target)? {
        "command" => Some("command"),
        "group" => Some("group"),
        _ => None,
    }
}

/// `(group, verb)` for `@group.command()` / `@group.group()`.
fn subcommand_of(d: &Decorator) -> Option<(&str, &str)> {
    let (group, verb) = d.target.rsplit_once('.')?;
    (matches!(verb, "command" | "group") && group != "click" && !group.contains('.')).then_some((group, verb))
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
        let dotted = func.dotted();
        let kind = match dotted.as_deref().and_then(|t| click_member(ctx, t)) {
            Some("option") => "option",
            Some("argument") => "argument",
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

#[cfg(test)]
mod tests {
    use super::super::tests::{first_command, shapes};

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
        let (_, s, values) = first_command(src);
        assert_eq!(s, ["*map(str, point)", "*[a for v in tag for a in ('--tag', v)]", "'--mode'", "mode", "*[a for v in echo for a in ('--echo', *map(str, v))]"]);
        assert!(values.contains(&"mode = 'fast'".to_string()), "{values:?}");
        assert!(values.iter().any(|v| v.starts_with("echo = [(") && v.contains(", 3)")), "pairs of a string and an int: {values:?}");
        assert!(values.iter().any(|v| v.starts_with("point = (1.5, ")), "{values:?}");
    }
}
