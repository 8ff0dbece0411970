//! `workspace/didChangeConfiguration`: new settings (`settings.runnable`;
//! a change without them, from a client that answers
//! `workspace/configuration`, is pulled). A new interpreter or cache folder
//! means a new engine; hints and diagnostics are refreshed.

use crate::lsp::config::Settings;
use crate::lsp::handlers::initialized;
use crate::lsp::publish;
use crate::lsp::run;
use crate::lsp::state::{lock, State};
use std::sync::Arc;
use tower_lsp_server::lsp_types::{DidChangeConfigurationParams, MessageType};

pub fn handle(state: &Arc<State>, params: DidChangeConfigurationParams) {
    let Some((settings, warnings)) = Settings::from_change(&params.settings) else {
        if state.caps().configuration {
            // The pull model: the change says only that something changed.
            initialized::pull_settings(state);
        } else {
            tracing::info!("didChangeConfiguration without Runnable settings; keeping the current ones");
        }
        return;
    };
    apply(state, settings, warnings);
}

/// Take `settings` (from a change or a pull) as the current ones.
pub fn apply(state: &Arc<State>, settings: Settings, warnings: Vec<String>) {
    let engine_changed = {
        let mut current = lock(&state.settings);
        let changed = current.interpreter != settings.interpreter || current.cache_dir != settings.cache_dir;
        *current = settings;
        changed
    };
    if engine_changed {
        state.engine.take();
        publish::forget_environments(state);
        initialized::warm_up(state);
    }
    if !warnings.is_empty() {
        let state = state.clone();
        tokio::spawn(async move {
            for w in warnings {
                state.client.log_message(MessageType::WARNING, format!("Runnable settings: {w}")).await;
            }
        });
    }
    publish::schedule_all(state);
    run::refresh_inlay_hints(state);
}
