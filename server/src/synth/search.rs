//! The loop shared by every proposer: exploration (refine until the run
//! stops improving, pruning attempts that lost coverage) and evolution
//! (variants that reach branches still uncovered, kept when they add
//! coverage to the union).

use super::attribution::RuleUse;
use super::prefix::{Candidate, Prefix};
use super::stand_in;
use super::replay;
use super::session::{Attempt, Context, Session};
use super::Proposer;
use crate::coverage::Coverage;
use crate::exec::ExecError;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[derive(Debug)]
pub struct SearchResult {
    /// The best single prefix.
    pub best: Attempt,
    /// Variants kept because each adds statements to the union.
    pub variants: Vec<Attempt>,
    pub union: Coverage,
    /// Coverage after each exploration round (for progress reports).
    pub rounds: Vec<f64>,
    /// What each rule did in this search (`attribution::RuleUse`).
    pub rules: Vec<RuleUse>,
}

/// Progress events for a caller that shows them (the language server).
pub trait Progress {
    /// Run number `run` (1-based, counted over the whole fix) is starting,
    /// `elapsed` after the fix started. Called by the executor the fix runs
    /// through, so every run is announced, the first one included.
    fn running(&self, _run: usize, _elapsed: std::time::Duration) {}
    fn exploring(&self, _round: usize, _coverage: f64) {}
    fn evolving(&self, _variant: usize, _coverage: f64) {}
    /// A model stage (`environment`, `exploration`, `evolution`) is being
    /// asked, after the rules stalled (`llm::hybrid`).
    fn asking_model(&self, _stage: &str) {}
    fn cancelled(&self) -> bool {
        false
    }
    /// The flag behind `cancelled`, when there is one: the run in flight is
    /// then stopped as soon as it is set, not only the search between runs.
    fn cancel_flag(&self) -> Option<Arc<AtomicBool>> {
        None
    }
}

pub struct NoProgress;
impl Progress for NoProgress {}

pub fn search(session: &mut Session, proposer: &dyn Proposer, progress: &dyn Progress) -> Result<SearchResult, ExecError> {
    if let Some(flag) = progress.cancel_flag() {
        session.set_cancel(Some(flag));
    }
    let first = proposer.initial(&session.ctx);
    let current = match session.attempt(first)? {
        Some(a) => a,
        None => unreachable!("the first attempt always runs"),
    };
    // The initial rules all shaped the one first prefix: it counts for each.
    for (_, rule) in &current.prefix.trail.0 {
        session.rules.fired(rule);
        session.rules.kept(rule, 0);
    }
    let mut rounds = vec![current.coverage.ratio];
    let mut seen_failures: HashSet<String> = HashSet::from([current.signature()]);
    progress.exploring(0, current.coverage.ratio);
    let explored = explore(session, proposer, progress, current, &mut seen_failures, &mut rounds)?;
    let mut best = real_values_back(session, proposer, progress, explored, &mut seen_failures, &mut rounds)?;
    // Evolution: variants that cover what the best prefix did not. A variant
    // that beats the best prefix becomes the best and is evolved further
    // (hill climbing); every variant that adds statements joins the union.
    let mut variants: Vec<Attempt> = Vec::new();
    let executable = best.coverage.executable.clone();
    let mut union = best.coverage.clone();
    // A full union still leaves the single best prefix to improve: one
    // prefix that runs everything is what a person keeps.
    'climb: while !best.coverage.is_full() && session.has_budget() && !progress.cancelled() {
        let uncovered: Vec<u32> = executable.iter().copied().filter(|l| !best.coverage.covered.contains(l)).collect();
        for proposal in proposer.variants(&session.ctx, &best, &uncovered) {
            if !session.has_budget() || progress.cancelled() {
                break 'climb;
            }
            let Some(v) = session.attempt(proposal)? else { continue };
            let mut found = vec![v];
            let new_lines = |a: &Attempt, union: &Coverage| a.coverage.covered.iter().any(|l| !union.covered.contains(l));
            if found[0].outcome.exception.is_some() && found[0].score() <= best.score() && new_lines(&found[0], &union) {
                // It went somewhere new and stopped there: refine that too.
                let refined = explore(session, proposer, progress, found[0].clone(), &mut seen_failures, &mut rounds)?;
                if refined.prefix != found[0].prefix {
                    found.push(refined);
                }
            }
            for v in &found {
                if new_lines(v, &union) {
                    if let Some(rule) = v.prefix.trail.proposer() {
                        session.rules.kept(rule, v.coverage.covered.iter().filter(|l| !union.covered.contains(l)).count());
                    }
                    union = Coverage::union(executable.clone(), [&union, &v.coverage]);
                    variants.push(v.clone());
                    progress.evolving(variants.len(), union.ratio);
                }
            }
            let top = found.into_iter().max_by_key(Attempt::score).unwrap();
            if top.score() > best.score() {
                // The variant got further: what stops it now is refined too.
                // The prefix it displaces may still hold lines of the union.
                let displaced = std::mem::replace(&mut best, explore(session, proposer, progress, top, &mut seen_failures, &mut rounds)?);
                variants.push(displaced);
                continue 'climb;
            }
        }
        break;
    }
    variants.retain(|v| v.prefix != best.prefix);
    let variants = smallest_cover(&best.coverage.covered, variants, |v| &v.coverage.covered);
    let (best, variants) = merge_variants(session, progress, best, variants)?;
    // Two passes may reach lines neither reached alone.
    let union = Coverage::union(executable, [&union, &best.coverage]);
    Ok(SearchResult { best, variants, union, rounds, rules: session.rules.uses() })
}

