//! One synthesis session: the fragment, its analysis, the executor and the
//! budget, and the record of every attempt (the memory that keeps a prefix
//! from being run twice).

use super::attribution::RuleStats;
use super::prefix::Prefix;
use crate::analysis::Analysis;
use crate::coverage::{self, Coverage};
use crate::exec::{run_path_problem, ExceptionInfo, ExecError, Executor, RunOutcome, RunRequest, RunStatus};
use crate::program::Program;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the proposers may look at.
pub struct Context<'a> {
    pub fragment: &'a str,
    pub analysis: &'a Analysis,
    /// Top-level names of the interpreter's standard library.
    pub stdlib: &'a BTreeSet<String>,
}

impl Context<'_> {
    /// How the fragment uses free name `name` (empty when it does not).
    pub fn usage_of(&self, name: &str) -> crate::analysis::Usage {
        self.analysis.free_names.iter().chain(&self.analysis.used_before_bound).find(|f| f.name == name).map(|f| f.usage.clone()).unwrap_or_default()
    }
    /// Text of fragment line `line` (1-based).
    pub fn line_text(&self, line: u32) -> &str {
        self.fragment.lines().nth(line.saturating_sub(1) as usize).unwrap_or("")
    }
    /// Text of the statement (a compound one's header) that line `line`
    /// is part of: every line of `futures = [\n  submit(f, 1),\n]`. A line
    /// outside any statement is its own text.
    pub fn statement_text(&self, line: u32) -> String {
        let (first, last) = self.statement_extent(line);
        (first..=last).map(|l| self.line_text(l)).collect::<Vec<_>>().join("\n")
    }
    /// First and last line of the statement (a compound one's header)
    /// holding `line`, from the statement table: a simple statement runs up
    /// to the next one, a header up to its body.
    fn statement_extent(&self, line: u32) -> (u32, u32) {
        const MAX_LINES: u32 = 50;
        let statements = &self.analysis.statements;
        let Some(s) = statements.iter().filter(|s| s.line <= line).max_by_key(|s| s.line) else { return (line, line) };
        let end = match &s.body_first_lines {
            Some(bodies) => bodies.iter().copied().min().map_or(s.line, |b| b.saturating_sub(1)),
            None => statements.iter().map(|t| t.line).filter(|l| *l > s.line).min().map_or(self.fragment.lines().count() as u32, |n| n - 1),
        }
        .max(s.line)
        .min(s.line + MAX_LINES);
        if line > end { (line, line) } else { (s.line, end) }
    }
}

#[derive(Debug, Clone)]
pub struct Attempt {
    pub prefix: Prefix,
    pub program: Program,
    pub outcome: RunOutcome,
    pub coverage: Coverage,
}

impl Attempt {
    pub fn completed(&self) -> bool {
        self.outcome.status == RunStatus::Completed
    }
    /// How good it is: statements covered first, then finishing, then
    /// finishing without swallowing an exception on the way.
    pub fn score(&self) -> (usize, bool, bool) {
        // A raised run's `caught` is the cause of its exception: no worse.
        (self.coverage.covered.len(), self.completed(), !self.completed() || self.outcome.caught.is_none())
    }
    /// What stopped it, to tell a new failure from the same one (a caught
    /// exception counts: moving it on is progress too).
    pub fn signature(&self) -> String {
        match (&self.outcome.exception, &self.outcome.caught) {
            (Some(e), _) => format!("{}:{:?}:{}", e.type_name, e.line, e.message),
            (None, Some(e)) => format!("{:?}:caught:{}:{:?}:{}", self.outcome.status, e.type_name, e.line, e.message),
            (None, None) => format!("{:?}", self.outcome.status),
        }
    }
    /// A completed run whose fragment caught an exception on a line that
    /// did not complete, seen as the run that raised it: what to refine.
    pub fn as_raised(&self) -> Option<Attempt> {
        let caught = self.outcome.caught.as_ref().filter(|_| self.completed())?;
        let line = caught.line.and_then(|l| self.program.fragment_line(l))?;
        if self.coverage.covered.contains(&line) {
            return None;
        }
        let mut raised = self.clone();
        raised.outcome.exception = Some(caught.clone());
        raised.outcome.status = RunStatus::Raised;
        Some(raised)
    }
    /// A run that raised inside an `except` block, seen as the run that
    /// raised what that block was handling (on a fragment line): the cause
    /// to refine (`requests.post` failing before `e.response.status_code`).
    pub fn as_handled(&self) -> Option<Attempt> {
        let cause = self.outcome.caught.as_ref().filter(|_| self.outcome.status == RunStatus::Raised)?;
        cause.line.and_then(|l| self.program.fragment_line(l))?;
        let mut raised = self.clone();
        raised.outcome.exception = Some(cause.clone());
        raised.outcome.caught = None;
        Some(raised)
    }
    /// Fragment line where it stopped, if the exception was raised there.
    pub fn failing_line(&self) -> Option<u32> {
        self.outcome.exception.as_ref()?.line.and_then(|l| self.program.fragment_line(l))
    }
}

