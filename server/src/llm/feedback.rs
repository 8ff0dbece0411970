//! What the rules learned, for the model: the fragment, the best prefix,
//! the structured feedback of its run (undefined names, the failing line
//! and its exception, the lines still uncovered, the libraries' own error
//! text) and what was tried and failed. Coverage-aware pruning: an attempt
//! that did not raise coverage leaves the history, only the last few
//! failures stay (their lesson is "not this"). Pure.

use crate::synth::session::{Attempt, Context};
use regex::Regex;
use std::sync::OnceLock;

/// At most this many failed attempts are told.
const MAX_FAILURES: usize = 3;
/// Text from a run is cut to this many characters.
const MAX_TEXT: usize = 600;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feedback {
    pub fragment: String,
    pub best_prefix: String,
    pub covered: usize,
    pub executable: usize,
    pub completed: bool,
    /// `NameError: name 'x' is not defined` and friends: the names.
    pub undefined: Vec<String>,
    /// (fragment line, its text, `Type: message`).
    pub failing: Option<(u32, String, String)>,
    /// (line, text) of lines that never ran.
    pub uncovered: Vec<(u32, String)>,
    /// Errors raised inside library code, in the library's words.
    pub library_errors: Vec<String>,
    /// Short accounts of attempts that did not help.
    pub failed: Vec<String>,
    /// Files the fragment reads, and how (`open`, `read_csv`, ...).
    pub reads: Vec<(String, String)>,
}

fn addresses() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"0x[0-9a-fA-F]{6,}").expect("address pattern"))
}

/// Run text made stable (addresses differ between runs) and short.
pub fn stable(text: &str) -> String {
    let t = addresses().replace_all(text, "0x…");
    if t.chars().count() > MAX_TEXT {
        t.chars().take(MAX_TEXT).collect::<String>() + " …"
    } else {
        t.into_owned()
    }
}

/// One attempt's exception as a line: `KeyError: 'id'`.
pub fn exception_line(a: &Attempt) -> Option<String> {
    let e = a.outcome.exception.as_ref().or(a.outcome.caught.as_ref())?;
    Some(stable(&format!("{}: {}", e.type_name, e.message)))
}

/// The feedback of the stalled search, from its best attempt.
pub fn of(ctx: &Context, best: &Attempt, library_errors: &[String], failed: &[String]) -> Feedback {
    let covered: std::collections::HashSet<u32> = best.coverage.covered.iter().copied().collect();
    let uncovered: Vec<(u32, String)> = best.coverage.executable.iter().filter(|l| !covered.contains(l)).take(40).map(|&l| (l, ctx.line_text(l).trim().to_string())).collect();
    let mut undefined: Vec<String> = Vec::new();
    for a in [best.outcome.exception.as_ref(), best.outcome.caught.as_ref()].into_iter().flatten() {
        if a.type_name == "NameError" || a.type_name == "UnboundLocalError" {
            if let Some(n) = &a.name {
                undefined.push(n.clone());
            }
        }
    }
    let failing = best.failing_line().zip(exception_line(best)).map(|(l, e)| (l, ctx.line_text(l).trim().to_string(), e));
    Feedback {
        fragment: ctx.fragment.to_string(),
        best_prefix: best.program.prefix.clone(),
        covered: best.coverage.covered.len(),
        executable: best.coverage.executable.len(),
        completed: best.completed(),
        undefined,
        failing,
        uncovered,
        library_errors: library_errors.iter().map(|e| stable(e)).take(4).collect(),
        failed: failed.iter().rev().take(MAX_FAILURES).rev().cloned().collect(),
        reads: ctx.analysis.files.iter().filter(|f| !f.writes).map(|f| (f.path.clone(), f.how.clone())).collect(),
    }
}

/// What a failed attempt teaches, in one line.
pub fn failure_note(prefix_text: &str, why: &str) -> String {
    let first: String = prefix_text.lines().filter(|l| !l.trim().is_empty()).take(3).collect::<Vec<_>>().join("; ");
    stable(&format!("{first} … → {why}"))
}

/// Coverage-aware pruning: keep a failed attempt's note only while it
/// still teaches something: once coverage rose, the old failures go.
pub fn prune(history: &mut Vec<String>, coverage_rose: bool) {
    if coverage_rose {
        history.clear();
    } else if history.len() > MAX_FAILURES {
        history.drain(..history.len() - MAX_FAILURES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_pruned_when_coverage_rises_and_addresses_are_stable() {
        let mut h: Vec<String> = (0..5).map(|i| format!("f{i}")).collect();
        prune(&mut h, false);
        assert_eq!(h, ["f2", "f3", "f4"]);
        prune(&mut h, true);
        assert!(h.is_empty());
        assert_eq!(stable("<Foo object at 0x7f3a9c2b1d00>"), "<Foo object at 0x…>");
        assert!(stable(&"x".repeat(2000)).chars().count() < 700);
    }
}
