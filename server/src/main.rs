//! The `runnable` command line: `fix` one fragment, `bench` a folder, `lsp`
//! the language server, `memory` the store of results and templates.

use anyhow::{bail, Context as _, Result};
use clap::{Args, Parser, Subcommand};
use runnable::bench;
use runnable::exec::SandboxMode;
use runnable::fix::{Engine, EngineOptions, FixOptions};
use runnable::human;
use runnable::memory::{self, store::Store};
use runnable::report::Status;
use runnable::synth::search::NoProgress;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

const EXIT_CODES: &str = "Exit codes of `fix`:
  0  the program ran to the end
  1  runnable itself failed (no interpreter, unreadable file, broken environment)
  2  bad command line
  3  a result was produced but the program stopped early (exception, timeout, limit)
  4  the fragment does not parse (the error and its position are reported)";

#[derive(Parser)]
#[command(name = "runnable", version, about = "Make fragments of Python runnable", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Synthesise a prefix that makes a fragment run, run it, report coverage.
    Fix {
        file: PathBuf,
        /// Only lines A-B (1-based, inclusive) of the file are the fragment.
        #[arg(long, value_parser = parse_range)]
        lines: Option<(u32, u32)>,
        /// Print one JSON object instead of the human report.
        #[arg(long)]
        json: bool,
        /// Let the program reach the network (the sandbox shares the host's
        /// network namespace for this run; `containment.network` says so).
        /// Use it after a report says the sandbox denied network access.
        #[arg(long)]
        allow_network: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Print the static analysis of a fragment as JSON (free names, usage, statements).
    Analyze { file: PathBuf },
    /// Serve the Language Server Protocol on stdin/stdout (for editors).
    Lsp,
    /// Run `fix` on every .py file of a folder and summarise.
    Bench {
        dir: PathBuf,
        /// Parallel jobs.
        #[arg(short = 'j', long, default_value_t = 2)]
        jobs: usize,
        /// Write one CSV row per file here.
        #[arg(long)]
        out: Option<PathBuf>,
        /// One fresh process per run instead of warm workers (to measure their effect).
        #[arg(long)]
        cold: bool,
        /// Print per rule how often it fired, was kept, and the statements it added.
        #[arg(long)]
        rules: bool,
        #[command(flatten)]
        common: Common,
    },
    /// What memory keeps (results cache, value templates, import pairs).
    Memory {
        #[command(subcommand)]
        action: MemoryAction,
        /// Cache directory (default: the user cache dir); the store is `memory/` in it.
        #[arg(long, global = true)]
        cache_dir: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum MemoryAction {
    /// Counts and the store's path and schema version (JSON).
    Stats,
    /// Forget every result, template and import pair.
    Clear,
    /// Everything remembered as JSON (results by key only).
    Export,
}

#[derive(Args)]
struct Common {
    /// The Python interpreter to use (default: python3 on PATH).
    #[arg(long)]
    python: Option<PathBuf>,
    /// Install the packages the fragment imports (into a cached venv).
    #[arg(long)]
    install: bool,
    /// Allow NAME to be built from its source archive when it has no wheel
    /// (building runs its code, in the installer's sandbox). Repeatable.
    #[arg(long = "allow-build", value_name = "NAME")]
    allow_build: Vec<String>,
    /// Time budget per fragment, in seconds.
    #[arg(long, default_value_t = 20)]
    budget_seconds: u64,
    /// Cache directory for environments (default: the user cache dir).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Run without bubblewrap even when it is available.
    #[arg(long)]
    no_sandbox: bool,
    /// Turn off the synthesis rule NAME (repeatable), to measure what it is
    /// worth; `runnable bench --rules` lists every rule.
    #[arg(long = "disable-rule", value_name = "NAME")]
    disable_rule: Vec<String>,
    /// Neither read nor write memory (no cached results, no remembered
    /// templates): for benchmarks. `RUNNABLE_MEMORY=off` does the same.
    #[arg(long)]
    no_memory: bool,
    /// Remembered templates only: every fragment is searched again.
    #[arg(long, conflicts_with = "no_memory")]
    no_results_cache: bool,
    #[command(flatten)]
    llm: LlmArgs,
}

/// The optional model stages, asked only where the rules stall. The key
/// comes from RUNNABLE_LLM_API_KEY, else OPENAI_API_KEY (none for local servers).
#[derive(Args)]
struct LlmArgs {
    /// An OpenAI-compatible base URL (`http://localhost:11434/v1` for Ollama).
    #[arg(long = "llm", value_name = "URL")]
    endpoint: Option<String>,
    /// The model of every stage unless a stage names its own.
    #[arg(long = "llm-model", value_name = "NAME")]
    model: Option<String>,
    /// The environment stage's model (a cheap one does).
    #[arg(long = "llm-model-environment", value_name = "NAME")]
    model_environment: Option<String>,
    /// The exploration stage's model.
    #[arg(long = "llm-model-exploration", value_name = "NAME")]
    model_exploration: Option<String>,
    /// The evolution stage's model (it writes generator programs).
    #[arg(long = "llm-model-evolution", value_name = "NAME")]
    model_evolution: Option<String>,
    /// Model calls per fragment.
    #[arg(long = "llm-max-calls", value_name = "N", default_value_t = runnable::llm::config::DEFAULT_MAX_CALLS)]
    max_calls: usize,
    /// Prompt plus completion tokens per fragment.
    #[arg(long = "llm-max-tokens", value_name = "N")]
    max_tokens: Option<u64>,
    /// Append every request and answer to FILE (JSON lines).
    #[arg(long = "llm-record", value_name = "FILE")]
    record: Option<PathBuf>,
    /// Answer every request from FILE (written by --llm-record), with no network.
    #[arg(long = "llm-replay", value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Prices per model (`model usd_per_million_prompt usd_per_million_completion` lines) over the built-in table.
    #[arg(long = "llm-prices", value_name = "FILE")]
    prices: Option<PathBuf>,
    /// Seconds one model request may take.
    #[arg(long = "llm-timeout-seconds", value_name = "S", default_value_t = 60.0)]
    timeout_seconds: f64,
}

impl LlmArgs {
    fn config(&self) -> Result<Option<runnable::llm::LlmConfig>> {
        if self.endpoint.is_none() && self.replay.is_none() {
            return Ok(None);
        }
        let mut c = runnable::llm::LlmConfig::new(self.endpoint.clone());
        c.model = self.model.clone();
        c.environment_model = self.model_environment.clone();
        c.exploration_model = self.model_exploration.clone();
        c.evolution_model = self.model_evolution.clone();
        c.max_calls = self.max_calls;
        c.max_tokens = self.max_tokens;
        c.record = self.record.clone();
        c.replay = self.replay.clone();
        c.timeout = Duration::from_secs_f64(self.timeout_seconds.clamp(0.1, 3600.0));
        c.api_key = runnable::llm::config::api_key_from(|k| std::env::var(k).ok());
        if let Some(path) = &self.prices {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            let table = runnable::llm::prices::PriceTable::parse(&text).map_err(anyhow::Error::msg).with_context(|| format!("in {}", path.display()))?;
            c.prices = c.prices.with(table);
        }
        Ok(Some(c))
    }
}

impl Common {
    fn memory(&self) -> memory::Mode {
        if self.no_memory || std::env::var("RUNNABLE_MEMORY").is_ok_and(|v| v == "off") {
            memory::Mode::Off
        } else if self.no_results_cache {
            memory::Mode::Templates
        } else {
            memory::Mode::On
        }
    }
}

fn parse_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once('-').ok_or("expected A-B, e.g. 3-10")?;
    let a: u32 = a.trim().parse().map_err(|_| format!("{a:?} is not a line number"))?;
    let b: u32 = b.trim().parse().map_err(|_| format!("{b:?} is not a line number"))?;
    if a == 0 || b < a {
        return Err("lines are 1-based and A must not exceed B".into());
    }
    Ok((a, b))
}

fn engine(common: &Common, warm: bool, workers: usize) -> Result<Engine> {
    Ok(Engine::new(EngineOptions {
        python: common.python.clone(),
        cache_dir: common.cache_dir.clone(),
        warm,
        max_workers: workers,
        sandbox: if common.no_sandbox { SandboxMode::Off } else { SandboxMode::Auto },
        memory: common.memory(),
    })?)
}

fn fix_options(common: &Common, lines: Option<(u32, u32)>) -> Result<FixOptions> {
    Ok(FixOptions {
        lines,
        install: common.install,
        allow_builds: common.allow_build.iter().cloned().collect(),
        budget: Duration::from_secs(common.budget_seconds.max(1)),
        disabled_rules: common.disable_rule.clone(),
        llm: common.llm.config()?,
        ..FixOptions::default()
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("runnable: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Command::Fix { common, .. } | Command::Bench { common, .. } = &cli.command {
        // A rule name no rule has is a bad command line, said before anything runs.
        if let Err(e) = runnable::synth::rules::resolve(&common.disable_rule) {
            eprintln!("runnable: --disable-rule: {e}");
            return Ok(ExitCode::from(2));
        }
    }
    match cli.command {
        Command::Fix { file, lines, json, allow_network, common } => {
            let source = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let engine = engine(&common, true, 1)?;
            let options = FixOptions { allow_network, ..fix_options(&common, lines)? };
            let report = engine.fix(&source, &options, &NoProgress)?;
            if json {
                println!("{}", serde_json::to_string(&report)?);
            } else {
                let fragment = runnable::fix::select_lines(&source, lines)?;
                print!("{}", human::render(&fragment, &report));
                if let Some(e) = report.syntax_errors.first() {
                    eprintln!("{}:{}:{}: syntax error: {}", file.display(), e.line, e.column + 1, e.message);
                }
            }
            Ok(ExitCode::from(match report.status {
                Status::Completed => 0,
                Status::SyntaxError => 4,
                _ => 3,
            }))
        }
        Command::Lsp => {
            // Logs go to stderr: stdout carries the protocol. Clients show
            // a server's stderr as errors (Neovim logs every line as
            // `[ERROR]`), so only warnings go there unless RUNNABLE_LOG asks
            // for more; what the user should read goes as window/logMessage.
            let level = std::env::var("RUNNABLE_LOG").ok().and_then(|l| l.parse().ok()).unwrap_or(tracing::Level::WARN);
            tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_max_level(level).init();
            runnable::lsp::serve_stdio()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Analyze { file } => {
            let source = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            println!("{}", serde_json::to_string_pretty(&runnable::analysis::analyze(&source))?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Memory { action, cache_dir } => {
            // The default is `EnvManager::new`'s: the store sits beside the venvs.
            let cache_dir = cache_dir
                .or_else(|| dirs::cache_dir().map(|d| d.join("runnable")))
                .unwrap_or_else(|| std::env::temp_dir().join("runnable-cache"));
            let store = Store::open(&cache_dir.join(memory::DIR)).context("cannot open the memory store")?;
            if let Some(aside) = &store.moved_aside {
                eprintln!("runnable: the memory store was corrupt; moved to {} and rebuilt", aside.display());
            }
            match action {
                MemoryAction::Stats => println!("{}", serde_json::to_string_pretty(&store.stats()?)?),
                MemoryAction::Clear => {
                    store.clear()?;
                    println!("memory cleared: {}", store.path().display());
                }
                MemoryAction::Export => println!("{}", serde_json::to_string_pretty(&store.export()?)?),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { dir, jobs, out, cold, rules, common } => {
            let files = bench::python_files(&dir).with_context(|| format!("cannot list {}", dir.display()))?;
            if files.is_empty() {
                bail!("no .py files in {}", dir.display());
            }
            let engine = engine(&common, !cold, jobs.max(1))?;
            let bar = if std::io::stderr().is_terminal() {
                let b = indicatif::ProgressBar::new(files.len() as u64);
                b.set_style(
                    indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                Some(b)
            } else {
                None
            };
            let on_done = |r: &bench::Row| {
                if let Some(b) = &bar {
                    b.set_message(format!("{} {:.0}%", r.file, r.ratio * 100.0));
                    b.inc(1);
                }
            };
            let (rows, summary) = bench::run(&engine, &files, &fix_options(&common, None)?, jobs, &on_done);
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            if let Some(path) = out {
                bench::write_csv(&path, &rows).with_context(|| format!("cannot write {}", path.display()))?;
            }
            println!(
                "files {}  mean coverage {:.3}  real {:.3}  real coverage {:.3}  union {:.3}  full execution {:.3}  median {:.2}s  p95 {:.2}s  stub share {:.3}  llm calls {}  older releases kept {} of {} tried  wall {:.1}s",
                summary.files, summary.mean_coverage, summary.real_share, summary.real_coverage, summary.mean_union_coverage, summary.full_execution,
                summary.median_seconds, summary.p95_seconds, summary.stub_share, summary.llm_calls,
                summary.legacy_used, summary.legacy_tried, summary.wall_seconds
            );
            if !summary.blockers.is_empty() {
                let classes: Vec<String> = summary.blockers.iter().map(|(c, n)| format!("{c} {n}")).collect();
                println!("cannot run as written: {}", classes.join(", "));
            }
            if rules {
                print!("{}", bench::rules_table(&rows));
            }
            if common.llm.endpoint.is_some() || common.llm.replay.is_some() {
                let [e, x, v] = summary.llm_stages;
                println!(
                    "llm tokens {}  environment {} calls {} tokens {:.1}s  exploration {} calls {} tokens {:.1}s  evolution {} calls {} tokens {:.1}s  estimated cost ${:.4}",
                    summary.llm_tokens, e.0, e.1, e.2, x.0, x.1, x.2, v.0, v.1, v.2, summary.llm_cost_usd
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
