//! Whatever the error: the next candidate of each name the failing line
//! reads, of a name whose own definition failed, and of a name whose value
//! needs a library that is not there (`pd.Series` without pandas).

use crate::synth::edits::import_top;
use crate::synth::session::Attempt;
use crate::synth::lexical::identifiers;
use crate::synth::prefix::Prefix;
use crate::synth::rules::{Rule, Stage, Trigger};
use crate::synth::session::Context;

pub struct NextCandidate;

impl Rule for NextCandidate {
    fn name(&self) -> &'static str {
        "next-candidate"
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, _ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some()
    }
    fn propose(&self, _ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        let Some(fail) = t.failure() else { return Vec::new() };
        let e = fail.error;
        let base = fail.base;
        let line = fail.line;
        let names_on_line = &fail.names_on_line;
        let is = |t: &str| fail.is(t);
        let mut out = Vec::new();
        let mut suspects = names_on_line.clone();
        if line.is_none() {
            if let Some(pl) = e.line {
                if let Some(n) = defining_binding(fail.attempt, pl) {
                    suspects.push(n);
                }
            }
        }
        if is("ModuleNotFoundError") {
            // A value of ours needs a library that is not there (`pd.Series`
            // where pandas is not installed): its name's next candidate.
            if let Some(m) = e.name.clone().or_else(|| e.module.clone()) {
                let top = m.split('.').next().unwrap_or_default();
                for b in &base.bindings {
                    let mut imports = Vec::new();
                    if let Some(v) = b.value() {
                        v.imports(&mut imports);
                    }
                    let needs = imports.iter().any(|i| import_top(i) == top);
                    if needs && !suspects.contains(&b.name) {
                        suspects.push(b.name.clone());
                    }
                }
            }
        }
        for n in suspects {
            let mut p = base.clone();
            let b = p.binding_mut(&n).unwrap();
            if b.choice + 1 < b.candidates.len() {
                b.choice += 1;
                out.push(p);
            }
        }
        out
    }
}

/// Which binding's definition contains program line `pl`.
fn defining_binding(attempt: &Attempt, pl: u32) -> Option<String> {
    let prefix_lines = attempt.program.prefix.lines().count() as u32;
    if pl > prefix_lines {
        return None;
    }
    let text = attempt.program.prefix.lines().nth(pl as usize - 1)?;
    let word = identifiers(text).into_iter().find(|w| attempt.prefix.binding(w).is_some());
    word.or_else(|| {
        attempt.program.prefix.lines().take(pl as usize).collect::<Vec<_>>().iter().rev().find_map(|l| {
            let head = l.strip_prefix("def ").or_else(|| l.strip_prefix("class ")).or_else(|| l.split_once(" = ").map(|(n, _)| n))?;
            let n: String = head.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            attempt.prefix.binding(&n).map(|_| n)
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::synth::rules::check::*;
    use expect_test::expect;

    #[test]
    fn a_name_on_the_failing_line_takes_its_next_candidate() {
        refine(&super::NextCandidate, "print(total.real + 1)\n", raised("TypeError", r#"unsupported operand type(s)"#, 1), expect![[r#"
            ## 1
            total = 2.5
        "#]]);
    }
}
