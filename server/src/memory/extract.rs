//! Phase 1: what worked in one finished job, as observations. Pure and
//! deterministic; the caller redacts and stores them.
//!
//! - A value template for each name the best prefix bound to a value
//!   (a literal or expression, an object, a function, a class: never the
//!   placeholder nor a stand-in, see `stored_value`) whose first use ran:
//!   keyed by the name's usage signature.
//!   It is `found` when the rules' own first prefix had another value for
//!   the name (the search, or a remembered template leading, got there):
//!   only such a template may lead a later first run (`recall`).
//! - A remembered template that was tried (its line is in a program that
//!   ran) and that the best prefix does not use: a failure (it is demoted).
//! - Import name -> distribution pairs that installed and imported, only
//!   when the user consented to installing (`--install`).
//! Never a library name: names the rules bind by imports only are skipped,
//! as in `synth::library_names`.

use super::recall::{same_value, Offer};
use super::signature::signature_in;
use super::stored_value::encode;
use super::store::Observation;
use crate::knowledge;
use crate::synth::library_names::library_imports;
use crate::synth::prefix::{Candidate, Prefix};
use crate::synth::session::{Attempt, Context};
use std::collections::BTreeSet;

/// A template longer than this is not worth keeping (and not readable).
const MAX_TEMPLATE: usize = 4000;

pub struct Job<'a> {
    pub ctx: &'a Context<'a>,
    pub best: &'a Attempt,
    /// The rules' own first prefix (without remembered templates).
    pub first: &'a Prefix,
    /// The remembered templates offered, and which of them ran (by index).
    pub offers: &'a [Offer],
    pub tried: &'a BTreeSet<usize>,
    /// The user consented to installing.
    pub install: bool,
    pub installed: &'a [String],
}

pub fn extract(job: &Job) -> Vec<Observation> {
    let mut out = Vec::new();
    let ctx = job.ctx;
    let best = job.best;
    let covered: BTreeSet<u32> = best.coverage.covered.iter().copied().collect();
    let free = ctx.analysis.free_names.iter().chain(&ctx.analysis.used_before_bound);
    let mut seen = BTreeSet::new();
    for f in free {
        if !seen.insert(f.name.clone()) || !covered.contains(&f.first_line) {
            continue;
        }
        let Some(b) = best.prefix.binding(&f.name) else { continue };
        let Candidate::Value(v) = b.current() else { continue };
        if b.import_only() || best.prefix.not_modules.contains(&f.name) || library_imports(ctx, &f.name, &f.usage).is_some() {
            continue;
        }
        let Some(sig) = signature_in(ctx, &f.usage) else { continue };
        let Some(code) = encode(v).filter(|c| c.len() <= MAX_TEMPLATE) else { continue };
        let mut imports = Vec::new();
        v.imports(&mut imports);
        imports.sort();
        imports.dedup();
        let guessed = job.first.binding(&f.name).is_some_and(|g| matches!(g.current(), Candidate::Value(g) if same_value(g, v)));
        out.push(Observation::Template { signature: sig, code, imports, worked: true, found: !guessed });
    }
    for (i, offer) in job.offers.iter().enumerate() {
        let used = best.prefix.binding(&offer.name).is_some_and(|b| *b.current() == Candidate::Value(offer.value()));
        if job.tried.contains(&i) && !used {
            out.push(Observation::Template { signature: offer.signature.clone(), code: offer.code.clone(), imports: offer.imports.clone(), worked: false, found: false });
        }
    }
    if job.install && imported(best) {
        let mut modules: BTreeSet<String> = ctx.analysis.imports.iter().filter(|i| i.level == 0 && !i.module.is_empty()).map(|i| i.module.clone()).collect();
        modules.extend(best.prefix.imported_modules());
        for m in modules {
            let Some(dist) = knowledge::distribution_for(&m) else { continue };
            let norm = knowledge::normalize_distribution(dist);
            if job.installed.iter().any(|d| knowledge::normalize_distribution(d) == norm) {
                out.push(Observation::Import { module: m, distribution: dist.to_string() });
            }
        }
    }
    out
}

/// The best attempt got past its imports: no import error, and some
/// fragment line ran (the prefix's imports come first).
fn imported(best: &Attempt) -> bool {
    let import_error = best.outcome.exception.as_ref().is_some_and(|e| matches!(e.type_name.as_str(), "ModuleNotFoundError" | "ImportError"));
    !import_error && !best.coverage.covered.is_empty()
}
