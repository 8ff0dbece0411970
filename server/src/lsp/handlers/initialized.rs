//! `initialized`: find the interpreter and start the engine off the message
//! loop, then re-publish diagnostics (imports can be checked from then on).

use crate::lsp::publish;
use crate::lsp::state::State;
use std::sync::Arc;
use tower_lsp_server::lsp_types::MessageType;

pub fn handle(state: &Arc<State>) {
    warm_up(state);
}

/// Build the engine for the current settings (spawned).
pub fn warm_up(state: &Arc<State>) {
    let state = state.clone();
    tokio::spawn(async move {
        let settings = state.settings();
        let build = state.clone();
        let loaded = tokio::task::spawn_blocking(move || build.engine.get(&settings)).await;
        match loaded {
            Ok(Ok(_)) => publish::schedule_all(&state),
            Ok(Err(e)) => state.client.show_message(MessageType::ERROR, format!("Runnable cannot start its engine: {e}")).await,
            Err(e) => tracing::error!("engine start panicked: {e}"),
        }
    });
}