pub struct Session<'a> {
    pub ctx: Context<'a>,
    executor: &'a dyn Executor,
    deadline: Instant,
    run_timeout: Duration,
    /// The longest run that ended by itself (not by a timeout).
    slowest_finished: Duration,
    max_runs: usize,
    pub executions: usize,
    tried: HashSet<String>,
    /// When set, stops the run in flight (see [`Executor::run_cancellable`]).
    cancel: Option<Arc<AtomicBool>>,
    /// Distinct errors raised inside library code, from every run: one may
    /// ask for an optional dependency even when a later run got further.
    pub library_errors: Vec<ExceptionInfo>,
    /// Files left out because they cannot be created (a path with NUL,
    /// `..`, too long or too deep): one note each, capped.
    pub dropped: Vec<String>,
    /// How often each rule's proposals ran, were kept and added coverage.
    pub rules: RuleStats,
}

impl<'a> Session<'a> {
    pub fn new(ctx: Context<'a>, executor: &'a dyn Executor, budget: Duration, max_runs: usize) -> Self {
        let run_timeout = (budget / 3).clamp(Duration::from_secs(1), Duration::from_secs(10));
        Session { ctx, executor, deadline: Instant::now() + budget, run_timeout, slowest_finished: Duration::ZERO, max_runs, executions: 0, tried: HashSet::new(), cancel: None, library_errors: Vec::new(), dropped: Vec::new(), rules: RuleStats::default() }
    }

    /// A flag that, once set, stops the run in flight promptly (its outcome
    /// is `Timeout` with limit [`crate::exec::CANCELLED`]).
    pub fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.cancel = cancel;
    }

    pub fn has_budget(&self) -> bool {
        self.executions < self.max_runs && Instant::now() < self.deadline
    }

    pub fn build(&self, prefix: &Prefix) -> Program {
        prefix.program(self.ctx.fragment, self.ctx.analysis)
    }

    /// Run a prefix unless an identical program already ran (`Ok(None)`).
    pub fn attempt(&mut self, prefix: Prefix) -> Result<Option<Attempt>, ExecError> {
        let program = self.build(&prefix);
        let mut resources = prefix.all_resources();
        // One strange file name (from the fragment's text or a run's error)
        // costs that file, never the run or the whole fix: the program then
        // meets the missing file as it would anywhere.
        resources.retain(|r| match run_path_problem(&r.path) {
            None => true,
            Some(why) => {
                let note = format!("did not create the file {:?}: {why}", crate::exec::untrusted_cut(&r.path));
                if self.dropped.len() < 8 && !self.dropped.contains(&note) {
                    self.dropped.push(note);
                }
                false
            }
        });
        let key = format!("{}\u{0}{:?}", program.text, resources);
        if !self.tried.insert(key) || !self.has_budget() {
            return Ok(None);
        }
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let request = RunRequest {
            program: program.text.clone(),
            probes: self.probes(&program),
            resources,
            preload: preload_modules(self.ctx.analysis, &prefix),
            timeout: self.run_timeout.min(remaining.max(Duration::from_millis(500))),
        };
        self.executions += 1;
        if let Some(rule) = prefix.trail.proposer() {
            self.rules.fired(rule);
        }
        let started = Instant::now();
        let outcome = match &self.cancel {
            Some(flag) => self.executor.run_cancellable(&request, flag)?,
            None => self.executor.run(&request)?,
        };
        if outcome.status == RunStatus::Timeout {
            // A program that waits for a value that ends its loop: the next
            // candidates need not each wait as long, so more of them fit in
            // the budget. Runs that ended by themselves bound how long a
            // healthy run takes here.
            let enough = (self.slowest_finished * 5).max(Duration::from_secs(2));
            self.run_timeout = self.run_timeout.min(enough);
        } else {
            self.slowest_finished = self.slowest_finished.max(started.elapsed());
        }
        // Errors from inside a library, or about a library's object (its
        // signature, a member it lacks): an optional dependency it wants, or
        // an API newer releases changed (`fix::legacy_plan`).
        if let Some(e) = outcome.exception.as_ref().filter(|e| e.raised_in.is_some() || e.origin.is_some()) {
            if self.library_errors.len() < 32 && !self.library_errors.iter().any(|s| s.type_name == e.type_name && s.message == e.message) {
                self.library_errors.push(e.clone());
            }
        }
        let trace = coverage::fragment_trace(&program, &outcome);
        let coverage = coverage::measure(&self.ctx.analysis.statements, &trace);
        let attempt = Attempt { prefix, program, outcome, coverage };
        if std::env::var_os("RUNNABLE_TRACE").is_some() {
            // A developer's view of the search: every program and what it did.
            eprintln!("── run {} ({}) ──\n{}\n→ {:?} {}/{} {}", self.executions, attempt.prefix.trail.proposer().unwrap_or("initial"), attempt.program.prefix, attempt.outcome.status,
                attempt.coverage.covered.len(), attempt.coverage.executable.len(), attempt.signature());
        }
        Ok(Some(attempt))
    }

    fn probes(&self, program: &Program) -> BTreeMap<u32, Vec<String>> {
        self.ctx
            .analysis
            .assigned
            .iter()
            .filter_map(|(line, names)| Some((program.program_line(*line)?, names.clone())))
            .collect()
    }
}

/// Modules worth importing in a warm worker before the run forks.
fn preload_modules(analysis: &Analysis, prefix: &Prefix) -> Vec<String> {
    let mut m: Vec<String> = crate::env::fragment_import_paths(&analysis.imports);
    m.extend(prefix.imported_modules());
    m.sort();
    m.dedup();
    m
}
