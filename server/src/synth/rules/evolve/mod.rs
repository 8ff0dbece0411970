//! Rules that propose variants of the best prefix for what it left
//! uncovered: per branch (`Stage::Branch`: the condition's values) and per
//! run (`Stage::Evolve`: handlers, bodies, the environment).

mod attribute_presence;
mod body_drivers;
mod cli_commands;
mod conjunction;
mod equality;
mod handlers;
mod identity;
mod membership;
mod none_tests;
mod optional_environment;
mod other_values;
mod outside_context;
mod tested_paths;

pub use attribute_presence::AttributePresence;
pub use body_drivers::BodyDrivers;
pub use cli_commands::CliCommands;
pub use conjunction::Conjunction;
pub use equality::Equality;
pub use handlers::Handlers;
pub use identity::Identity;
pub use membership::Membership;
pub use none_tests::NoneTests;
pub use optional_environment::OptionalEnvironment;
pub use other_values::OtherValues;
pub use outside_context::OutsideContext;
pub use tested_paths::TestedPaths;
