//! The version fallback's decision, pure: does a failure come from an API
//! the installed (newest) release of a library no longer has, and which
//! older versions should the second environment hold?
//!
//! Snippets written years ago call `df.append`, `np.float`,
//! `df.pivot(index, columns, values)` or `load_boston`, which the newest
//! releases removed. Such a failure is recognised from the structured
//! exception of the best run:
//!
//! * its kind: `TypeError`, `AttributeError`, `ImportError` (a missing
//!   submodule of a known library too), `ValueError`, `NotImplementedError`;
//!   never a lookup, I/O or decoding error, which come from data;
//! * whom it is about: the module that defines the object, module or callee
//!   the error names (`origin`), else the module of the innermost frame when
//!   that is library code (`raised_in`). An error about the program's own
//!   objects, a builtin or the standard library is no library's API;
//! * when neither says (a signature error whose callee was not found, a
//!   read-only array written from the program's own frame), the message must
//!   be one that removed or changed APIs typically give.
//!
//! The library must have an entry in the `legacy.txt` table; the constraints
//! are those of every distribution of the environment (and of the library)
//! with an entry, so the older environment is one consistent era.

use crate::exec::ExceptionInfo;
use crate::knowledge::{self, normalize_distribution};
use std::collections::BTreeSet;

/// A second environment to try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyPlan {
    /// Requirements to build it with (`pandas<2`, `numpy<1.24`), sorted by
    /// distribution, no duplicates.
    pub constraints: Vec<String>,
    /// The library the failure was attributed to, when known.
    pub library: Option<String>,
    /// One line: why the newest environment is suspected.
    pub reason: String,
}

/// Kinds of error a changed API raises, by name in the exception's MRO.
const API_KINDS: &[&str] = &["TypeError", "AttributeError", "ImportError", "ValueError", "NotImplementedError"];
/// Subclasses of those that come from data, not from an API.
const DATA_KINDS: &[&str] = &["UnicodeError", "json.decoder.JSONDecodeError"];
/// Messages of removed or changed APIs, for failures no module is known for.
const API_MESSAGES: &[&str] = &[
    "got an unexpected keyword argument",
    "positional argument",
    "has no attribute",
    "cannot import name",
    "is read-only",
    "read-only array",
];

/// The legacy environment for a run that stopped with `exception`, in an
/// environment holding `distributions`; `None` when the failure does not look
/// like an API mismatch with a library that has legacy constraints.
/// `stdlib` holds the interpreter's top-level standard-library names.
pub fn plan_legacy(exception: &ExceptionInfo, distributions: &BTreeSet<String>, stdlib: &BTreeSet<String>) -> Option<LegacyPlan> {
    let kinds = if exception.bases.is_empty() { std::slice::from_ref(&exception.type_name) } else { &exception.bases[..] };
    if !kinds.iter().any(|k| API_KINDS.contains(&k.as_str())) || kinds.iter().any(|k| DATA_KINDS.contains(&k.as_str())) {
        return None;
    }
    // A module not found is a matter for installing, unless it is a missing
    // submodule of a library (`pandas.io.data`, `sklearn.cross_validation`).
    if kinds.iter().any(|k| k == "ModuleNotFoundError") && !exception.module.as_deref().is_some_and(|m| m.contains('.')) {
        return None;
    }
    let origin = exception.origin.as_deref().map(|m| whose(m, stdlib));
    let raised_in = exception.raised_in.as_deref().map(|m| whose(m, stdlib));
    let library = match (origin, raised_in) {
        (Some(Owner::Library(d)), _) => Some(d),
        // About the program's own object (a stand-in it was given): not an API.
        (Some(Owner::Program), _) => return None,
        (_, Some(Owner::Library(d))) => Some(d),
        // About a builtin or stdlib object, raised outside any library.
        (Some(Owner::Python), _) => return None,
        (None, Some(Owner::Program | Owner::Python) | None) => {
            let message = exception.message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
            if !API_MESSAGES.iter().any(|m| message.contains(m)) {
                return None;
            }
            None
        }
    };
    if let Some(lib) = &library {
        if knowledge::legacy_constraints(lib).is_empty() {
            return None;
        }
    }
    let mut constraints: Vec<String> = Vec::new();
    for dist in distributions.iter().map(String::as_str).chain(library.as_deref()) {
        for req in knowledge::legacy_constraints(dist) {
            if !constraints.iter().any(|c| c == req) {
                constraints.push(req.to_string());
            }
        }
    }
    if constraints.is_empty() {
        return None;
    }
    // One bound per distribution (the first seen, from the table's own line).
    let mut seen = BTreeSet::new();
    constraints.retain(|c| knowledge::requirement_name(c).is_some_and(|n| seen.insert(normalize_distribution(n))));
    constraints.sort_by_key(|c| knowledge::requirement_name(c).map(normalize_distribution));
    let first_line = exception.message.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut reason = format!("{}: {}", exception.type_name, first_line);
    if let Some(lib) = &library {
        reason.push_str(&format!(" (from {lib})"));
    }
    Some(LegacyPlan { constraints, library, reason })
}

