//! Publishing diagnostics: static findings of every Python region plus the
//! runtime error of the last run, computed on a snapshot off the message
//! loop and dropped when the document moved on meanwhile. A document too
//! large to analyse gets an empty list at once.

use super::convert;
use super::chunks;
use super::document::{self, Snapshot};
use super::regions;
use super::state::{lock, EnvStatus, State};
use std::collections::BTreeSet;
use std::sync::Arc;
use tower_lsp_server::lsp_types::{Diagnostic, MessageType, Uri};

/// Recompute and publish the diagnostics of `uri` (spawned; returns at once).
pub fn schedule(state: &Arc<State>, uri: &Uri) {
    let (snapshot, runtime) = {
        let docs = lock(&state.docs);
        let Some(doc) = docs.get(uri) else { return };
        (doc.snapshot(), doc.errors.clone())
    };
    let state = state.clone();
    if snapshot.too_large() {
        lock(&state.analyses).remove(uri);
        tokio::spawn(async move {
            state.client.publish_diagnostics(snapshot.uri, Vec::new(), Some(snapshot.version)).await;
        });
        return;
    }
    tokio::spawn(async move {
        let enc = state.encoding();
        let compute_state = state.clone();
        let snap = snapshot.clone();
        let computed = tokio::task::spawn_blocking(move || {
            let mut diags = compute(&compute_state, &snap);
            // A run's syntax error is shown once: the analysis as you type
            // usually has it on that line already.
            let static_syntax: Vec<u32> = diags.iter().filter(|d| convert::is_syntax_error(d)).map(|d| d.range.start.line).collect();
            let runtime = runtime.iter().filter(|e| !(e.value.syntax && static_syntax.contains(&e.line)));
            diags.extend(runtime.map(|e| convert::runtime_diagnostic(&snap.rope, e, enc)));
            diags
        })
        .await;
        let Ok(diags) = computed else { return };
        let current = lock(&state.docs).get(&snapshot.uri).map(|d| d.version);
        if current == Some(snapshot.version) {
            state.client.publish_diagnostics(snapshot.uri.clone(), diags, Some(snapshot.version)).await;
        }
    });
}

/// A line in the server's log and the client's (`window/logMessage`; spawned).
pub fn log(state: &Arc<State>, kind: MessageType, message: String) {
    if kind == MessageType::WARNING {
        tracing::warn!("{message}");
    } else {
        tracing::info!("{message}");
    }
    let state = state.clone();
    tokio::spawn(async move {
        state.client.log_message(kind, format!("Runnable: {message}")).await;
    });
}

/// Say that `uri` is too large to analyse.
pub fn log_too_large(state: &Arc<State>, uri: &Uri, bytes: usize) {
    log(state, MessageType::WARNING, document::too_large_message(uri, bytes));
}

/// Re-publish every open document (the environment became known, settings changed).
pub fn schedule_all(state: &Arc<State>) {
    for uri in state.open_uris() {
        schedule(state, &uri);
    }
}

/// The static diagnostics of a snapshot. Blocking (file checks, analysis).
pub fn compute(state: &Arc<State>, snap: &Snapshot) -> Vec<Diagnostic> {
    let enc = state.encoding();
    let resource_dir = state.settings().resource_dir;
    if snap.language == document::Language::Markdown {
        let head: String = snap.rope.chars().take(super::files::REPORT_HEADING.len()).collect();
        if snap.path().is_some_and(|p| super::files::is_report(&p, &resource_dir, &head)) {
            return Vec::new();
        }
    }
    let loaded = state.engine.peek();
    let stdlib = loaded.as_ref().map(|l| &l.stdlib);
    let folder = snap.folder();
    let root = lock(&state.root).clone();
    // Relative to the document's folder (or its resource folder); the
    // workspace root counts too, being where code is often run from.
    let exists = |p: &str| {
        let path = std::path::Path::new(p);
        if path.is_absolute() {
            return path.exists();
        }
        match &folder {
            Some(dir) => {
                dir.join(p).exists() || dir.join(&resource_dir).join(p).exists() || root.as_ref().is_some_and(|r| r.join(p).exists())
            }
            None => true,
        }
    };
    let regions = regions::python_regions(snap);
    let mut cache = lock(&state.analyses).remove(&snap.uri).unwrap_or_default();
    let analysed = cache.analyse(&regions, snap.python_tree());
    if lock(&state.docs).contains_key(&snap.uri) {
        lock(&state.analyses).insert(snap.uri.clone(), cache);
    }
    let mut missing = |dists| env_missing(state, dists);
    chunks::document_findings(&analysed, stdlib, &mut missing, &exists).iter().map(|f| convert::diagnostic(&snap.rope, f, enc)).collect()
}

/// What the environment for `dists` lacks, if known; else start finding out
/// (and re-publish everything when known).
fn env_missing(state: &Arc<State>, dists: BTreeSet<String>) -> Option<Vec<String>> {
    if dists.is_empty() {
        return Some(Vec::new());
    }
    {
        let mut status = lock(&state.env_status);
        match status.get(&dists) {
            Some(EnvStatus::Missing(m)) => return Some(m.clone()),
            Some(EnvStatus::Checking) | Some(EnvStatus::Unknown) => return None,
            None => {
                status.insert(dists.clone(), EnvStatus::Checking);
            }
        }
    }
    let state = state.clone();
    let Ok(rt) = tokio::runtime::Handle::try_current() else { return None };
    rt.spawn(async move {
        let check_state = state.clone();
        let key = dists.clone();
        let builds = state.settings().allow_builds;
        let result = tokio::task::spawn_blocking(move || {
            let loaded = check_state.engine.peek()?;
            loaded.envs.prepare_allowing(&key, &[], false, &builds).ok().map(|env| env.missing)
        })
        .await
        .ok()
        .flatten();
        let status = match result {
            Some(m) => EnvStatus::Missing(m),
            None => EnvStatus::Unknown,
        };
        lock(&state.env_status).insert(dists, status);
        schedule_all(&state);
    });
    None
}

/// Forget what is known about environments (after an install, or when the
/// interpreter or cache changed).
pub fn forget_environments(state: &Arc<State>) {
    lock(&state.env_status).clear();
}
