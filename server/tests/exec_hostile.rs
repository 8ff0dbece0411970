//! The attacks of issue 13 against the executor, each with a canary, each
//! asserting it is contained. One worker per pool, so the run after an
//! attack is served by the very worker the attack went for.

mod exec_support;

use exec_support::*;
use runnable::exec::*;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

/// A Python helper for raw system calls, prepended to attack programs.
const SYSCALL: &str = "import ctypes, errno, os\n\
libc = ctypes.CDLL(None, use_errno=True)\n\
def call(nr, *args):\n    \
    ctypes.set_errno(0)\n    \
    r = libc.syscall(nr, *[ctypes.c_long(a) for a in args])\n    \
    return 'ok' if r >= 0 else errno.errorcode.get(ctypes.get_errno(), '?')\n";

fn x86_64() -> bool {
    std::env::consts::ARCH == "x86_64"
}

/// F1: a run attaches to its worker with ptrace, or writes the worker's
/// memory through /proc, to plant code in the runs it serves later.
#[test]
fn f1_a_run_cannot_trace_or_write_its_worker() {
    if !x86_64() {
        precondition::skip("the attack program uses x86_64 system call numbers");
        return;
    }
    let pool = pool();
    let attack = format!(
        "{SYSCALL}ppid = os.getppid()\n\
         print('attach', call(101, 16, ppid, 0, 0))\n\
         print('seize', call(101, 0x4206, ppid, 0, 0))\n\
         try:\n    open('/proc/%d/mem' % ppid, 'r+b')\n    print('mem', 'ok')\n\
         except OSError as e:\n    print('mem', type(e).__name__)\n\
         print('vm_write', call(311, ppid, 0, 0, 0, 0, 0))\n\
         print('pidfd_getfd', call(438, 0, 0, 0))\n"
    );
    let o = run(&pool, &attack);
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    for line in o.stdout.lines() {
        assert!(!line.ends_with(" ok"), "the attack got through: {line}\n{}", o.stdout);
    }
    assert!(o.stdout.contains("attach EPERM") && o.stdout.contains("mem PermissionError"), "{}", o.stdout);
    // The worker that served the attack serves the next run unchanged.
    let next = run(&pool, "import sys\nprint('clean', sys.settrace is not None)\n");
    assert_eq!((next.status, next.stdout.as_str()), (RunStatus::Completed, "clean True\n"), "{next:?}");
}

/// F12: the system calls no snippet needs are denied, and what programs do
/// use (threads, subprocesses, multiprocessing) still works.
#[test]
fn f12_the_seccomp_baseline_denies_what_a_snippet_never_needs() {
    if !x86_64() {
        precondition::skip("the probe uses x86_64 system call numbers");
        return;
    }
    let pool = pool();
    assert!(pool.containment().seccomp, "{:?}", pool.containment());
    let probe = format!(
        "{SYSCALL}for name, nr, args in [('unshare', 272, (0x10000000,)), ('clone_newuser', 56, (0x10000000 | 17, 0, 0, 0, 0)),\n\
         ('mount', 165, (0, 0, 0, 0, 0)), ('io_uring_setup', 425, (1, 0)), ('bpf', 321, (0, 0, 0)),\n\
         ('perf_event_open', 298, (0, 0, -1, -1, 0)), ('keyctl', 250, (0, 0)), ('kexec_load', 246, (0, 0, 0, 0)),\n\
         ('process_vm_readv', 310, (1, 0, 0, 0, 0, 0)), ('x32_getpid', 0x40000000 + 39, ()), ('clone3', 435, (0, 0)),\n\
         ('shmget', 29, (0, 4096, 0o1000 | 0o600))]:\n    \
             print(name, call(nr, *args))\n\
         import threading, subprocess, multiprocessing\n\
         t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n\
         print(subprocess.run(['echo', 'subprocess'], capture_output=True, text=True).stdout.strip())\n\
         def sq(x):\n    return x * x\n\
         if __name__ == '__main__':\n    with multiprocessing.Pool(2) as p:\n        print('pool', p.map(sq, [1, 2, 3]))\n"
    );
    let o = run(&pool, &probe);
    assert_eq!(o.status, RunStatus::Completed, "{o:?}");
    for (name, want) in [
        ("unshare", "EPERM"),
        ("clone_newuser", "EPERM"),
        ("mount", "EPERM"),
        ("io_uring_setup", "EPERM"),
        ("bpf", "EPERM"),
        ("perf_event_open", "EPERM"),
        ("keyctl", "EPERM"),
        ("kexec_load", "EPERM"),
        ("process_vm_readv", "EPERM"),
        ("x32_getpid", "ENOSYS"),
        ("clone3", "ENOSYS"),
        ("shmget", "EPERM"),
    ] {
        assert!(o.stdout.contains(&format!("{name} {want}\n")), "{name} was not denied with {want}:\n{}", o.stdout);
    }
    assert!(o.stdout.contains("thread\nsubprocess\npool [1, 4, 9]\n"), "{}", o.stdout);
}

