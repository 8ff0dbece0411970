//! typer's side of the entry points: an application (`app = typer.Typer()`)
//! and the functions its `@app.command()` / `@app.callback()` decorate,
//! with the parameters their signatures declare (annotations, defaults,
//! `typer.Argument(...)` / `typer.Option(...)`).

use super::{explicit_name, imports_from, with_callback_usage, CliParam, CliType, Command, Entry, Library, Segment, Spelling};
use crate::analysis::{Condition, Constant, FunctionDef};
use crate::synth::session::Context;

/// The typer applications the fragment makes, each with its commands
/// (those without a command are left out).
pub(super) fn entries(ctx: &Context) -> Vec<Entry> {
    let a = ctx.analysis;
    let mut out = Vec::new();
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
    out
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

#[cfg(test)]
mod tests {
    use super::super::tests::first_command;
    use super::Library;

    #[test]
    fn a_typer_argument_checked_by_a_callback_gets_a_value_the_check_accepts() {
        let src = "from typing import List\nimport typer\napp = typer.Typer()\ndef check(values: List[str]):\n    for v in values:\n        if v not in ['wiki', 'news']:\n            raise typer.BadParameter(v)\n    return values\n@app.command()\ndef crawl(sites: List[str] = typer.Argument(..., callback=check), depth: int = typer.Option(...), verbose: bool = False, retries: int = 2):\n    print(sites, depth)\n";
        let (entry, items, values) = first_command(src);
        assert_eq!(entry.library, Library::Typer);
        assert!(entry.commands[0].path.is_empty(), "a lone typer command runs without its name");
        assert!(entry.driven.contains(&"check".to_string()), "the callback runs inside the command: {:?}", entry.driven);
        // A required option, and a boolean (its flag pair) so evolution can
        // turn it over; `retries` keeps its default.
        assert_eq!(items, ["*sites", "'--depth'", "str(depth)", "'--verbose' if verbose else '--no-verbose'"]);
        assert_eq!(values[0], "sites = ['wiki', 'wiki']");
    }
}
