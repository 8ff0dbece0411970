//! Rules that propose prefixes fixing what stopped a run, read from its
//! structured exception.

mod asserted_values;
mod builtin_as_data;
mod file_named_by_value;
mod grow_list;
mod index_in_range;
mod index_by_position;
mod length_mismatch;
mod library_error;
mod local_import_name;
mod local_member;
mod local_module;
mod locals_parameter;
mod missing_attribute;
mod missing_column;
mod missing_file;
mod missing_key;
mod module_by_members;
mod next_candidate;
mod offline_network;
mod pandas_missing_labels;
mod rejected_text;
mod stream_protocol;
mod request_context;
mod submodule_import;
mod unbound_name;
mod variable_named_like_module;
mod wanted_type;

pub use asserted_values::AssertedValues;
pub use builtin_as_data::BuiltinAsData;
pub use file_named_by_value::FileNamedByValue;
pub use grow_list::GrowList;
pub use index_in_range::IndexInRange;
pub use index_by_position::IndexByPosition;
pub use length_mismatch::LengthMismatch;
pub use library_error::LibraryError;
pub use local_import_name::LocalImportName;
pub use local_member::LocalMember;
pub use local_module::LocalModule;
pub use locals_parameter::LocalsParameter;
pub use missing_attribute::MissingAttribute;
pub use missing_file::MissingFile;
pub use missing_column::MissingColumn;
pub use missing_key::MissingKey;
pub use module_by_members::ModuleByMembers;
pub use next_candidate::NextCandidate;
pub use offline_network::OfflineNetwork;
pub use pandas_missing_labels::PandasMissingLabels;
pub use rejected_text::RejectedText;
pub use stream_protocol::StreamProtocol;
pub use request_context::RequestContext;
pub use submodule_import::SubmoduleImport;
pub use unbound_name::UnboundName;
pub use variable_named_like_module::VariableNamedLikeModule;
pub use wanted_type::WantedType;

use super::{Failure, Rule, Stage, Trigger};
use crate::synth::error_text::quoted;
use crate::synth::prefix::{Binding, Prefix};
use crate::synth::session::Context;

/// A refinement rule, stating only what differs from the others: the
/// exception it reads, what else the failure must show, and either what it
/// does to each prefix name the failing line reads (`edit_name`, the
/// common case) or the whole proposal (`refine`). Every `Refine` is a
/// [`Rule`] of [`Stage::Refine`] (the blanket impl below), so the registry
/// lists it like any other.
pub trait Refine: Sync {
    /// As [`Rule::name`].
    fn name(&self) -> &'static str;
    /// The exception type it reads (a subclass matches too).
    fn exception(&self) -> &'static str;
    /// What else the failure must show (cheap; by default nothing).
    fn reads(&self, _ctx: &Context, _fail: &Failure) -> bool {
        true
    }
    /// Proposals for the failure; by default, for each prefix name the
    /// failing line reads, the prefix with [`Refine::edit_name`] applied
    /// where it changed the binding.
    fn refine(&self, ctx: &Context, fail: &Failure) -> Vec<Prefix> {
        fail.edit_each_name_on_line(|b| self.edit_name(ctx, fail, b))
    }
    /// Edit one binding the failing line reads; whether it changed.
    fn edit_name(&self, _ctx: &Context, _fail: &Failure, _binding: &mut Binding) -> bool {
        false
    }
}

impl<T: Refine> Rule for T {
    fn name(&self) -> &'static str {
        Refine::name(self)
    }
    fn stage(&self) -> Stage {
        Stage::Refine
    }
    fn applies(&self, ctx: &Context, t: &Trigger) -> bool {
        t.failure().is_some_and(|fail| fail.is(self.exception()) && self.reads(ctx, fail))
    }
    fn propose(&self, ctx: &Context, t: &Trigger) -> Vec<Prefix> {
        t.failure().map(|fail| self.refine(ctx, fail)).unwrap_or_default()
    }
}

/// What several refinement rules read from a failure the same way.
impl Failure<'_> {
    /// For each prefix name the failing line reads, the prefix with `edit`
    /// applied to that binding, where `edit` says it changed something.
    pub(crate) fn edit_each_name_on_line(&self, mut edit: impl FnMut(&mut Binding) -> bool) -> Vec<Prefix> {
        let mut out = Vec::new();
        for n in &self.names_on_line {
            let mut p = self.base.clone();
            if p.binding_mut(n).is_some_and(&mut edit) {
                out.push(p);
            }
        }
        out
    }

    /// The prefix with the file `r` created.
    pub(crate) fn with_resource(&self, r: crate::exec::Resource) -> Prefix {
        let mut p = self.base.clone();
        p.add_resource(r);
        p
    }

    /// The attribute an AttributeError names, and whether the failing line
    /// calls it (`.name(`).
    pub(crate) fn missing_member(&self, ctx: &Context) -> Option<(String, bool)> {
        let attr = self.error.name.clone()?;
        let called = self.line.is_some_and(|l| ctx.line_text(l).contains(&format!(".{attr}(")));
        Some((attr, called))
    }

    /// The module an AttributeError on a module names (`module 'urllib' has
    /// no attribute 'request'`).
    pub(crate) fn module_lacking_member(&self) -> Option<String> {
        (self.error.obj_type.as_deref() == Some("module")).then(|| quoted(&self.error.message)).flatten()
    }
}
