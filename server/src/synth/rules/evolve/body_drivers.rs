//! Functions and methods whose bodies never ran, even though the fragment
//! refers to them (a method only a library would call): driver calls with
//! the required arguments, all of them, edge values one at a time, and
//! values of the types an `isinstance` in the body tests.

use crate::analysis::{FunctionDef, Usage};
use crate::synth::alternatives::abstract_instance;
use crate::synth::drivers::{argument_name, instance_of, keyword, with_driver_call};
use crate::synth::edits::add_import;
use crate::synth::infer;
use crate::synth::isinstance::isinstance_calls;
use crate::synth::knowledge;
use crate::synth::library_names::import_binding;
use crate::synth::library_types;
use crate::synth::prefix::{names_bound_by_import, Binding, Candidate};
use crate::synth::type_wants;
use crate::synth::value::Value;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::{Attempt, Context};

pub struct BodyDrivers;

impl Rule for BodyDrivers {
    fn name(&self) -> &'static str {
        "body-drivers"
    }
    fn stage(&self) -> Stage {
        Stage::Evolve
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(u) = t.uncovered() else { return Vec::new() };
        body_drivers(ctx, u.best, u.lines)
    }
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
    // `args` are the values, `spelled` the arguments as passed (by keyword
    // for a keyword-only parameter).
    let call = |callee: &str, args: &[String], spelled: &[String]| {
        let mut p = with_driver_call(&best.prefix, callee, spelled, keep_earlier);
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
    let block_uncovered = |f: &FunctionDef| uncovered.iter().any(|u| (f.line..=f.end_line).contains(u));
    for f in ctx.analysis.functions.iter().filter(|f| block_uncovered(f)) {
        // `*args` and `**kwargs` may stay empty.
        let params: Vec<_> = f.params.iter().filter(|x| x.star.is_empty()).collect();
        let required_params: Vec<_> = params.iter().copied().filter(|x| !x.has_default).collect();
        let required: Vec<String> = required_params.iter().map(|x| arg(&x.name, &x.usage, &f.name)).collect();
        let all: Vec<String> = params.iter().map(|x| arg(&x.name, &x.usage, &f.name)).collect();
        let names: Vec<&str> = params.iter().map(|x| x.name.as_str()).collect();
        let tests = body_tests(&lines, f);
        // A real instance of another type of a library the body tests
        // against comes before any hand-written argument.
        let mut calls = Vec::new();
        for (args, expr, imports) in other_library_types(ctx, &tests, f, &names, &all) {
            needs.borrow_mut().push((expr, imports));
            calls.push(args);
        }
        calls.extend([required.clone(), all.clone()]);
        // Edge values for one argument at a time: guards like `if not s:`,
        // `if os.path.exists(p):`.
        for i in 0..required.len() {
            let path = required_params[i].usage.passed_to.iter().any(|a| knowledge::argument_kind(&a.callee, a.position, a.keyword.as_deref()).is_some_and(|k| matches!(k, "path" | "xml-path" | "image-path" | "table-path")));
            let fresh = path.then_some("'not_there_yet.txt'");
            for edge in ["None", "''", "0"].into_iter().chain(fresh) {
                let mut args = required.clone();
                args[i] = edge.to_string();
                calls.push(args);
            }
        }
        calls.extend(typed_calls(ctx, &tests, &names, &all));
        for args in calls {
            out.push(call(&f.name, &args, &spelled(&params, &required_params, &args)));
        }
    }
    for c in &ctx.analysis.classes {
        // An instance without running a constructor that needs arguments.
        let init_args = c.methods.iter().find(|x| x.name == "__init__").or(c.generated_init.as_ref()).map(|i| i.params.iter().skip(1).filter(|x| x.star.is_empty() && !x.has_default).count()).unwrap_or(0);
        let instance = if init_args == 0 { instance_of(c, "") } else { Some(format!("{}.__new__({})", c.name, c.name)) };
        let Some(instance) = instance else { continue };
        for m in c.methods.iter().filter(|m| block_uncovered(m) && !m.name.starts_with("__")) {
            let params: Vec<_> = m.params.iter().skip(1).filter(|x| x.star.is_empty()).collect();
            let required_params: Vec<_> = params.iter().copied().filter(|x| !x.has_default).collect();
            let required: Vec<String> = required_params.iter().map(|x| arg(&x.name, &x.usage, &m.name)).collect();
            let all: Vec<String> = params.iter().map(|x| arg(&x.name, &x.usage, &m.name)).collect();
            let names: Vec<&str> = params.iter().map(|x| x.name.as_str()).collect();
            let typed = typed_calls(ctx, &body_tests(&lines, m), &names, &all);
            for args in [required, all].into_iter().chain(typed) {
                out.push(call(&format!("{instance}.{}", m.name), &args, &spelled(&params, &required_params, &args)));
            }
        }
    }
    out
}

