//! Hostile fragments against the real `runnable` binary (issue 13): each
//! reproduces an attack with a canary and asserts it is contained. The
//! executor-level attacks (a run against its worker, limits of a whole run,
//! per-run state) are in `server/tests/exec_hostile.rs`; the language
//! server's in `tests/hostile_lsp.rs`.

#[path = "support/precondition.rs"]
mod precondition;

use serde_json::Value;
use std::os::unix::io::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    // Memory off: each test sees fresh runs (tests/memory.rs tests memory).
    let mut c = Command::new(env!("CARGO_BIN_EXE_runnable"));
    c.env("RUNNABLE_MEMORY", "off");
    c
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-cache")
}

fn fix(dir: &Path, src: &str, cmd: &mut Command) -> (Output, Value) {
    let path = dir.join("fragment.py");
    std::fs::write(&path, src).unwrap();
    let out = cmd.arg("fix").arg(&path).arg("--json").arg("--cache-dir").arg(cache_dir()).output().expect("runnable runs");
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    (out, json)
}

/// Every piece of code the engine made (prefixes and drivers of the best
/// result and of every kept variant): what is inserted around the fragment.
fn made_code(j: &Value) -> String {
    let mut code = format!("{}\n{}", j["prefix"].as_str().unwrap(), j["suffix"].as_str().unwrap());
    for v in j["variants"].as_array().unwrap() {
        code.push_str(&format!("\n{}\n{}", v["prefix"].as_str().unwrap(), v["suffix"].as_str().unwrap()));
    }
    code
}

/// F2: text a run makes up (an exception's `name`, a module name, a whole
/// forged report on the report pipe) never becomes code in the prefix that
/// is inserted into the user's document.
#[test]
fn f2_names_from_a_run_never_become_code() {
    let dir = tempfile::tempdir().unwrap();
    let payload = "PWNED_BY_THE_RUN";
    let fragments = [
        // an exception's attributes chosen by the fragment
        format!("raise NameError(\"name 'x' is not defined\", name=\"x\\nimport os; os.system('{payload}')\\ny\")\n"),
        format!("raise ModuleNotFoundError(\"No module named 'os'\", name=\"os; os.system('{payload}')\")\n"),
        // a report written straight to the report pipe
        format!(
            "import json, os\n\
             exc = {{'type_name': 'NameError', 'message': \"name 'x' is not defined\", 'line': 3, \
             'name': \"x\\nimport os; os.system('{payload}')\\ny\", 'obj_type': None, 'key': None, \
             'module': \"os; os.system('{payload}')\", 'path': None, 'bases': ['NameError', 'Exception'], \
             'raised_in': None, 'origin': None}}\n\
             os.write(1023, json.dumps({{'status': 'raised', 'hit': [3], 'completed': [], 'counts': {{}}, \
             'values': {{'3': [[\"a; os.system('{payload}')\", '1']]}}, 'exception': exc, 'limit': None}}).encode())\n\
             os._exit(0)\n"
        ),
    ];
    for src in &fragments {
        let (_, j) = fix(dir.path(), src, &mut bin());
        // The fragment's own lines carry the payload; nothing else may.
        let made = made_code(&j);
        assert!(!made.contains(payload), "run-made text became code:\n{made}");
    }
}

