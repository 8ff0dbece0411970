//! `textDocument/codeLens`: above the prefix the last applied run inserted,
//! what it made up and created, with Keep and Remove (see `provenance`).
//! Shown only while the inserted text is still there as it was.

use crate::lsp::config::{CMD_KEEP, CMD_REMOVE, CMD_SHOW_REPORT};
use crate::lsp::position;
use crate::lsp::provenance;
use crate::lsp::state::{lock, State};
use serde_json::json;
use std::sync::Arc;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::lsp_types::*;

pub fn handle(state: &Arc<State>, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let uri = params.text_document.uri;
    let Some(p) = lock(&state.provenance).get(&uri).cloned() else { return Ok(Some(Vec::new())) };
    let Some(snap) = state.snapshot(&uri) else { return Ok(None) };
    let text = snap.rope.to_string();
    let Some(ranges) = provenance::locate(&text, &p.inserted) else { return Ok(Some(Vec::new())) };
    // The first inserted line that is not blank (a driver begins with one).
    let first = ranges[0].start + text[ranges[0].clone()].len() - text[ranges[0].clone()].trim_start_matches('\n').len();
    let line = snap.rope.byte_to_line(first.min(text.len())) as u32;
    let range = Range::new(Position::new(line, 0), position::line_end(&snap.rope, line as usize, state.encoding()));
    let arg = json!({ "uri": uri });
    let lens = |title: String, command: &str| CodeLens {
        range,
        command: Some(Command { title, command: command.to_string(), arguments: Some(vec![arg.clone()]) }),
        data: None,
    };
    Ok(Some(vec![
        lens(provenance::title(&p), CMD_SHOW_REPORT),
        lens("Keep".into(), CMD_KEEP),
        lens("Remove".into(), CMD_REMOVE),
    ]))
}
