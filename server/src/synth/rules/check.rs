//! Test support for rules, as rust-analyzer's `check_assist`: a fragment
//! written from Python semantics, the trigger built in memory (a run
//! outcome no Python produced), and the proposals rendered as the program
//! parts they change, compared with `expect-test` snapshots
//! (`UPDATE_EXPECT=1 cargo test` rewrites them after a deliberate change).

use super::{Branch, Failure, Rule, Trigger, Uncovered};
use crate::analysis::analyze;
use crate::coverage::Coverage;
use crate::exec::{ExceptionInfo, RunOutcome, RunStatus};
use crate::synth::deterministic::RuleSet;
use crate::synth::prefix::Prefix;
use crate::synth::session::{Attempt, Context};
use crate::synth::Proposer;
use expect_test::Expect;
use std::collections::BTreeSet;

/// The standard library names the fixtures use.
const STDLIB: &[&str] = &[
    "ast", "asyncio", "collections", "datetime", "functools", "io", "itertools", "json", "math", "os", "pathlib", "re", "signal", "sqlite3", "sys", "typing", "urllib",
];

pub(crate) fn with_ctx<R>(fragment: &str, f: impl FnOnce(&Context) -> R) -> R {
    let analysis = analyze(fragment);
    let stdlib: BTreeSet<String> = STDLIB.iter().map(|s| s.to_string()).collect();
    let ctx = Context { fragment, analysis: &analysis, stdlib: &stdlib };
    f(&ctx)
}

/// What a proposal changes, as text: the prefix, then the driver, the
/// files, the created modules and the wrapper's parameters when it has them.
pub(crate) fn describe(p: &Prefix) -> String {
    let mut s = p.render();
    if !p.driver.is_empty() {
        s.push_str(&format!("-- driver --\n{}", p.suffix()));
    }
    for r in p.all_resources() {
        s.push_str(&format!("-- file {} --\n", r.path));
    }
    for m in &p.modules {
        s.push_str(&format!("-- module {} --\n{}", m.name, m.source()));
    }
    if let Some(c) = &p.context {
        s.push_str(&format!("-- inside: {c} --\n"));
    }
    if let Some(h) = &p.host {
        s.push_str(&format!("-- host: {h} --\n"));
    }
    if !p.wrapper_params.is_empty() {
        s.push_str(&format!("-- parameters: {} --\n", p.wrapper_params.join(", ")));
    }
    s
}

fn describe_all(ps: &[Prefix]) -> String {
    if ps.is_empty() {
        return "(nothing)\n".into();
    }
    ps.iter().enumerate().map(|(i, p)| format!("## {}\n{}", i + 1, describe(p))).collect()
}

/// An attempt that ran `prefix` on the fragment and ended as given;
/// `exception.line` is a fragment line here (made a program line).
pub(crate) fn attempt(ctx: &Context, prefix: Prefix, status: RunStatus, exception: Option<ExceptionInfo>, covered: &[u32]) -> Attempt {
    let program = prefix.program(ctx.fragment, ctx.analysis);
    let exception = exception.map(|mut e| {
        e.line = e.line.and_then(|l| program.program_line(l));
        e
    });
    let executable: Vec<u32> = ctx.analysis.statements.iter().map(|s| s.line).collect();
    let covered: Vec<u32> = covered.to_vec();
    let ratio = if executable.is_empty() { 0.0 } else { covered.len() as f64 / executable.len() as f64 };
    let outcome = RunOutcome {
        status,
        hit: Vec::new(),
        completed: Vec::new(),
        hit_counts: Default::default(),
        exception,
        caught: None,
        limit: None,
        values: Default::default(),
        stdout: String::new(),
        stderr: String::new(),
        printed: Default::default(),
        duration: Default::default(),
    };
    Attempt { prefix, program, outcome, coverage: Coverage { executable, covered, ratio } }
}

/// An initial rule alone on an empty prefix: the prefix text.
pub(crate) fn initial(rule: &dyn Rule, fragment: &str, expect: Expect) {
    with_ctx(fragment, |ctx| {
        let empty = Prefix::default();
        let out = rule.propose(ctx, &Trigger::Initial { so_far: &empty });
        expect.assert_eq(&describe_all(&out));
    })
}