/// F10: a file name no file system takes (a NUL, too long, too deep,
/// leaving the folder with backslashes) costs that file, not the fix.
#[test]
fn f10_strange_resource_paths_drop_the_file_not_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let long = "n".repeat(300);
    let deep = vec!["d"; 40].join("/");
    let deep = format!("{deep}/f.txt");
    let mut src = String::new();
    for name in [long.as_str(), deep.as_str(), "a\\x00b.txt", "..\\\\..\\\\up.txt"] {
        src.push_str(&format!("try:\n    print(len(open('{name}').read()))\nexcept (OSError, ValueError) as e:\n    print(type(e).__name__)\n"));
    }
    src.push_str("print(open('plain.txt').read().strip())\n");
    let (out, j) = fix(dir.path(), &src, &mut bin());
    assert_ne!(out.status.code(), Some(1), "runnable failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(j["stats"]["executions"].as_u64().unwrap() >= 1, "nothing ran: {j}");
    let created: Vec<&str> = j["resources"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert!(created.contains(&"plain.txt"), "the ordinary file is still made: {created:?}");
    for r in &created {
        assert!(r.len() < 300 && !r.contains('\0') && r.matches('/').count() < 16, "{r:?} was kept");
    }
    let notes: Vec<&str> = j["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    for why in ["longer than 255", "deep", "control character"] {
        assert!(notes.iter().any(|n| n.contains(why)), "no note says {why:?}: {notes:?}");
    }
}

/// F5: descriptors `runnable` inherits from whoever started it (an editor
/// that leaks them) never reach a fragment: it cannot write the file
/// behind one, nor create a file through a directory descriptor.
#[test]
fn f5_inherited_descriptors_do_not_reach_the_fragment() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let canary = outside.path().join("canary.txt");
    std::fs::write(&canary, "intact").unwrap();
    let file = std::fs::OpenOptions::new().append(true).open(&canary).unwrap();
    let folder = std::fs::File::open(outside.path()).unwrap();
    let (file_fd, folder_fd) = (file.as_raw_fd(), folder.as_raw_fd());
    let mut cmd = bin();
    // SAFETY: dup2 between fork and exec, on descriptors this test owns;
    // the copies at 7 and 8 lose close-on-exec, as leaked ones have.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(file_fd, 7) < 0 || libc::dup2(folder_fd, 8) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let src = "import os\n\
        for fd in (7, 8):\n    \
            try:\n        os.write(fd, b' pwned')\n        print('wrote', fd)\n    except OSError:\n        print('no', fd)\n\
        try:\n    os.close(os.open('planted', os.O_CREAT | os.O_WRONLY, dir_fd=8))\n    print('planted')\n\
        except OSError:\n    print('no dir fd')\n";
    let (_, j) = fix(dir.path(), src, &mut cmd);
    let stdout = j["stdout"].as_str().unwrap();
    assert!(stdout.contains("no 7") && stdout.contains("no 8") && stdout.contains("no dir fd"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&canary).unwrap(), "intact");
    assert!(!outside.path().join("planted").exists());
}

/// F1 and F12 through the binary: a fragment's attempts on its worker and
/// on the kernel are refused, and the report names the layers.
#[test]
fn f1_f12_attempts_on_the_worker_are_refused_and_reported() {
    if std::env::consts::ARCH != "x86_64" {
        precondition::skip("the attack uses x86_64 system call numbers");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = "import ctypes, errno, os\n\
        libc = ctypes.CDLL(None, use_errno=True)\n\
        ppid = os.getppid()\n\
        r = libc.syscall(101, 16, ppid, 0, 0)\n\
        print('attach', r, errno.errorcode.get(ctypes.get_errno()))\n\
        try:\n    open('/proc/%d/mem' % ppid, 'r+b')\n    print('mem open')\n\
        except OSError as e:\n    print('mem', type(e).__name__)\n";
    let (_, j) = fix(dir.path(), src, &mut bin());
    let stdout = j["stdout"].as_str().unwrap();
    assert!(stdout.contains("attach -1 EPERM") && stdout.contains("mem PermissionError"), "{stdout}");
    let c = &j["containment"];
    assert_eq!(c["seccomp"], true, "{c}");
    let layers = c["layers"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect::<Vec<_>>().join("\n");
    assert!(layers.contains("seccomp") && layers.contains("PR_SET_DUMPABLE"), "{layers}");
    if which_bwrap() {
        assert_eq!(c["bubblewrap"], true, "{c}");
    } else {
        precondition::skip("bwrap is not installed: the report cannot name it");
    }
}

fn which_bwrap() -> bool {
    std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("bwrap").is_file()))
}
