//! `initialized`: pull the client's settings when it answers
//! `workspace/configuration`, find the interpreter and start the engine off
//! the message loop, then re-publish diagnostics (imports can be checked
//! from then on).

use crate::lsp::settings_sync::{pull_settings, warm_up};
use crate::lsp::state::State;
use std::sync::Arc;

pub fn handle(state: &Arc<State>) {
    if state.caps().configuration {
        pull_settings(state);
    } else {
        warm_up(state);
    }
}