enum Owner {
    /// A distribution of the knowledge table.
    Library(String),
    /// `__main__`: the program (and its prefix).
    Program,
    /// builtins, the standard library, or a module no table knows.
    Python,
}

fn whose(module: &str, stdlib: &BTreeSet<String>) -> Owner {
    let top = module.split('.').next().unwrap_or(module);
    if top == "__main__" {
        return Owner::Program;
    }
    if top == "builtins" || stdlib.contains(top) {
        return Owner::Python;
    }
    match knowledge::distribution_for(module) {
        Some(dist) => Owner::Library(dist.to_string()),
        None => Owner::Python,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdlib() -> BTreeSet<String> {
        ["os", "json", "itertools", "collections", "re"].into_iter().map(String::from).collect()
    }

    fn dists(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn exc(type_name: &str, message: &str, origin: Option<&str>, raised_in: Option<&str>) -> ExceptionInfo {
        let mut bases = vec![type_name.to_string()];
        match type_name {
            "ModuleNotFoundError" => bases.push("ImportError".into()),
            "UnicodeDecodeError" => bases.extend(["UnicodeError".into(), "ValueError".into()]),
            _ => {}
        }
        bases.extend(["Exception".into(), "BaseException".into(), "object".into()]);
        ExceptionInfo {
            type_name: type_name.into(),
            message: message.into(),
            origin: origin.map(String::from),
            raised_in: raised_in.map(String::from),
            bases,
            ..Default::default()
        }
    }

    fn plan(e: &ExceptionInfo, env: &[&str]) -> Option<LegacyPlan> {
        plan_legacy(e, &dists(env), &stdlib())
    }

    #[test]
    fn a_removed_dataframe_method_pins_pandas_and_numpy() {
        let e = exc("AttributeError", "'DataFrame' object has no attribute 'append'", Some("pandas.core.frame"), Some("pandas.core.generic"));
        let p = plan(&e, &["pandas"]).unwrap();
        assert_eq!(p.constraints, ["numpy<1.24", "pandas<2"]);
        assert_eq!(p.library.as_deref(), Some("pandas"));
        assert_eq!(p.reason, "AttributeError: 'DataFrame' object has no attribute 'append' (from pandas)");
    }

    #[test]
    fn a_signature_error_is_attributed_to_its_callee() {
        let e = exc("TypeError", "DataFrame.pivot() takes 1 positional argument but 4 were given", Some("pandas.core.frame"), None);
        assert_eq!(plan(&e, &["pandas", "numpy"]).unwrap().constraints, ["numpy<1.24", "pandas<2"]);
        // The callee was not found: the message and the environment decide.
        let e = exc("TypeError", "to_datetime() got an unexpected keyword argument 'infer_datetime_format'", None, None);
        let p = plan(&e, &["pandas"]).unwrap();
        assert_eq!(p.constraints, ["numpy<1.24", "pandas<2"]);
        assert_eq!(p.library, None);
        // ... and without a library with legacy constraints, nothing.
        assert_eq!(plan(&e, &["requests"]), None);
        assert_eq!(plan(&e, &[]), None);
    }

    #[test]
    fn a_removed_module_attribute_pins_only_what_the_environment_needs() {
        let e = exc("AttributeError", "module 'numpy' has no attribute 'float'.\n`np.float` was a deprecated alias", Some("numpy"), Some("numpy"));
        let p = plan(&e, &["numpy", "requests"]).unwrap();
        assert_eq!(p.constraints, ["numpy<1.24"]);
        assert_eq!(p.reason, "AttributeError: module 'numpy' has no attribute 'float'. (from numpy)");
        // numpy failing under pandas: the whole era, pandas included.
        assert_eq!(plan(&e, &["pandas"]).unwrap().constraints, ["numpy<1.24", "pandas<2"]);
    }

    #[test]
    fn a_read_only_array_from_library_code_or_by_its_message() {
        let e = exc("ValueError", "array is read-only", None, Some("numpy.random.mtrand"));
        assert_eq!(plan(&e, &["numpy", "pandas", "scikit-learn"]).unwrap().constraints, ["numpy<1.24", "pandas<2", "scikit-learn<1.2"]);
        let e = exc("ValueError", "assignment destination is read-only", None, None);
        assert_eq!(plan(&e, &["pandas"]).unwrap().constraints, ["numpy<1.24", "pandas<2"]);
    }

    #[test]
    fn the_reason_is_the_first_line_that_says_something() {
        let e = exc("ImportError", "\n`load_boston` has been removed from scikit-learn since version 1.2.\n\nThe Boston", Some("sklearn.datasets"), None);
        assert_eq!(plan(&e, &["scikit-learn"]).unwrap().reason, "ImportError: `load_boston` has been removed from scikit-learn since version 1.2. (from scikit-learn)");
    }

    #[test]
    fn removed_names_and_submodules_of_a_library() {
        let e = exc("ImportError", "cannot import name 'load_boston' from 'sklearn.datasets'", Some("sklearn.datasets"), None);
        assert_eq!(plan(&e, &["scikit-learn"]).unwrap().constraints, ["numpy<1.24", "scikit-learn<1.2"]);
        let mut e = exc("ModuleNotFoundError", "No module named 'pandas.io.data'", Some("pandas.io.data"), None);
        e.module = Some("pandas.io.data".into());
        assert!(plan(&e, &["pandas"]).is_some());
        // A top-level module that is missing is for the installer.
        let mut e = exc("ModuleNotFoundError", "No module named 'pandas'", Some("pandas"), None);
        e.module = Some("pandas".into());
        assert_eq!(plan(&e, &["pandas"]), None);
    }

    #[test]
    fn errors_about_python_itself_or_the_programs_objects_are_not_api_mismatches() {
        let cases = [
            exc("AttributeError", "'str' object has no attribute 'decode'", Some("builtins"), None),
            exc("AttributeError", "'dict' object has no attribute 'iteritems'", Some("builtins"), None),
            exc("ImportError", "cannot import name 'ifilterfalse' from 'itertools'", Some("itertools"), None),
            exc("TypeError", "int() takes at most 2 arguments (3 given)", Some("builtins"), None),
            exc("AttributeError", "'MinMaxScaler' object has no attribute 'fit_transform'", Some("__main__"), None),
            // A stand-in handed to a library, failing inside it.
            exc("AttributeError", "'_Stub' object has no attribute 'shape'", Some("__main__"), Some("pandas.core.frame")),
            // A stdlib error with a library in the environment.
            exc("TypeError", "Object of type str is not JSON serializable", None, Some("json.encoder")),
            // Unknown origin, a message no removed API gives.
            exc("TypeError", "cannot unpack non-iterable PathCollection object", None, None),
        ];
        for e in cases {
            assert_eq!(plan(&e, &["pandas", "numpy"]), None, "{e:?}");
        }
    }

    #[test]
    fn data_errors_are_never_api_mismatches() {
        for (t, m) in [
            ("KeyError", "'col'"),
            ("IndexError", "index 3 is out of bounds"),
            ("FileNotFoundError", "[Errno 2] No such file or directory: 'x.csv'"),
            ("UnicodeDecodeError", "'utf-8' codec can't decode byte 0xff"),
            ("ZeroDivisionError", "division by zero"),
        ] {
            let e = exc(t, m, None, Some("pandas.io.parsers"));
            assert_eq!(plan(&e, &["pandas"]), None, "{t}");
        }
    }

    #[test]
    fn a_library_without_legacy_constraints_is_not_retried() {
        let e = exc("TypeError", "Session.request() got an unexpected keyword argument 'x'", Some("requests.sessions"), None);
        assert_eq!(plan(&e, &["requests", "pandas"]), None);
        let e = exc("ValueError", "bad value", None, Some("requests.models"));
        assert_eq!(plan(&e, &["requests", "pandas"]), None);
    }
}
