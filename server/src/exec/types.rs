//! Requests, outcomes and errors of the executor.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A file the program expects in its working directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    /// Relative path from the program's folder, not absolute; it may go up
    /// (`../data/x.csv`) at most `run_dir::MAX_UP_LEVELS` folders, and the
    /// run directory is then nested that deep (`run_dir::layout`).
    pub path: String,
    pub content: Vec<u8>,
}

/// Deepest resource path taken, and the longest (a file system's limits,
/// well above any file a fragment names).
const MAX_RESOURCE_DEPTH: usize = 16;
const MAX_RESOURCE_PATH: usize = 1024;
const MAX_NAME_BYTES: usize = 255;

/// Why a resource path cannot be created inside the run directory, if it
/// cannot: empty, absolute, leaving it (`..`, also written with
/// backslashes), a NUL or another control character, a part longer than a
/// file name may be, or too long or deep as a whole. Pure: the search drops
/// a candidate with such a path instead of failing the whole fix.
pub fn resource_path_problem(p: &str) -> Option<&'static str> {
    use std::path::{Component, Path};
    if p.is_empty() {
        return Some("empty");
    }
    if p.chars().any(|c| c.is_control()) {
        return Some("a control character (NUL, newline) in the name");
    }
    if p.len() > MAX_RESOURCE_PATH {
        return Some("longer than 1024 bytes");
    }
    if is_windows_absolute(p) {
        // On this system it would be one strange file name in the run
        // directory; it names a file on another machine.
        return Some("an absolute Windows path");
    }
    let mut normal = 0;
    for c in Path::new(p).components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_string_lossy();
                if s.split('\\').any(|part| part == "..") {
                    return Some("leaves the run directory (`..`)");
                }
                if s.len() > MAX_NAME_BYTES {
                    return Some("a part longer than 255 bytes");
                }
                normal += 1;
            }
            Component::CurDir => {}
            Component::ParentDir => return Some("leaves the run directory (`..`)"),
            Component::RootDir | Component::Prefix(_) => return Some("absolute"),
        }
    }
    if normal == 0 {
        return Some("names no file");
    }
    if normal > MAX_RESOURCE_DEPTH {
        return Some("more than 16 folders deep");
    }
    None
}

/// `C:\Users\x.jpg`, `c:/data.csv`, `\\server\share\f`: a path Windows reads as absolute.
pub fn is_windows_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/');
    drive || p.starts_with("\\\\")
}

