//! The `fix` job end to end: analyse, prepare the environment, search for
//! prefixes in the sandbox, report. Shared by the CLI, the benchmark and
//! (later) the language server.

use crate::analysis::{self, Analysis, Wrap};
use crate::env::{self, EnvError, EnvManager, Environment, LegacyPlan, Toolchain};
use crate::exec::{
    denials, Containment, Denial, ExceptionInfo, ExecConfig, ExecError, Executor, Layers, Limits, RunOutcome, RunRequest, RunStatus, SandboxMode, WorkerPool,
};
use crate::knowledge;
use crate::memory::{self, extract, key::ResultKey, recall, Memory};
use crate::program;
use crate::report::{ErrorInfo, FixReport, LegacyReport, MemoryReport, OptionalReport, Refinement, ResourceFile, Stats, Status, Variant};
use crate::synth::deterministic::RuleSet;
use crate::synth::name_info;
use crate::synth::rules::UnknownRule;
use crate::synth::search::{self, Progress, SearchResult};
use crate::synth::session::{Context, Session};
use crate::synth::Proposer;
use crate::coverage::Coverage;
use crate::llm::{self, LlmConfig, LlmStats};
use crate::report::{LlmReport, LlmTokens, NameReport, ProposedBy};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("--lines {0}-{1} is outside the file, which has {2} lines")]
    Lines(u32, u32, usize),
    #[error(transparent)]
    Rules(#[from] UnknownRule),
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),
}

#[derive(Debug, Clone)]
pub struct EngineOptions {
    pub python: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    /// Keep warm workers per environment (off = one process per run).
    pub warm: bool,
    pub max_workers: usize,
    pub sandbox: SandboxMode,
    /// Results cache and remembered templates (`memory/`); off unless the
    /// caller asks, so a library user or a test never writes the user's store.
    pub memory: memory::Mode,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions { python: None, cache_dir: None, warm: true, max_workers: 2, sandbox: SandboxMode::Auto, memory: memory::Mode::Off }
    }
}

#[derive(Debug, Clone)]
pub struct FixOptions {
    /// 1-based inclusive line range of the file that is the fragment.
    pub lines: Option<(u32, u32)>,
    pub install: bool,
    /// Distributions that may be built from a source archive when no wheel
    /// fits (`--allow-build`); building runs their code, contained.
    pub allow_builds: BTreeSet<String>,
    pub budget: Duration,
    pub max_runs: usize,
    /// Let programs reach the network (a re-run the user allowed after a
    /// network denial); off by default: the sandbox has its own namespace.
    pub allow_network: bool,
    /// Rules turned off (`--disable-rule`), by their registry names.
    pub disabled_rules: Vec<String>,
    /// The optional model stages (`--llm URL`), asked only where the rules
    /// stall; `None`: the deterministic engine alone.
    pub llm: Option<LlmConfig>,
}

impl Default for FixOptions {
    fn default() -> Self {
        FixOptions { lines: None, install: false, allow_builds: BTreeSet::new(), budget: Duration::from_secs(20), max_runs: 100, allow_network: false, llm: None, disabled_rules: Vec::new() }
    }
}

/// Long-lived state: the interpreter, the environments and their warm pools.
pub struct Engine {
    toolchain: Toolchain,
    envs: EnvManager,
    stdlib: BTreeSet<String>,
    /// Warm pools per (interpreter, network allowed): a pool whose workers
    /// share the host's network never serves a normal run.
    pools: Mutex<HashMap<(PathBuf, bool), Arc<WorkerPool>>>,
    opts: EngineOptions,
    memory: Memory,
    /// This build, for the results-cache key.
    engine_version: String,
}

impl Engine {
    pub fn new(opts: EngineOptions) -> Result<Self, FixError> {
        let toolchain = env::find_toolchain(opts.python.as_deref())?;
        let envs = EnvManager::new(toolchain.clone(), opts.cache_dir.clone());
        let stdlib = envs.stdlib_modules()?;
        let memory = Memory::open(envs.cache_dir(), opts.memory);
        Ok(Engine { toolchain, envs, stdlib, pools: Mutex::new(HashMap::new()), opts, memory, engine_version: memory::engine_version() })
    }

    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// Everything the result of this request depends on.
    fn result_key<'a>(&'a self, fragment: &'a str, environment: &'a Environment, opts: &'a FixOptions) -> ResultKey<'a> {
        ResultKey {
            fragment,
            python: environment.python.to_str().unwrap_or_default(),
            installed: &environment.installed,
            missing: &environment.missing,
            constraints: &environment.constraints,
            install: opts.install,
            allow_builds: &opts.allow_builds,
            allow_network: opts.allow_network,
            engine: &self.engine_version,
            budget_ms: opts.budget.as_millis(),
            max_runs: opts.max_runs,
            sandbox: match self.opts.sandbox {
                SandboxMode::Auto => "auto",
                SandboxMode::Off => "off",
            },
            warm: self.opts.warm,
            templates: self.memory.templates_enabled(),
        }
    }

