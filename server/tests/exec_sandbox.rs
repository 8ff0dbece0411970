//! Containment: filesystem, network, uid, and a program attacking its worker.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

/// A program that tries to write each path and prints one `path: ok|failed` line.
fn write_probe(paths: &[String]) -> String {
    let list: Vec<String> = paths.iter().map(|p| format!("{p:?}")).collect();
    format!(
        "import os\nfor p in [{}]:\n    try:\n        os.makedirs(os.path.dirname(p), exist_ok=True)\n        \
         open(p, 'w').write('x')\n        print(p + ': ok')\n    except OSError as e:\n        \
         print(p + ': failed ' + type(e).__name__)\n",
        list.join(", ")
    )
}

#[test]
fn writes_outside_the_scratch_directory_fail() {
    let pool = pool();
    let tag = format!("runnable-exec-test-{}", std::process::id());
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let mut targets = vec![format!("/etc/{tag}"), format!("/root/{tag}"), format!("{home}/{tag}")];
    let bwrap = have_bwrap();
    if bwrap {
        targets.push(format!("/tmp/elsewhere-{tag}/x"));
        targets.push(format!("/var/tmp/{tag}"));
    }
    if !bwrap && !is_root() {
        precondition::skip("neither bwrap nor a uid drop: writes outside the scratch dir are not prevented");
        return;
    }
    let mut all = targets.clone();
    all.push("inside/ok.txt".into());
    let o = run(&pool, &write_probe(&all));
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    for t in &targets {
        assert!(o.stdout.contains(&format!("{t}: failed")), "{t} was writable:\n{}", o.stdout);
        assert!(!Path::new(t).exists(), "{t} exists on the host");
    }
    assert!(o.stdout.contains("inside/ok.txt: ok"), "the run directory is writable:\n{}", o.stdout);
}

#[test]
fn a_symlink_cannot_redirect_a_write_outside() {
    if !have_bwrap() {
        return;
    }
    let pool = pool();
    let target = format!("/tmp/runnable-exec-symlink-{}", std::process::id());
    let o = run(
        &pool,
        &format!(
            "import os\nos.symlink({target:?}, 'link')\ntry:\n    open('link', 'w').write('x')\n    print('wrote')\n\
             except OSError as e:\n    print('failed', type(e).__name__)\n"
        ),
    );
    assert!(o.stdout.starts_with("failed") || !Path::new(&target).exists(), "{o:?}");
    assert!(!Path::new(&target).exists(), "the write reached the host's {target}");
}

#[test]
fn the_host_home_is_not_readable() {
    if !is_root() {
        precondition::skip("not root: the fragment runs as the user and may read the user's home");
        return;
    }
    let pool = pool();
    let o = run(
        &pool,
        "import os\ntry:\n    print(sorted(os.listdir('/root')))\nexcept OSError as e:\n    print('failed', type(e).__name__)\n",
    );
    // either denied (no bwrap) or an empty view that only leads to the interpreter
    let listed_secret = std::fs::read_dir("/root")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".pyenv" && n != ".local")
        .any(|n| o.stdout.contains(&format!("'{n}'")));
    assert!(!listed_secret, "the fragment sees /root's contents: {}", o.stdout);
}

#[test]
fn network_is_unreachable() {
    if !have_bwrap() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let pool = pool();
    let program = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    print('tcp connected')\n\
         except OSError as e:\n    print('tcp failed', type(e).__name__)\ntry:\n    \
         socket.getaddrinfo('example.com', 80)\n    print('dns resolved')\nexcept OSError as e:\n    \
         print('dns failed', type(e).__name__)\n"
    );
    let t = Instant::now();
    let o = run(&pool, &program);
    assert!(o.stdout.contains("tcp failed"), "{o:?}");
    assert!(o.stdout.contains("dns failed"), "{o:?}");
    assert!(t.elapsed() < Duration::from_secs(10));
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the host listener saw a connection: {other:?}"),
    }
}

