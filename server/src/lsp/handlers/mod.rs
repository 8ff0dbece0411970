//! One file per LSP method. Each `handle` is synchronous (state changes
//! happen in arrival order) and returns at once; slow work is spawned.

pub mod code_action;
pub mod code_action_resolve;
pub mod code_lens;
pub mod did_change;
pub mod did_change_configuration;
pub mod did_close;
pub mod did_open;
pub mod execute_command;
pub mod hover;
pub mod initialize;
pub mod initialized;
pub mod inlay_hint;
pub mod shutdown;
pub mod work_done_progress_cancel;

#[cfg(test)]
mod tests;
