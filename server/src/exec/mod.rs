//! Running a program safely and observing it: the edge where processes live.
//!
//! A [`RunRequest`] carries a whole program (prefix + fragment + suffix) and
//! the files it needs; an [`Executor`] runs it in a sandbox and returns a
//! [`RunOutcome`] with the raw line trace, the exception and the values seen.
//! Statement coverage is computed from the trace elsewhere (`coverage`), so
//! this module knows nothing of fragments.

mod types;
pub use types::*;
