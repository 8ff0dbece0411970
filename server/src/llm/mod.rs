//! The optional model stages (issue 17): an OpenAI-compatible chat model
//! asked only where the deterministic rules stall, behind the same
//! `synth::Proposer` interface and the same sandbox, metric and budget.
//!
//! One request, end to end: the stalled search's best attempt becomes
//! [`feedback::Feedback`] (pure), [`prompt`] turns it into messages,
//! [`crate::redact`] replaces secrets, [`client`] sends them (or [`transcript`]
//! answers from a recording), [`extract`] reads the proposals out of the
//! answer (one repair round), [`realism`] rejects any that fakes a library,
//! and [`hybrid`] runs the rest in the session and keeps what raises coverage.

pub mod budget;
pub mod client;
pub mod config;
pub mod environment;
pub mod extract;
pub mod feedback;
pub mod hybrid;
pub mod prices;
pub mod prompt;
pub mod proposal;
pub mod proposer;
pub mod realism;
pub mod transcript;

pub use budget::{LlmStats, StageStats};
pub use config::{LlmConfig, Stage};

/// Why a model call gave nothing usable.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("the model was not asked: {0}")]
    Budget(&'static str),
    #[error("cancelled")]
    Cancelled,
    #[error("the model server answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    #[error("cannot reach the model server: {0}")]
    Transport(String),
    #[error("the model server's answer is not a chat completion: {0}")]
    Malformed(String),
    #[error("the replay file has no answer for this request ({0})")]
    NotRecorded(String),
    #[error("cannot use the transcript file: {0}")]
    Transcript(String),
}
