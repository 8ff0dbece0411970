//! `codeAction/resolve`: "Make this runnable" starts its run here. The
//! request stays open until the run has finished (the result is applied
//! through `workspace/applyEdit`, so the action comes back without an edit),
//! which makes `$/cancelRequest` on it cancel the run.

use crate::lsp::config::ACTION_KIND;
use crate::lsp::run::{self, RunRequest, Started};
use crate::lsp::state::{Cancel, State};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::CodeAction;

pub enum Resolve {
    Ready(CodeAction),
    Running(CodeAction, Started),
}

pub fn handle(state: &Arc<State>, action: CodeAction) -> Result<Resolve> {
    if action.kind.as_ref().map(|k| k.as_str()) != Some(ACTION_KIND) {
        return Ok(Resolve::Ready(action));
    }
    let data = action.data.clone().ok_or_else(|| Error::invalid_params("the action has no data"))?;
    let req: RunRequest = serde_json::from_value(data).map_err(|e| Error::invalid_params(format!("bad action data: {e}")))?;
    let started = run::start(state, req, None)?;
    Ok(Resolve::Running(action, started))
}

/// Cancels the run if the request is dropped (cancelled) before it ends.
struct CancelOnDrop(Option<Arc<Cancel>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.cancel();
        }
    }
}

pub async fn finish(resolve: Resolve) -> Result<CodeAction> {
    match resolve {
        Resolve::Ready(action) => Ok(action),
        Resolve::Running(action, started) => {
            let mut guard = CancelOnDrop(Some(started.cancel.clone()));
            let status = started.done.await;
            guard.0 = None;
            match status.as_deref() {
                Ok("cancelled") => Err(Error::request_cancelled()),
                _ => Ok(action),
            }
        }
    }
}
