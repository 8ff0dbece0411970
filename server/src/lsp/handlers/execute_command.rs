//! `workspace/executeCommand`: `runnable.makeRunnable` (answers at once, runs
//! in the background), `runnable.showReport`, `runnable.cancel`.

use crate::lsp::config::{CMD_CANCEL, CMD_CREATE_SAMPLE, CMD_KEEP, CMD_MAKE_RUNNABLE, CMD_REMOVE, CMD_SHOW_REPORT};
use crate::lsp::document::file_path;
use crate::lsp::files::{self, Action};
use crate::lsp::report_md;
use crate::lsp::safe_write::{Existing, Folder};
use crate::lsp::run::{self, RunRequest};
use crate::lsp::state::{lock, State};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;

pub fn handle(state: &Arc<State>, params: ExecuteCommandParams) -> Result<Option<Value>> {
    let arg = params.arguments.first().cloned();
    match params.command.as_str() {
        CMD_MAKE_RUNNABLE => {
            let arg = arg.ok_or_else(|| Error::invalid_params("expected [{uri, version, range}]"))?;
            let req: RunRequest = serde_json::from_value(arg).map_err(|e| Error::invalid_params(format!("expected {{uri, version, range}}: {e}")))?;
            run::start(state, req, params.work_done_progress_params.work_done_token)?;
            Ok(None)
        }
        CMD_CANCEL => {
            let uri = uri_arg(arg.as_ref())?.ok_or_else(|| Error::invalid_params("expected [{uri}]"))?;
            Ok(Some(json!(run::cancel_document(state, &uri))))
        }
        CMD_SHOW_REPORT => show_report(state, uri_arg(arg.as_ref())?),
        CMD_CREATE_SAMPLE => create_sample(state, arg.as_ref()),
        CMD_KEEP => {
            let uri = uri_arg(arg.as_ref())?.ok_or_else(|| Error::invalid_params("expected [{uri}]"))?;
            let kept = lock(&state.provenance).remove(&uri).is_some();
            run::refresh_code_lens(state);
            Ok(Some(json!(kept)))
        }
        CMD_REMOVE => remove(state, uri_arg(arg.as_ref())?.ok_or_else(|| Error::invalid_params("expected [{uri}]"))?),
        other => Err(Error::invalid_params(format!("unknown command {other}"))),
    }
}

/// Tell the user (spawned: a handler never awaits the client).
fn say(state: &Arc<State>, kind: MessageType, message: String) {
    let client = state.client.clone();
    tokio::spawn(async move { client.show_message(kind, message).await });
}

/// "Create a sample `scores.csv`": the file a missing-file diagnostic names,
/// next to the document, with the content the engine would give it for how
/// the code reads it. Only where nothing is (never over a file, never
/// through a symlink: `safe_write`). Returns the file's URI.
fn create_sample(state: &Arc<State>, arg: Option<&Value>) -> Result<Option<Value>> {
    let bad = || Error::invalid_params("expected [{uri, path, how}]");
    let uri = uri_arg(arg)?.ok_or_else(bad)?;
    let field = |k: &str| arg.and_then(|a| a.get(k)).and_then(|v| v.as_str()).map(str::to_string);
    let (path, how) = (field("path").ok_or_else(bad)?, field("how").unwrap_or_else(|| "open".into()));
    if let Some(why) = crate::exec::resource_path_problem(&path) {
        return Err(run::failed(format!("Runnable: no sample for {path:?}: {why}")));
    }
    let resource = crate::synth::resources::resource_for(&path, &how).ok_or_else(|| run::failed(format!("Runnable: no sample for {path:?}")))?;
    let folder = file_path(&uri).and_then(|p| p.parent().map(Path::to_path_buf)).ok_or_else(|| run::failed("the document is not a file"))?;
    let rel = PathBuf::from(&resource.path);
    let written = Folder::open(&folder, Path::new(""), false).map_err(|e| e.to_string()).and_then(|f| {
        match f.probe(&rel, &resource.content).map(files::decide).map_err(|e| e.to_string())? {
            Action::Create => f.create_new(&rel, &resource.content).map_err(|e| e.to_string()),
            Action::Unchanged => Ok(f.path().join(&rel)),
            Action::AskToReplace | Action::Replace => Err(format!("{} exists: not overwritten", f.path().join(&rel).display())),
            Action::Refuse(why) => Err(format!("{}: {why}", f.path().join(&rel).display())),
        }
    });
    match written {
        Ok(path) => {
            crate::lsp::publish::schedule(state, &uri);
            say(state, MessageType::INFO, format!("Runnable: created a sample {} (made up: replace it with real data)", path.display()));
            Ok(crate::lsp::convert::file_uri(&path).map(|u| json!(u)))
        }
        Err(e) => {
            say(state, MessageType::WARNING, format!("Runnable: the sample was not written: {e}"));
            Err(run::failed(e))
        }
    }
}

