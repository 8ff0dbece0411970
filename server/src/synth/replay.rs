//! One program for the branches that need other inputs: after the best
//! prefix's driver, the driver runs again with the names a kept variant
//! binds differently rebound to its values, as a test calls a function
//! twice. Only the functions the driver calls run again (a wrapped body,
//! the fragment's own definitions); its top-level lines run once, so a
//! variant whose new lines are there adds nothing and is not kept.

use super::prefix::{Candidate, Prefix, Replay};
use super::session::Attempt;

/// `best`'s prefix with the driver run again as `variant` runs it, when
/// the two differ only in the values of bindings, environment variables and
/// the driver: the files, modules, command line and wrapping are the best's,
/// shared by both passes. `None` when a pass again cannot be written that
/// way, or would change nothing.
pub fn with_replay(best: &Attempt, variant: &Attempt) -> Option<Prefix> {
    let (b, v) = (&best.prefix, &variant.prefix);
    // Only a program that finishes reaches the second pass, and only a
    // call reaches the fragment's lines again.
    if !best.completed() || (!best.program.wrapped && v.driver.is_empty()) {
        return None;
    }
    let same_ground = b.resources == v.resources
        && b.modules == v.modules
        && b.argv == v.argv
        // Or the variant leaves the context the best enters.
        && (b.context == v.context || v.context.is_none() && best.program.wrapped)
        && b.host == v.host
        && b.wrapper_params == v.wrapper_params
        && b.driven == v.driven
        && v.replays.is_empty();
    if !same_ground {
        return None;
    }
    let mut values = Vec::new();
    for binding in &v.bindings {
        let theirs = binding.current();
        if b.binding(&binding.name).is_some_and(|own| own.current() == theirs) {
            continue;
        }
        match theirs {
            // A name bound by an import stays what the first pass imported.
            Candidate::Import(_) => return None,
            Candidate::Value(value) if value.uses_anything() || theirs.is_stub() => return None,
            Candidate::Value(value) => values.push((binding.name.clone(), value.clone())),
        }
    }
    // Environment variables the variant sets otherwise: set (or removed)
    // before the second pass, read by it as by the first.
    let mut environment: Vec<(String, Option<String>)> =
        v.environment.iter().filter(|e| !b.environment.contains(e)).map(|(n, x)| (n.clone(), Some(x.clone()))).collect();
    environment.extend(b.environment.iter().filter(|(n, _)| !v.environment.iter().any(|(m, _)| m == n)).map(|(n, _)| (n.clone(), None)));
    let outside_context = b.context.is_some() && v.context.is_none();
    if values.is_empty() && environment.is_empty() && v.driver == b.driver && !outside_context {
        return None;
    }
    let mut prefix = b.clone();
    prefix.replays.push(Replay { values, environment, driver: v.driver.clone(), outside_context });
    Some(prefix)
}

