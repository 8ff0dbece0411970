//! The server's settings and engine kept in step with the client's:
//! settings pulled (`workspace/configuration`) or pushed
//! (`didChangeConfiguration`) are applied here, and the engine is (re)built
//! for them off the message loop. Both the `initialized` and the
//! `didChangeConfiguration` handlers use it.

use crate::lsp::config::{Settings, SECTION};
use crate::lsp::publish;
use crate::lsp::run;
use crate::lsp::state::{lock, State, SETTINGS_WAIT};
use std::sync::Arc;
use tower_lsp_server::lsp_types::{ConfigurationItem, MessageType};

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
                Some((settings, warnings)) => apply(&state, settings, warnings),
                None => tracing::info!("workspace/configuration has no Runnable settings; keeping the current ones"),
            },
            Ok(Err(e)) => tracing::warn!("workspace/configuration failed: {e}"),
            Err(_) => tracing::warn!("workspace/configuration was not answered within {SETTINGS_WAIT:?}"),
        }
        state.settings_arrived();
        warm_up(&state);
    });
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
        warm_up(state);
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
