//! Running a program safely and observing it: the edge where processes live.
//!
//! A [`RunRequest`] carries a whole program (prefix + fragment + suffix) and
//! the files it needs; an [`Executor`] runs it in a sandbox and returns a
//! [`RunOutcome`] with the raw line trace, the exception and the values seen.
//! Statement coverage is computed from the trace elsewhere (`coverage`), so
//! this module knows nothing of fragments.
//!
//! The implementation is a [`WorkerPool`]: warm Python worker processes
//! (`harness.py`) that import the heavy modules once and fork one child per
//! run, inside bubblewrap and as an unprivileged uid when possible
//! (`sandbox.rs`), watched by the Rust side (`worker.rs`).

pub mod denials;
mod pool;
pub mod run_dir;
mod sandbox;
mod seccomp;
mod untrusted;
mod types;
mod worker;

pub use denials::{Denial, Layers};
pub use pool::WorkerPool;
pub use run_dir::run_path_problem;
pub use sandbox::{processes_of_uid, UID_BASE, UID_SPAN};
pub use types::*;

/// A name from untrusted text, cut for a note (at most 120 bytes).
pub fn untrusted_cut(s: &str) -> String {
    untrusted::cut(s.to_string(), 120)
}

use std::path::PathBuf;

/// Whether to use bubblewrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Use bubblewrap when it is installed and works; otherwise run with
    /// rlimits (and an unprivileged uid when root) and say so in
    /// [`Containment::note`].
    #[default]
    Auto,
    /// No bubblewrap (still rlimits and, as root, an unprivileged uid).
    Off,
}

/// How to run programs.
#[derive(Debug, Clone)]
pub struct ExecConfig {
    /// The interpreter, e.g. `<venv>/bin/python` or `python3` (looked up on PATH).
    pub python: PathBuf,
    pub limits: Limits,
    pub sandbox: SandboxMode,
    /// Keep workers alive between runs (and fork from them); `false` starts a
    /// fresh worker process for every run.
    pub warm: bool,
    /// At most this many workers (and so concurrent runs); 0 counts as 1.
    pub max_workers: usize,
    /// Share the host's network (bubblewrap without `--unshare-net`). Only
    /// for a re-run the user allowed after a network denial: such a pool
    /// must never serve a normal run (the engine keys pools by it).
    pub network: bool,
    /// Let programs see the interpreter's site-packages (`false`: `python -S`,
    /// the standard library only: the base interpreter, used without a venv
    /// when no `uv` is there to build one).
    pub site_packages: bool,
}

impl ExecConfig {
    /// Defaults: default limits, sandbox `Auto`, warm, two workers, no network.
    pub fn new(python: impl Into<PathBuf>) -> Self {
        ExecConfig { python: python.into(), limits: Limits::default(), sandbox: SandboxMode::Auto, warm: true, max_workers: 2, network: false, site_packages: true }
    }
}