/// Whether `merged`, the best with `variant` run again, is a better
/// program than `best`: it finishes as the best did, swallows no exception
/// but the one the variant meant to raise (a handler's), and covers every
/// statement the best covers and more.
pub fn improves(best: &Attempt, variant: &Attempt, merged: &Attempt) -> bool {
    let same = |a: &crate::exec::ExceptionInfo, b: &crate::exec::ExceptionInfo| a.type_name == b.type_name && a.message == b.message;
    let caught_ok = match (&best.outcome.caught, &merged.outcome.caught, &variant.outcome.caught) {
        (_, None, _) | (Some(_), Some(_), _) => true,
        (None, Some(m), Some(v)) => same(m, v),
        (None, Some(_), None) => false,
    };
    merged.completed()
        && caught_ok
        && merged.coverage.covered.len() > best.coverage.covered.len()
        && best.coverage.covered.iter().all(|l| merged.coverage.covered.contains(l))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::RunStatus;
    use crate::synth::prefix::Binding;
    use crate::synth::rules::check::{attempt, with_ctx};
    use crate::synth::value::Value;

    const BODY: &str = "if cyclic is True:\n    return 1\nreturn 2\n";

    fn flag(value: bool) -> Prefix {
        Prefix { bindings: vec![Binding::new("cyclic", vec![Candidate::Value(Value::Bool(value))])], ..Prefix::default() }
    }

    #[test]
    fn a_variant_with_another_value_runs_the_wrapped_body_again() {
        with_ctx(BODY, |ctx| {
            let best = attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2]);
            let other = attempt(ctx, flag(false), RunStatus::Completed, None, &[1, 3]);
            let merged = with_replay(&best, &other).expect("a second pass");
            let program = merged.program(ctx.fragment, ctx.analysis);
            assert!(program.suffix.ends_with("cyclic = False\n__runnable_fragment()\n"), "{}", program.suffix);
            // The first pass keeps the best's value.
            assert!(program.prefix.contains("cyclic = True"));
        })
    }

    #[test]
    fn no_second_pass_after_a_failed_first_or_when_nothing_differs() {
        with_ctx(BODY, |ctx| {
            let raised = attempt(ctx, flag(true), RunStatus::Raised, None, &[1]);
            let other = attempt(ctx, flag(false), RunStatus::Completed, None, &[1, 3]);
            assert!(with_replay(&raised, &other).is_none());
            let best = attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2]);
            assert!(with_replay(&best, &best.clone()).is_none());
        })
    }

    #[test]
    fn an_environment_variable_set_otherwise_is_set_for_the_second_pass() {
        with_ctx("import os\nif os.environ.get('DEBUG'):\n    return 1\nreturn 2\n", |ctx| {
            let mut set = Prefix::default();
            set.set_env("DEBUG", "1");
            let best = attempt(ctx, set, RunStatus::Completed, None, &[1, 2, 3]);
            let other = attempt(ctx, Prefix::default(), RunStatus::Completed, None, &[1, 2, 4]);
            let merged = with_replay(&best, &other).expect("a second pass");
            let program = merged.program(ctx.fragment, ctx.analysis);
            assert!(program.suffix.contains("os.environ.pop('DEBUG', None)\n__runnable_fragment()"), "{}", program.suffix);
        })
    }

    #[test]
    fn a_variant_outside_the_context_runs_the_body_again_without_it() {
        with_ctx("if app:\n    return app.name\nreturn None\n", |ctx| {
            let app = || Prefix { bindings: vec![Binding::new("app", vec![Candidate::Value(Value::Expr { code: "current_app".into(), imports: vec![] })])], ..Prefix::default() };
            let mut inside = app();
            inside.context = Some("Flask(__name__).test_request_context()".into());
            let best = attempt(ctx, inside, RunStatus::Completed, None, &[1, 2]);
            let other = attempt(ctx, app(), RunStatus::Completed, None, &[1, 3]);
            let program = with_replay(&best, &other).expect("a second pass").program(ctx.fragment, ctx.analysis);
            assert!(program.suffix.starts_with("with Flask(__name__).test_request_context():\n    __runnable_fragment()\n"), "{}", program.suffix);
            assert!(program.suffix.ends_with("as a caller without one runs it.\n__runnable_fragment()\n"), "{}", program.suffix);
        })
    }

    #[test]
    fn a_variant_on_other_files_or_imports_is_not_replayed() {
        with_ctx(BODY, |ctx| {
            let best = attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2]);
            let mut files = flag(false);
            files.add_resource(crate::exec::Resource { path: "data.txt".into(), content: b"x".to_vec() });
            assert!(with_replay(&best, &attempt(ctx, files, RunStatus::Completed, None, &[1, 3])).is_none());
            let imported = Prefix { bindings: vec![Binding::new("cyclic", vec![Candidate::Import("from flags import cyclic".into())])], ..Prefix::default() };
            assert!(with_replay(&best, &attempt(ctx, imported, RunStatus::Completed, None, &[1, 3])).is_none());
        })
    }

    #[test]
    fn only_a_program_that_finishes_and_covers_more_improves() {
        with_ctx(BODY, |ctx| {
            let best = attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2]);
            let other = attempt(ctx, flag(false), RunStatus::Completed, None, &[1, 3]);
            assert!(improves(&best, &other, &attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2, 3])));
            assert!(!improves(&best, &other, &attempt(ctx, flag(true), RunStatus::Raised, None, &[1, 2, 3])));
            assert!(!improves(&best, &other, &attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 3])));
            // An exception swallowed on the second pass is the variant's own or a reason to refuse.
            let caught = |t: &str| crate::exec::ExceptionInfo { type_name: t.into(), message: "m".into(), ..Default::default() };
            let mut merged = attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2, 3]);
            merged.outcome.caught = Some(caught("KeyError"));
            assert!(!improves(&best, &other, &merged));
            let mut handler = other.clone();
            handler.outcome.caught = Some(caught("KeyError"));
            assert!(improves(&best, &handler, &merged));
        })
    }
}