    pub fn toolchain(&self) -> &Toolchain {
        &self.toolchain
    }

    fn pool(&self, environment: &Environment, network: bool) -> Result<Arc<WorkerPool>, FixError> {
        let python = &environment.python;
        let mut pools = self.pools.lock().unwrap_or_else(|e| e.into_inner());
        // The base interpreter without a venv is only ever run with `-S`.
        let key = (python.clone(), network);
        if let Some(p) = pools.get(&key) {
            return Ok(p.clone());
        }
        let pool = Arc::new(WorkerPool::new(ExecConfig {
            python: python.clone(),
            limits: Limits::default(),
            sandbox: self.opts.sandbox,
            warm: self.opts.warm,
            max_workers: self.opts.max_workers,
            network,
            site_packages: environment.site_packages,
        })?);
        pools.insert(key, pool.clone());
        Ok(pool)
    }

    /// `progress` is `Sync` because every run is announced from the executor
    /// the session runs through (`Progress::running`).
    pub fn fix(&self, source: &str, opts: &FixOptions, progress: &(dyn Progress + Sync)) -> Result<FixReport, FixError> {
        // Network is allowed for one run: its pool does not outlive it.
        let _forget = opts.allow_network.then_some(ForgetNetworkPools(&self.pools));
        let started = Instant::now();
        let fragment = select_lines(source, opts.lines)?;
        let mut analysis = analysis::analyze(&fragment);
        // A method body (`self` from nowhere) that calls `super()` only runs
        // as a method, even without a top-level `return`.
        if analysis.wrap == Wrap::None && fragment.contains("super()") && analysis.free_names.iter().any(|f| f.name == "self") {
            analysis.wrap = Wrap::Function { is_async: false, is_generator: false };
        }
        if !analysis.syntax_errors.is_empty() {
            return Ok(syntax_error_report(&fragment, &analysis, &self.toolchain, started));
        }
        let proposer = RuleSet::without(&opts.disabled_rules)?;
        let ctx = Context { fragment: &fragment, analysis: &analysis, stdlib: &self.stdlib };
        // The environment covers the fragment's imports and those the first prefix adds.
        let mut modules: Vec<String> = env::fragment_import_paths(&analysis.imports);
        modules.extend(proposer.initial(&ctx).imported_modules());
        let plan = env::plan_imports(&modules, &self.stdlib);
        let environment = self.envs.prepare_allowing(&plan.distributions, &[], opts.install, &opts.allow_builds)?;
        // The same request again: the stored result, at once. (A run that
        // may reach the network, or asks a model, depends on more than the
        // request: never, neither stored nor served.)
        let cacheable = self.memory.results_enabled() && !opts.allow_network && opts.llm.is_none();
        let key_text = self.result_key(&fragment, &environment, opts).digest();
        if cacheable {
            if let Some(mut report) = self.memory.cached(&key_text) {
                report.memory = Some(MemoryReport { cached: true, ..report.memory.unwrap_or_default() });
                report.stats = Stats { executions: 0, llm_calls: 0, seconds: started.elapsed().as_secs_f64(), ..Stats::default() };
                return Ok(report);
            }
        }
        // Remembered templates for the names of this fragment (`memory::recall`).
        let first = proposer.initial(&ctx);
        let offers = if self.memory.templates_enabled() { recall::offers(&ctx, &first, &mut |sig| self.memory.templates(sig)) } else { Vec::new() };
        let watch = Watch::new(&offers);
        let runs = RunClock { runs: AtomicUsize::new(0), started, llm: Mutex::new(LlmStats::default()) };
        let remembering = recall::Remembering { rules: &proposer, offers: offers.clone() };
        let searcher = Searcher { proposer: &remembering, watch: &watch, runs: &runs };
        let mut chosen = self.search_in(environment, &fragment, &analysis, opts.budget, opts, progress, &searcher)?;
        let mut executions = chosen.executions;
        let mut distributions = plan.distributions.clone();
        // A later search: what is left of the budget, and at least a third of it.
        let later_budget = || opts.budget.saturating_sub(started.elapsed()).max(opts.budget / 3);
        // Optional dependencies: a library said it needs a distribution it
        // imports on demand (`df.style` wants Jinja2); search again with it.
        let mut optional: Vec<OptionalReport> = Vec::new();
        // The next dependency, when the last search already read it.
        let mut asked: Option<env::OptionalDependency> = None;
        while optional.len() < 3 {
            // A search that did no better ends the loop, so the errors to
            // read are always the chosen search's own.
            let Some(dep) = asked.take().or_else(|| self.optional_plan(&chosen, &distributions, progress)) else { break };
            let mut report = OptionalReport { distribution: dep.distribution.clone(), library: dep.library, reason: dep.reason, used: false, error: None };
            if !opts.install {
                // Said, not done: nothing is installed without consent.
                report.error = Some("installing is off (run again with --install)".into());
                optional.push(report);
                break;
            }
            let mut with = distributions.clone();
            with.insert(dep.distribution);
            match self.envs.prepare_allowing(&with, &[], true, &opts.allow_builds) {
                Ok(fuller) if fuller.missing.is_empty() => {
                    let searched = self.search_in(fuller, &fragment, &analysis, later_budget(), opts, progress, &searcher)?;
                    executions += searched.executions;
                    // Better, or as good and stopped by the next optional
                    // dependency a library asks for (FastAPI's forms want
                    // python-multipart, then its test client httpx2): the
                    // first request is met, the next one is read from here.
                    let score = searched.result.best.score();
                    let better = score > chosen.result.best.score();
                    if !better && score == chosen.result.best.score() {
                        asked = self
                            .optional_plan(&searched, &with, progress)
                            .filter(|d| !optional.iter().any(|o| o.distribution == d.distribution) && d.distribution != report.distribution);
                    }
                    if better || asked.is_some() {
                        report.used = true;
                        chosen = searched;
                        distributions = with;
                    }
                }
                Ok(fuller) => report.error = Some(install_failure(&fuller)),
                Err(e) => report.error = Some(e.to_string()),
            }
            let stop = !report.used;
            optional.push(report);
            if stop {
                break;
            }
        }
        // The environment stage's curated proposals: with consent
        // (`--install`) installed like the engine's own plan, then searched
        // again; names outside the table stay in `llm.consent`, never installed.
        let proposed = chosen.model.environment.clone();
        let more = proposed.as_ref().map(|e| llm::environment::to_install(e, &distributions)).unwrap_or_default();
        let mut model_installed: Vec<String> = Vec::new();
        if opts.install && !more.is_empty() {
            let mut with = distributions.clone();
            with.extend(more.iter().cloned());
            if let Ok(fuller) = self.envs.prepare_allowing(&with, &[], true, &opts.allow_builds) {
                let has = |d: &str| fuller.installed.iter().any(|i| knowledge::normalize_distribution(i) == knowledge::normalize_distribution(d));
                model_installed = more.iter().filter(|d| has(d)).cloned().collect();
                if !model_installed.is_empty() {
                    let searched = self.search_in(fuller, &fragment, &analysis, later_budget(), opts, progress, &searcher)?;
                    executions += searched.executions;
                    if searched.result.best.score() > chosen.result.best.score() {
                        chosen = searched;
                        distributions = with;
                    }
                }
            }
        }
        if let Some(mut env) = proposed {
            for d in &mut env.distributions {
                d.installed = model_installed.contains(&d.name) && distributions.iter().any(|p| knowledge::normalize_distribution(p) == knowledge::normalize_distribution(&d.name));
            }
            // What the model proposed stays reported, whichever search won.
            chosen.model.environment = Some(env);
        }
        let mut legacy = None;
        // The version fallback: when the newest releases fail with what looks
        // like an API they no longer have, search again with older ones.
        let newest_real = name_info::all_real(&chosen.result.best.prefix, &ctx);
        if let Some(legacy_plan) = self.legacy_plan(&chosen, newest_real, &distributions, opts, progress) {
            let newest_covered = chosen.result.best.coverage.covered.len();
            let mut report = LegacyReport {
                constraints: legacy_plan.constraints.clone(),
                reason: legacy_plan.reason.clone(),
                used: false,
                versions: BTreeMap::new(),
                newest_covered,
                legacy_covered: None,
                error: None,
            };
            match self.envs.prepare_allowing(&distributions, &legacy_plan.constraints, true, &opts.allow_builds) {
                Ok(older) if older.missing.is_empty() => {
                    let versions = self.envs.installed_versions(&older.venv);
                    let searched = self.search_in(older, &fragment, &analysis, later_budget(), opts, progress, &searcher)?;
                    executions += searched.executions;
                    report.versions = legacy_plan
                        .constraints
                        .iter()
                        .filter_map(|c| knowledge::requirement_name(c))
                        .filter_map(|n| Some((n.to_string(), versions.get(&knowledge::normalize_distribution(n))?.clone())))
                        .collect();
                    report.legacy_covered = Some(searched.result.best.coverage.covered.len());
                    // Real and covering as much beats a prefix with a stub or
                    // a stand-in where the newest release's API failed.
                    let older_best = &searched.result.best;
                    let real_instead = !newest_real && older_best.coverage.covered.len() >= newest_covered && name_info::all_real(&older_best.prefix, &ctx);
                    if older_best.score() > chosen.result.best.score() || real_instead {
                        report.used = true;
                        chosen = searched;
                    }
                }
                Ok(older) => report.error = Some(install_failure(&older)),
                Err(e) => report.error = Some(e.to_string()),
            }
            legacy = Some(report);
        }
        // Phase 1 and 2 of memory: what worked, for the next fragment.
        let tried = watch.tried();
        if self.memory.templates_enabled() && !progress.cancelled() {
            let job = extract::Job { ctx: &ctx, best: &chosen.result.best, first: &first, offers: &offers, tried: &tried, install: opts.install, installed: &chosen.environment.installed };
            self.memory.learn(extract::extract(&job));
        }
        let memory_report = self.memory.templates_enabled().then(|| MemoryReport {
            cached: false,
            remembered: offers.iter().filter(|o| chosen.result.best.prefix.binding(&o.name).is_some_and(|b| *b.current() == crate::synth::prefix::Candidate::Value(o.value()))).map(|o| o.name.clone()).collect(),
            offered: offers.len(),
        });
        let Searched { environment, pool, result, dropped, denied, model, .. } = chosen;
        let llm_stats = runs.llm.into_inner().unwrap_or_else(|e| e.into_inner());
        let by_model = |prefix: &str| if model.by_model.contains(prefix) { ProposedBy::Model } else { ProposedBy::Rule };
        let packages = match &legacy {
            Some(l) if l.used => pinned_packages(&environment, &self.envs.installed_versions(&environment.venv), &l.versions),
            _ => environment.installed.clone(),
        };
        let best = &result.best;
        let exception = best.outcome.exception.as_ref();
        let containment = pool.containment();
        let error = exception.map(|e| ErrorInfo {
            type_name: e.type_name.clone(),
            message: not_installed(e, &environment.missing, opts.install).unwrap_or_else(|| e.message.clone()),
            line: e.line.and_then(|l| best.program.fragment_line(l)),
        });
        let blocker = error.as_ref().and_then(|e| crate::blockers::classify(&fragment, e));
        Ok(FixReport {
            program: best.program.text.clone(),
            prefix: best.program.prefix.clone(),
            suffix: best.program.suffix.clone(),
            fragment_lines: best.program.fragment_lines.clone(),
            resources: best.prefix.all_resources().iter().filter(|r| crate::exec::run_path_problem(&r.path).is_none()).map(ResourceFile::from).collect(),
            python: environment.python.display().to_string(),
            packages,
            coverage: best.coverage.clone(),
            status: best.outcome.status.into(),
            error,
            blocker,
            names: names_with_provenance(&best.prefix, &ctx, by_model(&best.program.prefix), model.rule_best.as_ref()),
            refinements: best.prefix.trail.0.iter().map(|(stage, rule)| Refinement { rule: rule.to_string(), stage: stage.as_str().to_string() }).collect(),
            rules: result.rules.clone(),
            stats: Stats {
                executions,
                llm_calls: llm_stats.calls(),
                seconds: started.elapsed().as_secs_f64(),
                llm_tokens: LlmTokens { prompt: llm_stats.tokens().0, completion: llm_stats.tokens().1 },
                llm_stages: llm_stats.stages.iter().filter(|(_, s)| s.calls > 0).map(|(k, v)| (k.as_str().to_string(), v.clone())).collect(),
                llm_rejected: llm_stats.rejected(),
            },
            union_coverage: result.union.clone(),
            variants: result
                .variants
                .iter()
                .map(|v| Variant {
                    prefix: v.program.prefix.clone(),
                    suffix: v.program.suffix.clone(),
                    resources: v.prefix.all_resources().iter().filter(|r| crate::exec::run_path_problem(&r.path).is_none()).map(ResourceFile::from).collect(),
                    covered: v.coverage.covered.clone(),
                    rule: v.prefix.trail.last_variant_rule().map(str::to_string),
                    proposed_by: by_model(&v.program.prefix),
                })
                .collect(),
            hits: to_fragment(&best.program, &best.outcome.hit_counts),
            // Multi-line reprs (a DataFrame) read better on one line in hints.
            values: to_fragment(&best.program, &best.outcome.values)
                .into_iter()
                .map(|(l, vs)| (l, vs.into_iter().map(|(n, v)| (n, v.split_whitespace().collect::<Vec<_>>().join(" "))).collect()))
                .collect(),
            printed: to_fragment(&best.program, &best.outcome.printed),
            syntax_errors: Vec::new(),
            missing_packages: environment.missing.clone(),
            unknown_imports: plan.unknown.clone(),
            failed_packages: environment.failed.clone(),
            legacy,
            optional,
            wrapped: best.program.wrapped,
            containment: Some(containment).map(|mut c| {
                // Installing: say so when the installer lacks a layer too.
                if let Some(note) = opts.install.then(|| self.envs.installer_containment().note).flatten() {
                    c.note = Some(match c.note {
                        Some(n) => format!("{n}; {note}"),
                        None => note,
                    });
                }
                c
            }),
            denied,
            notes: dropped,
            stdout: best.outcome.stdout.clone(),
            stderr: best.outcome.stderr.clone(),
            llm: opts.llm.as_ref().map(|c| llm_report(&llm_stats, &model, c)),
            memory: memory_report,
        })
        .inspect(|report| {
            if cacheable && !progress.cancelled() {
                self.memory.remember_result(&key_text, report);
            }
        })
    }

