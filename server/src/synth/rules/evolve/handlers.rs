//! `except` handlers still uncovered: a variant where a function called in
//! the `try` body raises the handled exception, a method of an object does,
//! a name it reads is left undefined (NameError), the import it tries fails
//! (ImportError) or the folder it creates exists (FileExistsError).

use crate::synth::blocks::block_span;
use crate::synth::edits::with_candidate;
use crate::synth::literals::path_literals;
use crate::synth::paths::value_at_mut;
use crate::synth::prefix::{module_of_import, Binding, Candidate};
use crate::synth::resources::files_at;
use crate::synth::slice::related_bindings;
use crate::synth::value::{self, Value};
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct Handlers;

impl Rule for Handlers {
    fn name(&self) -> &'static str {
        "handlers"
    }
    fn stage(&self) -> Stage {
        Stage::Evolve
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(u) = t.uncovered() else { return Vec::new() };
        handler_variants(ctx, u.best, u.lines)
    }
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

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_function_called_in_the_try_body_raises_the_handled_error() {
        evolve(&super::Handlers, "try:\n    value = parse(text)\nexcept ValueError:\n    print('bad')\n", &[1, 2], expect![[r#"
            ## 1
            def parse(*args, **kwargs):
                raise ValueError('parse failed')


            text = 'The quick brown fox jumps over the lazy dog'
        "#]]);
    }
}
