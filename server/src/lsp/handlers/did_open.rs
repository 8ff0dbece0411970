//! `textDocument/didOpen`: keep the text, publish diagnostics.

use crate::lsp::document::{Document, Language};
use crate::lsp::publish;
use crate::lsp::state::{lock, State};
use std::sync::Arc;
use tower_lsp_server::lsp_types::DidOpenTextDocumentParams;

pub fn handle(state: &Arc<State>, params: DidOpenTextDocumentParams) {
    let d = params.text_document;
    let language = Language::from_id(&d.language_id, &d.uri);
    lock(&state.docs).insert(d.uri.clone(), Document::new(d.uri.clone(), language, d.version, &d.text));
    publish::schedule(state, &d.uri);
}