    /// Run the search in `environment` with `budget`, at most `opts.max_runs`
    /// runs, in the pool that has the network only if `opts.allow_network`.
    #[allow(clippy::too_many_arguments)]
    fn search_in(
        &self,
        environment: Environment,
        fragment: &str,
        analysis: &Analysis,
        budget: Duration,
        opts: &FixOptions,
        progress: &(dyn Progress + Sync),
        searcher: &Searcher,
    ) -> Result<Searched, FixError> {
        let pool = self.pool(&environment, opts.allow_network)?;
        let ctx = Context { fragment, analysis, stdlib: &self.stdlib };
        let noting = Noting::new(pool.as_ref(), progress, searcher.runs, searcher.watch);
        let mut session = Session::new(ctx, &noting, budget, opts.max_runs);
        let result = search::search(&mut session, searcher.proposer, progress)?;
        let (result, model) = match &opts.llm {
            Some(config) => self.ask_model(&mut session, result, config, &noting, progress, searcher.runs)?,
            None => (result, ModelOutcome::default()),
        };
        let (executions, library_errors) = (session.executions, std::mem::take(&mut session.library_errors));
        let dropped = std::mem::take(&mut session.dropped);
        drop(session);
        let denied = noting.denied.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(Searched { executions, library_errors, environment, pool, result, denied, dropped, model })
    }

