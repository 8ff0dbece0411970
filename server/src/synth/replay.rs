//! One program for the branches that need other inputs: after the best
//! prefix's driver, the driver runs again with the names a kept variant
//! binds differently rebound to its values, as a test calls a function
//! twice. Only the functions the driver calls run again (a wrapped body,
//! the fragment's own definitions); its top-level lines run once, so a
//! variant whose new lines are there adds nothing and is not kept.

use super::prefix::{Candidate, Prefix, Replay};
use super::session::Attempt;

/// `best`'s prefix with the driver run again as `variant` runs it, when
/// the two differ only in the values of bindings and in the driver: the
/// files, modules, environment, command line and wrapping are the best's,
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
        && b.environment == v.environment
        && b.argv == v.argv
        && b.context == v.context
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
    if values.is_empty() && v.driver == b.driver {
        return None;
    }
    let mut prefix = b.clone();
    prefix.replays.push(Replay { values, driver: v.driver.clone() });
    Some(prefix)
}

/// Whether `merged` is a better program than `best`: it finishes as the
/// best did and covers every statement the best covers and more.
pub fn improves(best: &Attempt, merged: &Attempt) -> bool {
    merged.completed()
        && merged.outcome.caught.is_none() >= best.outcome.caught.is_none()
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
            assert!(improves(&best, &attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 2, 3])));
            assert!(!improves(&best, &attempt(ctx, flag(true), RunStatus::Raised, None, &[1, 2, 3])));
            assert!(!improves(&best, &attempt(ctx, flag(true), RunStatus::Completed, None, &[1, 3])));
        })
    }
}
