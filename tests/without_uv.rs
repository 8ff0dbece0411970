//! A machine without `uv`: only installing needs it. A fragment that needs
//! only the standard library runs on the base interpreter, with no venv and
//! without site-packages (`python -S`); one that imports a package says it
//! needs that package and why it could not be installed.

#[path = "support/precondition.rs"]
mod precondition;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A PATH without `uv` that still has what the sandbox uses (bwrap, setpriv).
const BARE_PATH: &str = "/usr/bin:/bin";

/// An interpreter with no `uv` beside it: a venv made by the standard
/// library's own `venv` module (no pip, so nothing but the interpreter).
fn bare_python(dir: &Path) -> Option<PathBuf> {
    let venv = dir.join("bare");
    let ok = Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).status().ok()?.success();
    let python = venv.join("bin/python");
    (ok && python.exists() && !venv.join("bin/uv").exists()).then_some(python)
}

fn uv_on_bare_path() -> bool {
    BARE_PATH.split(':').any(|d| Path::new(d).join("uv").exists())
}

/// `fix --json` with PATH lacking `uv` and `--python` pointing at `python`.
fn fix(dir: &Path, python: &Path, src: &str, extra: &[&str]) -> Value {
    let fragment = dir.join("fragment.py");
    std::fs::write(&fragment, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_runnable"))
        .env_clear()
        .env("PATH", BARE_PATH)
        .env("HOME", dir)
        .arg("fix")
        .arg(&fragment)
        .arg("--json")
        .arg("--python")
        .arg(python)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .args(extra)
        .output()
        .expect("runnable runs");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

fn setup() -> Option<(tempfile::TempDir, PathBuf)> {
    if uv_on_bare_path() {
        precondition::skip("`uv` is installed in /usr/bin or /bin, so PATH cannot leave it out");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    match bare_python(dir.path()) {
        Some(python) => Some((dir, python)),
        None => {
            precondition::skip("`python3 -m venv --without-pip` does not work here");
            None
        }
    }
}

#[test]
fn the_standard_library_runs_without_uv_or_a_venv() {
    let Some((dir, python)) = setup() else { return };
    let src = "import json, sys\n\
               text = json.dumps({'a': 1})\n\
               assert json.loads(text)['a'] == 1\n\
               assert not any('site-packages' in p for p in sys.path), sys.path\n\
               assert callable(exit) and callable(quit)\n\
               print('ok')\n";
    let j = fix(dir.path(), &python, src, &[]);
    assert_eq!(j["status"], "completed", "{j:#}");
    assert_eq!(j["coverage"]["covered"], j["coverage"]["executable"], "{j:#}");
    // The interpreter itself ran it: no venv was made (nor could be).
    assert_eq!(j["python"].as_str().unwrap(), python.to_str().unwrap(), "{j:#}");
    assert!(!dir.path().join("cache").join("envs").exists() || std::fs::read_dir(dir.path().join("cache").join("envs")).unwrap().next().is_none());
}

#[test]
fn a_package_without_uv_is_reported_not_faked() {
    let Some((dir, python)) = setup() else { return };
    let src = "import tabulate\nprint(tabulate.tabulate([[1, 2]], headers=['a', 'b']))\n";
    let j = fix(dir.path(), &python, src, &["--install"]);
    assert_ne!(j["status"], "completed", "{j:#}");
    let missing: Vec<&str> = j["missing_packages"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(missing, ["tabulate"], "{j:#}");
    let failed = j["failed_packages"].to_string();
    assert!(failed.contains("uv"), "the reason names uv: {j:#}");
    // Never a hand-written `tabulate` in its place.
    assert!(!j["prefix"].as_str().unwrap().contains("def tabulate"), "{j:#}");
    assert!(!j["prefix"].as_str().unwrap().contains("class Tabulate"), "{j:#}");
}
