//! `runnable bench`: `fix` over a folder in parallel, one CSV row per file,
//! and the summary numbers the README tables quote.

use crate::fix::{Engine, FixOptions};
use crate::report::{FixReport, Status};
use crate::synth::attribution::{sum_uses, RuleUse};
use crate::synth::rules;
use crate::synth::search::NoProgress;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub file: String,
    pub executable: usize,
    pub covered: usize,
    pub ratio: f64,
    pub union_ratio: f64,
    pub completed: bool,
    pub status: String,
    pub seconds: f64,
    pub executions: usize,
    pub llm_calls: usize,
    pub names: usize,
    pub stub_names: usize,
    pub error: String,
    /// The version fallback: empty when it did not run, `used` when the
    /// result is the older environment's, `tried` when the newest did as
    /// well, `unavailable` when the older environment could not be prepared.
    pub legacy: String,
    /// Names bound to a hand-written stand-in for something of a library
    /// (`names[].kind == "stand-in"`). Columns from here on were added after
    /// the first CSVs: older readers keep working.
    pub stand_in_names: usize,
    /// Neither a stub nor a stand-in in the prefix: what a person would keep.
    pub real: bool,
    /// What each rule did for this file (for `bench --rules`; not a CSV column).
    #[serde(skip)]
    pub rules: Vec<RuleUse>,
    /// The model stages (issue 17; 0 without `--llm`): tokens, then calls,
    /// tokens and seconds per stage, rejected proposals, estimated cost and
    /// the names the model's prefix bound.
    pub llm_prompt_tokens: u64,
    pub llm_completion_tokens: u64,
    pub llm_environment_calls: usize,
    pub llm_environment_tokens: u64,
    pub llm_environment_seconds: f64,
    pub llm_exploration_calls: usize,
    pub llm_exploration_tokens: u64,
    pub llm_exploration_seconds: f64,
    pub llm_evolution_calls: usize,
    pub llm_evolution_tokens: u64,
    pub llm_evolution_seconds: f64,
    pub llm_rejected: usize,
    pub llm_cost_usd: f64,
    pub model_names: usize,
    /// Why the fragment cannot run as written (`blockers::BlockerClass`), or empty.
    pub blocker: String,
}

/// (calls, tokens, seconds) of one model stage in a report.
fn stage(r: &FixReport, name: &str) -> (usize, u64, f64) {
    r.stats.llm_stages.get(name).map(|s| (s.calls, s.prompt_tokens + s.completion_tokens, s.seconds)).unwrap_or_default()
}

