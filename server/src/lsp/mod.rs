//! `runnable lsp`: the language server, a thin protocol layer over the
//! engine (tower-lsp-server over stdio; `serve` over any byte streams).
//!
//! * `handlers/`: one file per LSP method; the router below only dispatches,
//!   turning a panic into an error response.
//! * `position`: the one place positions convert (UTF-8/16/32, ropes).
//! * `convert`: engine types <-> LSP types (diagnostics, hints, edits).
//! * `document`, `anchors`: open documents and run results pinned to lines.
//! * `regions`: Python regions (files, Markdown fences) and fragments.
//! * `syntax`: the tree-sitter tree of a Python document, edited and
//!   re-parsed incrementally with its rope.
//! * `diagnostics`, `chunks`, `publish`: static findings (re-analysing only
//!   the statements an edit touched), published per version.
//! * `run`: one "Make this runnable" run, progress, cancellation, result.
//! * `files` (pure), `safe_write`: which of a run's files to write, and
//!   writing every file the server writes: never through a symlink, never
//!   outside `resourceDir`, never over a file unless the user says so.
//! * `prefix_place` (pure): where the prefix goes (after the fragment's
//!   docstring and imports) and which of its imports the code already has.
//! * `provenance` (pure): the lens over an applied prefix (what was made
//!   up, what was created) and what its Remove takes out.
//! * `policy`: approval (`runPolicy`) and escalation (network for one
//!   re-run) decided without I/O; `run` asks and acts.
//! * `stubs` (pure): "Define `name`", a stub returning what its result is used as.
//! * `whole_block` (pure): a selection too small for the names it needs,
//!   and the block around it that defines them.
//! * `config`: settings and the names shared with the editors;
//!   `settings_sync`: applying them (pulled or pushed) and (re)building the
//!   engine for them.
//! * `transport`: keeps malformed input from stopping the server.

pub mod anchors;
pub mod chunks;
pub mod config;
pub mod convert;
pub mod diagnostics;
pub mod document;
pub mod files;
pub mod handlers;
pub mod policy;
pub mod position;
pub mod prefix_place;
pub mod provenance;
pub mod publish;
pub mod regions;
pub mod report_md;
pub mod run;
pub mod safe_write;
pub mod settings_sync;
pub mod state;
pub mod stubs;
pub mod syntax;
pub mod transport;
pub mod whole_block;

pub use config::SETTINGS_KEYS;

use handlers::*;
use state::State;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::lsp_types::*;
use tower_lsp_server::{LanguageServer, LspService, Server};

/// Requests served concurrently. A `codeAction/resolve` stays open for its
/// run, so this is well above the number of runs that can be going on.
const CONCURRENCY: usize = 64;

/// Serve LSP on stdin/stdout until `exit` (or end of input); then stop every
/// run and drop the engine, killing its worker processes.
pub fn serve_stdio() -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Reading stdin may still block a thread (a client that keeps it open):
    // don't wait long for it.
    rt.shutdown_timeout(Duration::from_millis(500));
    Ok(())
}

/// Serve LSP over any pair of byte streams, exactly as `runnable lsp` serves
/// stdin/stdout (the transport guard, tower-lsp-server's framing, the same
/// router), until `exit` or the end of `input`; then stop every run and drop
/// the engine, killing its worker processes. Public so the end-to-end tests
/// can serve a `tokio::io::duplex` pair in process; call it on a tokio
/// runtime with the time and I/O drivers enabled.
pub async fn serve<I, O>(input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite,
{
    let mut shared = None;
    let (service, socket) = LspService::build(|client| {
        let state = Arc::new(State::new(client));
        shared = Some(state.clone());
        Router { state }
    })
    .custom_method("window/workDoneProgress/cancel", Router::work_done_progress_cancel)
    .custom_method(transport::INVALID_MESSAGE, Router::invalid_message)
    .finish();
    Server::new(transport::guard(input), output, socket).concurrency_level(CONCURRENCY).serve(service).await;
    if let Some(state) = shared {
        shutdown::handle(&state).await;
    }
}

struct Router {
    state: Arc<State>,
}

/// Run a handler; a panic becomes an internal-error response.
fn guard<T>(method: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        tracing::error!("{method} panicked: {what}");
        Err(Error { code: ErrorCode::InternalError, message: format!("{method} failed: {what}").into(), data: None })
    })
}

/// Run a notification handler; a panic is logged.
fn guard_notification(method: &str, f: impl FnOnce()) {
    let _ = guard(method, || {
        f();
        Ok(())
    });
}

impl Router {
    /// The answer to a message the transport guard replaced (see `transport`).
    async fn invalid_message(&self, params: serde_json::Value) -> Result<()> {
        transport::answer(params)
    }

    async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        guard_notification("window/workDoneProgress/cancel", || work_done_progress_cancel::handle(&self.state, params))
    }
}

impl LanguageServer for Router {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        guard("initialize", || initialize::handle(&self.state, params))
    }

    async fn initialized(&self, _: InitializedParams) {
        guard_notification("initialized", || initialized::handle(&self.state))
    }

    async fn shutdown(&self) -> Result<()> {
        shutdown::handle(&self.state).await;
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        guard_notification("textDocument/didOpen", || did_open::handle(&self.state, params))
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        guard_notification("textDocument/didChange", || did_change::handle(&self.state, params))
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        guard_notification("textDocument/didClose", || did_close::handle(&self.state, params))
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        guard_notification("workspace/didChangeConfiguration", || did_change_configuration::handle(&self.state, params))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        guard("textDocument/codeAction", || code_action::handle(&self.state, params))
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        let pending = guard("codeAction/resolve", || code_action_resolve::handle(&self.state, action))?;
        code_action_resolve::finish(pending).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        guard("workspace/executeCommand", || execute_command::handle(&self.state, params))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        guard("textDocument/hover", || hover::handle(&self.state, params))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        guard("textDocument/codeLens", || code_lens::handle(&self.state, params))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        guard("textDocument/inlayHint", || inlay_hint::handle(&self.state, params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_handler_becomes_an_error_response() {
        let r: Result<()> = guard("test/method", || panic!("boom"));
        let e = r.unwrap_err();
        assert_eq!(e.code, ErrorCode::InternalError);
        assert!(e.message.contains("test/method failed: boom"), "{}", e.message);
        let r: Result<u32> = guard("test/method", || Ok(7));
        assert_eq!(r.unwrap(), 7);
    }
}
