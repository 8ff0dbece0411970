//! Use of remembered templates: a proposer around the rules that offers,
//! for a name whose usage signature matches, the values that made that
//! signature run before. Pure (the templates are looked up before the
//! search starts).
//!
//! The hook: in the first prefix, each value binding gets the remembered
//! templates inserted after the rules' own first guess and before the
//! catch-all placeholder. When a run fails, the first refinements proposed
//! are the failing prefix with a remembered template chosen for a name the
//! failing line reads (then the rules' own refinements, which end in the
//! catch-all): so the order tried is the rules' first guess, what worked
//! before, the rules' next ideas. Variants are the rules' own.

use super::signature::signature_in;
use super::stored_value::decode;
use super::store::Template;
use crate::exec::RunStatus;
use crate::synth::lexical::identifiers;
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
            let offer = Offer { name: b.name.clone(), signature: sig.clone(), code: t.code, imports: t.imports, value };
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
        for offer in &self.offers {
            let Some(b) = p.binding_mut(&offer.name) else { continue };
            if b.import_only() || spelled_by(&b.candidates, &offer.value) {
                continue;
            }
            // After the rules' first guess, before the catch-all.
            let catch_all = b.candidates.iter().position(|c| matches!(c, Candidate::Value(Value::Anything))).unwrap_or(b.candidates.len());
            // Later offers of the same name go after earlier ones.
            let earlier = |c: &Candidate| self.offers.iter().any(|o| o.name == offer.name && *c == Candidate::Value(o.value()));
            let at = (catch_all.min(1)..catch_all).find(|&i| !earlier(&b.candidates[i])).unwrap_or(catch_all);
            b.candidates.insert(at, Candidate::Value(offer.value()));
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
        let mut out = self.remembered_refinements(ctx, attempt);
        out.extend(self.rules.refine(ctx, attempt));
        out
    }

    fn variants(&self, ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix> {
        self.rules.variants(ctx, best, uncovered)
    }
}

impl Remembering<'_> {
    /// The failing prefix with a remembered template chosen instead, for
    /// each offered name the failing fragment line reads (every offered
    /// name when the failure has no fragment line).
    fn remembered_refinements(&self, ctx: &Context, attempt: &Attempt) -> Vec<Prefix> {
        if self.offers.is_empty() || attempt.outcome.status == RunStatus::Completed && attempt.outcome.caught.is_none() {
            return Vec::new();
        }
        let failing = attempt.outcome.exception.as_ref().or(attempt.outcome.caught.as_ref());
        let line = failing.and_then(|e| e.line).and_then(|l| attempt.program.fragment_line(l));
        let read: Option<Vec<String>> = line.map(|l| identifiers(ctx.line_text(l)));
        let mut out = Vec::new();
        for offer in &self.offers {
            if read.as_ref().is_some_and(|names| !names.contains(&offer.name)) {
                continue;
            }
            let mut p = attempt.prefix.clone();
            let Some(b) = p.binding_mut(&offer.name) else { continue };
            let candidate = Candidate::Value(offer.value());
            let Some(i) = b.candidates.iter().position(|c| *c == candidate) else { continue };
            if b.choice == i {
                continue;
            }
            b.choice = i;
            if faked_library_name(ctx, &p).is_none() {
                out.push(p);
            }
        }
        out
    }
}