impl Row {
    fn from_report(file: String, r: &FixReport, seconds: f64) -> Row {
        Row {
            file,
            executable: r.coverage.executable.len(),
            covered: r.coverage.covered.len(),
            ratio: r.coverage.ratio,
            union_ratio: r.union_coverage.ratio,
            completed: r.status == Status::Completed,
            status: serde_json::to_value(r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
            seconds,
            executions: r.stats.executions,
            llm_calls: r.stats.llm_calls,
            names: r.names.len(),
            stub_names: r.names.iter().filter(|n| n.stub).count(),
            error: r.error.as_ref().map(|e| format!("{}: {}", e.type_name, e.message)).unwrap_or_default(),
            legacy: match &r.legacy {
                None => String::new(),
                Some(l) if l.error.is_some() => "unavailable".into(),
                Some(l) if l.used => "used".into(),
                Some(_) => "tried".into(),
            },
            stand_in_names: r.names.iter().filter(|n| n.kind == "stand-in").count(),
            real: r.names.iter().all(|n| !n.stub && n.kind != "stand-in"),
            rules: r.rules.clone(),
            llm_prompt_tokens: r.stats.llm_tokens.prompt,
            llm_completion_tokens: r.stats.llm_tokens.completion,
            llm_environment_calls: stage(r, "environment").0,
            llm_environment_tokens: stage(r, "environment").1,
            llm_environment_seconds: stage(r, "environment").2,
            llm_exploration_calls: stage(r, "exploration").0,
            llm_exploration_tokens: stage(r, "exploration").1,
            llm_exploration_seconds: stage(r, "exploration").2,
            llm_evolution_calls: stage(r, "evolution").0,
            llm_evolution_tokens: stage(r, "evolution").1,
            llm_evolution_seconds: stage(r, "evolution").2,
            llm_rejected: r.stats.llm_rejected,
            llm_cost_usd: r.llm.as_ref().map(|l| l.estimated_cost_usd).unwrap_or(0.0),
            model_names: r.names.iter().filter(|n| n.proposed_by == crate::report::ProposedBy::Model).count(),
            blocker: r.blocker.as_ref().map(|b| b.class.as_str().to_string()).unwrap_or_default(),
        }
    }
    fn failed(file: String, why: String, seconds: f64) -> Row {
        Row {
            file, executable: 0, covered: 0, ratio: 0.0, union_ratio: 0.0, completed: false,
            status: "error".into(), seconds, executions: 0, llm_calls: 0, names: 0, stub_names: 0, error: why,
            legacy: String::new(), stand_in_names: 0, real: false,
            llm_prompt_tokens: 0, llm_completion_tokens: 0,
            llm_environment_calls: 0, llm_environment_tokens: 0, llm_environment_seconds: 0.0,
            llm_exploration_calls: 0, llm_exploration_tokens: 0, llm_exploration_seconds: 0.0,
            llm_evolution_calls: 0, llm_evolution_tokens: 0, llm_evolution_seconds: 0.0,
            llm_rejected: 0, llm_cost_usd: 0.0, model_names: 0, blocker: String::new(),
            rules: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub files: usize,
    pub mean_coverage: f64,
    pub mean_union_coverage: f64,
    pub full_execution: f64,
    pub median_seconds: f64,
    pub p95_seconds: f64,
    pub stub_share: f64,
    /// Share of files whose prefix has neither a stub nor a stand-in.
    pub real_share: f64,
    /// Mean coverage where a prefix with a stub or a stand-in counts 0.
    pub real_coverage: f64,
    pub llm_calls: usize,
    /// Files where the version fallback ran, and where its result was kept.
    pub legacy_tried: usize,
    pub legacy_used: usize,
    pub wall_seconds: f64,
    /// Model stages: total tokens, and per stage (calls, tokens, seconds).
    pub llm_tokens: u64,
    pub llm_stages: [(usize, u64, f64); 3],
    /// Estimated from the price table.
    pub llm_cost_usd: f64,
    /// Files that cannot run as written, per class, most first.
    pub blockers: Vec<(String, usize)>,
}

pub fn python_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    Ok(files)
}

/// Run `fix` on every file with `jobs` threads; `on_done` sees each row as it lands.
pub fn run(engine: &Engine, files: &[PathBuf], opts: &FixOptions, jobs: usize, on_done: &(dyn Fn(&Row) + Sync)) -> (Vec<Row>, Summary) {
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<(usize, Row)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(path) = files.get(i) else { break };
                let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
                let t0 = Instant::now();
                let row = match std::fs::read_to_string(path) {
                    Err(e) => Row::failed(name, e.to_string(), 0.0),
                    Ok(src) => match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.fix(&src, opts, &NoProgress))) {
                        Ok(Ok(r)) => Row::from_report(name, &r, t0.elapsed().as_secs_f64()),
                        Ok(Err(e)) => Row::failed(name, e.to_string(), t0.elapsed().as_secs_f64()),
                        Err(_) => Row::failed(name, "internal error (panic)".into(), t0.elapsed().as_secs_f64()),
                    },
                };
                on_done(&row);
                rows.lock().unwrap_or_else(|e| e.into_inner()).push((i, row));
            });
        }
    });
    let mut rows = rows.into_inner().unwrap_or_else(|e| e.into_inner());
    rows.sort_by_key(|(i, _)| *i);
    let rows: Vec<Row> = rows.into_iter().map(|(_, r)| r).collect();
    let summary = summarize(&rows, started.elapsed().as_secs_f64());
    (rows, summary)
}

pub fn summarize(rows: &[Row], wall_seconds: f64) -> Summary {
    let n = rows.len().max(1) as f64;
    let mut secs: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
    secs.sort_by(|a, b| a.total_cmp(b));
    let pick = |q: f64| if secs.is_empty() { 0.0 } else { secs[((secs.len() - 1) as f64 * q) as usize] };
    let names: usize = rows.iter().map(|r| r.names).sum();
    let stubs: usize = rows.iter().map(|r| r.stub_names).sum();
    Summary {
        files: rows.len(),
        mean_coverage: rows.iter().map(|r| r.ratio).sum::<f64>() / n,
        mean_union_coverage: rows.iter().map(|r| r.union_ratio).sum::<f64>() / n,
        full_execution: rows.iter().filter(|r| r.completed && r.covered == r.executable).count() as f64 / n,
        median_seconds: if secs.is_empty() { 0.0 } else if secs.len() % 2 == 1 { secs[secs.len() / 2] } else { (secs[secs.len() / 2 - 1] + secs[secs.len() / 2]) / 2.0 },
        p95_seconds: pick(0.95),
        stub_share: if names == 0 { 0.0 } else { stubs as f64 / names as f64 },
        real_share: rows.iter().filter(|r| r.real).count() as f64 / n,
        real_coverage: rows.iter().filter(|r| r.real).map(|r| r.ratio).sum::<f64>() / n,
        llm_calls: rows.iter().map(|r| r.llm_calls).sum(),
        legacy_tried: rows.iter().filter(|r| !r.legacy.is_empty()).count(),
        legacy_used: rows.iter().filter(|r| r.legacy == "used").count(),
        wall_seconds,
        llm_tokens: rows.iter().map(|r| r.llm_prompt_tokens + r.llm_completion_tokens).sum(),
        llm_stages: [
            rows.iter().fold((0, 0, 0.0), |a, r| (a.0 + r.llm_environment_calls, a.1 + r.llm_environment_tokens, a.2 + r.llm_environment_seconds)),
            rows.iter().fold((0, 0, 0.0), |a, r| (a.0 + r.llm_exploration_calls, a.1 + r.llm_exploration_tokens, a.2 + r.llm_exploration_seconds)),
            rows.iter().fold((0, 0, 0.0), |a, r| (a.0 + r.llm_evolution_calls, a.1 + r.llm_evolution_tokens, a.2 + r.llm_evolution_seconds)),
        ],
        llm_cost_usd: rows.iter().map(|r| r.llm_cost_usd).sum(),
        blockers: blocker_counts(rows),
    }
}

