//! The server's state. Every lock is a std `Mutex` held for a short,
//! synchronous stretch (copy or update, then release): never across an
//! `.await`, never while the engine runs.

use super::config::Settings;
use super::document::{Document, Snapshot};
use super::position::Encoding;
use super::regions::Fragment;
use crate::env::EnvManager;
use crate::exec::SandboxMode;
use crate::fix::{Engine, EngineOptions};
use crate::report::FixReport;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{watch, Notify};
use tower_lsp_server::lsp_types::{NumberOrString, Uri};
use tower_lsp_server::Client;

/// Lock, ignoring poisoning: a handler that panicked was turned into an
/// error response, and the data it guarded is still consistent (every
/// update is a single assignment or insert).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the client can do, from `initialize`.
#[derive(Debug, Clone, Default)]
pub struct ClientCaps {
    pub encoding: Encoding,
    pub work_done_progress: bool,
    pub document_changes: bool,
    pub show_document: bool,
    pub inlay_hint_refresh: bool,
    /// `textDocument.codeAction.resolveSupport`: without it (eglot) an
    /// action that carries only `data` would do nothing, so ours carries the
    /// `runnable.makeRunnable` command instead.
    pub code_action_resolve: bool,
    /// `workspace.codeLens.refreshSupport`.
    pub code_lens_refresh: bool,
    /// `workspace.configuration`: the client answers `workspace/configuration`,
    /// so its settings are pulled after `initialized` (and runs wait for them).
    pub configuration: bool,
}

/// A run's cancellation: a flag the engine polls (`Progress::cancelled`)
/// and a notification the async side waits on.
#[derive(Debug, Default)]
pub struct Cancel {
    /// Shared with the executor, which kills the run in flight when set.
    flag: Arc<AtomicBool>,
    notify: Notify,
}

impl Cancel {
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// The flag itself, for the executor's watchdog.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Resolves once cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

/// The run going on for a document.
#[derive(Debug, Clone)]
pub struct RunHandle {
    pub id: u64,
    pub cancel: Arc<Cancel>,
    pub token: Option<NumberOrString>,
    /// Set when the document is edited during the run.
    pub stale: Arc<AtomicBool>,
}

/// The last finished run of a document (for `runnable.showReport`).
#[derive(Debug, Clone)]
pub struct LastRun {
    pub uri: Uri,
    pub version: i32,
    pub fragment: Fragment,
    pub fragment_text: String,
    pub report: FixReport,
    pub applied: bool,
    pub note: Option<String>,
    pub created: Vec<PathBuf>,
    /// Files the run needed that were not written, and why (a symlink, an
    /// existing file of the user's).
    pub skipped: Vec<(PathBuf, String)>,
    pub installed_now: Vec<String>,
}

/// The engine and what diagnostics need from the environment, built once
/// per (interpreter, cache dir) off the message loop.
pub struct Loaded {
    /// Interpreter, cache dir, memory on.
    pub key: (Option<PathBuf>, Option<PathBuf>, bool),
    pub engine: Engine,
    pub envs: EnvManager,
    pub stdlib: BTreeSet<String>,
}

#[derive(Default)]
pub struct EngineHost {
    current: Mutex<Option<Arc<Loaded>>>,
    /// Serialises building (held only on blocking threads).
    building: Mutex<()>,
}

impl EngineHost {
    /// The engine for these settings, building it if needed. Blocking: call
    /// from `spawn_blocking`.
    pub fn get(&self, settings: &Settings) -> Result<Arc<Loaded>, String> {
        let key = (settings.interpreter.clone(), settings.cache_dir.clone(), settings.memory_enabled && !memory_off_by_env());
        if let Some(l) = self.peek().filter(|l| l.key == key) {
            return Ok(l);
        }
        let _building = lock(&self.building);
        if let Some(l) = self.peek().filter(|l| l.key == key) {
            return Ok(l);
        }
        let engine = Engine::new(EngineOptions {
            python: key.0.clone(),
            cache_dir: key.1.clone(),
            warm: true,
            max_workers: 2,
            sandbox: SandboxMode::Auto,
            memory: if key.2 { crate::memory::Mode::On } else { crate::memory::Mode::Off },
        })
        .map_err(|e| e.to_string())?;
        let envs = EnvManager::new(engine.toolchain().clone(), key.1.clone());
        let stdlib = envs.stdlib_modules().map_err(|e| e.to_string())?;
        let loaded = Arc::new(Loaded { key, engine, envs, stdlib });
        *lock(&self.current) = Some(loaded.clone());
        Ok(loaded)
    }

    /// The engine if it is built (never blocks on building).
    pub fn peek(&self) -> Option<Arc<Loaded>> {
        lock(&self.current).clone()
    }

