//! Use of remembered templates: a proposer around the rules that offers,
//! for a name whose usage signature matches, the values that made that
//! signature run before. Pure (the templates are looked up before the
//! search starts).
//!
//! The hook: in the first prefix, each value binding gets its remembered
//! templates among its candidates. A run is the price of trying one, so
//! where a template goes follows its record on that usage signature:
//! - one that only ever worked there (`clean`: uses, no failure) is the
//!   name's first candidate: the first run tries it, and when it is the
//!   whole answer the runs the rules would spend reaching it are saved;
//! - one that also failed there (still more uses than failures: worse ones
//!   are never offered) goes after the rules' first guess and before the
//!   catch-all, where the rules' own `next-candidate` reaches it when the
//!   first guess fails on a line that reads the name; it does not jump
//!   ahead of the rules' targeted refinements (a missing key, an attribute),
//!   which usually fix a failure in one run.
//! When the first run (with leading templates) does not run everything, the
//! rules' own first prefix is the first refinement: one run is the most a
//! wrong template costs before the search is back on the rules' path.
//! Otherwise refinements and variants are the rules' own: a remembered value is never
//! part of the evolution's vocabulary (`alternatives` reads a binding's
//! other candidates), so it costs no variant run. A template that duplicates
//! a candidate the rules already have is not offered at all.

use super::signature::signature_in;
use super::stored_value::decode;
use super::store::Template;
use crate::synth::library_names::{faked_library_name, library_imports};
use crate::synth::prefix::{module_of_import, Candidate, Prefix};
use crate::synth::session::{Attempt, Context};
use crate::synth::value::Value;
use crate::synth::Proposer;
use std::collections::BTreeSet;

/// Templates offered per name, at most.
pub const PER_NAME: usize = 2;

/// A remembered template offered for one name of this fragment.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub name: String,
    pub signature: String,
    /// As the store keeps it (`stored_value`).
    pub code: String,
    pub imports: Vec<String>,
    /// It worked for this signature every time it was used, and never failed.
    pub clean: bool,
    value: Value,
}

impl Offer {
    pub fn value(&self) -> Value {
        self.value.clone()
    }
    /// The line the prefix has when this offer is the name's value.
    pub fn rendered(&self) -> String {
        self.value().definition(&self.name)
    }
}

/// What to offer, from the rules' first prefix and a lookup by signature:
/// only names the rules bind to a value (never a module or a library
/// member: those are bound by imports only), only templates whose imports
/// the environment already has (the standard library, or a module the
/// fragment or the first prefix imports) and that are plain imports.
pub fn offers(ctx: &Context, first: &Prefix, lookup: &mut dyn FnMut(&str) -> Vec<Template>) -> Vec<Offer> {
    let mut available: BTreeSet<String> = first.imported_modules().iter().map(|m| top(m).to_string()).collect();
    available.extend(ctx.analysis.imports.iter().filter(|i| i.level == 0).map(|i| top(&i.module).to_string()));
    let mut out = Vec::new();
    for b in &first.bindings {
        if b.import_only() || first.not_modules.contains(&b.name) {
            continue;
        }
        let usage = ctx.usage_of(&b.name);
        if library_imports(ctx, &b.name, &usage).is_some() {
            continue;
        }
        let Some(sig) = signature_in(ctx, &usage) else { continue };
        for t in lookup(&sig).into_iter().take(PER_NAME) {
            let imports_ok = t.imports.iter().all(|i| plain_import(i) && module_of_import(i).is_some_and(|m| ctx.stdlib.contains(top(&m)) || available.contains(top(&m))));
            let Some(value) = decode(&t.code, &t.imports) else { continue };
            let offer = Offer { name: b.name.clone(), signature: sig.clone(), code: t.code, imports: t.imports, clean: t.uses > 0 && t.failures == 0, value };
            if imports_ok && !spelled_by(&b.candidates, &offer.value) && !out.iter().any(|o: &Offer| o.name == offer.name && o.code == offer.code) {
                out.push(offer);
            }
        }
    }
    out
}

/// Whether a candidate already is this value (the rules' own guess), or
/// spells this expression.
fn spelled_by(candidates: &[Candidate], value: &Value) -> bool {
    candidates.iter().any(|c| match (c, value) {
        (Candidate::Value(v), _) if v == value => true,
        (Candidate::Value(v), Value::Expr { code, .. }) => !v.needs_definition() && v.expr() == *code,
        _ => false,
    })
}

