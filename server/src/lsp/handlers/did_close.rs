//! `textDocument/didClose`: forget the text, cancel its run, clear its diagnostics.

use crate::lsp::run;
use crate::lsp::state::{lock, State};
use std::sync::Arc;
use tower_lsp_server::lsp_types::DidCloseTextDocumentParams;

pub fn handle(state: &Arc<State>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    lock(&state.docs).remove(&uri);
    lock(&state.analyses).remove(&uri);
    run::cancel_document(state, &uri);
    let state = state.clone();
    tokio::spawn(async move {
        state.client.publish_diagnostics(uri, Vec::new(), None).await;
    });
}
