//! `textDocument/didChange`: apply full or incremental changes to the rope
//! (hints and the runtime error follow their lines), mark a run of this
//! document stale, re-publish diagnostics. Crossing the size limit for
//! analysis is logged either way.

use crate::lsp::publish;
use crate::lsp::state::{lock, State};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tower_lsp_server::lsp_types::{DidChangeTextDocumentParams, MessageType};

pub fn handle(state: &Arc<State>, params: DidChangeTextDocumentParams) {
    let enc = state.encoding();
    let uri = params.text_document.uri;
    let (was_large, large, bytes) = {
        let mut docs = lock(&state.docs);
        let Some(doc) = docs.get_mut(&uri) else {
            tracing::warn!("didChange for {} which is not open", uri.as_str());
            return;
        };
        let was_large = doc.too_large();
        doc.apply(params.content_changes, params.text_document.version, enc);
        (was_large, doc.too_large(), doc.rope.len_bytes())
    };
    match (was_large, large) {
        (false, true) => publish::log_too_large(state, &uri, bytes),
        (true, false) => publish::log(state, MessageType::INFO, format!("{} is small enough to analyse again", uri.as_str())),
        _ => {}
    }
    if let Some(run) = lock(&state.runs).get(&uri) {
        run.stale.store(true, Ordering::SeqCst);
    }
    publish::schedule(state, &uri);
}
