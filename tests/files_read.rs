//! End-to-end: the files a fragment reads, made by `runnable fix` and read
//! by real Python in the real sandbox. Binary and compressed files in the
//! format the reading callee takes (zip, tar, gzip, pickle; `.npy` and
//! pandas' pickles with `--install`), and paths that go up from the
//! fragment's folder (`../data/x.csv`) resolved inside the run directory,
//! never outside it.

#[path = "support/precondition.rs"]
mod precondition;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-cache")
}

fn bwrap_present() -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("bwrap").is_file()))
}

/// `fix --json` on `src` (with `extra` flags); `None` with a note where the
/// sandbox this test is about is missing.
fn fix(src: &str, extra: &[&str]) -> Option<Value> {
    if !bwrap_present() {
        precondition::skip("bwrap is not installed: these tests are about the sandbox");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fragment.py");
    std::fs::write(&path, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_runnable"))
        .env("RUNNABLE_MEMORY", "off")
        .arg("fix")
        .arg(&path)
        .arg("--json")
        .arg("--cache-dir")
        .arg(cache_dir())
        .args(extra)
        .output()
        .expect("runnable runs");
    let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(j["containment"]["bubblewrap"], true, "{}", j["containment"]);
    // Nothing was written next to the fragment: files live in the run dir.
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("fragment.py")], "only the fragment in {}", dir.path().display());
    Some(j)
}

fn stdout(j: &Value) -> String {
    j["stdout"].as_str().unwrap_or_default().to_string()
}

fn resource<'a>(j: &'a Value, path: &str) -> &'a Value {
    j["resources"].as_array().unwrap().iter().find(|r| r["path"] == path).unwrap_or_else(|| panic!("no resource {path}: {}", j["resources"]))
}

fn completed(j: &Value) {
    assert_eq!(j["status"], "completed", "{}\n{}", j["error"], j["program"]);
    assert_eq!(j["coverage"]["ratio"], 1.0, "{}", j["coverage"]);
}

#[test]
fn archives_and_compressed_files_are_real_files_of_their_format() {
    let src = "\
import gzip, tarfile, zipfile, shutil
with gzip.open('events.log.gz', 'rt') as g:
    first = g.readline()
print('gz', first.strip())
with zipfile.ZipFile('bundle.zip') as z:
    z.extractall('unpacked')
    names = z.namelist()
print('zip', sorted(names))
print('member', open('unpacked/settings.ini').read().splitlines()[0])
with tarfile.open('backup.tar.gz', 'r:gz') as t:
    print('tar', len(t.getnames()) > 0)
shutil.unpack_archive('more.zip', 'more')
print('unpacked', sorted(__import__('os').listdir('more')) != [])
";
    let Some(j) = fix(src, &[]) else { return };
    completed(&j);
    let out = stdout(&j);
    assert!(out.contains("gz first line"), "{out}");
    assert!(out.contains("zip ['unpacked/settings.ini']"), "the zip holds the file read after extracting it: {out}");
    assert!(out.contains("member [DEFAULT]"), "{out}");
    assert!(out.contains("tar True") && out.contains("unpacked True"), "{out}");
    // Listed as created resources, base64 as binary files are.
    for p in ["events.log.gz", "bundle.zip", "backup.tar.gz", "more.zip"] {
        assert_eq!(resource(&j, p)["encoding"], "base64", "{p}");
    }
}

#[test]
fn a_pickle_holds_the_value_the_fragment_reads() {
    let src = "\
import pickle
with open('state.dat', 'rb') as f:
    state = pickle.load(f)
print('threshold' in state, sorted(state))
total = 0
for row in pickle.load(open('rows.pkl', 'rb')):
    total += 1
print('rows', total > 0)
";
    let Some(j) = fix(src, &[]) else { return };
    completed(&j);
    let out = stdout(&j);
    assert!(out.starts_with("True ["), "a dict with the key the fragment tests: {out}");
    assert!(out.contains("rows True"), "{out}");
    assert_eq!(resource(&j, "state.dat")["encoding"], "base64");
}

#[test]
fn numpy_and_pandas_files_load_with_the_libraries() {
    let src = "\
import numpy as np
import pandas as pd
a = np.load('matrix.npy')
print('npy', a.shape, a[:, 0].sum())
arrays = np.load('split.npz')
print('npz', arrays['X'].shape[1], len(arrays['y']))
df = pd.read_pickle('frame.pkl')
print('frame', type(df).__name__, len(df.columns) > 0)
";
    let Some(j) = fix(src, &["--install"]) else { return };
    if !j["missing_packages"].as_array().unwrap().is_empty() {
        precondition::skip(&format!("numpy/pandas not installed ({})", j["failed_packages"]));
        return;
    }
    completed(&j);
    let out = stdout(&j);
    assert!(out.contains("npy (4, 3) 9.0"), "{out}");
    assert!(out.contains("npz 3 4"), "{out}");
    assert!(out.contains("frame DataFrame True"), "a real frame with columns: {out}");
}

#[test]
fn paths_that_go_up_resolve_inside_the_run_directory() {
    let src = "\
import os, json
rows = open('../data/table.csv').read().splitlines()
print('csv', rows[0])
cfg = json.load(open('../../conf/app.json'))
print('json', sorted(cfg)[:2])
";
    let Some(j) = fix(src, &[]) else { return };
    completed(&j);
    let out = stdout(&j);
    assert!(out.contains("csv id,name,value"), "{out}");
    assert!(out.contains("json ["), "{out}");
    // The files are listed as the fragment names them.
    let _ = resource(&j, "../data/table.csv");
    let _ = resource(&j, "../../conf/app.json");
}

#[test]
fn a_path_going_up_past_the_nesting_is_never_created() {
    // Four levels up is more than the run directory is nested for: the file
    // is not made (the fragment meets it missing), nothing outside is written.
    let src = "print(open('../../../../etc/hostname_x').read())\n";
    let Some(j) = fix(src, &[]) else { return };
    assert_ne!(j["status"], "completed", "{j}");
    assert!(j["resources"].as_array().unwrap().iter().all(|r| !r["path"].as_str().unwrap().contains("etc")), "{}", j["resources"]);
    assert!(!Path::new("/etc/hostname_x").exists());
}
