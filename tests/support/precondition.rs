//! What a test does when its precondition (bubblewrap, root, PyPI, the
//! benchmark data in `shared/`) is missing: on a developer's machine it says
//! so and skips; under CI (`CI=true`, or `RUNNABLE_REQUIRE_PRECONDITIONS=1`
//! as `.ci/run` sets it) it fails, so a green CI means the sandbox, the
//! installs and the scorer were really tested.
#![allow(dead_code)]

/// Preconditions are required here.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
        || std::env::var("RUNNABLE_REQUIRE_PRECONDITIONS").is_ok_and(|v| v == "1")
}

/// Call where the test would skip; panics under CI.
pub fn skip(what: &str) {
    if required() {
        panic!("precondition missing under CI: {what}");
    }
    eprintln!("note: skipping: {what}");
}