/// Variants run again in the best program, after its driver (`replay`):
/// each that makes one program cover more is kept in it; the variants
/// returned are those still adding lines beside it.
fn merge_variants(session: &mut Session, progress: &dyn Progress, mut best: Attempt, variants: Vec<Attempt>) -> Result<(Attempt, Vec<Attempt>), ExecError> {
    for v in &variants {
        if best.coverage.is_full() || !session.has_budget() || progress.cancelled() {
            break;
        }
        let Some(prefix) = replay::with_replay(&best, v) else { continue };
        if let Some(merged) = session.attempt(prefix)? {
            if replay::improves(&best, v, &merged) {
                best = merged;
            }
        }
    }
    let left = variants.into_iter().filter(|v| v.coverage.covered.iter().any(|l| !best.coverage.covered.contains(l))).collect();
    Ok((best, left))
}

/// A name the search moved to the placeholder (or a stub) while the run
/// failed for another reason (a library name not yet imported, a file not
/// yet made) may take its real value now that those are fixed; a name
/// bound by a hand-written stand-in (`stand_in.rs`) may take the import it
/// stands for (`rmtree` written out where `shutil` has it). Each such
/// binding is tried back with the real one, refined where it raised (the
/// real `unpack` wants bytes where the stand-in took a list: the inputs
/// change, not the function), and kept when it does no worse: the real
/// thing is what a person keeps.
fn real_values_back(
    session: &mut Session,
    proposer: &dyn Proposer,
    progress: &dyn Progress,
    mut best: Attempt,
    seen_failures: &mut HashSet<String>,
    rounds: &mut Vec<f64>,
) -> Result<Attempt, ExecError> {
    for i in 0..best.prefix.bindings.len() {
        let Some(real) = real_choice(&session.ctx, &best.prefix, i) else { continue };
        if !session.has_budget() || progress.cancelled() {
            break;
        }
        let mut prefix = best.prefix.clone();
        prefix.bindings[i].choice = real;
        if let Some(mut back) = session.attempt(prefix)? {
            if back.outcome.exception.is_some() && back.score() < best.score() {
                back = explore(session, proposer, progress, back, seen_failures, rounds)?;
            }
            if back.score() >= best.score() && real_choice(&session.ctx, &back.prefix, i).is_none() {
                best = back;
            }
        }
    }
    Ok(best)
}

