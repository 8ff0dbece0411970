//! Programs that never end or take too much: timeouts and resource limits.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::time::{Duration, Instant};

fn timed(pool: &WorkerPool, program: &str, timeout: Duration) -> (RunOutcome, Duration) {
    let mut rq = req(program);
    rq.timeout = timeout;
    let t = Instant::now();
    let o = pool.run(&rq).expect("the run is carried out");
    (o, t.elapsed())
}

#[test]
fn infinite_python_loop_times_out_with_its_trace() {
    let pool = pool();
    let (o, took) = timed(&pool, "x = 0\nwhile True:\n    x += 1\n", Duration::from_secs(1));
    println!("while True: {took:?}");
    assert_eq!(o.status, RunStatus::Timeout, "{o:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    // (Python < 3.10 emits no line event for `while True:` itself)
    assert!(o.hit.contains(&1) && o.hit.contains(&3), "the soft timer reports coverage so far: {:?}", o.hit);
    assert!(o.hit_counts[&3] > 1000);
    assert!(o.limit.as_deref().unwrap_or("").contains("timed out"));
}

#[test]
fn sleep_times_out() {
    let pool = pool();
    let (o, took) = timed(&pool, "import time\ntime.sleep(1000)\n", Duration::from_secs(1));
    assert_eq!(o.status, RunStatus::Timeout, "{o:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert_eq!(o.hit, vec![1, 2]);
    assert_eq!(o.completed, vec![1]);
}

#[test]
fn hang_in_native_code_is_killed() {
    let pool = pool();
    // catastrophic backtracking inside the C regex engine
    let (o, took) = timed(&pool, "import re\nre.match('(a*)*b', 'a' * 40)\n", Duration::from_secs(1));
    println!("regex: {took:?} {:?}", o.limit);
    assert_eq!(o.status, RunStatus::Timeout, "{o:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    // and the worker is usable afterwards
    let o = run(&pool, "print('alive')\n");
    assert_eq!(o.stdout, "alive\n");
}

#[test]
fn hang_in_native_code_without_signal_checks_is_hard_killed() {
    let pool = pool();
    // PBKDF2 with 2^31 iterations runs in C and never checks for signals
    let (o, took) = timed(
        &pool,
        "import hashlib\nhashlib.pbkdf2_hmac('sha256', b'x', b'y', 2**31 - 1)\n",
        Duration::from_secs(1),
    );
    println!("pbkdf2: {took:?} {:?}", o.limit);
    assert_eq!(o.status, RunStatus::Timeout, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("killed"), "{:?}", o.limit);
    assert!(took < Duration::from_secs(5), "{took:?}");
    let o = run(&pool, "print('alive')\n");
    assert_eq!(o.stdout, "alive\n");
}

#[test]
fn ignoring_the_alarm_does_not_help() {
    let pool = pool();
    let (o, took) = timed(
        &pool,
        "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass\n",
        Duration::from_secs(1),
    );
    assert_eq!(o.status, RunStatus::Timeout, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("killed"), "{:?}", o.limit);
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn fork_bomb_hits_the_process_limit_and_leaves_nothing() {
    let pool = pool_with(|c| c.limits.processes = 32);
    let (o, took) = timed(&pool, "import os\nwhile True:\n    os.fork()\n", Duration::from_secs(10));
    println!("fork bomb: {took:?} {:?} {:?}", o.status, o.limit);
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("process limit"), "{:?}", o.limit);
    assert!(took < Duration::from_secs(10), "{took:?}");
    if is_root() {
        let uid = pool.worker_uids()[0];
        // only the worker itself is left of that uid
        assert!(
            eventually(3, || processes_of_uid(uid).len() <= 1),
            "stray processes of uid {uid}: {:?}",
            processes_of_uid(uid)
        );
    }
    let o = run(&pool, "import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\nprint('forked ok')\n");
    assert_eq!(o.stdout, "forked ok\n", "the next run can fork again: {o:?}");
}

#[test]
fn memory_hog_hits_the_memory_limit() {
    let pool = pool_with(|c| c.limits.memory_bytes = 1 << 30);
    let (o, took) = timed(&pool, "x = []\nwhile True:\n    x.append(bytearray(10**7))\n", Duration::from_secs(20));
    println!("memory hog: {took:?} {:?}", o.limit);
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("memory"), "{:?}", o.limit);
    assert_eq!(o.exception.as_ref().map(|e| e.type_name.as_str()), Some("MemoryError"));
    assert!(o.hit.contains(&3), "the trace survives the MemoryError");
}

#[test]
fn huge_output_is_stopped_fast() {
    let pool = pool();
    let (o, took) = timed(&pool, "while True:\n    print('x' * 10000)\n", Duration::from_secs(20));
    println!("huge output: {took:?} {:?} {:?}", o.status, o.limit);
    assert!(took < Duration::from_secs(8), "{took:?}");
    assert!(o.stdout.len() <= Limits::default().output_bytes);
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("file size"));
}

#[test]
fn big_file_hits_the_file_size_limit() {
    let pool = pool_with(|c| c.limits.file_bytes = 1 << 20);
    let o = run(&pool, "with open('big.bin', 'wb') as f:\n    f.write(b'0' * (2 << 20))\n");
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("file size"));
}

#[test]
fn cpu_limit_stops_a_busy_loop() {
    let pool = pool_with(|c| c.limits.cpu_seconds = 1);
    let (o, took) = timed(&pool, "n = 0\nwhile True:\n    n += 1\n", Duration::from_secs(30));
    println!("cpu: {took:?} {:?}", o.limit);
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("CPU"), "{:?}", o.limit);
    assert!(took < Duration::from_secs(10));
    assert!(o.hit.contains(&1) && o.hit.contains(&3), "{:?}", o.hit);
}

#[test]
fn crash_in_native_code_is_a_limit() {
    let pool = pool();
    let o = run(&pool, "import ctypes\nctypes.string_at(0)\n");
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("SIGSEGV"), "{:?}", o.limit);
}
