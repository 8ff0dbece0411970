//! Runnable: make fragments of Python runnable.
//!
//! The engine knows no editor protocol. One `fix` flows
//! `analysis` (pure facts) -> `env` (interpreter, venv, packages) ->
//! `synth` (exploration and evolution over sandboxed `exec` runs, measured
//! by `coverage` on the `program`) -> `report`. See ARCHITECTURE.md.

pub mod analysis;
pub mod bench;
pub mod blockers;
pub mod coverage;
pub mod env;
pub mod exec;
pub mod fix;
pub mod host;
pub mod human;
pub mod knowledge;
pub mod llm;
pub mod lsp;
pub mod memory;
pub mod path_set;
pub mod program;
pub mod redact;
pub mod report;
pub mod synth;
