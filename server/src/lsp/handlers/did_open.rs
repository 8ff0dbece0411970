//! `textDocument/didOpen`: keep the text, publish diagnostics (a document
//! too large to analyse gets a log line and an empty list).

use crate::lsp::document::{Document, Language};
use crate::lsp::publish;
use crate::lsp::state::{lock, State};
use std::sync::Arc;
use tower_lsp_server::lsp_types::DidOpenTextDocumentParams;

pub fn handle(state: &Arc<State>, params: DidOpenTextDocumentParams) {
    let d = params.text_document;
    let language = Language::from_id(&d.language_id, &d.uri);
    let doc = Document::new(d.uri.clone(), language, d.version, &d.text);
    if doc.too_large() {
        publish::log_too_large(state, &d.uri, doc.rope.len_bytes());
    }
    lock(&state.docs).insert(d.uri.clone(), doc);
    publish::schedule(state, &d.uri);
}
