//! The pool: construction errors, concurrency, warm versus cold, venvs.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn a_missing_interpreter_is_a_spawn_error() {
    let mut c = config();
    c.python = PathBuf::from("/nonexistent/bin/python3");
    match WorkerPool::new(c) {
        Err(ExecError::Spawn(p, e)) => {
            assert_eq!(p, PathBuf::from("/nonexistent/bin/python3"));
            println!("{}", ExecError::Spawn(p, e));
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a pool without an interpreter"),
    }
    // something that exists but is not a working Python
    let mut c = config();
    c.python = PathBuf::from("false");
    assert!(matches!(WorkerPool::new(c), Err(ExecError::Spawn(..))));
}

#[test]
fn two_threads_run_at_once() {
    let pool = Arc::new(pool_with(|c| c.max_workers = 2));
    let t = Instant::now();
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || run(&pool, &format!("import time\ntime.sleep(1)\nprint({i})\n")))
        })
        .collect();
    let outs: Vec<RunOutcome> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let took = t.elapsed();
    println!("two 1 s runs on two workers: {took:?}");
    assert_eq!(outs[0].stdout, "0\n");
    assert_eq!(outs[1].stdout, "1\n");
    assert!(took < Duration::from_millis(1900), "the runs did not overlap: {took:?}");
}

#[test]
fn runs_wait_for_a_worker_beyond_the_cap() {
    let pool = Arc::new(pool_with(|c| c.max_workers = 1));
    let t = Instant::now();
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || run(&pool, "import time\ntime.sleep(0.4)\nprint('done')\n"))
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().stdout, "done\n");
    }
    let took = t.elapsed();
    println!("three 0.4 s runs on one worker: {took:?}");
    assert!(took >= Duration::from_millis(1200), "more than one run at a time: {took:?}");
}

fn mean_run(pool: &WorkerPool, rq: &RunRequest, n: u32) -> Duration {
    let o = pool.run(rq).unwrap(); // warm-up (and the preload, in warm mode)
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    let t = Instant::now();
    for _ in 0..n {
        let o = pool.run(rq).unwrap();
        assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    }
    t.elapsed() / n
}

#[test]
fn warm_runs_are_faster_than_cold_ones() {
    let warm = pool_with(|c| c.warm = true);
    let cold = pool_with(|c| c.warm = false);
    let trivial = req("x = 1\n");
    let mut heavy = req("import json, decimal, email, http.client\nx = json.dumps({'a': decimal.Decimal('1.5')}, default=str)\n");
    heavy.preload = vec!["json".into(), "decimal".into(), "email".into(), "http.client".into()];
    let n = 8;
    let (wt, ct) = (mean_run(&warm, &trivial, n), mean_run(&cold, &trivial, n));
    let (wh, ch) = (mean_run(&warm, &heavy, n), mean_run(&cold, &heavy, n));
    println!("per run, trivial program: warm {wt:?}, cold {ct:?}");
    println!("per run, json+decimal+email+http.client: warm {wh:?}, cold {ch:?}");
    assert!(wt < ct, "warm {wt:?} vs cold {ct:?}");
    assert!(wh < ch, "warm {wh:?} vs cold {ch:?}");
}

#[test]
fn a_venv_interpreter_works_with_its_site_packages() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    let made = if which::which("uv").is_ok() {
        Command::new("uv")
            .args(["venv", "--quiet", "--python", "python3"])
            .arg(&venv)
            .env("UV_OFFLINE", "1")
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    } else {
        false
    };
    if !made {
        let ok = Command::new("python3").args(["-m", "venv", "--without-pip"]).arg(&venv).status().unwrap().success();
        assert!(ok, "could not create a venv");
    }
    let site = Command::new(venv.join("bin/python"))
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .unwrap();
    let site = PathBuf::from(String::from_utf8(site.stdout).unwrap().trim());
    std::fs::write(site.join("runnable_exec_venv_probe.py"), "WHERE = 'venv'\n").unwrap();
    for mode in [SandboxMode::Auto, SandboxMode::Off] {
        let mut c = config();
        c.python = venv.join("bin/python");
        c.sandbox = mode;
        let pool = WorkerPool::new(c).expect("the venv's python starts");
        let o = run(&pool, "import sys, runnable_exec_venv_probe as p\nprint(sys.prefix)\nprint(p.WHERE)\n");
        assert_eq!(o.status, RunStatus::Completed, "{mode:?}: {o:?}");
        let venv_real = std::fs::canonicalize(&venv).unwrap();
        let lines: Vec<&str> = o.stdout.lines().collect();
        assert!(
            lines[0] == venv.to_str().unwrap() || lines[0] == venv_real.to_str().unwrap(),
            "{mode:?}: {:?}",
            o.stdout
        );
        assert_eq!(lines[1], "venv");
    }
}

#[test]
fn many_threads_many_runs_no_cross_talk() {
    let pool = Arc::new(pool_with(|c| c.max_workers = 2));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                for i in 0..15 {
                    let mut rq = req(&format!("import sys\nv = {t} * 1000 + {i}\nprint(v)\nif v % 7 == 0:\n    raise KeyError(v)\n"));
                    rq.probes = [(2, vec!["v".to_string()])].into_iter().collect();
                    let o = pool.run(&rq).unwrap();
                    let v = t * 1000 + i;
                    assert_eq!(o.stdout, format!("{v}\n"));
                    assert_eq!(o.values[&2], vec![("v".to_string(), v.to_string())]);
                    let expect = if v % 7 == 0 { RunStatus::Raised } else { RunStatus::Completed };
                    assert_eq!(o.status, expect, "{o:?}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
