//! Planning imports against the real interpreter's standard library.

use runnable::env::{find_toolchain, plan_imports, stdlib_modules};
use runnable::knowledge::conventional_module;
use std::collections::BTreeSet;

#[test]
fn a_mixed_fragment_is_sorted_into_stdlib_distributions_unknown_and_local() {
    let toolchain = find_toolchain(None).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let stdlib = stdlib_modules(&toolchain, cache.path()).unwrap();

    let plt = conventional_module("plt").unwrap();
    let np = conventional_module("np").unwrap();
    let modules: Vec<String> = [
        "os",
        "os.path",
        "collections.abc",
        "json",
        &plt,
        &np,
        "sklearn.model_selection",
        "google.protobuf.json_format",
        "yaml",
        "numpy.linalg",
        "my_helpers",
        "google",
        "nump",
        ".models",
        "..utils.io",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let plan = plan_imports(&modules, &stdlib);

    assert_eq!(plan.stdlib, ["os", "os.path", "collections.abc", "json"]);
    let expected: BTreeSet<String> = ["matplotlib", "numpy", "scikit-learn", "protobuf", "PyYAML"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(plan.distributions, expected);
    assert_eq!(plan.unknown, ["my_helpers", "google", "nump"]);
    assert_eq!(plan.local, [".models", "..utils.io"]);
}
