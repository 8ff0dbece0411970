//! Runnable: make fragments of Python runnable.
//!
//! The engine knows no editor protocol. Data flows
//! `analysis` (pure) -> `env` (interpreter, venv, packages) ->
//! `synth` (exploration and evolution over `exec` runs) -> `report`.

pub mod analysis;
pub mod env;
pub mod exec;
pub mod knowledge;
