//! Attacks on `runnable fix --install` through the built binary (issue 13,
//! F8): what a fragment says about its own errors must not make the
//! installer add a distribution. Reaches PyPI through uv; without it the
//! tests are skipped, except under `CI=true` (or `RUNNABLE_REQUIRE_PRECONDITIONS=1`)
//! where they fail.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn required() -> bool {
    ["CI", "RUNNABLE_REQUIRE_PRECONDITIONS"].iter().any(|v| std::env::var(v).is_ok_and(|x| x == "true" || x == "1"))
}

/// `runnable fix --install --json FILE` with its own cache, `extra`
/// arguments and environment variables.
fn fix_json(file: &Path, cache: &Path, extra: &[&str], env: &[(&str, String)]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_runnable"))
        .env("RUNNABLE_MEMORY", "off")
        .arg("fix")
        .arg(file)
        .args(["--json", "--install", "--budget-seconds", "20", "--cache-dir"])
        .arg(cache)
        .args(extra)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("runnable runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)))
}

/// Whether `j` installed everything; else a note (or a failure under CI:
/// no PyPI must not pass for a tested installer).
fn installed(j: &Value, what: &str) -> bool {
    if j["missing_packages"].as_array().unwrap().is_empty() {
        return true;
    }
    assert!(!required(), "packages not installed, and CI requires this test: {}", j["failed_packages"]);
    eprintln!("note: {what} skipped, packages not installed ({})", j["failed_packages"]);
    false
}

/// `fix --install` on a fixture of the repository; `None` when its imports
/// could not be installed (see [`installed`]).
fn fix_installed(rel: &str, cache: &Path) -> Option<Value> {
    let j = fix_json(&repo().join(rel), cache, &[], &[]);
    installed(&j, rel).then_some(j)
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

/// A package index (first in uv's order, through `UV_INDEX`) that offers
/// `six` 99.0 as a source archive only. Its setup.py stores what its build
/// code could see and do in the `six` module it builds (`six.REPORT`), and
/// leaves a marker in uv's cache, the one place outside the venv it may
/// write.
struct HostileIndex {
    dir: tempfile::TempDir,
}

const MARKER: &str = "runnable-hostile-six-ran";

impl HostileIndex {
    fn new() -> HostileIndex {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        let mut targets = vec![outside.join("planted").display().to_string(), format!("/root/{MARKER}-{}", std::process::id())];
        if let Some(home) = dirs::home_dir() {
            targets.push(home.join(format!("{MARKER}-{}", std::process::id())).display().to_string());
        }
        let setup_py = format!(
            r#"import json, os
writes = {{}}
for target in {targets:?}:
    try:
        with open(target, "w") as f:
            f.write("planted")
        writes[target] = "written"
    except OSError as e:
        writes[target] = repr(e)
report = {{"env": dict(os.environ), "uid": os.getuid(), "home": os.path.expanduser("~"), "writes": writes}}
if os.environ.get("UV_CACHE_DIR"):
    open(os.path.join(os.environ["UV_CACHE_DIR"], {MARKER:?}), "w").write("ran")
with open("six.py", "w") as f:
    f.write("PY3 = True\nREPORT = %r\n" % json.dumps(report))
from setuptools import setup
setup(name="six", version="99.0", py_modules=["six"])
"#
        );
        let script = r#"import io, os, sys, tarfile
root, setup_py = sys.argv[1], sys.argv[2]
os.makedirs(root + "/simple/six")
def add(t, name, text):
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    t.addfile(info, io.BytesIO(data))
with tarfile.open(root + "/simple/six/six-99.0.tar.gz", "w:gz") as t:
    add(t, "six-99.0/PKG-INFO", "Metadata-Version: 2.1\nName: six\nVersion: 99.0\n")
    add(t, "six-99.0/setup.py", setup_py)
open(root + "/simple/six/index.html", "w").write('<html><body><a href="six-99.0.tar.gz">six-99.0.tar.gz</a></body></html>')
open(root + "/simple/index.html", "w").write('<html><body><a href="six/">six</a></body></html>')
"#;
        let out = Command::new("python3").args(["-c", script]).arg(dir.path()).arg(setup_py).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        HostileIndex { dir }
    }

    /// The environment `runnable` runs with: the index, and two tokens.
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("UV_INDEX", format!("file://{}/simple", self.dir.path().display())),
            ("GITHUB_TOKEN", "ghp_hostile4711".into()),
            ("RUNNABLE_CANARY_TOKEN", "canary-hostile-4711".into()),
        ]
    }

    fn fragment(&self) -> PathBuf {
        let path = self.dir.path().join("fragment.py");
        std::fs::write(&path, "import six\nprint(six.PY3)\n").unwrap();
        path
    }
}

