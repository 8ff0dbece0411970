//! Finding the Python interpreter and `uv`.

use super::error::EnvError;
use super::process::{self, RunError};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long the interpreter may take to answer a trivial question. Generous:
/// a cold pyenv shim on a busy machine can take a few seconds.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// The interpreter and tools the environment stage works with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toolchain {
    /// Absolute path of the real interpreter (its `sys.executable`), not a
    /// shim or wrapper script.
    pub python: PathBuf,
    /// `platform.python_version()`, e.g. `3.11.7`.
    pub python_version: String,
    /// `uv`, if found on PATH or beside the interpreter.
    pub uv: Option<PathBuf>,
}

/// Find the interpreter (`python_override`, else `python3`, else `python` on
/// PATH) and `uv`, and ask the interpreter where it really lives.
///
/// `python_override` may be a path or a command name on PATH. A missing
/// override is [`EnvError::PythonPathMissing`]; no interpreter on PATH is
/// [`EnvError::PythonNotFound`]; one that does not run or is not Python 3 is
/// [`EnvError::PythonBroken`]. A missing `uv` is not an error here
/// (`uv: None`): only building environments needs it.
pub fn find_toolchain(python_override: Option<&Path>) -> Result<Toolchain, EnvError> {
    let (python, python_version) = match python_override {
        Some(path) => probe(&resolve_override(path)?)?,
        None => probe_path_candidates()?,
    };
    let uv = find_uv(&python);
    Ok(Toolchain {
        python,
        python_version,
        uv,
    })
}

fn resolve_override(path: &Path) -> Result<PathBuf, EnvError> {
    let missing = || EnvError::PythonPathMissing {
        path: path.to_path_buf(),
    };
    let is_bare_name = path.components().count() == 1 && !path.is_absolute();
    if is_bare_name && !path.exists() {
        return which::which(path).map_err(|_| missing());
    }
    if !path.exists() {
        return Err(missing());
    }
    std::path::absolute(path).map_err(|_| missing())
}

/// `python3` first, then `python`; a broken `python3` falls back to a working
/// `python`, and the first failure is reported if neither works.
fn probe_path_candidates() -> Result<(PathBuf, String), EnvError> {
    let mut first_error = None;
    for name in ["python3", "python"] {
        let Ok(found) = which::which(name) else {
            continue;
        };
        match probe(&found) {
            Ok(result) => return Ok(result),
            Err(error) => {
                first_error.get_or_insert(error);
            }
        }
    }
    Err(first_error.unwrap_or(EnvError::PythonNotFound))
}

const PROBE_SCRIPT: &str = "import sys, platform\n\
print(sys.executable)\n\
print(platform.python_version())\n\
print(sys.version_info[0])\n";

/// Run the candidate and return its real executable path and version.
/// Run a short script with the interpreter (isolated, no site), within
/// [`PROBE_TIMEOUT`]. A failure to start or to answer in time is
/// `PythonBroken`; `slow` says what took too long ("it did not answer within").
pub(crate) fn run_script(python: &Path, script: &str, slow: &str) -> Result<process::Finished, EnvError> {
    let broken = |reason: String| EnvError::PythonBroken { python: python.to_path_buf(), reason };
    let mut command = Command::new(python);
    command.args(["-I", "-S", "-c", script]);
    match process::run(&mut command, PROBE_TIMEOUT) {
        Ok(done) => Ok(done),
        Err(RunError::Spawn(error)) | Err(RunError::Wait(error)) => Err(broken(format!("it cannot be run ({error})"))),
        Err(RunError::Timeout) => Err(broken(format!("{slow} {} s", PROBE_TIMEOUT.as_secs()))),
    }
}

fn probe(candidate: &Path) -> Result<(PathBuf, String), EnvError> {
    let broken = |reason: String| EnvError::PythonBroken {
        python: candidate.to_path_buf(),
        reason,
    };
    if candidate.is_dir() {
        return Err(broken("it is a directory, not an executable".to_string()));
    }
    let done = run_script(candidate, PROBE_SCRIPT, "it did not answer within")?;
    if !done.status.success() {
        let detail = last_line(&done.stderr).unwrap_or("no error output");
        return Err(broken(format!("it exited with {} ({detail})", done.status)));
    }
    let mut lines = done.stdout.lines().map(str::trim);
    let (executable, version, major) = (lines.next(), lines.next(), lines.next());
    let (Some(executable), Some(version), Some(major)) = (executable, version, major) else {
        return Err(broken(format!(
            "unexpected answer to a version query: {:?}",
            done.stdout
        )));
    };
    if major != "3" {
        return Err(broken(format!(
            "it is Python {version}; Runnable needs Python 3"
        )));
    }
    // sys.executable can be empty or relative when Python cannot tell; the
    // path we ran is the next best thing.
    let python = if Path::new(executable).is_absolute() {
        PathBuf::from(executable)
    } else {
        std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.to_path_buf())
    };
    Ok((python, version.to_string()))
}

/// `uv` on PATH, else beside the interpreter (`pip install uv` into an
/// interpreter whose bin directory is not on PATH).
fn find_uv(python: &Path) -> Option<PathBuf> {
    if let Ok(uv) = which::which("uv") {
        return Some(uv);
    }
    let beside = python
        .parent()?
        .join(if cfg!(windows) { "uv.exe" } else { "uv" });
    beside.is_file().then_some(beside)
}

fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|line| !line.is_empty())
}