/// The provenance lens's Remove: the prefix and driver the last run
/// inserted (found as they were inserted) in one versioned edit, and the
/// files the server created for that run, each only while it still holds
/// what the server wrote.
fn remove(state: &Arc<State>, uri: Uri) -> Result<Option<Value>> {
    let p = lock(&state.provenance).get(&uri).cloned().ok_or_else(|| run::failed("nothing of Runnable's to remove in this document"))?;
    let snap = state.snapshot(&uri).ok_or_else(|| run::failed("the document is not open"))?;
    let text = snap.rope.to_string();
    let ranges = crate::lsp::provenance::locate(&text, &p.inserted).ok_or_else(|| run::failed("the inserted code was edited since: remove it by hand"))?;
    let enc = state.encoding();
    let at = |b: usize| crate::lsp::position::to_position(&snap.rope, snap.rope.byte_to_char(b), enc);
    let edits = ranges.iter().map(|r| OneOf::Left(TextEdit { range: Range::new(at(r.start), at(r.end)), new_text: String::new() })).collect();
    let edit = WorkspaceEdit {
        document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { uri: uri.clone(), version: Some(snap.version) },
            edits,
        }])),
        ..Default::default()
    };
    let base = file_path(&uri).and_then(|p| p.parent().map(Path::to_path_buf));
    let state = state.clone();
    tokio::spawn(async move {
        let applied = matches!(state.client.apply_edit(edit).await, Ok(r) if r.applied);
        if !applied {
            state.client.show_message(MessageType::WARNING, "Runnable: the editor did not apply the removal; nothing was deleted").await;
            return;
        }
        let mut kept = Vec::new();
        if let Some(base) = base {
            if let Ok(folder) = Folder::open(&base, Path::new(""), false) {
                for (path, bytes) in &p.created {
                    let gone = path.strip_prefix(&base).ok().is_some_and(|rel| folder.remove_if_unchanged(rel, bytes).unwrap_or(false));
                    if !gone {
                        kept.push(path.display().to_string());
                    }
                }
            }
        }
        lock(&state.provenance).remove(&uri);
        if let Some(doc) = lock(&state.docs).get_mut(&uri) {
            doc.set_results(Vec::new(), Vec::new());
        }
        if !kept.is_empty() {
            state.client.show_message(MessageType::WARNING, format!("Runnable: kept files changed since the run: {}", kept.join(", "))).await;
        }
        run::refresh_code_lens(&state);
        run::refresh_inlay_hints(&state);
        crate::lsp::publish::schedule(&state, &uri);
    });
    Ok(Some(json!(true)))
}

fn uri_arg(arg: Option<&Value>) -> Result<Option<Uri>> {
    match arg.and_then(|a| a.get("uri")) {
        None | Some(Value::Null) => Ok(None),
        Some(u) => serde_json::from_value(u.clone()).map(Some).map_err(|e| Error::invalid_params(format!("bad uri: {e}"))),
    }
}

