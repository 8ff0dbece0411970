//! `shutdown`: cancel every run, wait (bounded) for them to stop, and drop
//! the engine, whose worker pools kill their processes on drop.

use crate::lsp::state::{lock, State};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long shutdown waits for cancelled runs to reach the engine's next check.
const GRACE: Duration = Duration::from_secs(15);

pub async fn handle(state: &Arc<State>) {
    state.shutting_down.store(true, Ordering::SeqCst);
    state.cancel_all();
    let deadline = Instant::now() + GRACE;
    while !lock(&state.runs).is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if let Some(loaded) = state.engine.take() {
        // Dropping the last reference kills the workers; that can block briefly.
        let _ = tokio::task::spawn_blocking(move || drop(loaded)).await;
    }
}
