//! `except` handlers still uncovered: a variant where a function called in
//! the `try` body raises the handled exception, a method of an object does,
//! a name it reads is left undefined (NameError), the import it tries fails
//! (ImportError) or the folder it creates exists (FileExistsError).

use crate::analysis::tokens::{line_tokens, Token, TokenKind};
use crate::synth::edits::with_candidate;
use crate::synth::literals::path_literals;
use crate::synth::paths::value_at_mut;
use crate::synth::prefix::{module_of_import, Binding, Candidate};
use crate::synth::resources::files_at;
use crate::synth::slice::related_bindings;
use crate::synth::render;
use crate::synth::value::Value;
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
    let line_text = |n: u32| lines.get(n as usize - 1).copied().unwrap_or("");
    let mut out = Vec::new();
    for t in &ctx.analysis.try_blocks {
        let body = t.line + 1..=t.body_end;
        for h in &t.handlers {
            // The handler's block never ran.
            if !(h.line + 1..=h.end_line).any(|n| uncovered.contains(&n)) {
                continue;
            }
            let mut names: Vec<String> = Vec::new();
            for j in body.clone() {
                for n in related_bindings(ctx, &best.prefix, j) {
                    if !names.contains(&n) {
                        names.push(n);
                    }
                }
            }
            // A builtin exception class by its own name; others are caught as `Exception`.
            let exc = h.types.first().map(String::as_str).filter(|e| e.chars().next().is_some_and(char::is_uppercase) && !e.contains('.')).unwrap_or("Exception");
            if exc == "ImportError" || exc == "ModuleNotFoundError" {
                // The fallback for a missing library: make its import fail.
                for imp in ctx.analysis.imports.iter().filter(|i| body.contains(&i.line) && i.level == 0 && !i.module.is_empty()) {
                    out.push(without_module(&best.prefix, &imp.module));
                }
            }
            if exc == "FileExistsError" {
                // `os.makedirs("out/data")` in the try body: it exists already.
                for path in body.clone().flat_map(|j| path_literals(line_text(j))) {
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
                    for call in body.clone().flat_map(|j| method_calls_on(line_text(j), &n)) {
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
    }
    out
}

/// Dotted paths of method calls rooted at `name` on a line (`self.queue.push(`
/// -> `self.queue.push`), read from the one lexer's tokens.
fn method_calls_on(line: &str, name: &str) -> Vec<String> {
    let toks = line_tokens(line);
    let word = |i: usize| toks.get(i).map_or("", |t: &Token| &line[t.start..t.end]);
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokenKind::Name || t.after_dot || word(i) != name {
            continue;
        }
        let mut path = name.to_string();
        let mut j = i + 1;
        while word(j) == "." && toks.get(j + 1).is_some_and(|n| n.kind == TokenKind::Name) {
            path.push('.');
            path.push_str(word(j + 1));
            j += 2;
        }
        if path.contains('.') && word(j) == "(" {
            out.push(path);
        }
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
    let source = format!("# `import {top}` fails here, as where it is not installed: the fragment's fallback runs.\nsys.modules[{}] = None", render::py_str(top));
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

    #[test]
    fn an_import_with_a_fallback_is_made_to_fail() {
        evolve(&super::Handlers, "try:\n    import yaml\nexcept (ImportError, OSError) as e:\n    yaml = None\nprint(yaml)\n", &[1, 2, 5], expect![[r#"
            ## 1
            import sys


            # `import yaml` fails here, as where it is not installed: the fragment's fallback runs.
            sys.modules['yaml'] = None
        "#]]);
    }
}
