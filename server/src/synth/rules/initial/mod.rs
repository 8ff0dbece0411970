//! Rules that build the first prefix from static facts, in order: each
//! adds its part to what the ones before made.

mod argparse_arguments;
mod cli_driver;
mod context_globals;
mod script_arguments;
mod driver;
mod free_names;
mod isinstance_bases;
mod named_columns;
mod orm_models;
mod read_before_assigned;
mod read_files;
mod relative_paths;
mod required_environment;
mod super_host;
mod web_driver;
mod xml_documents;
mod html_documents;

pub use argparse_arguments::ArgparseArguments;
pub use cli_driver::CliDriver;
pub use context_globals::ContextGlobals;
pub use script_arguments::ScriptArguments;
pub use driver::Driver;
pub use free_names::FreeNames;
pub use isinstance_bases::IsinstanceBases;
pub use named_columns::NamedColumns;
pub use orm_models::OrmModels;
pub use read_before_assigned::ReadBeforeAssigned;
pub use read_files::ReadFiles;
pub use relative_paths::RelativePaths;
pub use required_environment::RequiredEnvironment;
pub use super_host::SuperHost;
pub use web_driver::WebDriver;
pub use xml_documents::XmlDocuments;
pub use html_documents::HtmlDocuments;