/// F13: nothing a run leaves in HOME, TMPDIR, the matplotlib cache folder,
/// the run directories or /dev/shm is there for the next run.
#[test]
fn f13_per_run_state_is_fresh() {
    let pool = pool();
    let plant = "import os\n\
        home = os.environ['HOME']\n\
        for p in [home + '/planted', os.environ['MPLCONFIGDIR'] + '/matplotlibrc', home + '/runs/planted', '/dev/shm/planted', '../planted']:\n    \
            try:\n        os.makedirs(os.path.dirname(p), exist_ok=True)\n        open(p, 'w').write('backend: module://evil')\n    \
            except OSError as e:\n        print('could not plant', p, e)\n\
        print('planted')\n";
    assert_eq!(run(&pool, plant).stdout.lines().last(), Some("planted"));
    let look = "import os\n\
        home = os.environ['HOME']\n\
        found = [p for p in [home + '/planted', os.environ['MPLCONFIGDIR'] + '/matplotlibrc', home + '/runs/planted', '/dev/shm/planted', '../planted'] if os.path.exists(p)]\n\
        print('found', found, sorted(os.listdir(home)), sorted(os.listdir('/dev/shm')) if os.path.isdir('/dev/shm') else None)\n";
    let o = run(&pool, look);
    assert!(o.stdout.starts_with("found []"), "the second run saw what the first left: {}", o.stdout);
}

/// F7: the processes of one run together stay under the memory limit, and
/// the scratch directory and /dev/shm have a size.
#[test]
fn f7_limits_hold_for_the_whole_run() {
    let pool = pool_with(|c| {
        c.limits.memory_bytes = 1 << 30;
        c.limits.scratch_bytes = 32 << 20;
        c.limits.shm_bytes = 16 << 20;
    });
    // Five children of 600 MiB each: each is under the per-process limit,
    // together they are three times the run's.
    let hog = "import os, time\n\
        kids = []\n\
        for i in range(5):\n    \
            pid = os.fork()\n    \
            if pid == 0:\n        \
                b = bytearray(600 << 20)\n        \
                for j in range(0, len(b), 4096):\n            b[j] = 1\n        \
                time.sleep(30)\n        \
                os._exit(0)\n    \
            kids.append(pid)\n\
        for k in kids:\n    os.waitpid(k, 0)\n\
        print('all children finished')\n";
    let o = pool.run(&RunRequest { timeout: Duration::from_secs(25), ..req(hog) }).unwrap();
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("together"), "{o:?}");
    if !have_bwrap() {
        return;
    }
    let fill = "import os\n\
        for where in ['.', '/dev/shm']:\n    \
            n = 0\n    \
            try:\n        \
                for i in range(100):\n            \
                    with open(os.path.join(where, 'fill%d' % i), 'wb') as f:\n                f.write(b'x' * (4 << 20))\n            \
                    n += 4\n    \
            except OSError as e:\n        print(where, 'full after', n, 'MiB', e.errno == 28)\n";
    let o = run(&pool, fill);
    assert!(o.stdout.contains(". full after") && o.stdout.contains("/dev/shm full after"), "{o:?}");
    for line in o.stdout.lines() {
        let mib: u64 = line.split_whitespace().nth(3).unwrap().parse().unwrap();
        assert!(mib <= 32 && line.ends_with("True"), "{line}");
    }
}