/// Write the Markdown report of the last run (of `uri`, else of any
/// document) next to its resources and open it. Returns the report's URI.
/// Like every file the server writes, never through a symlink (`safe_write`);
/// an earlier report is replaced, another file of that name is not.
fn show_report(state: &Arc<State>, uri: Option<Uri>) -> Result<Option<Value>> {
    let uri = uri.or_else(|| lock(&state.last_uri).clone()).ok_or_else(|| run::failed("no run yet"))?;
    let last = lock(&state.last).get(&uri).cloned().ok_or_else(|| run::failed("this document has not been run yet"))?;
    let resource_dir = state.settings().resource_dir;
    let doc_path = file_path(&uri);
    let name = doc_path.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "fragment".into());
    let folder = match doc_path.as_ref().and_then(|p| p.parent()) {
        Some(folder) => Folder::open_resources(folder, Path::new(&resource_dir)),
        // Not a file: a folder of this user's own in the shared temp dir.
        None => Folder::open_private(&std::env::temp_dir(), "runnable-reports"),
    };
    let path = folder
        .map_err(|e| e.to_string())
        .and_then(|folder| write_report(&folder, Path::new(&format!("{name}.report.md")), report_md::render(&last, &name).as_bytes()))
        .map_err(|e| {
            let message = format!("Runnable: the report was not written: {e}");
            let client = state.client.clone();
            let shown = message.clone();
            tokio::spawn(async move { client.show_message(MessageType::WARNING, shown).await });
            run::failed(message)
        })?;
    let report_uri = crate::lsp::convert::file_uri(&path).ok_or_else(|| run::failed("the report path is not absolute"))?;
    if state.caps().show_document {
        let state = state.clone();
        let show = report_uri.clone();
        tokio::spawn(async move {
            let _ = state.client.show_document(ShowDocumentParams { uri: show, external: Some(false), take_focus: Some(true), selection: None }).await;
        });
    }
    Ok(Some(json!(report_uri)))
}

/// The report at `rel` in `folder`: created, or replacing an earlier report.
fn write_report(folder: &Folder, rel: &Path, text: &[u8]) -> std::result::Result<PathBuf, String> {
    let path = folder.path().join(rel);
    let existing = folder.probe(rel, text).map_err(|e| e.to_string())?;
    let head = match existing {
        Existing::Differs => folder.read_head(rel, files::REPORT_HEADING.len()).map_err(|e| e.to_string())?,
        _ => Vec::new(),
    };
    match files::decide_report(existing, &head) {
        Action::Create => folder.create_new(rel, text).map_err(|e| e.to_string()),
        Action::Replace => folder.replace(rel, text).map_err(|e| e.to_string()),
        Action::Unchanged => Ok(path),
        Action::AskToReplace => Err(format!("{} exists", path.display())),
        Action::Refuse(why) => Err(format!("{}: {why}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_replaces_only_an_earlier_report_and_never_follows_a_link() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(ws.join(".runnable")).unwrap();
        let victim = tmp.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, ws.join(".runnable/a.py.report.md")).unwrap();
        let folder = Folder::open(&ws, Path::new(".runnable"), true).unwrap();
        let err = write_report(&folder, Path::new("a.py.report.md"), b"# Runnable report: x\n").unwrap_err();
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        // A file of the user's with the report's name is kept.
        std::fs::write(ws.join(".runnable/b.py.report.md"), "my notes").unwrap();
        let err = write_report(&folder, Path::new("b.py.report.md"), b"# Runnable report: b\n").unwrap_err();
        assert!(err.contains("not a Runnable report"), "{err}");
        assert_eq!(std::fs::read_to_string(ws.join(".runnable/b.py.report.md")).unwrap(), "my notes");
        // New, then an earlier report replaced.
        let path = write_report(&folder, Path::new("c.py.report.md"), b"# Runnable report: 1\n").unwrap();
        write_report(&folder, Path::new("c.py.report.md"), b"# Runnable report: 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), "# Runnable report: 2\n");
    }
}
