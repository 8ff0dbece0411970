//! The hybrid policy: the model is asked only after the deterministic
//! search stalled below full coverage (or raised), with what the rules
//! learned as context. Environment first when the run is missing a module
//! or a file, then exploration (k prefixes a call, each run, the best
//! kept), then evolution (a generator's candidates; each that adds lines
//! joins the union, the smallest cover is kept as the rules' is).

use super::config::Stage;
use super::environment;
use super::feedback;
use super::proposer::ModelProposer;
use crate::coverage::Coverage;
use crate::exec::{ExecError, Resource};
use crate::synth::search::{smallest_cover, Progress, SearchResult};
use crate::synth::session::{Attempt, Session};
use crate::synth::Proposer;
use std::collections::HashSet;

/// Exploration calls in a row that may bring nothing before evolution.
const IDLE_ROUNDS: usize = 2;

/// What the model stages added, for the report.
#[derive(Debug, Default)]
pub struct Outcome {
    /// `program.prefix` of every attempt a model proposal produced.
    pub by_model: HashSet<String>,
    pub environment: Option<environment::CheckedEnvironment>,
    /// Whether the model was asked at all (the rules stalled).
    pub asked: bool,
}

/// Whether the rules stalled: below full coverage, or raised.
pub fn stalled(result: &SearchResult) -> bool {
    !(result.best.completed() && result.best.coverage.is_full())
}

pub fn extend(session: &mut Session, mut result: SearchResult, model: &ModelProposer, progress: &dyn Progress) -> Result<(SearchResult, Outcome), ExecError> {
    let mut out = Outcome::default();
    if !stalled(&result) || progress.cancelled() || !model.may_call() || !session.has_budget() {
        return Ok((result, out));
    }
    out.asked = true;
    let library_errors = || -> Vec<String> { session_errors(session) };
    model.learn(Some(library_errors()), None, false);
    let executable = result.best.coverage.executable.clone();
    let mut variants: Vec<Attempt> = std::mem::take(&mut result.variants);
    let mut union = result.union.clone();

    // Environment: a module or a file the run lacks, or data a file holds.
    if let Some(missing) = needs_environment(&result.best) {
        progress.asking_model(Stage::Environment.as_str());
        if let Some(proposal) = model.environment(&session.ctx, &result.best) {
            let mut known: Vec<String> = result.best.prefix.resources.iter().map(|r| r.path.clone()).collect();
            known.extend(missing);
            let checked = environment::check(&session.ctx, &proposal, &known);
            model.note_rejected(Stage::Environment, checked.rejected_files.len());
            if !checked.files.is_empty() {
                let mut p = result.best.prefix.clone();
                for f in &checked.files {
                    p.add_resource(Resource { path: f.path.clone(), content: f.content.clone().into_bytes() });
                }
                if let Some(a) = session.attempt(p)? {
                    take(&mut result, &mut union, &mut variants, &mut out, model, a, Stage::Environment, &executable);
                }
            }
            out.environment = Some(checked);
        }
    }

    // Exploration: k prefixes per call from the best attempt's feedback.
    let mut idle = 0;
    while stalled(&result) && idle < IDLE_ROUNDS && session.has_budget() && model.may_call() && !progress.cancelled() {
        progress.asking_model(Stage::Exploration.as_str());
        let subject = result.best.as_raised().unwrap_or_else(|| result.best.clone());
        let proposals = model.refine(&session.ctx, &subject);
        if proposals.is_empty() {
            idle += 1;
            continue;
        }
        let before = result.best.score();
        for p in proposals {
            if !session.has_budget() || progress.cancelled() {
                break;
            }
            if let Some(a) = session.attempt(p)? {
                take(&mut result, &mut union, &mut variants, &mut out, model, a, Stage::Exploration, &executable);
            }
        }
        progress.exploring(result.rounds.len(), result.best.coverage.ratio);
        result.rounds.push(result.best.coverage.ratio);
        idle = if result.best.score() > before { 0 } else { idle + 1 };
    }

    // Evolution: a generator program's candidates for the uncovered lines.
    if !result.best.coverage.is_full() && session.has_budget() && model.may_call() && !progress.cancelled() {
        progress.asking_model(Stage::Evolution.as_str());
        let uncovered: Vec<u32> = executable.iter().copied().filter(|l| !result.best.coverage.covered.contains(l)).collect();
        for p in model.variants(&session.ctx, &result.best, &uncovered) {
            if !session.has_budget() || progress.cancelled() {
                break;
            }
            if let Some(a) = session.attempt(p)? {
                take(&mut result, &mut union, &mut variants, &mut out, model, a, Stage::Evolution, &executable);
                progress.evolving(variants.len(), union.ratio);
            }
        }
    }
    variants.retain(|v| v.prefix != result.best.prefix);
    result.variants = smallest_cover(&result.best.coverage.covered, variants, |v| &v.coverage.covered);
    result.union = union;
    Ok((result, out))
}

/// Keep `a` where it helps: the new best when it scores higher (the old
/// best may still hold lines of the union), a variant when it adds lines.
#[allow(clippy::too_many_arguments)]
fn take(result: &mut SearchResult, union: &mut Coverage, variants: &mut Vec<Attempt>, out: &mut Outcome, model: &ModelProposer, a: Attempt, stage: Stage, executable: &[u32]) {
    let adds = a.coverage.covered.iter().any(|l| !union.covered.contains(l));
    let better = a.score() > result.best.score();
    let rose = a.coverage.covered.len() > result.best.coverage.covered.len();
    if better || adds {
        out.by_model.insert(a.program.prefix.clone());
        model.note_kept(stage);
    }
    if adds {
        *union = Coverage::union(executable.to_vec(), [&*union, &a.coverage]);
    }
    let note = (!better).then(|| feedback::failure_note(&a.program.prefix, &feedback::exception_line(&a).unwrap_or_else(|| "no new lines".into())));
    model.learn(None, note, rose);
    if better {
        let old = std::mem::replace(&mut result.best, a);
        variants.push(old);
    } else if adds {
        variants.push(a);
    }
}

/// Whether the environment stage may help the best attempt: it stopped on
/// a missing module or file (`Some(Some(path))` for a file), or on anything
/// while reading files the rules wrote (their contents may be what is wrong).
fn needs_environment(best: &Attempt) -> Option<Option<String>> {
    let e = best.outcome.exception.as_ref()?;
    match e.type_name.as_str() {
        "ModuleNotFoundError" | "ImportError" => Some(None),
        "FileNotFoundError" => Some(e.path.clone()),
        _ if !best.prefix.resources.is_empty() => Some(None),
        _ => None,
    }
}

fn session_errors(session: &Session) -> Vec<String> {
    session.library_errors.iter().map(|e| format!("{} (in {}): {}", e.type_name, e.raised_in.as_deref().unwrap_or("?"), e.message)).collect()
}