    /// The model stages where the rules stalled, within what is left of the
    /// fragment's model budget (shared by every search of one fix).
    fn ask_model(
        &self,
        session: &mut Session,
        result: SearchResult,
        config: &LlmConfig,
        executor: &dyn Executor,
        progress: &(dyn Progress + Sync),
        runs: &RunClock,
    ) -> Result<(SearchResult, ModelOutcome), FixError> {
        if !llm::hybrid::stalled(&result) {
            return Ok((result, ModelOutcome::default()));
        }
        let spent = runs.llm.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (p, c) = spent.tokens();
        let left = LlmConfig { max_calls: config.max_calls.saturating_sub(spent.calls()), max_tokens: config.max_tokens.map(|m| m.saturating_sub(p + c)), ..config.clone() };
        let proposer = llm::proposer::ModelProposer::new(&left, executor, progress.cancel_flag())?;
        let rule_best = result.best.prefix.clone();
        let (result, outcome) = llm::hybrid::extend(session, result, &proposer, progress)?;
        let stats = proposer.stats();
        let mut total = runs.llm.lock().unwrap_or_else(|e| e.into_inner());
        for (stage, s) in stats.stages {
            let t = total.stage(stage);
            t.model = s.model;
            t.calls += s.calls;
            t.prompt_tokens += s.prompt_tokens;
            t.completion_tokens += s.completion_tokens;
            t.seconds += s.seconds;
            t.rejected += s.rejected;
            t.proposals += s.proposals;
            t.kept += s.kept;
        }
        for e in stats.errors {
            total.note_error(e);
        }
        Ok((result, ModelOutcome { by_model: outcome.by_model, environment: outcome.environment, asked: outcome.asked, rule_best: Some(rule_best) }))
    }

