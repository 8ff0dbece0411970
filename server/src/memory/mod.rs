//! Memory: a results cache (the same request again is answered at once)
//! and what worked once, offered to the next fragment (value templates by
//! usage signature, import -> distribution pairs). One SQLite store per
//! cache dir (`<cache dir>/memory/memory.sqlite3`), shared by every server
//! and CLI of the user.
//!
//! After each job, phase 1 (`extract`) turns what worked into
//! observations, `crate::redact` (the same as the model stage's) takes secrets out before anything is written,
//! and phase 2 (`Store::consolidate`, one process at a time under the
//! store's lock) merges, ranks and prunes. Memory never fails a job: a
//! store that cannot be used is moved aside and rebuilt, or memory is off
//! for this process, with a warning.

pub mod extract;
pub mod key;
pub mod recall;
mod schema;
pub mod signature;
pub mod store;
pub mod stored_value;

use crate::report::FixReport;
use crate::redact::{has_secret, redact};
use std::path::{Path, PathBuf};
use store::{Observation, Store, Template};

pub use schema::current_version as schema_version;

/// Folder of the store inside the cache dir.
pub const DIR: &str = "memory";
/// Templates, import pairs and results kept, each, after consolidation.
pub const CAP: usize = 5000;

#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("memory store: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("memory store {0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    #[error("memory store {0} is unusable: {1}")]
    Unusable(PathBuf, String),
}

/// What memory does for a job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Nothing is read or written (benchmarks, tests).
    #[default]
    Off,
    /// Remembered templates are offered and learnt; results are not cached.
    Templates,
    /// Results cache and templates.
    On,
}

pub struct Memory {
    store: Option<Store>,
    mode: Mode,
}

impl Memory {
    pub fn off() -> Memory {
        Memory { store: None, mode: Mode::Off }
    }

    /// The store in `cache_dir/memory`. Never fails: when the store cannot
    /// be opened even after moving a corrupt one aside, memory is off.
    pub fn open(cache_dir: &Path, mode: Mode) -> Memory {
        if mode == Mode::Off {
            return Memory::off();
        }
        match Store::open(&cache_dir.join(DIR)) {
            Ok(store) => {
                if let Some(aside) = &store.moved_aside {
                    tracing::warn!("memory: the store was corrupt; moved to {} and rebuilt", aside.display());
                }
                Memory { store: Some(store), mode }
            }
            Err(e) => {
                tracing::warn!("memory is off for this run: {e}");
                Memory::off()
            }
        }
    }

    pub fn mode(&self) -> Mode {
        if self.store.is_some() { self.mode } else { Mode::Off }
    }

    pub fn results_enabled(&self) -> bool {
        self.mode() == Mode::On
    }

    pub fn templates_enabled(&self) -> bool {
        self.mode() != Mode::Off
    }

    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// The stored report for `key`, if any (a row that does not read back
    /// as a report is a miss).
    /// `key` is a [`key::ResultKey`] digest.
    pub fn cached(&self, key: &str) -> Option<FixReport> {
        let store = self.store.as_ref().filter(|_| self.results_enabled())?;
        let text = warn(store.result(key))??;
        serde_json::from_str(&text).ok()
    }

    /// Keep `report` for `key`; a report that holds anything secret-looking
    /// is not kept (a redacted report would not be the result).
    pub fn remember_result(&self, key: &str, report: &FixReport) {
        let Some(store) = self.store.as_ref().filter(|_| self.results_enabled()) else { return };
        let Ok(text) = serde_json::to_string(report) else { return };
        if has_secret(&text) {
            return;
        }
        warn(store.put_result(key, &text));
    }

    /// The best remembered templates for a usage signature.
    pub fn templates(&self, signature: &str) -> Vec<Template> {
        match self.store.as_ref().filter(|_| self.templates_enabled()) {
            Some(store) => warn(store.templates_for(signature, recall::PER_NAME)).unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Phase 1's observations, redacted and stored, then phase 2.
    pub fn learn(&self, observations: Vec<Observation>) {
        let Some(store) = self.store.as_ref().filter(|_| self.templates_enabled()) else { return };
        let kept: Vec<Observation> = observations.into_iter().filter_map(redacted).collect();
        warn(store.observe(&kept));
        let holder = format!("{}:{:?}", std::process::id(), std::thread::current().id());
        warn(store.consolidate(CAP, &holder));
    }
}

/// An observation with its secrets out: an import pair is redacted; a
/// template that held a secret is dropped (with a placeholder in it, it
/// would no longer be the value that ran).
fn redacted(o: Observation) -> Option<Observation> {
    match o {
        Observation::Template { signature, code, imports, worked, found } => {
            let clean = !has_secret(&signature) && !has_secret(&code) && imports.iter().all(|i| !has_secret(i));
            clean.then_some(Observation::Template { signature, code, imports, worked, found })
        }
        Observation::Import { module, distribution } => Some(Observation::Import { module: redact(&module), distribution: redact(&distribution) }),
    }
}

fn warn<T>(r: Result<T, MemoryError>) -> Option<T> {
    r.map_err(|e| tracing::warn!("memory: {e}")).ok()
}

/// This engine's version and build: a rebuilt binary has another, so its
/// results are never mixed with an older build's.
pub fn engine_version() -> String {
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let modified = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos()).unwrap_or(0);
            format!("{}-{modified}", m.len())
        })
        .unwrap_or_default();
    format!("{}+{build}", env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests;
