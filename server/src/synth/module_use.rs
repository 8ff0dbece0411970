//! Whether a name is used the way one uses a module (`os.path.join`) or
//! the way one uses data (indexed, iterated, compared): facts over a
//! name's usage that both `library_names` (is it a library's name?) and
//! `library_types` (which library type is it?) read. Pure.

use super::knowledge::kinds;
use crate::analysis::Usage;

/// Used the way data is (indexed, iterated, unpacked, compared, computed
/// with, measured, awaited): neither a module nor a library function.
pub fn used_as_data(u: &Usage) -> bool {
    !u.subscripts.is_empty()
        || !u.subscript_writes.is_empty()
        || u.iterated
        || u.element.is_some()
        || u.unpack.is_some()
        || !u.compared.is_empty()
        || !u.arithmetic.is_empty()
        || !u.operators.is_empty()
        || u.len
        || !u.contains.is_empty()
        || u.awaited
}

/// Used only through attributes, none of them only a builtin value's, and
/// never as data or called: the way one uses a module (`os.path.join`).
pub fn used_like_a_module(u: &Usage) -> bool {
    !used_as_data(u)
        && u.calls.is_empty()
        && !u.attrs.is_empty()
        && !u.attrs.keys().all(|a| is_builtin_attr(a))
}

/// Whether values of a builtin type (`str`, `list`, `dict`, ...) have
/// attribute `attr`.
pub fn is_builtin_attr(attr: &str) -> bool {
    const BUILTIN: &[&str] = &["str", "bytes", "list", "dict", "set", "int", "float"];
    kinds()
        .iter()
        .filter(|(k, _)| BUILTIN.contains(&k.as_str()))
        .any(|(_, attrs)| attrs.contains(attr))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;

    #[test]
    fn a_submodule_is_used_like_a_module() {
        let analysis = analyze("page = urllib.request.urlopen(url).read()\nif signal.code is None:\n    pass\n");
        // How the fragment uses attribute `a` of free name `n`.
        let usage = |n: &str, a: &str| analysis.free_names.iter().find(|f| f.name == n).unwrap().usage.attrs[a].clone();
        assert!(used_like_a_module(&usage("urllib", "request")));
        assert!(!used_like_a_module(&usage("signal", "code")));
    }
}