    /// The optional dependency to add, when a library asked for one in any
    /// run of the last search (reported, and installed only with `install`).
    fn optional_plan(&self, searched: &Searched, distributions: &BTreeSet<String>, progress: &dyn Progress) -> Option<env::OptionalDependency> {
        if progress.cancelled() || !searched.environment.missing.is_empty() || searched.result.best.outcome.status == RunStatus::Completed {
            return None;
        }
        // Only an error whose frame is a real file of the venv's site-packages
        // counts: the run's own word for where it was raised is forgeable.
        searched.library_errors.iter().find_map(|e| {
            let frame = searched.environment.site_relative(e.raised_file.as_deref()?)?;
            env::optional_dependency(e, &frame, distributions, &self.stdlib)
        })
    }

    /// The older environment to try, when the search in the newest one
    /// ended on a failure that looks like an API mismatch with a library
    /// (`env::plan_legacy`), or got past one only with a stub or a stand-in
    /// (`real`: it did not; the real object, `self` a `Flask`, failed on
    /// a method whose signature the release changed), and installing is
    /// allowed.
    fn legacy_plan(&self, searched: &Searched, real: bool, distributions: &BTreeSet<String>, opts: &FixOptions, progress: &dyn Progress) -> Option<LegacyPlan> {
        let best = &searched.result.best;
        if !opts.install || progress.cancelled() || !searched.environment.missing.is_empty() {
            return None;
        }
        if best.outcome.status == RunStatus::Raised {
            return env::plan_legacy(best.outcome.exception.as_ref()?, distributions, &self.stdlib);
        }
        if real {
            return None;
        }
        searched.library_errors.iter().find_map(|e| env::plan_legacy(e, distributions, &self.stdlib))
    }
}