#[test]
fn runs_as_an_unprivileged_uid() {
    let pool = pool();
    let o = run(&pool, "import os\nprint(os.getuid(), os.geteuid())\n");
    let c = pool.containment();
    println!("containment: {c:?}");
    let uids: Vec<u32> = o.stdout.split_whitespace().map(|s| s.parse().unwrap()).collect();
    assert!(uids.iter().all(|&u| u != 0), "{o:?}");
    if is_root() {
        assert_eq!(uids[0], pool.worker_uids()[0]);
        assert_eq!(c.unprivileged_uid, Some(uids[0]));
        assert!(uids[0] >= UID_BASE && uids[0] < UID_BASE + UID_SPAN);
    }
    assert_eq!(c.bubblewrap, which::which("bwrap").is_ok());
    if c.bubblewrap {
        assert_eq!(c.note, None);
    }
}

#[test]
fn killing_the_worker_is_reported_and_the_next_run_works() {
    let pool = pool();
    let t = Instant::now();
    let o = run(&pool, "import os\nx = 1\nos.kill(os.getppid(), 9)\nimport time\ntime.sleep(30)\n");
    println!("kill worker: {:?} {:?}", t.elapsed(), o);
    assert!(matches!(o.status, RunStatus::Limit | RunStatus::Raised), "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("worker died"), "{:?}", o.limit);
    assert!(t.elapsed() < Duration::from_secs(10));
    let o = run(&pool, "print('next')\n");
    assert_eq!(o.stdout, "next\n");
    assert_eq!(o.status, RunStatus::Completed);

    // signals the worker ignores do not disturb it
    let o = run(&pool, "import os, signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n    os.kill(os.getppid(), s)\nprint('still here')\n");
    assert_eq!(o.stdout, "still here\n", "{o:?}");
    assert_eq!(o.status, RunStatus::Completed);
    let o = run(&pool, "print('and again')\n");
    assert_eq!(o.stdout, "and again\n");

    // stopping the worker: the Rust watchdog kills and replaces it
    let mut rq = req("import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n");
    rq.timeout = Duration::from_secs(1);
    let t = Instant::now();
    let o = pool.run(&rq).unwrap();
    println!("stopped worker: {:?} {:?}", t.elapsed(), o.limit);
    assert!(t.elapsed() < Duration::from_secs(15));
    let o = run(&pool, "print('after stop')\n");
    assert_eq!(o.stdout, "after stop\n");
}

#[test]
fn escaped_background_processes_are_killed_after_the_run() {
    assert_no_sleep_survives(
        "import subprocess\nsubprocess.Popen(['sleep', '1000'], start_new_session=True)\n\
         subprocess.Popen(['sleep', '1001'])\nprint('spawned')\n",
        "spawned\n",
    );
}

#[test]
fn dropping_the_pool_kills_its_workers() {
    if !is_root() {
        precondition::skip("not root: no dedicated uid to inspect");
        return;
    }
    let pool = pool_with(|c| c.max_workers = 2);
    let uids = pool.worker_uids();
    let o = run(&pool, "print(1)\n");
    assert_eq!(o.status, RunStatus::Completed);
    assert!(uids.iter().any(|&u| !processes_of_uid(u).is_empty()), "a worker is alive");
    drop(pool);
    for u in uids {
        assert!(eventually(3, || processes_of_uid(u).is_empty()), "uid {u} still has {:?}", processes_of_uid(u));
    }
}

#[test]
fn without_bwrap_the_containment_says_so() {
    let pool = pool_with(|c| c.sandbox = SandboxMode::Off);
    let c = pool.containment();
    println!("containment without bwrap: {c:?}");
    assert!(!c.bubblewrap);
    let note = c.note.expect("a note about reduced protection");
    assert!(note.contains("without filesystem or network isolation"), "{note}");
    let o = run(&pool, "import os\nprint(os.getuid())\n");
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    if is_root() {
        assert_ne!(o.stdout.trim(), "0", "the uid is dropped even without bwrap");
        let o = run(&pool, &write_probe(&["/etc/runnable-exec-nobwrap".into()]));
        assert!(o.stdout.contains("failed"), "{o:?}");
    }
    // the process limit still holds
    let mut rq = req("import os\nwhile True:\n    os.fork()\n");
    rq.timeout = Duration::from_secs(10);
    let o = pool.run(&rq).unwrap();
    if is_root() || !have_bwrap() {
        assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    }
    if is_root() {
        let uid = pool.worker_uids()[0];
        assert!(eventually(3, || processes_of_uid(uid).len() <= 1), "{:?}", processes_of_uid(uid));
    }
}