#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The full program text.
    pub program: String,
    /// Program lines (1-based) -> plain names assigned there, whose first
    /// value (repr, truncated) the harness records.
    pub probes: BTreeMap<u32, Vec<String>>,
    pub resources: Vec<Resource>,
    /// Modules a warm worker may import before forking the run (speed only:
    /// the run behaves the same whether or not they were preloaded).
    pub preload: Vec<String>,
    /// Wall-clock limit for this run.
    pub timeout: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunStatus {
    Completed,
    Raised,
    Timeout,
    /// A resource limit stopped it (memory, CPU, processes, file size, output).
    Limit,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExceptionInfo {
    /// `NameError`, `KeyError`, ... (qualified for non-builtins: `json.decoder.JSONDecodeError`).
    pub type_name: String,
    pub message: String,
    /// Innermost program line where it was raised (1-based), if any program frame.
    pub line: Option<u32>,
    /// NameError / AttributeError / ImportError `.name`.
    pub name: Option<String>,
    /// AttributeError `.obj`: the type name of the object.
    pub obj_type: Option<String>,
    /// KeyError / IndexError: repr of the key.
    pub key: Option<String>,
    /// ModuleNotFoundError / ImportError: module name.
    pub module: Option<String>,
    /// FileNotFoundError / OSError: filename.
    pub path: Option<String>,
    /// MRO names of the exception type (for classifying subclasses).
    pub bases: Vec<String>,
    /// Module of the innermost frame when that frame is not the program's
    /// (`pandas.core.generic`): the error was raised inside that code.
    #[serde(default)]
    pub raised_in: Option<String>,
    /// The file of that innermost frame (its `co_filename`), when it is
    /// library code: the Rust side checks it is a real file of the venv.
    #[serde(default)]
    pub raised_file: Option<String>,
    /// Module that defines what the error is about: the class (or module)
    /// of an AttributeError's object, an ImportError's module, the callee of
    /// a signature TypeError (`DataFrame.pivot() takes ...`), when known.
    #[serde(default)]
    pub origin: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOutcome {
    pub status: RunStatus,
    /// Program lines that had a line event (any frame of the program file).
    pub hit: Vec<u32>,
    /// Program lines that completed: followed by another line event or a
    /// return in the same frame, without an exception in between (the rule
    /// of `shared/bench/measure.py`).
    pub completed: Vec<u32>,
    /// Program line -> how many times the statement starting on it started
    /// (line events on its first line that enter it from outside, in frames
    /// other than lambdas' and comprehensions'; see `harness.py`), so a
    /// comprehension, a `with` or a loop header that ran once counts once.
    pub hit_counts: BTreeMap<u32, u64>,
    pub exception: Option<ExceptionInfo>,
    /// In a run that completed: the first exception a program frame saw,
    /// which the program then caught (a `try` body that failed silently).
    /// In a run that raised inside an `except` block: the exception that
    /// block was handling (`__context__`), the cause of the one raised.
    pub caught: Option<ExceptionInfo>,
    /// Which limit stopped it, in words, when status is `Limit` or `Timeout`;
    /// exactly [`CANCELLED`] for a run stopped by its caller's cancel flag.
    pub limit: Option<String>,
    /// Program line -> [(name, repr)] for probed names, first value only.
    pub values: BTreeMap<u32, Vec<(String, String)>>,
    /// Program line -> what the program wrote to stdout while that line
    /// was the innermost program frame's (capped per line and in all).
    #[serde(default)]
    pub printed: BTreeMap<u32, String>,
    /// Captured output, truncated.
    pub stdout: String,
    pub stderr: String,
    /// Wall time of the run itself (fork to exit), without preloading.
    pub duration: Duration,
}

/// How contained a run is, reported to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Containment {
    pub bubblewrap: bool,
    /// The (non-root) uid programs run as: the first worker's dedicated uid
    /// when we run as root (each worker has its own), else our own uid.
    pub unprivileged_uid: Option<u32>,
    /// The seccomp baseline is installed on the worker and every run.
    pub seccomp: bool,
    /// Every layer that was active, in words, outermost first.
    pub layers: Vec<String>,
    /// Whether programs could reach the network: allowed for this run
    /// (`FixOptions::allow_network`), or bubblewrap's network namespace is
    /// not there to stop them.
    pub network: bool,
    /// Plain-language note when protection is reduced.
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Limits {
    pub memory_bytes: u64,
    pub cpu_seconds: u64,
    pub file_bytes: u64,
    pub processes: u64,
    pub output_bytes: usize,
    /// Size of the scratch tmpfs (the run's working directory, HOME and
    /// TMPDIR) and of `/dev/shm`, with bubblewrap.
    pub scratch_bytes: u64,
    pub shm_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 4 << 30,
            cpu_seconds: 30,
            file_bytes: 64 << 20,
            processes: 64,
            output_bytes: 64 << 10,
            scratch_bytes: 512 << 20,
            shm_bytes: 64 << 20,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("python interpreter {0} could not be started: {1}")]
    Spawn(PathBuf, std::io::Error),
    #[error("the execution worker died unexpectedly: {0}")]
    WorkerDied(String),
    /// A malformed reply, or the harness itself failed to prepare or carry
    /// out a run (its message says why); the worker is replaced if needed.
    #[error("the execution worker sent a malformed reply: {0}")]
    Protocol(String),
    #[error("could not prepare the scratch directory: {0}")]
    Scratch(std::io::Error),
    #[error("invalid resource path {0:?}: must be relative and stay inside the scratch directory")]
    ResourcePath(String),
}

/// [`RunOutcome::limit`] of a run stopped because its caller cancelled it
/// (status [`RunStatus::Timeout`]).
pub const CANCELLED: &str = "cancelled";

/// Runs programs. The default implementation is a pool of warm sandboxed
/// workers; tests and benchmarks can pick a cold one-process-per-run mode.
pub trait Executor: Send + Sync {
    fn run(&self, req: &RunRequest) -> Result<RunOutcome, ExecError>;
    /// Like [`Executor::run`], but once `cancel` is set the run is stopped
    /// promptly (its worker killed, like on a timeout) and the outcome is
    /// status `Timeout` with `limit` [`CANCELLED`]. By default the flag is
    /// ignored.
    fn run_cancellable(&self, req: &RunRequest, cancel: &AtomicBool) -> Result<RunOutcome, ExecError> {
        let _ = cancel;
        self.run(req)
    }
    fn containment(&self) -> Containment;
}
