//! `workspace/didChangeConfiguration`: new settings (`settings.runnable`;
//! a change without them, from a client that answers
//! `workspace/configuration`, is pulled). A new interpreter or cache folder
//! means a new engine; hints and diagnostics are refreshed.

use crate::lsp::config::Settings;
use crate::lsp::settings_sync::{apply, pull_settings};
use crate::lsp::state::State;
use std::sync::Arc;
use tower_lsp_server::lsp_types::DidChangeConfigurationParams;

pub fn handle(state: &Arc<State>, params: DidChangeConfigurationParams) {
    let Some((settings, warnings)) = Settings::from_change(&params.settings) else {
        if state.caps().configuration {
            // The pull model: the change says only that something changed.
            pull_settings(state);
        } else {
            tracing::info!("didChangeConfiguration without Runnable settings; keeping the current ones");
        }
        return;
    };
    apply(state, settings, warnings);
}