fn top(module: &str) -> &str {
    module.split('.').next().unwrap_or(module)
}

/// `import a.b`, `import a as b`, `from a import b[ as c]`: one line, no `;`.
fn plain_import(stmt: &str) -> bool {
    let s = stmt.trim();
    let ident = |w: &str| !w.is_empty() && w.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    let words: Vec<&str> = s.split_whitespace().collect();
    match words.as_slice() {
        ["import", m] | ["import", m, "as", _] => ident(m) && words.last().is_some_and(|w| ident(w)),
        ["from", m, "import", rest @ ..] => ident(m) && !rest.is_empty() && rest.iter().all(|w| *w == "as" || ident(w.trim_end_matches(','))),
        _ => false,
    }
}

/// The rules, with remembered templates in their first prefix.
pub struct Remembering<'a> {
    pub rules: &'a dyn Proposer,
    pub offers: Vec<Offer>,
}

impl Proposer for Remembering<'_> {
    fn initial(&self, ctx: &Context) -> Prefix {
        let mut p = self.rules.initial(ctx);
        let plain = p.clone();
        // Each name's first clean offer leads; the rest follow the rules' first guess.
        let mut leading: BTreeSet<&str> = BTreeSet::new();
        for offer in &self.offers {
            let Some(b) = p.binding_mut(&offer.name) else { continue };
            if b.import_only() || spelled_by(&b.candidates, &offer.value) {
                continue;
            }
            let candidate = Candidate::Value(offer.value());
            if offer.clean && leading.insert(offer.name.as_str()) {
                b.candidates.insert(0, candidate);
                b.choice = 0;
                continue;
            }
            // After the rules' first guess (and a leading offer), before the catch-all.
            let catch_all = b.candidates.iter().position(|c| matches!(c, Candidate::Value(Value::Anything))).unwrap_or(b.candidates.len());
            // Later offers of the same name go after earlier ones.
            let earlier = |c: &Candidate| self.offers.iter().any(|o| o.name == offer.name && *c == Candidate::Value(o.value()));
            let first_guess = if leading.contains(offer.name.as_str()) { 2 } else { 1 };
            let at = (catch_all.min(first_guess)..catch_all).find(|&i| !earlier(&b.candidates[i])).unwrap_or(catch_all);
            b.candidates.insert(at, candidate);
            if at > 0 && at <= b.choice {
                b.choice += 1;
            }
        }
        // The realism invariant holds for what memory adds as for the rules.
        if faked_library_name(ctx, &p).is_some() {
            return plain;
        }
        p
    }

    fn refine(&self, ctx: &Context, attempt: &Attempt) -> Vec<Prefix> {
        let mut out: Vec<Prefix> = self.fallback(ctx, attempt).into_iter().collect();
        out.extend(self.rules.refine(ctx, attempt));
        out
    }

    fn variants(&self, ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
        let mut out = self.rules.variants(ctx, best, uncovered);
        out.retain(|p| !self.brings_offer(&best.prefix, p));
        out
    }
}

impl Remembering<'_> {
    /// The first run, with leading templates, did not run everything: the
    /// rules' own first prefix is tried next (once, before any refinement),
    /// so a template that does not fit this fragment costs that one run and
    /// the search goes on from wherever got further, never stuck refining
    /// a remembered value that was the wrong start. (The first prefix is
    /// recomputed: it is a pure function of the fragment.)
    fn fallback(&self, ctx: &Context, attempt: &Attempt) -> Option<Prefix> {
        if !self.offers.iter().any(|o| o.clean) || attempt.completed() && attempt.coverage.is_full() {
            return None;
        }
        let first = self.initial(ctx);
        if attempt.prefix.render() != first.render() || attempt.prefix.suffix() != first.suffix() {
            return None;
        }
        let plain = self.rules.initial(ctx);
        (plain.render() != first.render()).then_some(plain)
    }

    /// Whether `variant` gives a name an offered template that `best` does
    /// not use: a remembered value taken up as one of the binding's "other
    /// values", not a variant the rules made.
    fn brings_offer(&self, best: &Prefix, variant: &Prefix) -> bool {
        self.offers.iter().any(|o| {
            let value = Candidate::Value(o.value());
            let has = |p: &Prefix| p.binding(&o.name).is_some_and(|b| *b.current() == value);
            has(variant) && !has(best)
        })
    }
}