/// Drops the pools that share the host's network (their workers die when
/// the last run using them ends), so no warm worker keeps the network.
struct ForgetNetworkPools<'a>(&'a Mutex<HashMap<(PathBuf, bool), Arc<WorkerPool>>>);

impl Drop for ForgetNetworkPools<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).retain(|(_, network), _| !*network);
    }
}

/// How every search of one fix proposes and what it watches for.
struct Searcher<'a> {
    proposer: &'a dyn Proposer,
    watch: &'a Watch,
    runs: &'a RunClock,
}

/// Which remembered templates a run of the fix tried: a template was
/// tried when its line is in a program that ran (then, if the best prefix
/// does not use it, it failed and is demoted).
struct Watch {
    lines: Vec<String>,
    tried: Mutex<BTreeSet<usize>>,
}

impl Watch {
    fn new(offers: &[recall::Offer]) -> Self {
        Watch { lines: offers.iter().map(recall::Offer::rendered).collect(), tried: Mutex::new(BTreeSet::new()) }
    }

    fn see(&self, program: &str) {
        if self.lines.is_empty() {
            return;
        }
        let mut tried = self.tried.lock().unwrap_or_else(|e| e.into_inner());
        for (i, line) in self.lines.iter().enumerate() {
            // A remembered object is its class and its binding: all of it, in order.
            if format!("\n{program}\n").contains(&format!("\n{line}\n")) {
                tried.insert(i);
            }
        }
    }

