//! The built-in deterministic proposer: the rules of `rules/` (Python
//! semantics and library APIs, no model), asked stage by stage in registry
//! order. It knows no rule by name: it builds each stage's trigger, asks
//! every enabled rule that applies, records which rule made each proposal
//! (`attribution`), and drops any proposal that fakes a library name.

use super::attribution::{Origin, Stage};
use super::library_names;
use super::prefix::{Candidate, Prefix};
use super::stand_in;
use super::rules::{self, Branch, Failure, Rule, Trigger, Uncovered, UnknownRule};
use super::session::{Attempt, Context};
use super::slice::related_bindings;
use super::Proposer;
use crate::exec::RunStatus;

/// Every rule of the registry.
pub struct Deterministic;

impl Proposer for Deterministic {
    fn initial(&self, ctx: &Context) -> Prefix {
        RuleSet::default().initial(ctx)
    }
    fn refine(&self, ctx: &Context, attempt: &Attempt) -> Vec<Prefix> {
        RuleSet::default().refine(ctx, attempt)
    }
    fn variants(&self, ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
        RuleSet::default().variants(ctx, best, uncovered)
    }
}

/// The registry's rules without those turned off (`--disable-rule`).
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    disabled: Vec<&'static str>,
}

impl RuleSet {
    /// Every rule but `names`; a name no rule has is an error that lists the known ones.
    pub fn without(names: &[String]) -> Result<RuleSet, UnknownRule> {
        Ok(RuleSet { disabled: rules::resolve(names)? })
    }

    fn ask(&self, stage: Stage, ctx: &Context, trigger: &Trigger, base: &Prefix, out: &mut Vec<Prefix>) {
        for rule in rules::of_stage(stage, &self.disabled) {
            if rule.applies(ctx, trigger) {
                out.extend(rule.propose(ctx, trigger).into_iter().map(|p| attributed(p, base, rule)));
            }
        }
    }
}

/// `p` with `rule` at the end of its trail and as the origin of every
/// binding it added or changed relative to `base`.
fn attributed(mut p: Prefix, base: &Prefix, rule: &dyn Rule) -> Prefix {
    for b in p.bindings.iter_mut() {
        if base.binding(&b.name) != Some(b) {
            b.rule = Origin(Some(rule.name()));
        }
    }
    p.trail.0.push((rule.stage(), rule.name()));
    p
}

/// No rule may bind a library name to a value, patch a library's
/// attribute, or put a hand-written stand-in where a real instance of the
/// library type can be built (the last line of the invariant;
/// `binding_for` already gives such names imports or the real instance).
fn real_only(ctx: &Context, out: &mut Vec<Prefix>) {
    out.retain(|p| {
        library_names::faked_library_name(ctx, p).is_none()
            && library_names::patched_library_attribute(p).is_none()
            && !p.bindings.iter().any(|b| match b.current() {
                Candidate::Value(v) => stand_in::replaces_a_real_instance(ctx, &b.name, &ctx.usage_of(&b.name), v),
                _ => false,
            })
    });
}

impl Proposer for RuleSet {
    fn initial(&self, ctx: &Context) -> Prefix {
        let mut p = Prefix::default();
        for rule in rules::of_stage(Stage::Initial, &self.disabled) {
            let trigger = Trigger::Initial { so_far: &p };
            if !rule.applies(ctx, &trigger) {
                continue;
            }
            if let Some(next) = rule.propose(ctx, &trigger).into_iter().next().filter(|n| *n != p) {
                p = attributed(next, &p, rule);
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
        let Some(error) = &attempt.outcome.exception else { return Vec::new() };
        let line = attempt.failing_line();
        let names_on_line = line.map(|l| related_bindings(ctx, &attempt.prefix, l)).unwrap_or_default();
        let failure = Failure { attempt, error, base: &attempt.prefix, line, names_on_line };
        let mut out = Vec::new();
        self.ask(Stage::Refine, ctx, &Trigger::Refine(&failure), &attempt.prefix, &mut out);
        real_only(ctx, &mut out);
        out
    }

    fn variants(&self, ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
        let mut out = Vec::new();
        // Conditions, and `for` loops whose body never ran (an empty iterable).
        let a = &ctx.analysis;
        let loops = a.for_loops.iter().filter(|f| uncovered.contains(&f.body_line)).map(|f| (f.line, &[][..], &f.iterable, f.text.as_str()));
        let mut guards: Vec<_> = a.branches.iter().map(|b| (b.line, &b.names[..], &b.condition, b.text.as_str())).chain(loops).collect();
        guards.sort_by_key(|g| g.0);
        for (line, names, condition, text) in guards {
            let in_play = uncovered.iter().any(|u| *u > line) || uncovered.contains(&line);
            if in_play {
                let branch = Branch { best, line, names, condition, text };
                self.ask(Stage::Branch, ctx, &Trigger::Branch(&branch), &best.prefix, &mut out);
            }
        }
        let rest = Uncovered { best, lines: uncovered };
        self.ask(Stage::Evolve, ctx, &Trigger::Evolve(&rest), &best.prefix, &mut out);
        real_only(ctx, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::rules::check::{attempt, raised, with_ctx};

    #[test]
    fn every_binding_and_proposal_names_its_rule_and_a_disabled_rule_proposes_nothing() {
        with_ctx("print(items[5])\n", |ctx| {
            let first = RuleSet::default().initial(ctx);
            assert_eq!(first.binding("items").unwrap().rule.0, Some("free-names"));
            assert_eq!(first.trail.0, [(Stage::Initial, "free-names")]);
            let failed = attempt(ctx, first, RunStatus::Raised, Some(raised("IndexError", "list index out of range", 1)), &[]);
            let all = RuleSet::default().refine(ctx, &failed);
            let by: Vec<&str> = all.iter().filter_map(|p| p.trail.proposer()).collect();
            assert_eq!(by.len(), all.len(), "every proposal names its rule");
            assert!(by.contains(&"grow-list"), "{by:?}");
            let grown = &all[by.iter().position(|r| *r == "grow-list").unwrap()];
            assert_eq!(grown.binding("items").unwrap().rule.0, Some("grow-list"), "the changed binding names the rule that changed it");
            let fewer = RuleSet::without(&["grow-list".to_string()]).unwrap().refine(ctx, &failed);
            assert!(fewer.iter().all(|p| p.trail.proposer() != Some("grow-list")));
            assert_eq!(fewer.len() + by.iter().filter(|r| **r == "grow-list").count(), all.len());
        });
    }
}