    /// Forget the engine (settings changed, or shutting down); it is dropped
    /// (its workers killed) when the last run using it ends.
    pub fn take(&self) -> Option<Arc<Loaded>> {
        lock(&self.current).take()
    }
}

/// Whether an environment lacks distributions, per set of distributions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvStatus {
    Checking,
    Missing(Vec<String>),
    Unknown,
}

pub struct State {
    pub client: Client,
    pub docs: Mutex<HashMap<Uri, Document>>,
    pub settings: Mutex<Settings>,
    pub caps: Mutex<ClientCaps>,
    pub root: Mutex<Option<PathBuf>>,
    /// Every workspace folder from `initialize` (the first is `root`).
    pub folders: Mutex<Vec<PathBuf>>,
    /// Workspaces (see `policy::workspace_of`) where the user answered
    /// "Always in this workspace" to the run question, for this session.
    pub run_allowed: Mutex<HashSet<PathBuf>>,
    pub engine: EngineHost,
    pub runs: Mutex<HashMap<Uri, RunHandle>>,
    pub last: Mutex<HashMap<Uri, LastRun>>,
    pub last_uri: Mutex<Option<Uri>>,
    /// What the last applied run added to each document (the provenance lens).
    pub provenance: Mutex<HashMap<Uri, super::provenance::Provenance>>,
    /// Sets of distributions the user answered "Install" for, this session
    /// (always `true`: "Not now" is never remembered).
    pub install_answers: Mutex<HashMap<BTreeSet<String>, bool>>,
    pub env_status: Mutex<HashMap<BTreeSet<String>, EnvStatus>>,
    /// Per-statement analyses of each open document (see `chunks`).
    pub analyses: Mutex<HashMap<Uri, super::chunks::Cache>>,
    pub shutting_down: AtomicBool,
    /// Whether the client's settings are in. False from `initialize` until
    /// the `workspace/configuration` pull after `initialized` has its
    /// answer (always true for a client that cannot be asked): a run waits
    /// for it, so it never goes ahead on settings about to be replaced (the
    /// first run with the default cache dir).
    settings_in: watch::Sender<bool>,
    counter: AtomicU64,
}

/// How long a run waits for the client's settings at most (a client that
/// never answers the pull does not hold runs for longer).
pub const SETTINGS_WAIT: Duration = Duration::from_secs(10);

impl State {
    pub fn new(client: Client) -> State {
        State {
            client,
            docs: Mutex::default(),
            settings: Mutex::default(),
            caps: Mutex::default(),
            provenance: Mutex::default(),
            root: Mutex::default(),
            folders: Mutex::default(),
            run_allowed: Mutex::default(),
            engine: EngineHost::default(),
            runs: Mutex::default(),
            last: Mutex::default(),
            last_uri: Mutex::default(),
            install_answers: Mutex::default(),
            env_status: Mutex::default(),
            analyses: Mutex::default(),
            shutting_down: AtomicBool::new(false),
            settings_in: watch::channel(true).0,
            counter: AtomicU64::new(1),
        }
    }

    pub fn next_id(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed)
    }

    pub fn settings(&self) -> Settings {
        lock(&self.settings).clone()
    }

    /// The client is being asked for its settings: runs wait until
    /// [`State::settings_arrived`].
    pub fn settings_pending(&self) {
        self.settings_in.send_replace(false);
    }

    pub fn settings_arrived(&self) {
        self.settings_in.send_replace(true);
    }

    /// Resolves once the client's settings are in, or after [`SETTINGS_WAIT`].
    pub async fn settings_ready(&self) {
        let mut arrived = self.settings_in.subscribe();
        if tokio::time::timeout(SETTINGS_WAIT, arrived.wait_for(|in_| *in_)).await.is_err() {
            tracing::warn!("the client's settings did not arrive within {SETTINGS_WAIT:?}; going on with the current ones");
        }
    }

    pub fn caps(&self) -> ClientCaps {
        lock(&self.caps).clone()
    }

    pub fn encoding(&self) -> Encoding {
        lock(&self.caps).encoding
    }

    pub fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        lock(&self.docs).get(uri).map(Document::snapshot)
    }

    pub fn open_uris(&self) -> Vec<Uri> {
        lock(&self.docs).keys().cloned().collect()
    }

    /// Cancel every run (shutdown).
    pub fn cancel_all(&self) {
        for run in lock(&self.runs).values() {
            run.cancel.cancel();
        }
    }
}

/// `RUNNABLE_MEMORY=off` in the server's environment turns memory off
/// whatever the settings say (test harnesses, benchmarks).
pub fn memory_off_by_env() -> bool {
    std::env::var("RUNNABLE_MEMORY").is_ok_and(|v| v == "off")
}