    fn tried(&self) -> BTreeSet<usize> {
        self.tried.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One search and the environment it ran in.
struct Searched {
    environment: Environment,
    pool: Arc<WorkerPool>,
    result: SearchResult,
    executions: usize,
    /// Errors raised inside library code in any of its runs.
    library_errors: Vec<ExceptionInfo>,
    /// Candidates the session left out, in words.
    dropped: Vec<String>,
    /// What the sandbox denied in any of its runs.
    denied: Vec<Denial>,
    model: ModelOutcome,
}

/// What the model stages of one search added.
#[derive(Default)]
struct ModelOutcome {
    by_model: std::collections::HashSet<String>,
    environment: Option<llm::environment::CheckedEnvironment>,
    asked: bool,
    /// The rules' best prefix before the model was asked.
    rule_best: Option<crate::synth::prefix::Prefix>,
}

/// The report's names, each `model` when the model's prefix bound it in a
/// way the rules' best prefix did not.
fn names_with_provenance(prefix: &crate::synth::prefix::Prefix, ctx: &Context, by: ProposedBy, rule_best: Option<&crate::synth::prefix::Prefix>) -> Vec<NameReport> {
    use crate::synth::prefix::{Binding, Candidate};
    let text = |b: &Binding| match b.current() {
        Candidate::Import(s) => s.clone(),
        Candidate::Value(v) => v.definition(&b.name),
    };
    name_info::of(prefix, ctx)
        .into_iter()
        .zip(&prefix.bindings)
        .map(|(info, b)| {
            let same_as_rule = rule_best.and_then(|r| r.binding(&b.name)).is_some_and(|r| text(r) == text(b));
            let proposed_by = if by == ProposedBy::Model && !same_as_rule { ProposedBy::Model } else { ProposedBy::Rule };
            NameReport { info, proposed_by }
        })
        .collect()
}

fn llm_report(stats: &LlmStats, model: &ModelOutcome, config: &LlmConfig) -> LlmReport {
    let env = model.environment.clone().unwrap_or_default();
    LlmReport {
        asked: model.asked,
        consent: env.distributions.iter().filter(|d| !d.curated).map(|d| d.name.clone()).collect(),
        distributions: env.distributions,
        rejected_files: env.rejected_files,
        errors: stats.errors.clone(),
        estimated_cost_usd: stats.cost(&config.prices),
    }
}

/// The pool, noting what the sandbox denied in every run: the best attempt
/// may hide it (an offline stand-in for `urlopen` replaces the fetch that
/// failed), yet the user should know, and may want the real network.
struct Noting<'a> {
    pool: &'a WorkerPool,
    layers: Layers,
    /// One denial per kind of thing, the first seen.
    denied: Mutex<Vec<Denial>>,
    /// Told of every run as it starts (the editor's "running" stage).
    progress: &'a (dyn Progress + Sync),
    runs: &'a RunClock,
    watch: &'a Watch,
}

/// The runs of one fix, over all its searches, and when it started.
struct RunClock {
    runs: AtomicUsize,
    started: Instant,
    /// What the model stages spent so far in this fix (one budget for all its searches).
    llm: Mutex<LlmStats>,
}

impl<'a> Noting<'a> {
    fn new(pool: &'a WorkerPool, progress: &'a (dyn Progress + Sync), runs: &'a RunClock, watch: &'a Watch) -> Self {
        Noting { pool, layers: Layers::of(&pool.containment(), own_uid()), denied: Mutex::new(Vec::new()), progress, runs, watch }
    }

    fn announce(&self, req: &RunRequest) {
        self.watch.see(&req.program);
        let n = self.runs.runs.fetch_add(1, Ordering::Relaxed) + 1;
        self.progress.running(n, self.runs.started.elapsed());
    }

    fn note(&self, outcome: &RunOutcome) {
        let mut denied = self.denied.lock().unwrap_or_else(|e| e.into_inner());
        for e in outcome.exception.iter().chain(&outcome.caught) {
            for d in denials::read(e, &self.layers) {
                if !denied.iter().any(|o| o.what == d.what) {
                    denied.push(d);
                }
            }
        }
    }
}

impl Executor for Noting<'_> {
    fn run(&self, req: &RunRequest) -> Result<RunOutcome, ExecError> {
        self.announce(req);
        let outcome = self.pool.run(req)?;
        self.note(&outcome);
        Ok(outcome)
    }

    fn run_cancellable(&self, req: &RunRequest, cancel: &AtomicBool) -> Result<RunOutcome, ExecError> {
        self.announce(req);
        let outcome = self.pool.run_cancellable(req, cancel)?;
        self.note(&outcome);
        Ok(outcome)
    }

    fn containment(&self) -> Containment {
        self.pool.containment()
    }
}

fn own_uid() -> u32 {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() }
}

