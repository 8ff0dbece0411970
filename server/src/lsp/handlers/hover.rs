//! `textDocument/hover`: on a line the last run left results on, how many
//! times it ran and the whole value assigned there (the inlay hint has it
//! on one line and truncated). Markdown with the value in a code block:
//! run text stays inert.

use crate::lsp::convert;
use crate::lsp::position;
use crate::lsp::state::{lock, State};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;

pub fn handle(state: &Arc<State>, params: HoverParams) -> Result<Option<Hover>> {
    let enc = state.encoding();
    let at = params.text_document_position_params;
    let docs = lock(&state.docs);
    let Some(doc) = docs.get(&at.text_document.uri) else {
        return Ok(None);
    };
    let pos = at.position;
    position::check_range(&doc.rope, Range::new(pos, pos), enc).map_err(|e| Error::invalid_params(e.to_string()))?;
    let Some(result) = doc.hints.iter().find(|a| a.line == pos.line) else {
        return Ok(None);
    };
    let Some(markdown) = convert::hover_markdown(&result.value) else {
        return Ok(None);
    };
    let range = Range::new(Position::new(pos.line, 0), position::line_end(&doc.rope, pos.line as usize, enc));
    Ok(Some(Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: markdown }), range: Some(range) }))
}
