//! `textDocument/inlayHint`: what the last run left on each fragment line
//! (ran ×N / not reached, and the first value assigned), as remapped
//! through every edit since.

use crate::lsp::convert;
use crate::lsp::position;
use crate::lsp::state::{lock, State};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::{InlayHint, InlayHintParams};

pub fn handle(state: &Arc<State>, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let settings = state.settings();
    let enc = state.encoding();
    let docs = lock(&state.docs);
    let Some(doc) = docs.get(&params.text_document.uri) else {
        return Ok(None);
    };
    position::check_range(&doc.rope, params.range, enc).map_err(|e| Error::invalid_params(e.to_string()))?;
    Ok(Some(convert::inlay_hints(&doc.rope, doc.hints.iter(), params.range.start.line, params.range.end.line, &settings, enc)))
}