/// `args` as a call passes them: a call passes every parameter of
/// `params` or the `required` ones, each keyword-only one by keyword;
/// a list that is neither stays as it is.
fn spelled(params: &[&crate::analysis::Param], required: &[&crate::analysis::Param], args: &[String]) -> Vec<String> {
    let aligned = if args.len() == params.len() { params } else { required };
    if aligned.len() != args.len() {
        return args.to_vec();
    }
    aligned.iter().zip(args).map(|(p, a)| keyword(p, a.clone())).collect()
}

/// Calls of a def with every argument (`all`, one per name of `params`),
/// one more per `isinstance(param, T)` among its body's `tests`, where
/// that parameter takes a value of type T. Library types are spelled
/// through the fragment's own import of their module.
fn typed_calls(ctx: &Context, tests: &[(String, Vec<String>)], params: &[&str], all: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for (path, types) in tests {
        let Some(i) = params.iter().position(|p| *p == path) else { continue };
        for ty in types {
            let Some(expr) = instance_expr(ctx, path, ty) else { continue };
            let mut args = all.to_vec();
            args[i] = expr;
            if !out.contains(&args) {
                out.push(args);
            }
        }
    }
    out
}

/// Calls of the def `f` with every argument (`all`), one more per
/// `isinstance(param, T)` against library types among its body's `tests`, where that
/// parameter takes an instance of another type of the library with every
/// member the body uses it with: the test's other arm (`pd.Series` where
/// `pd.DataFrame` is tested and both arms call `memory_usage`). With the
/// expression and the imports it needs.
fn other_library_types(ctx: &Context, tests: &[(String, Vec<String>)], f: &FunctionDef, params: &[&str], all: &[String]) -> Vec<(Vec<String>, String, Vec<String>)> {
    let mut out: Vec<(Vec<String>, String, Vec<String>)> = Vec::new();
    for (path, types) in tests {
        let Some(i) = params.iter().position(|p| p == path) else { continue };
        let Some(param) = f.params.iter().find(|p| p.name == *path) else { continue };
        let tested: Option<Vec<String>> = types.iter().map(|t| library_type(ctx, t)).collect();
        let Some(tested) = tested else { continue };
        let tested: Vec<&str> = tested.iter().map(String::as_str).collect();
        let used: Vec<&str> = param.usage.attrs.keys().map(String::as_str).collect();
        for ty in library_types::sibling_types(&tested, &used) {
            let Some(Value::Expr { code, imports }) = type_wants::library_value(ty) else { continue };
            if !imports.iter().all(|stmt| imports_as_fragment(ctx, stmt)) {
                continue;
            }
            let mut args = all.to_vec();
            args[i] = code.clone();
            out.push((args, code, imports));
            break;
        }
    }
    out
}

/// The library class a dotted type test names, through the fragment's
/// import of its module or the conventional alias (`pd.DataFrame` ->
/// `pandas.DataFrame`).
fn library_type(ctx: &Context, ty: &str) -> Option<String> {
    let (alias, member) = ty.rsplit_once('.')?;
    let module = imported_module(ctx, alias).map(str::to_string).or_else(|| crate::knowledge::conventional_module(alias))?;
    Some(format!("{module}.{member}"))
}

