//! `textDocument/codeAction`: quick fixes for diagnostics that carry one,
//! and "Make this runnable" for the selection (or the enclosing top-level
//! statement, or the Markdown fence). Instant: the action carries
//! `data = {uri, version, range}` and no edit; nothing runs here. A client
//! without `codeAction/resolve` support would never start the run, so there
//! the action also carries the `runnable.makeRunnable` command with the same
//! argument (never both ways for a client that resolves: it would start two
//! runs). A document too large to analyse gets no actions.

use crate::lsp::config::{ACTION_KIND, ACTION_TITLE, CMD_MAKE_RUNNABLE};
use crate::lsp::convert;
use crate::lsp::position;
use crate::lsp::regions;
use crate::lsp::state::State;
use crate::lsp::whole_block;
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::lsp_types::*;

/// Whether `kind` passes the client's `context.only` filter (kinds are
/// hierarchical: `refactor` admits `refactor.rewrite.makeRunnable`).
pub fn wanted(only: Option<&[CodeActionKind]>, kind: &str) -> bool {
    only.is_none_or(|only| only.iter().any(|k| kind == k.as_str() || kind.starts_with(&format!("{}.", k.as_str()))))
}

pub fn handle(state: &Arc<State>, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let enc = state.encoding();
    let Some(snap) = state.snapshot(&params.text_document.uri) else {
        return Ok(None);
    };
    if snap.too_large() {
        return Ok(Some(Vec::new()));
    }
    position::check_range(&snap.rope, params.range, enc).map_err(|e| Error::invalid_params(e.to_string()))?;
    let only = params.context.only.as_deref();
    let mut out = Vec::new();
    if wanted(only, CodeActionKind::QUICKFIX.as_str()) {
        for d in &params.context.diagnostics {
            if let Some(action) = convert::quick_fix(&snap.uri, snap.version, d, &snap.rope) {
                out.push(CodeActionOrCommand::CodeAction(action));
            }
        }
        // With an import fix at hand, all of the document's at once.
        if params.context.diagnostics.iter().any(|d| d.data.as_ref().is_some_and(|v| v.get("fix").is_some())) {
            let all = crate::lsp::publish::compute(state, &snap);
            if let Some(action) = convert::all_imports_fix(&snap.uri, snap.version, &all, &snap.rope) {
                out.push(CodeActionOrCommand::CodeAction(action));
            }
        }
    }
    if wanted(only, ACTION_KIND) {
        let r = params.range;
        let empty = r.start == r.end;
        let end = if !empty && r.end.character == 0 && r.end.line > r.start.line { r.end.line - 1 } else { r.end.line };
        if let Some(fragment) = regions::fragment_for(&snap, r.start.line, end, empty) {
            let action = |title: String, fragment: regions::Fragment| {
                let range = convert::lines_range(&snap.rope, fragment, enc);
                let data = convert::action_data(&snap.uri, snap.version, range);
                let command = (!state.caps().code_action_resolve).then(|| Command {
                    title: title.clone(),
                    command: CMD_MAKE_RUNNABLE.to_string(),
                    arguments: Some(vec![data.clone()]),
                });
                CodeActionOrCommand::CodeAction(CodeAction { title, kind: Some(CodeActionKind::from(ACTION_KIND)), data: Some(data), command, ..Default::default() })
            };
            out.push(action(ACTION_TITLE.to_string(), fragment));
            // Too small a selection: the block around it defines what it needs.
            let regions = regions::python_regions(&snap);
            if let Some((block, names)) = regions.iter().find(|g| g.contains(fragment.start)).and_then(|g| whole_block::around(g, fragment)) {
                out.push(action(whole_block::title(block, &names), block));
            }
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_filters_hierarchically() {
        let k = |s: &'static str| CodeActionKind::from(s);
        assert!(wanted(None, ACTION_KIND));
        assert!(wanted(Some(&[k("refactor")]), ACTION_KIND));
        assert!(wanted(Some(&[k("refactor.rewrite")]), ACTION_KIND));
        assert!(wanted(Some(&[k(ACTION_KIND)]), ACTION_KIND));
        assert!(!wanted(Some(&[k("quickfix")]), ACTION_KIND));
        assert!(!wanted(Some(&[k("refactor.re")]), ACTION_KIND));
        assert!(!wanted(Some(&[k("refactor")]), "quickfix"));
    }
}
