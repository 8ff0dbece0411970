//! Synthesis: from an analysed fragment to prefixes that make it run.
//!
//! A [`Proposer`] suggests prefixes (the deterministic rules of `rules/`,
//! one per file, listed in `rules::all`; a model later); [`search`] runs them in a [`Session`] and keeps what helps.

mod additions;
pub(crate) mod alternatives;
mod ast_nodes;
pub mod attribution;
mod bindings;
mod blocks;
mod clauses;
mod cli_args;
mod dataframe;
mod date_formats;
pub mod deterministic;
mod drivers;
mod edits;
mod environment;
mod flask_globals;
pub(crate) mod error_text;
pub mod infer;
mod isinstance;
pub mod knowledge;
pub mod lexical;
pub mod library_errors;
pub mod sql_parameters;
mod library_aliases;
pub mod library_names;
pub mod library_types;
mod literals;
mod module_choice;
mod module_use;
pub mod name_info;
mod naming;
mod offline;
mod orm_models;
mod paths;
mod rank;
mod regex_patterns;
mod regex_sample;
mod render;
mod replay;
pub mod prefix;
pub mod resources;
mod scalars;
pub mod rules;
pub mod search;
pub mod session;
mod slice;
mod sole_exports;
mod stdlib_index;
pub mod stand_in;
pub mod streams;
mod string_shapes;
mod tested;
mod web_routes;
pub mod type_wants;
pub mod value;

use prefix::Prefix;
use session::{Attempt, Context};

/// One implementation of the exploration and evolution stages.
pub trait Proposer: Send + Sync {
    /// The first prefix, from static facts alone.
    fn initial(&self, ctx: &Context) -> Prefix;
    /// Prefixes that may fix what stopped `attempt`, most promising first.
    fn refine(&self, ctx: &Context, attempt: &Attempt) -> Vec<Prefix>;
    /// Variants of the best prefix that may reach the `uncovered` lines.
    fn variants(&self, ctx: &Context, best: &Attempt, uncovered: &[u32]) -> Vec<Prefix>;
}
