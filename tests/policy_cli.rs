//! `runnable fix --allow-network` and the report's `denied`, end to end with
//! the loopback canary: blocked in the sandbox's own network namespace,
//! reached only when the run is allowed the network.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use support::canary::{sandbox_or_skip, Canary};

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-cache")
}

fn fix(path: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_runnable")).env("RUNNABLE_MEMORY", "off").arg("fix").arg(path).arg("--cache-dir").arg(cache_dir()).args(extra).output().expect("runnable runs")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// Wait a little for the canary's reader to record what arrived.
fn received_within(canary: &Canary, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    while canary.received().len() < n && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    canary.received()
}

#[test]
fn the_sandbox_denies_the_network_and_says_so_until_the_run_allows_it() {
    if !sandbox_or_skip("the_sandbox_denies_the_network_and_says_so_until_the_run_allows_it") {
        return;
    }
    let canary = Canary::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fetch.py");
    std::fs::write(&path, canary.fragment()).unwrap();

    // 1. Sandboxed: refused inside the namespace, reported as a denial.
    let out = fix(&path, &["--json"]);
    let j = json(&out);
    assert_eq!(j["containment"]["bubblewrap"], true, "{}", j["containment"]);
    assert_eq!(j["containment"]["network"], false, "{}", j["containment"]);
    assert_eq!(j["status"], "raised", "{}", j["error"]);
    let denied = j["denied"].as_array().unwrap();
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0]["what"], "network");
    assert_eq!(denied[0]["layer"], "network namespace (bubblewrap --unshare-net)");
    assert!(denied[0]["detail"].as_str().unwrap().contains("Connection refused"), "{}", denied[0]);
    assert_eq!(out.status.code(), Some(3));
    assert!(received_within(&canary, 1).is_empty(), "the sandboxed run reached the host's loopback");

    // The human report names the layer and the way out.
    let out = fix(&path, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("denied by the sandbox: network (network namespace (bubblewrap --unshare-net))"), "{text}");
    assert!(text.contains("--allow-network"), "{text}");
    assert!(canary.received().is_empty());

    // 2. Allowed for this run: the canary is reached, and the report says so.
    let out = fix(&path, &["--json", "--allow-network"]);
    let j = json(&out);
    assert_eq!(j["containment"]["network"], true, "{}", j["containment"]);
    assert_eq!(j["containment"]["bubblewrap"], true, "the other layers stay");
    assert_eq!(j["status"], "completed", "{}", j["error"]);
    assert_eq!(j["denied"], serde_json::json!([]));
    let got = received_within(&canary, 1);
    assert!(!got.is_empty() && got.iter().all(|g| g == "canary"), "{got:?}");
    let out = fix(&path, &["--allow-network"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("network: allowed for this run"));
}

#[test]
fn a_refused_write_outside_the_working_directory_is_reported_as_a_denial() {
    if !sandbox_or_skip("a_refused_write_outside_the_working_directory_is_reported_as_a_denial") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("write.py");
    std::fs::write(&path, "with open('/etc/runnable-canary', 'w') as f:\n    f.write('x')\n").unwrap();
    let j = json(&fix(&path, &["--json"]));
    let denied = j["denied"].as_array().unwrap();
    assert!(denied.iter().any(|d| d["what"] == "filesystem" || d["what"] == "path"), "{j}");
    assert!(!Path::new("/etc/runnable-canary").exists());
}