/// Whether `stmt` may be added to the prefix: the names it binds are the
/// fragment's own only by the same import.
fn imports_as_fragment(ctx: &Context, stmt: &str) -> bool {
    names_bound_by_import(stmt).iter().all(|n| !ctx.analysis.bound_names.contains(n) || import_binding(ctx, n).as_deref() == Some(stmt))
}

/// The module the fragment imports under `alias` (`import pandas as pd`).
fn imported_module<'a>(ctx: &'a Context, alias: &str) -> Option<&'a str> {
    ctx.analysis.imports.iter().find(|imp| !imp.is_from && imp.alias.as_deref().unwrap_or(&imp.module) == alias).map(|imp| imp.module.as_str())
}

/// What the body of the def `f` type-tests: each tested path with its types.
fn body_tests(lines: &[&str], f: &FunctionDef) -> Vec<(String, Vec<String>)> {
    let Some(body) = lines.get(f.line as usize - 1..(f.end_line as usize).min(lines.len())) else { return Vec::new() };
    isinstance_calls(&body.join("\n"))
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
    let module = imported_module(ctx, alias)?;
    let Value::Expr { code, imports } = type_wants::library_value(&format!("{module}.{member}"))? else { return None };
    // The table spells it through the conventional alias: only when the fragment uses the same one.
    imports.iter().any(|i| i.ends_with(&format!(" {alias}"))).then_some(code)
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_body_nothing_called_is_called_with_each_tested_type() {
        evolve(&super::BodyDrivers, "def describe(kind):\n    if isinstance(kind, str):\n        return kind.upper()\n    return None\n\nhandlers = {'describe': describe}\n", &[1, 6], expect![[r#"
            ## 1
            -- driver --
            describe('The quick brown fox jumps over the lazy dog')
            ## 2
            -- driver --
            describe('The quick brown fox jumps over the lazy dog')
            ## 3
            -- driver --
            describe(None)
            ## 4
            -- driver --
            describe('')
            ## 5
            -- driver --
            describe(0)
            ## 6
            -- driver --
            describe('The quick brown fox jumps over the lazy dog')
        "#]]);
    }

    #[test]
    fn the_other_arm_of_a_library_type_test_gets_another_type_of_that_library() {
        // Both arms call `memory_usage`; the one that is not a
        // DataFrame gets a real Series, first, not a hand-written object.
        evolve(&super::BodyDrivers, "import pandas as pd\n\ndef size(obj):\n    if isinstance(obj, pd.DataFrame):\n        return obj.memory_usage().sum()\n    return obj.memory_usage()\n", &[1, 3], expect![[r#"
            ## 1
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})
            -- driver --
            size(obj)
            size(pd.Series([1, 2, 3]))
            ## 2
            import numpy as np
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})


            class Obj:
                def memory_usage(self, *args, **kwargs):
                    return np.array([1, 2, 3, 4, 5])


            obj_size = Obj()
            -- driver --
            size(obj)
            size(obj_size)
            ## 3
            import numpy as np
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})


            class Obj:
                def memory_usage(self, *args, **kwargs):
                    return np.array([1, 2, 3, 4, 5])


            obj_size = Obj()
            -- driver --
            size(obj)
            size(obj_size)
            ## 4
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})
            -- driver --
            size(obj)
            size(None)
            ## 5
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})
            -- driver --
            size(obj)
            size('')
            ## 6
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})
            -- driver --
            size(obj)
            size(0)
            ## 7
            import pandas as pd


            obj = pd.DataFrame({'A': [3, 4, 5], 'B': [3, 4, 5]})
            -- driver --
            size(obj)
            size(pd.DataFrame({'A': [1, 2, 3], 'B': [4, 5, 6]}))
        "#]]);
    }
}
