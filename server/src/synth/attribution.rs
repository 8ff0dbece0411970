//! Which rule made what: the stage a rule serves, the trail of rules behind
//! a prefix, the rule behind a binding, and how often each rule fired, was
//! kept and added coverage. Attribution is for the report and for measuring
//! rules; it never tells two prefixes apart (its equality always holds), so
//! the same program proposed by two rules is still one program.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The stage a rule serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Builds the first prefix from static facts.
    Initial,
    /// Proposes prefixes that may fix what stopped a run.
    Refine,
    /// Proposes variants that may take one branch the other way.
    Branch,
    /// Proposes variants for lines still uncovered (handlers, bodies, environment).
    Evolve,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Initial => "initial",
            Stage::Refine => "refine",
            Stage::Branch => "branch",
            Stage::Evolve => "evolve",
        }
    }
}

/// The rules behind a prefix, in the order they applied.
#[derive(Debug, Clone, Default)]
pub struct Trail(pub Vec<(Stage, &'static str)>);

impl PartialEq for Trail {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Trail {
    /// The rule that proposed this prefix last, unless it is the first
    /// prefix (initial rules all contribute to one proposal).
    pub fn proposer(&self) -> Option<&'static str> {
        self.0.last().filter(|(s, _)| *s != Stage::Initial).map(|(_, r)| *r)
    }
    /// The last evolution rule (branch or evolve) in the trail.
    pub fn last_variant_rule(&self) -> Option<&'static str> {
        self.0.iter().rev().find(|(s, _)| matches!(s, Stage::Branch | Stage::Evolve)).map(|(_, r)| *r)
    }
}

/// The rule that gave a binding its current candidate.
#[derive(Debug, Clone, Copy, Default)]
pub struct Origin(pub Option<&'static str>);

impl PartialEq for Origin {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// What one rule did over a fix (or, summed, over a bench).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleUse {
    pub rule: String,
    /// Runs of a program it proposed (initial rules: first prefixes it shaped).
    pub fired: usize,
    /// Proposals the search took (a refinement it moved to, a variant it kept).
    pub kept: usize,
    /// Statements those kept proposals added.
    pub added: usize,
}

/// Per-rule counts of one session.
#[derive(Debug, Clone, Default)]
pub struct RuleStats(BTreeMap<&'static str, (usize, usize, usize)>);

impl RuleStats {
    pub fn fired(&mut self, rule: &'static str) {
        self.0.entry(rule).or_default().0 += 1;
    }
    pub fn kept(&mut self, rule: &'static str, added: usize) {
        let e = self.0.entry(rule).or_default();
        e.1 += 1;
        e.2 += added;
    }
    pub fn uses(&self) -> Vec<RuleUse> {
        self.0.iter().map(|(r, (f, k, a))| RuleUse { rule: r.to_string(), fired: *f, kept: *k, added: *a }).collect()
    }
}

/// Sum per-rule uses (over the fixes of a bench).
pub fn sum_uses<'a>(all: impl IntoIterator<Item = &'a RuleUse>) -> Vec<RuleUse> {
    let mut by: BTreeMap<String, RuleUse> = BTreeMap::new();
    for u in all {
        let e = by.entry(u.rule.clone()).or_insert_with(|| RuleUse { rule: u.rule.clone(), ..RuleUse::default() });
        e.fired += u.fired;
        e.kept += u.kept;
        e.added += u.added;
    }
    by.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribution_never_tells_prefixes_apart_and_uses_sum_per_rule() {
        assert_eq!(Trail(vec![(Stage::Refine, "a")]), Trail::default());
        let t = Trail(vec![(Stage::Initial, "i"), (Stage::Branch, "b"), (Stage::Refine, "r")]);
        assert_eq!(t.proposer(), Some("r"));
        assert_eq!(t.last_variant_rule(), Some("b"));
        assert_eq!(Trail(vec![(Stage::Initial, "i")]).proposer(), None);
        let mut s = RuleStats::default();
        s.fired("x");
        s.kept("x", 3);
        s.fired("y");
        let both = sum_uses(s.uses().iter().chain(s.uses().iter()));
        assert_eq!(both[0], RuleUse { rule: "x".into(), fired: 2, kept: 2, added: 6 });
        assert_eq!(both[1], RuleUse { rule: "y".into(), fired: 2, kept: 0, added: 0 });
    }
}