/// The candidate binding `i` of `prefix` would take to be real: for a stub,
/// the latest real value (refinement had already mended the earlier ones);
/// for a stand-in, the first import among its candidates.
fn real_choice(ctx: &Context, prefix: &Prefix, i: usize) -> Option<usize> {
    let b = &prefix.bindings[i];
    match b.current() {
        c if c.is_stub() => b.candidates.iter().rposition(|c| matches!(c, Candidate::Value(_)) && !c.is_stub()),
        Candidate::Value(v) if stand_in::is_stand_in(ctx, &b.name, &ctx.usage_of(&b.name), v, prefix.not_modules.contains(&b.name)) => {
            b.candidates.iter().position(|c| matches!(c, Candidate::Import(_)))
        }
        _ => None,
    }
}

/// The candidates that, beside lines already `covered`, cover every line
/// any of them covers: greedily, the one adding most lines first (a tie
/// keeps the earlier one).
pub fn smallest_cover<T>(covered: &[u32], mut candidates: Vec<T>, lines: impl Fn(&T) -> &[u32]) -> Vec<T> {
    let mut covered: HashSet<u32> = covered.iter().copied().collect();
    let mut kept = Vec::new();
    loop {
        let adds = |v: &T| lines(v).iter().filter(|l| !covered.contains(l)).count();
        let Some((at, n)) = candidates.iter().map(adds).enumerate().rev().max_by_key(|&(_, n)| n) else { break };
        if n == 0 {
            break;
        }
        let v = candidates.remove(at);
        covered.extend(lines(&v).iter().copied());
        kept.push(v);
    }
    kept
}

/// Exploration: greedy refinement from `start` with coverage-aware pruning.
/// A proposal is taken when it scores higher, or scores the same with a
/// failure not seen before; the best attempt of the chain is returned.
fn explore(
    session: &mut Session,
    proposer: &dyn Proposer,
    progress: &dyn Progress,
    start: Attempt,
    seen_failures: &mut HashSet<String>,
    rounds: &mut Vec<f64>,
) -> Result<Attempt, ExecError> {
    let mut current = start;
    let mut best = current.clone();
    while session.has_budget() && !progress.cancelled() && !(current.completed() && current.coverage.is_full()) {
        let mut moved = false;
        let subject = current.as_raised();
        // Raised in an `except` block: what it was handling is refined
        // first, the cause; then the handler's own failure.
        let mut proposals = current.as_handled().map(|cause| proposer.refine(&session.ctx, &cause)).unwrap_or_default();
        proposals.extend(proposer.refine(&session.ctx, subject.as_ref().unwrap_or(&current)));
        for proposal in proposals {
            if !session.has_budget() || progress.cancelled() {
                break;
            }
            let Some(next) = session.attempt(proposal)? else { continue };
            let better = next.score() > current.score();
            let new_failure = next.score() == current.score() && seen_failures.insert(next.signature());
            if better || new_failure {
                if let Some(rule) = next.prefix.trail.proposer() {
                    session.rules.kept(rule, next.coverage.covered.len().saturating_sub(current.coverage.covered.len()));
                }
                current = next;
                moved = true;
                break;
            }
        }
        if current.score() > best.score() {
            best = current.clone();
        }
        rounds.push(current.coverage.ratio);
        progress.exploring(rounds.len() - 1, best.coverage.ratio);
        if !moved {
            break;
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::smallest_cover;

    #[test]
    fn the_kept_variants_are_a_small_cover_of_the_union() {
        let candidates: Vec<Vec<u32>> = vec![vec![5], vec![5, 7], vec![13], vec![2, 13], vec![7]];
        let kept = smallest_cover(&[2, 9], candidates, |v| v);
        assert_eq!(kept, vec![vec![5, 7], vec![13]]);
        assert!(smallest_cover(&[1, 2], vec![vec![1], vec![2]], |v| v).is_empty());
    }
}
