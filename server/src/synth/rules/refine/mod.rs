//! Rules that propose prefixes fixing what stopped a run, read from its
//! structured exception.

mod asserted_values;
mod builtin_as_data;
mod file_named_by_value;
mod grow_list;
mod index_by_position;
mod length_mismatch;
mod library_error;
mod local_import_name;
mod local_member;
mod local_module;
mod locals_parameter;
mod missing_attribute;
mod missing_file;
mod missing_key;
mod next_candidate;
mod offline_network;
mod pandas_missing_labels;
mod rejected_text;
mod submodule_import;
mod unbound_name;
mod variable_named_like_module;
mod wanted_type;

pub use asserted_values::AssertedValues;
pub use builtin_as_data::BuiltinAsData;
pub use file_named_by_value::FileNamedByValue;
pub use grow_list::GrowList;
pub use index_by_position::IndexByPosition;
pub use length_mismatch::LengthMismatch;
pub use library_error::LibraryError;
pub use local_import_name::LocalImportName;
pub use local_member::LocalMember;
pub use local_module::LocalModule;
pub use locals_parameter::LocalsParameter;
pub use missing_attribute::MissingAttribute;
pub use missing_file::MissingFile;
pub use missing_key::MissingKey;
pub use next_candidate::NextCandidate;
pub use offline_network::OfflineNetwork;
pub use pandas_missing_labels::PandasMissingLabels;
pub use rejected_text::RejectedText;
pub use submodule_import::SubmoduleImport;
pub use unbound_name::UnboundName;
pub use variable_named_like_module::VariableNamedLikeModule;
pub use wanted_type::WantedType;
