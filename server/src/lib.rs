pub mod analysis;
pub mod coverage;
pub mod env;
pub mod exec;
pub mod knowledge;
pub mod program;
pub mod synth;
