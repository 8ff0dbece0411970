//! Statement coverage as Treefix and LExecutor count it. Pure.
//!
//! A simple statement counts when it completed; a compound statement's
//! header counts when one of its blocks was entered. Lines of the prefix
//! and the driver never count: only fragment lines are looked at.

use crate::analysis::Statement;
use crate::exec::RunOutcome;
use crate::program::Program;
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Coverage {
    /// Fragment lines (1-based) of the counted statements.
    pub executable: Vec<u32>,
    /// The subset that ran.
    pub covered: Vec<u32>,
    pub ratio: f64,
}

impl Coverage {
    pub fn new(executable: Vec<u32>, covered: BTreeSet<u32>) -> Self {
        let covered: Vec<u32> = executable.iter().copied().filter(|l| covered.contains(l)).collect();
        let ratio = if executable.is_empty() { 1.0 } else { covered.len() as f64 / executable.len() as f64 };
        Coverage { executable, covered, ratio }
    }

    /// The union of several coverages over the same statements.
    pub fn union<'a>(executable: Vec<u32>, parts: impl IntoIterator<Item = &'a Coverage>) -> Self {
        let covered = parts.into_iter().flat_map(|c| c.covered.iter().copied()).collect();
        Coverage::new(executable, covered)
    }

    pub fn is_full(&self) -> bool {
        self.covered.len() == self.executable.len()
    }
}

/// Fragment lines that had a line event / completed, from a run's trace.
pub struct FragmentTrace {
    pub hit: BTreeSet<u32>,
    pub completed: BTreeSet<u32>,
}

pub fn fragment_trace(program: &Program, outcome: &RunOutcome) -> FragmentTrace {
    let map = |lines: &[u32]| lines.iter().filter_map(|&l| program.fragment_line(l)).collect();
    FragmentTrace { hit: map(&outcome.hit), completed: map(&outcome.completed) }
}

pub fn measure(statements: &[Statement], trace: &FragmentTrace) -> Coverage {
    let executable = statements.iter().map(|s| s.line).collect();
    let covered = statements
        .iter()
        .filter(|s| match &s.body_first_lines {
            None => trace.completed.contains(&s.line),
            Some(firsts) => firsts.iter().any(|l| trace.hit.contains(l)),
        })
        .map(|s| s.line)
        .collect();
    Coverage::new(executable, covered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt(line: u32, firsts: Option<Vec<u32>>) -> Statement {
        Statement { line, body_first_lines: firsts }
    }

    #[test]
    fn simple_needs_completion_compound_needs_entry() {
        let stmts = [stmt(1, None), stmt(2, Some(vec![3])), stmt(3, None), stmt(4, None)];
        let trace = FragmentTrace { hit: [1, 2, 3, 4].into(), completed: [1, 2, 3].into() };
        let c = measure(&stmts, &trace);
        assert_eq!(c.executable, vec![1, 2, 3, 4]);
        assert_eq!(c.covered, vec![1, 2, 3]);
        assert!((c.ratio - 0.75).abs() < 1e-9);
        assert!(!c.is_full());
    }

    #[test]
    fn header_without_entered_body_does_not_count() {
        let stmts = [stmt(1, Some(vec![2])), stmt(2, None)];
        let trace = FragmentTrace { hit: [1].into(), completed: [1].into() };
        assert!(measure(&stmts, &trace).covered.is_empty());
    }

    #[test]
    fn empty_fragment_is_fully_covered_and_union_merges() {
        assert_eq!(Coverage::new(vec![], BTreeSet::new()).ratio, 1.0);
        let a = Coverage::new(vec![1, 2, 3], [1].into());
        let b = Coverage::new(vec![1, 2, 3], [3].into());
        assert_eq!(Coverage::union(vec![1, 2, 3], [&a, &b]).covered, vec![1, 3]);
    }
}
