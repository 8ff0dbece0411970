//! Attacks on `runnable fix --install` through the built binary (issue 13,
//! F8): what a fragment says about its own errors must not make the
//! installer add a distribution. Reaches PyPI through uv; without it the
//! tests are skipped, except under `CI=true` (or `RUNNABLE_REQUIRE_SANDBOX=1`)
//! where they fail.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn required() -> bool {
    ["CI", "RUNNABLE_REQUIRE_SANDBOX"].iter().any(|v| std::env::var(v).is_ok_and(|x| x == "true" || x == "1"))
}

/// `runnable fix --install --json` on a fixture with its own cache; `None`
/// (a note, or a failure under CI) when its imports could not be installed.
fn fix_installed(rel: &str, cache: &Path) -> Option<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_runnable"))
        .arg("fix")
        .arg(repo().join(rel))
        .args(["--json", "--install", "--budget-seconds", "20", "--cache-dir"])
        .arg(cache)
        .output()
        .expect("runnable runs");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    if !j["missing_packages"].as_array().unwrap().is_empty() {
        assert!(!required(), "packages not installed, and CI requires this test: {}", j["failed_packages"]);
        eprintln!("note: {rel} skipped, packages not installed ({})", j["failed_packages"]);
        return None;
    }
    Some(j)
}

/// Every distribution of every venv under `cache` (dist-info names).
fn installed_anywhere(cache: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(envs) = std::fs::read_dir(cache.join("envs")) else { return out };
    for venv in envs.flatten() {
        let Ok(libs) = std::fs::read_dir(venv.path().join("lib")) else { continue };
        for lib in libs.flatten() {
            let Ok(entries) = std::fs::read_dir(lib.path().join("site-packages")) else { continue };
            out.extend(entries.flatten().map(|e| e.file_name().to_string_lossy().to_lowercase()));
        }
    }
    out
}

#[test]
fn a_forged_optional_dependency_message_installs_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let Some(j) = fix_installed("tests/fixtures/hostile/forged_optional.py", cache.path()) else { return };
    // The forgery did reach the report as an error "raised in six"...
    assert_eq!(j["status"], "raised", "{j}");
    assert!(j["error"]["message"].as_str().unwrap().contains("openpyxl"), "{}", j["error"]);
    // ... but no optional dependency was planned, let alone installed.
    assert_eq!(j["optional"], Value::Array(Vec::new()), "{}", j["optional"]);
    assert_eq!(j["packages"], serde_json::json!(["six"]), "{j}");
    let installed = installed_anywhere(cache.path());
    assert!(installed.iter().any(|n| n.starts_with("six")), "{installed:?}");
    assert!(!installed.iter().any(|n| n.starts_with("openpyxl")), "a venv with openpyxl was built: {installed:?}");
}