/// How many files each class of [`crate::blockers`] stopped, most first.
fn blocker_counts(rows: &[Row]) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for r in rows.iter().filter(|r| !r.blocker.is_empty()) {
        *counts.entry(r.blocker.as_str()).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().map(|(c, n)| (c.to_string(), n)).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1));
    out
}

pub fn write_csv(path: &Path, rows: &[Row]) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}

/// `bench --rules`: per rule of the registry (in its order), the runs of
/// programs it proposed, the proposals the search kept, the statements they
/// added, and in how many files it was kept at least once.
pub fn rules_table(rows: &[Row]) -> String {
    let total = sum_uses(rows.iter().flat_map(|r| &r.rules));
    let mut out = format!("{:<28} {:<8} {:>7} {:>6} {:>6} {:>6}\n", "rule", "stage", "fired", "kept", "added", "files");
    for rule in rules::all() {
        let u = total.iter().find(|u| u.rule == rule.name()).cloned().unwrap_or_default();
        let files = rows.iter().filter(|r| r.rules.iter().any(|x| x.rule == rule.name() && x.kept > 0)).count();
        out.push_str(&format!("{:<28} {:<8} {:>7} {:>6} {:>6} {:>6}\n", rule.name(), rule.stage().as_str(), u.fired, u.kept, u.added, files));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ratio: f64, secs: f64, completed: bool) -> Row {
        let mut r = Row::failed("f.py".into(), String::new(), secs);
        r.executable = 4;
        r.covered = (ratio * 4.0) as usize;
        r.ratio = ratio;
        r.union_ratio = ratio;
        r.completed = completed;
        r.names = 2;
        r.stub_names = 1;
        r
    }

    #[test]
    fn summary_counts_full_execution_and_percentiles() {
        let rows = vec![row(1.0, 1.0, true), row(0.5, 3.0, false), row(1.0, 2.0, false)];
        let s = summarize(&rows, 5.0);
        assert!((s.mean_coverage - 2.5 / 3.0).abs() < 1e-9);
        assert!((s.full_execution - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.median_seconds, 2.0);
        assert_eq!(s.stub_share, 0.5);
    }

    #[test]
    fn real_coverage_counts_a_faked_or_stubbed_prefix_as_zero() {
        let mut rows = vec![row(1.0, 1.0, true), row(0.5, 1.0, false), row(1.0, 1.0, true)];
        rows[0].real = true;
        rows[1].real = true;
        rows[2].stand_in_names = 1;
        let s = summarize(&rows, 1.0);
        assert!((s.real_share - 2.0 / 3.0).abs() < 1e-9);
        assert!((s.real_coverage - 1.5 / 3.0).abs() < 1e-9);
        assert!((s.mean_coverage - 2.5 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_rules_table_sums_uses_over_files_for_every_rule() {
        let mut a = row(0.5, 1.0, true);
        a.rules = vec![RuleUse { rule: "missing-key".into(), fired: 2, kept: 1, added: 3 }];
        let mut b = row(0.5, 1.0, true);
        b.rules = vec![RuleUse { rule: "missing-key".into(), fired: 1, kept: 0, added: 0 }];
        let table = rules_table(&[a, b]);
        let line = table.lines().find(|l| l.starts_with("missing-key ")).unwrap();
        assert_eq!(line.split_whitespace().collect::<Vec<_>>(), ["missing-key", "refine", "3", "1", "3", "1"]);
        assert_eq!(table.lines().count(), rules::all().len() + 1, "every rule has a line, fired or not");
    }
}
