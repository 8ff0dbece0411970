//! `initialized`: pull the client's settings when it answers
//! `workspace/configuration`, find the interpreter and start the engine off
//! the message loop, then re-publish diagnostics (imports can be checked
//! from then on).

use crate::lsp::config::{Settings, SECTION};
use crate::lsp::handlers::did_change_configuration;
use crate::lsp::publish;
use crate::lsp::state::{State, SETTINGS_WAIT};
use std::sync::Arc;
use tower_lsp_server::lsp_types::{ConfigurationItem, MessageType};

pub fn handle(state: &Arc<State>) {
    if state.caps().configuration {
        pull_settings(state);
    } else {
        warm_up(state);
    }
}

/// Ask the client for its settings (`workspace/configuration`, section
/// `runnable`), spawned: never awaited on the message loop. Runs wait until
/// the answer is applied (or the ask failed or timed out); the engine is
/// built afterwards, for the settings the client gave.
pub fn pull_settings(state: &Arc<State>) {
    state.settings_pending();
    let state = state.clone();
    tokio::spawn(async move {
        let item = ConfigurationItem { scope_uri: None, section: Some(SECTION.to_string()) };
        match tokio::time::timeout(SETTINGS_WAIT, state.client.configuration(vec![item])).await {
            Ok(Ok(answers)) => match answers.first().and_then(Settings::from_pulled) {
                Some((settings, warnings)) => did_change_configuration::apply(&state, settings, warnings),
                None => tracing::info!("workspace/configuration has no Runnable settings; keeping the current ones"),
            },
            Ok(Err(e)) => tracing::warn!("workspace/configuration failed: {e}"),
            Err(_) => tracing::warn!("workspace/configuration was not answered within {SETTINGS_WAIT:?}"),
        }
        state.settings_arrived();
        warm_up(&state);
    });
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