impl Drop for HostileIndex {
    fn drop(&mut self) {
        let pid = std::process::id();
        let _ = std::fs::remove_file(format!("/root/{MARKER}-{pid}"));
        if let Some(home) = dirs::home_dir() {
            let _ = std::fs::remove_file(home.join(format!("{MARKER}-{pid}")));
        }
    }
}

fn marker_in(cache: &Path, sub: &str) -> bool {
    cache.join(sub).join(MARKER).exists()
}

#[test]
fn a_source_only_package_is_built_only_when_allowed_and_then_contained() {
    let index = HostileIndex::new();
    let fragment = index.fragment();
    let cache = tempfile::tempdir().unwrap();

    // Without --allow-build: refused with the reason, its code never ran.
    let j = fix_json(&fragment, cache.path(), &[], &index.env());
    assert_eq!(j["missing_packages"], serde_json::json!(["six"]), "{j}");
    let reason = j["failed_packages"][0][1].as_str().unwrap_or_default();
    if !reason.starts_with("only a source distribution") {
        // Anything else is uv failing to reach the index (setuptools comes from PyPI).
        assert!(!required(), "unexpected failure, and CI requires this test: {}", j["failed_packages"]);
        eprintln!("note: skipped ({})", j["failed_packages"]);
        return;
    }
    assert_eq!(reason, "only a source distribution is available; building it runs its code: allow it with --allow-build six");
    assert!(!marker_in(cache.path(), "uv") && !marker_in(cache.path(), "uv-builds"), "the build code ran");

    // With it: built, in the installer's sandbox.
    let j = fix_json(&fragment, cache.path(), &["--allow-build", "six"], &index.env());
    if !installed(&j, "the allowed build") {
        return;
    }
    assert_eq!(j["status"], "completed", "{j}");
    assert!(marker_in(cache.path(), "uv-builds"), "the build did not run with the builds' cache");
    let out = Command::new(j["python"].as_str().unwrap()).args(["-c", "import six; print(six.REPORT)"]).output().unwrap();
    let report: Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    let text = report.to_string();
    assert!(!text.contains("ghp_hostile4711") && !text.contains("canary-hostile-4711"), "a token reached the build: {text}");
    for name in report["env"].as_object().unwrap().keys() {
        assert!(!runnable::env::is_secret_name(name), "{name} reached the build");
    }
    let home = report["home"].as_str().unwrap();
    assert!(home.contains("/.build-") && Some(PathBuf::from(home)) != dirs::home_dir(), "HOME {home}");
    let contained = j["containment"]["note"].is_null();
    if !contained {
        assert!(!required(), "the installer was not fully contained, and CI requires it: {}", j["containment"]);
        eprintln!("note: containment incomplete ({}): only the environment is checked", j["containment"]["note"]);
        return;
    }
    for (target, result) in report["writes"].as_object().unwrap() {
        assert_ne!(result, "written", "the build wrote {target}");
        assert!(!Path::new(target).exists(), "{target}");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_eq!(report["uid"], runnable::env::INSTALLER_UID, "the build ran as uid {}", report["uid"]);
    }
}
