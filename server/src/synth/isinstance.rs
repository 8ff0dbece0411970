//! `isinstance` tests of the fragment, read from its tree
//! (`analysis::isinstance_calls`): the tested path and the types it is
//! tested against.

pub(super) use crate::analysis::isinstance_calls;

/// `isinstance(path, Type)` tests in the fragment against library types,
/// as (path, type); for a tuple of types, the first.
pub(super) fn isinstance_tests(fragment: &str) -> Vec<(String, String)> {
    isinstance_calls(fragment)
        .into_iter()
        .filter_map(|(path, types)| types.into_iter().next().map(|t| (path, t)))
        .collect()
}
