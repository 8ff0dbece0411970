//! Helpers shared by the `exec_*` integration tests (real python3, real bwrap).
#![allow(dead_code)]

#[path = "../../../tests/support/precondition.rs"]
pub mod precondition;

use runnable::exec::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The interpreter under test: `python3` from PATH, or `RUNNABLE_TEST_PYTHON`.
pub fn python() -> PathBuf {
    std::env::var_os("RUNNABLE_TEST_PYTHON").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("python3"))
}

pub fn config() -> ExecConfig {
    let mut c = ExecConfig::new(python());
    c.max_workers = 1;
    c
}

pub fn pool() -> WorkerPool {
    WorkerPool::new(config()).expect("python3 starts in the sandbox")
}

pub fn pool_with(f: impl FnOnce(&mut ExecConfig)) -> WorkerPool {
    let mut c = config();
    f(&mut c);
    WorkerPool::new(c).expect("python3 starts in the sandbox")
}

pub fn req(program: &str) -> RunRequest {
    RunRequest {
        program: program.to_string(),
        probes: BTreeMap::new(),
        resources: Vec::new(),
        preload: Vec::new(),
        timeout: Duration::from_secs(20),
    }
}

pub fn run(pool: &WorkerPool, program: &str) -> RunOutcome {
    pool.run(&req(program)).expect("the run is carried out")
}

pub fn have_bwrap() -> bool {
    let found = which::which("bwrap").is_ok();
    if !found {
        precondition::skip("bwrap is not on PATH: the bubblewrap-specific assertions");
    }
    found
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Live processes of `uid` whose command name is `comm`.
pub fn processes_named(uid: u32, comm: &str) -> Vec<i32> {
    processes_of_uid(uid)
        .into_iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|c| c.trim() == comm).unwrap_or(false)
        })
        .collect()
}

/// Poll `cond` for up to `secs` seconds.
pub fn eventually(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if cond() {
            return true;
        }
        if std::time::Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Run `program`, which starts `sleep` processes that try to outlive it,
/// check it printed `stdout`, and that none of them survives the run.
/// Needs root (a dedicated uid to inspect); says so and passes otherwise.
pub fn assert_no_sleep_survives(program: &str, stdout: &str) {
    if !is_root() {
        precondition::skip("not root: no dedicated uid to inspect");
        return;
    }
    let pool = pool();
    let uid = pool.worker_uids()[0];
    let o = run(&pool, program);
    assert_eq!(o.stdout, stdout, "{o:?}");
    assert!(eventually(3, || processes_named(uid, "sleep").is_empty()), "a sleep survived the run: {program}");
}