/// Why an environment lacks a distribution it was asked to install.
/// A library the fragment imports is missing: the search kept the import
/// (never a stand-in for it), so the report says what is needed:
/// `needs pandas: not installed (No module named 'pandas')`.
fn not_installed(e: &crate::exec::ExceptionInfo, missing: &[String], install: bool) -> Option<String> {
    if e.type_name != "ModuleNotFoundError" {
        return None;
    }
    let module = e.name.as_deref().or(e.module.as_deref())?;
    let dist = knowledge::distribution_for(module)?;
    let norm = knowledge::normalize_distribution(dist);
    let is_missing = missing.iter().any(|m| knowledge::normalize_distribution(m) == norm);
    let how = if install { "could not be installed" } else { "not installed (run with --install)" };
    is_missing.then(|| format!("needs {dist}: {how} ({})", e.message))
}

fn install_failure(environment: &Environment) -> String {
    match environment.failed.first() {
        Some((dist, why)) => format!("could not install {dist}: {why}"),
        None => format!("could not install {}", environment.missing.join(", ")),
    }
}

/// `name==version` for each distribution of the environment and each
/// constrained one (a dependency such as numpy under pandas), so the older
/// environment can be rebuilt exactly.
fn pinned_packages(environment: &Environment, versions: &BTreeMap<String, String>, constrained: &BTreeMap<String, String>) -> Vec<String> {
    let mut pins: Vec<String> = environment
        .installed
        .iter()
        .map(|name| match versions.get(&knowledge::normalize_distribution(name)) {
            Some(version) => format!("{name}=={version}"),
            None => name.clone(),
        })
        .collect();
    for (name, version) in constrained {
        let normalized = knowledge::normalize_distribution(name);
        if !environment.installed.iter().any(|i| knowledge::normalize_distribution(i) == normalized) {
            pins.push(format!("{name}=={version}"));
        }
    }
    pins
}

/// Re-key a per-program-line map by fragment line, dropping prefix/driver lines.
fn to_fragment<T: Clone>(program: &program::Program, m: &BTreeMap<u32, T>) -> BTreeMap<u32, T> {
    m.iter().filter_map(|(l, v)| Some((program.fragment_line(*l)?, v.clone()))).collect()
}

/// The fragment: lines A-B (1-based, inclusive) of `source`, or all of it.
pub fn select_lines(source: &str, lines: Option<(u32, u32)>) -> Result<String, FixError> {
    let Some((a, b)) = lines else { return Ok(source.to_string()) };
    let all: Vec<&str> = source.lines().collect();
    if a == 0 || b < a || b as usize > all.len() {
        return Err(FixError::Lines(a, b, all.len()));
    }
    Ok(all[a as usize - 1..b as usize].join("\n") + "\n")
}

fn syntax_error_report(fragment: &str, analysis: &Analysis, toolchain: &Toolchain, started: Instant) -> FixReport {
    let program = program::assemble(fragment, analysis, "", "", &[], None, None, &[]);
    let first = &analysis.syntax_errors[0];
    let executable = analysis.statements.iter().map(|s| s.line).collect();
    let coverage = Coverage::new(executable, BTreeSet::new());
    FixReport {
        program: program.text,
        prefix: String::new(),
        suffix: String::new(),
        fragment_lines: program.fragment_lines,
        resources: Vec::new(),
        python: toolchain.python.display().to_string(),
        packages: Vec::new(),
        union_coverage: coverage.clone(),
        coverage,
        status: Status::SyntaxError,
        error: Some(ErrorInfo { type_name: "SyntaxError".into(), message: first.message.clone(), line: Some(first.line) }),
        blocker: None,
        names: Vec::new(),
        refinements: Vec::new(),
        rules: Vec::new(),
        stats: Stats { seconds: started.elapsed().as_secs_f64(), ..Stats::default() },
        variants: Vec::new(),
        hits: BTreeMap::new(),
        values: BTreeMap::new(),
        printed: BTreeMap::new(),
        syntax_errors: analysis.syntax_errors.clone(),
        missing_packages: Vec::new(),
        unknown_imports: Vec::new(),
        failed_packages: Vec::new(),
        legacy: None,
        optional: Vec::new(),
        wrapped: program.wrapped,
        containment: None,
        notes: Vec::new(),
        denied: Vec::new(),
        stdout: String::new(),
        stderr: String::new(),
        llm: None,
        memory: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_select_and_are_checked() {
        assert_eq!(select_lines("a\nb\nc\n", Some((2, 3))).unwrap(), "b\nc\n");
        assert!(matches!(select_lines("a\n", Some((2, 3))), Err(FixError::Lines(2, 3, 1))));
        assert_eq!(select_lines("a\n", None).unwrap(), "a\n");
    }
}