/// An initial rule after every initial rule before it in the registry.
pub(crate) fn initial_after(rule: &dyn Rule, fragment: &str, expect: Expect) {
    with_ctx(fragment, |ctx| {
        let before: Vec<String> = super::all().iter().filter(|r| r.stage() == rule.stage()).map(|r| r.name()).skip_while(|n| *n != rule.name()).map(str::to_string).collect();
        let so_far = RuleSet::without(&before).unwrap().initial(ctx);
        let trigger = Trigger::Initial { so_far: &so_far };
        assert!(rule.applies(ctx, &trigger), "{} does not apply", rule.name());
        expect.assert_eq(&describe_all(&rule.propose(ctx, &trigger)));
    })
}

/// A refinement rule on a run of the first prefix (every rule's) that
/// raised `error` (its `line` a fragment line); `edit` changes that prefix first.
pub(crate) fn refine_with(rule: &dyn Rule, fragment: &str, edit: impl FnOnce(&mut Prefix), error: ExceptionInfo, expect: Expect) {
    with_ctx(fragment, |ctx| {
        let mut base = RuleSet::default().initial(ctx);
        edit(&mut base);
        let a = attempt(ctx, base, RunStatus::Raised, Some(error), &[]);
        let line = a.failing_line();
        let names_on_line = line.map(|l| crate::synth::slice::related_bindings(ctx, &a.prefix, l)).unwrap_or_default();
        let failure = Failure { attempt: &a, error: a.outcome.exception.as_ref().unwrap(), base: &a.prefix, line, names_on_line };
        let trigger = Trigger::Refine(&failure);
        assert!(rule.applies(ctx, &trigger), "{} does not apply", rule.name());
        expect.assert_eq(&describe_all(&rule.propose(ctx, &trigger)));
    })
}

pub(crate) fn refine(rule: &dyn Rule, fragment: &str, error: ExceptionInfo, expect: Expect) {
    refine_with(rule, fragment, |_| {}, error, expect)
}

/// An exception of `type_name` with `message` raised on fragment line `line`.
pub(crate) fn raised(type_name: &str, message: &str, line: u32) -> ExceptionInfo {
    ExceptionInfo { type_name: type_name.into(), message: message.into(), line: Some(line), ..ExceptionInfo::default() }
}

/// Python's AttributeError for a module lacking `attr` (`module 'html'
/// has no attribute 'fromstring'`), raised on fragment line `line`.
pub(crate) fn module_lacking(module: &str, attr: &str, line: u32) -> ExceptionInfo {
    ExceptionInfo { name: Some(attr.into()), obj_type: Some("module".into()), ..raised("AttributeError", &format!("module '{module}' has no attribute '{attr}'"), line) }
}

/// A branch rule on the branch at fragment line `line`, the best attempt
/// being the first prefix, completed, with lines `covered`.
pub(crate) fn branch_with(rule: &dyn Rule, fragment: &str, edit: impl FnOnce(&mut Prefix), line: u32, covered: &[u32], expect: Expect) {
    with_ctx(fragment, |ctx| {
        let mut base = RuleSet::default().initial(ctx);
        edit(&mut base);
        let best = attempt(ctx, base, RunStatus::Completed, None, covered);
        let b = ctx.analysis.branches.iter().find(|b| b.line == line).expect("a branch at that line");
        let branch = Branch { best: &best, line, names: &b.names, condition: &b.condition, text: &b.text };
        let trigger = Trigger::Branch(&branch);
        assert!(rule.applies(ctx, &trigger), "{} does not apply", rule.name());
        expect.assert_eq(&describe_all(&rule.propose(ctx, &trigger)));
    })
}

pub(crate) fn branch(rule: &dyn Rule, fragment: &str, line: u32, covered: &[u32], expect: Expect) {
    branch_with(rule, fragment, |_| {}, line, covered, expect)
}

/// An evolution rule on the first prefix, completed, that left the
/// fragment's other statement lines uncovered.
pub(crate) fn evolve(rule: &dyn Rule, fragment: &str, covered: &[u32], expect: Expect) {
    with_ctx(fragment, |ctx| {
        let base = RuleSet::default().initial(ctx);
        let best = attempt(ctx, base, RunStatus::Completed, None, covered);
        let uncovered: Vec<u32> = best.coverage.executable.iter().copied().filter(|l| !covered.contains(l)).collect();
        let u = Uncovered { best: &best, lines: &uncovered };
        let trigger = Trigger::Evolve(&u);
        assert!(rule.applies(ctx, &trigger), "{} does not apply", rule.name());
        expect.assert_eq(&describe_all(&rule.propose(ctx, &trigger)));
    })
}
