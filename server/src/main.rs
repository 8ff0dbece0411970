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
    /// Neither read nor write memory (no cached results, no remembered
    /// templates): for benchmarks. `RUNNABLE_MEMORY=off` does the same.
    #[arg(long)]
    no_memory: bool,
    /// Remembered templates only: every fragment is searched again.
    #[arg(long, conflicts_with = "no_memory")]
    no_results_cache: bool,
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

fn fix_options(common: &Common, lines: Option<(u32, u32)>) -> FixOptions {
    FixOptions {
        lines,
        install: common.install,
        allow_builds: common.allow_build.iter().cloned().collect(),
        budget: Duration::from_secs(common.budget_seconds.max(1)),
        ..FixOptions::default()
    }
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
    match cli.command {
        Command::Fix { file, lines, json, allow_network, common } => {
            let source = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let engine = engine(&common, true, 1)?;
            let options = FixOptions { allow_network, ..fix_options(&common, lines) };
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
            // Logs go to stderr: stdout carries the protocol.
            tracing_subscriber::fmt().with_writer(std::io::stderr).with_ansi(false).with_max_level(tracing::Level::INFO).init();
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
        Command::Bench { dir, jobs, out, cold, common } => {
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
            let (rows, summary) = bench::run(&engine, &files, &fix_options(&common, None), jobs, &on_done);
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
            Ok(ExitCode::SUCCESS)
        }
    }
}
