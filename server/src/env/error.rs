//! Errors of the environment stage.

use std::path::PathBuf;

/// Everything that can stop the environment stage. Each message says what
/// went wrong, where, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    #[error(
        "no Python interpreter found: neither `python3` nor `python` is on PATH; \
         install Python 3 or pass --python PATH"
    )]
    PythonNotFound,

    #[error(
        "--python {}: no such interpreter; pass the path of a Python 3 executable \
         (for example /usr/bin/python3) or the name of one on PATH",
        path.display()
    )]
    PythonPathMissing { path: PathBuf },

    #[error(
        "the Python interpreter {} does not work: {reason}; repair it or pass \
         another one with --python PATH",
        python.display()
    )]
    PythonBroken { python: PathBuf, reason: String },

    #[error("`uv` was not found on PATH; install it with `pip install uv` and try again")]
    UvNotFound,

    #[error("`{command}` failed: {reason}")]
    Uv { command: String, reason: String },

    #[error("`{command}` did not finish within {secs} s and was stopped")]
    Timeout { command: String, secs: u64 },

    #[error(
        "gave up after {secs} s waiting for another process to finish building {}; \
         if no other runnable is running, delete that lock file",
        lock.display()
    )]
    LockTimeout { lock: PathBuf, secs: u64 },

    #[error("{context}: {error}")]
    Io {
        context: String,
        error: std::io::Error,
    },
}

impl EnvError {
    pub(crate) fn io(context: impl Into<String>, error: std::io::Error) -> Self {
        EnvError::Io {
            context: context.into(),
            error,
        }
    }
}
