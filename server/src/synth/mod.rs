//! Synthesis: from an analysed fragment to prefixes that make it run.

pub mod infer;
pub mod knowledge;
pub mod value;
