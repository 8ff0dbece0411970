//! `window/workDoneProgress/cancel`: the user cancelled a run's progress.

use crate::lsp::run;
use crate::lsp::state::State;
use std::sync::Arc;
use tower_lsp_server::lsp_types::WorkDoneProgressCancelParams;

pub fn handle(state: &Arc<State>, params: WorkDoneProgressCancelParams) {
    run::cancel_token(state, &params.token);
}
