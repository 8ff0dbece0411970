//! `workspace/executeCommand`: `runnable.makeRunnable` (answers at once, runs
//! in the background), `runnable.showReport`, `runnable.cancel`.

use crate::lsp::config::{CMD_CANCEL, CMD_MAKE_RUNNABLE, CMD_SHOW_REPORT};
use crate::lsp::document::file_path;
use crate::lsp::report_md;
use crate::lsp::run::{self, RunRequest};
use crate::lsp::state::{lock, State};
use serde_json::{json, Value};
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
        other => Err(Error::invalid_params(format!("unknown command {other}"))),
    }
}

fn uri_arg(arg: Option<&Value>) -> Result<Option<Uri>> {
    match arg.and_then(|a| a.get("uri")) {
        None | Some(Value::Null) => Ok(None),
        Some(u) => serde_json::from_value(u.clone()).map(Some).map_err(|e| Error::invalid_params(format!("bad uri: {e}"))),
    }
}

/// Write the Markdown report of the last run (of `uri`, else of any
/// document) next to its resources and open it. Returns the report's URI.
fn show_report(state: &Arc<State>, uri: Option<Uri>) -> Result<Option<Value>> {
    let uri = uri.or_else(|| lock(&state.last_uri).clone()).ok_or_else(|| run::failed("no run yet"))?;
    let last = lock(&state.last).get(&uri).cloned().ok_or_else(|| run::failed("this document has not been run yet"))?;
    let resource_dir = state.settings().resource_dir;
    let doc_path = file_path(&uri);
    let name = doc_path.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "fragment".into());
    let dir = match doc_path.as_ref().and_then(|p| p.parent()) {
        Some(folder) => folder.join(&resource_dir),
        None => std::env::temp_dir().join("runnable-reports"),
    };
    let path = dir.join(format!("{name}.report.md"));
    std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&path, report_md::render(&last, &name)))
        .map_err(|e| run::failed(format!("cannot write {}: {e}", path.display())))?;
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
