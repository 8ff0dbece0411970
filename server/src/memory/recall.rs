//! Use of remembered templates: a proposer around the rules that offers,
//! for a name whose usage signature matches, the values that made that
//! signature run before. Pure (the templates are looked up before the
//! search starts).
//!
//! The hook: in the first prefix, each value binding gets its remembered
//! templates among its candidates. A run is the price of trying one, so
//! where a template goes follows its record on that usage signature:
//! - one that only ever worked there and that the search *found* there
//!   (the rules' own first prefix had another value: `leads`) is the
//!   name's first candidate: the first run tries it, and the runs the rules
//!   would spend reaching it are saved. One that was only ever the rules'
//!   first guess where it was learnt does not lead: on an edited fragment
//!   the rules' guess is made for this text (its constants), the
//!   remembered one for another;
//! - one that the search found there but that also failed (uses still
//!   more than twice its failures: worse ones, and ones that were only
//!   ever the rules' first guess, are not offered, `Store::templates_for`)
//!   goes after the rules' first guess and before the catch-all,
//!   where the rules' own `next-candidate` reaches it when the first guess
//!   fails on a line that reads the name; it does not jump ahead of the
//!   rules' targeted refinements (a missing key, an attribute), which
//!   usually fix a failure in one run.
//! When the first run (with leading templates) raised on a line that reads
//! a leading name (or in its definition), the rules' own first prefix is
//! the first refinement: one run is the most a wrong template costs before
//! the search is back on the rules' path. Any other first run *is* the
//! first run: the search goes on from it (a line the template never
//! reached is the evolution's to cover, as without memory).
//! Otherwise refinements and variants are the rules' own: a remembered value is never
//! part of the evolution's vocabulary (`alternatives` reads a binding's
//! other candidates), so it costs no variant run. A template that is a
//! candidate the rules already have (up to the name of its class, which the
//! rules derive from the variable's name), or one their evolution makes
//! from their first guess (`evolved_from`), is not offered at all; nor is
//! any for a usage that reads nothing in the value (`signature`: no
//! signature).

use super::signature::signature_in;
use super::stored_value::decode;
use super::store::Template;
use crate::synth::lexical::identifiers;
use crate::synth::library_names::{faked_library_name, library_imports};
use crate::synth::alternatives::{alternatives, Tests};
use crate::synth::prefix::{module_of_import, Binding, Candidate, Prefix};
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
    /// Clean, and found by a search there (not only the rules' first
    /// guess): it is the name's first candidate.
    pub leads: bool,
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
            let clean = t.uses > 0 && t.failures == 0;
            let offer = Offer { name: b.name.clone(), signature: sig.clone(), code: t.code, imports: t.imports, clean, leads: clean && t.found > 0, value };
            let known = spelled_by(&b.candidates, &offer.value) || evolved_from(b, &offer.value);
            if imports_ok && !known && !out.iter().any(|o: &Offer| o.name == offer.name && o.code == offer.code) {
                out.push(offer);
            }
        }
    }
    out
}

/// Whether a candidate already is this value (the rules' own guess), or
/// spells this expression.
fn spelled_by(candidates: &[Candidate], value: &Value) -> bool {
    candidates.iter().any(|c| matches!(c, Candidate::Value(v) if same_value(v, value)))
}

/// Whether the rules' evolution makes this value from the binding's first
/// guess whatever the condition (its empty or falsy form, its other
/// candidates: `alternatives` without a test). The search reaches it in one
/// variant run where a branch asks for it; leading with it only starts the
/// search on the branch side and makes it vary the template instead (an
/// empty list becomes `None`), and costs the run back to the rules' guess.
fn evolved_from(b: &Binding, value: &Value) -> bool {
    let no_test = Tests { test: Vec::new(), assigned: Vec::new() };
    alternatives(b, &no_test).iter().any(|v| same_value(v, value))
}

/// The same value, up to the names of its classes (the rules name a class
/// after the variable: `alpha = Alpha()` is `optimize = Optimize()`), or
/// the same expression spelled as a remembered one.
pub fn same_value(a: &Value, b: &Value) -> bool {
    let (a, b) = (unnamed(a), unnamed(b));
    a == b
        || match (&a, &b) {
            (v, Value::Expr { code, .. }) | (Value::Expr { code, .. }, v) => !v.needs_definition() && v.expr() == *code,
            _ => false,
        }
}