/// F4: a run that writes a huge report does not make the host hold it.
#[test]
fn f4_a_huge_report_is_not_kept() {
    let pool = pool();
    let before = peak_rss_kib();
    let flood = "import os\nchunk = b'{\"status\": \"completed\", \"x\": \"' + b'a' * (1 << 20)\nfor i in range(200):\n    os.write(1023, chunk)\nos._exit(0)\n";
    let o = run(&pool, flood);
    assert_eq!(o.status, RunStatus::Limit, "{o:?}");
    assert!(o.limit.as_deref().unwrap_or("").contains("report was larger"), "{o:?}");
    let grown = peak_rss_kib().saturating_sub(before);
    assert!(grown < 100 << 10, "the host grew by {grown} KiB reading a forged report");
    let next = run(&pool, "print('fine')\n");
    assert_eq!(next.stdout, "fine\n");
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
}

/// F3: whatever a run does (time out, kill its worker, be cancelled), the
/// host kills only processes it started: a host process of the same uid
/// in its own process group survives, with and without bubblewrap.
#[test]
fn f3_the_host_kills_only_its_own_processes() {
    for sandbox in [SandboxMode::Auto, SandboxMode::Off] {
        let mut victim = Command::new("sleep").arg("60").stdin(Stdio::null()).process_group(0).spawn().unwrap();
        let pool = pool_with(|c| c.sandbox = sandbox);
        let victim_pid = victim.id();
        let programs = [
            // forged pids in everything it prints, then a hang
            format!("import os, time\nprint({victim_pid})\nos.write(1023, b'{{\"event\": \"started\", \"pid\": {victim_pid}}}')\ntime.sleep(60)\n"),
            "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n".to_string(),
        ];
        for p in &programs {
            let _ = pool.run(&RunRequest { timeout: Duration::from_secs(1), ..req(p) });
        }
        let cancel = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(500));
                cancel.store(true, std::sync::atomic::Ordering::SeqCst);
            });
            let _ = pool.run_cancellable(&req("import time\ntime.sleep(30)\n"), &cancel);
        });
        drop(pool);
        assert!(victim.try_wait().unwrap().is_none(), "the host's own process {victim_pid} was killed ({sandbox:?})");
        let _ = victim.kill();
        let _ = victim.wait();
    }
}

/// F5: descriptors the server holds (here, the test process's own files)
/// never reach a run.
#[test]
fn f5_only_stdio_reaches_a_run() {
    use std::os::unix::io::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let canary = dir.path().join("canary.txt");
    std::fs::write(&canary, "intact").unwrap();
    let file = std::fs::OpenOptions::new().append(true).open(&canary).unwrap();
    let folder = std::fs::File::open(dir.path()).unwrap();
    // Held open without close-on-exec, as an editor's leaked descriptors are.
    for fd in [file.as_raw_fd(), folder.as_raw_fd()] {
        // SAFETY: clearing FD_CLOEXEC on descriptors this test owns.
        unsafe {
            libc::fcntl(fd, libc::F_SETFD, 0);
        }
    }
    for sandbox in [SandboxMode::Auto, SandboxMode::Off] {
        let pool = pool_with(|c| c.sandbox = sandbox);
        let program = format!(
            "import os\n\
             for fd in ({}, {}):\n    \
                 try:\n        os.write(fd, b' pwned')\n        print('wrote', fd)\n    except OSError as e:\n        print('no', fd)\n\
             try:\n    os.close(os.open('planted', os.O_CREAT | os.O_WRONLY, dir_fd={}))\n    print('planted')\n\
             except OSError:\n    print('no dir fd')\n\
             print(sorted(int(f) for f in os.listdir('/proc/self/fd')))\n",
            file.as_raw_fd(),
            folder.as_raw_fd(),
            folder.as_raw_fd()
        );
        let o = run(&pool, &program);
        assert!(!o.stdout.contains("wrote") && !o.stdout.contains("planted"), "{sandbox:?}: {}", o.stdout);
        let fds: Vec<i32> = o.stdout.lines().last().unwrap().trim_matches(['[', ']']).split(", ").map(|s| s.parse().unwrap()).collect();
        // 0-2, the report pipe (1023) and the descriptor listdir itself holds
        assert!(fds.iter().all(|&f| f <= 3 || f == 1023), "{sandbox:?}: open descriptors {fds:?}");
    }
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "intact");
    assert!(!dir.path().join("planted").exists());
}