/// `v` with every class name blanked (a base in parentheses is kept: an
/// `isinstance` check reads it).
fn unnamed(v: &Value) -> Value {
    let all = |vs: &[Value]| vs.iter().map(unnamed).collect::<Vec<_>>();
    let members = |ms: &[(String, Value)]| ms.iter().map(|(n, v)| (n.clone(), unnamed(v))).collect::<Vec<_>>();
    let base = |class: &str| class.find('(').map(|i| class[i..].to_string()).unwrap_or_default();
    match v {
        Value::List(vs) => Value::List(all(vs)),
        Value::Tuple(vs) => Value::Tuple(all(vs)),
        Value::Set(vs) => Value::Set(all(vs)),
        Value::Dict(kv) => Value::Dict(kv.iter().map(|(k, v)| (unnamed(k), unnamed(v))).collect()),
        Value::Call { func, args, kwargs, imports } => Value::Call { func: func.clone(), args: all(args), kwargs: members(kwargs), imports: imports.clone() },
        Value::Object { class, attrs, methods } => Value::Object { class: base(class), attrs: members(attrs), methods: members(methods) },
        Value::Function { returns, is_async } => Value::Function { returns: Box::new(unnamed(returns)), is_async: *is_async },
        Value::Class { attrs, methods } => Value::Class { attrs: members(attrs), methods: members(methods) },
        Value::Derived { class, base: b, value, attrs, methods } => {
            Value::Derived { class: base(class), base: b.clone(), value: Box::new(unnamed(value)), attrs: members(attrs), methods: members(methods) }
        }
        other => other.clone(),
    }
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
        // Each name's first leading offer leads; the rest follow the rules' first guess.
        let mut leading: BTreeSet<&str> = BTreeSet::new();
        for offer in &self.offers {
            let Some(b) = p.binding_mut(&offer.name) else { continue };
            if b.import_only() || spelled_by(&b.candidates, &offer.value) {
                continue;
            }
            let candidate = Candidate::Value(offer.value());
            if offer.leads && leading.insert(offer.name.as_str()) {
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
    /// The first run, with leading templates, raised on a line that reads a
    /// leading name (or in a definition of the prefix): the rules' own first
    /// prefix is tried next (once, before any refinement), so a template
    /// that does not fit this fragment costs that one run and the search
    /// goes on from wherever got further, never stuck refining a
    /// remembered value that was the wrong start. Any other outcome is the
    /// first run's, as the rules' own first run would be: the search goes
    /// on from it. (The first prefix is recomputed: it is a pure function
    /// of the fragment.)
    fn fallback(&self, ctx: &Context, attempt: &Attempt) -> Option<Prefix> {
        let leading: Vec<&str> = self.offers.iter().filter(|o| o.leads).map(|o| o.name.as_str()).collect();
        if leading.is_empty() || attempt.outcome.exception.is_none() {
            return None;
        }
        let first = self.initial(ctx);
        if attempt.prefix.render() != first.render() || attempt.prefix.suffix() != first.suffix() {
            return None;
        }
        let blamed = match attempt.failing_line() {
            Some(line) => reads(ctx, line).iter().any(|n| leading.contains(&n.as_str())),
            // Raised in the prefix: blamed when in a leading template's definition.
            None => attempt.outcome.exception.as_ref().and_then(|e| e.line).is_some_and(|l| {
                let head = attempt.program.prefix.lines().take(l as usize).collect::<Vec<_>>().into_iter().rev().find(|t| !t.is_empty() && !t.starts_with([' ', '\t']));
                head.is_some_and(|h| self.offers.iter().any(|o| o.leads && o.rendered().lines().any(|r| r == h)))
            }),
        };
        if !blamed {
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

/// The names fragment line `line` reads: on the line itself, and through
/// the assignments before it that the line's names come from (`y = x[0]`
/// then `y.upper()` reads `x`).
fn reads(ctx: &Context, line: u32) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut frontier = identifiers(ctx.line_text(line));
    // A few hops are enough: a chain longer than that is not this line's.
    for _ in 0..5 {
        let mut next = Vec::new();
        for name in frontier {
            if !seen.insert(name.clone()) {
                continue;
            }
            for (l, names) in ctx.analysis.assigned.range(..=line) {
                if names.contains(&name) {
                    next.extend(identifiers(ctx.line_text(*l)));
                }
            }
        }
        frontier = next;
    }
    seen
}
