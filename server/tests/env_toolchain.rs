//! The toolchain and the standard-library list, with the machine's real
//! python3 and uv.

use runnable::env::{find_toolchain, stdlib_modules, EnvError, EnvManager};
use std::io::Read;
use std::path::Path;

fn starts_with_shebang(path: &Path) -> bool {
    let mut head = [0u8; 2];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut head))
        .map(|()| &head == b"#!")
        .unwrap_or(false)
}

#[test]
fn finds_the_real_interpreter_and_uv() {
    let toolchain = find_toolchain(None).expect("python3 on PATH");
    assert!(toolchain.python.is_absolute(), "{:?}", toolchain.python);
    assert!(toolchain.python.is_file(), "{:?}", toolchain.python);
    // The real binary, not a shim script such as pyenv's.
    assert!(
        !starts_with_shebang(&toolchain.python),
        "{:?} is a script, not the interpreter",
        toolchain.python
    );
    let version: Vec<&str> = toolchain.python_version.split('.').collect();
    assert_eq!(version[0], "3", "{}", toolchain.python_version);
    assert!(version.len() >= 2 && version[1].parse::<u32>().is_ok());
    let uv = toolchain.uv.expect("uv on PATH (pip install uv)");
    assert!(uv.is_file(), "{uv:?}");
}

#[test]
fn an_override_by_path_or_name_finds_the_same_interpreter() {
    let default = find_toolchain(None).unwrap();
    let by_path = find_toolchain(Some(&default.python)).unwrap();
    assert_eq!(by_path.python, default.python);
    assert_eq!(by_path.python_version, default.python_version);
    let by_name = find_toolchain(Some(Path::new("python3"))).unwrap();
    assert_eq!(by_name.python, default.python);
}

#[test]
fn a_nonexistent_override_is_a_clear_error() {
    let error = find_toolchain(Some(Path::new("/nonexistent/python3"))).unwrap_err();
    assert!(
        matches!(error, EnvError::PythonPathMissing { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("/nonexistent/python3"), "{message}");
    assert!(message.contains("--python"), "{message}");

    let error = find_toolchain(Some(Path::new("runnable-no-such-python"))).unwrap_err();
    assert!(
        matches!(error, EnvError::PythonPathMissing { .. }),
        "{error:?}"
    );
}

#[cfg(unix)]
fn script(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A child forked by a parallel test may still hold our write descriptor
    // until it execs (ETXTBSY): wait until the script can be run.
    for _ in 0..50 {
        match std::process::Command::new(&path).output() {
            Err(e) if e.raw_os_error() == Some(26) => std::thread::sleep(std::time::Duration::from_millis(20)),
            _ => break,
        }
    }
    path
}

#[cfg(unix)]
#[test]
fn a_broken_or_old_interpreter_is_reported_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();

    let failing = script(
        dir.path(),
        "python-fails",
        "echo 'libpython3.11.so: cannot open' >&2; exit 127",
    );
    let error = find_toolchain(Some(&failing)).unwrap_err();
    assert!(matches!(error, EnvError::PythonBroken { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("libpython3.11.so: cannot open"),
        "{message}"
    );
    assert!(message.contains("python-fails"), "{message}");

    let python2 = script(
        dir.path(),
        "python2",
        "printf '/usr/bin/python2\\n2.7.18\\n2\\n'",
    );
    let error = find_toolchain(Some(&python2)).unwrap_err();
    assert!(error.to_string().contains("needs Python 3"), "{error}");

    let not_executable = dir.path().join("python-text");
    std::fs::write(&not_executable, "not a program").unwrap();
    let error = find_toolchain(Some(&not_executable)).unwrap_err();
    assert!(matches!(error, EnvError::PythonBroken { .. }), "{error:?}");
}

#[test]
fn stdlib_names_come_from_the_interpreter_and_are_cached() {
    let toolchain = find_toolchain(None).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let modules = stdlib_modules(&toolchain, cache.path()).unwrap();
    for name in [
        "os",
        "sys",
        "json",
        "collections",
        "xml",
        "tkinter",
        "__future__",
        "builtins",
    ] {
        assert!(modules.contains(name), "{name} missing");
    }
    for name in ["numpy", "requests", "six", "os.path"] {
        assert!(
            !modules.contains(name),
            "{name} is not a top-level stdlib module"
        );
    }

    // The second answer comes from the cache file: doctor it and see.
    let dir = cache.path().join("stdlib");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "one cache file per interpreter");
    let path = files[0].path();
    let mut cached: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    cached["modules"]
        .as_array_mut()
        .unwrap()
        .push("runnable_cache_probe".into());
    std::fs::write(&path, cached.to_string()).unwrap();
    let again = EnvManager::new(toolchain, Some(cache.path().to_path_buf()))
        .stdlib_modules()
        .unwrap();
    assert!(again.contains("runnable_cache_probe"), "cache not used");
    assert_eq!(again.len(), modules.len() + 1);

    // A corrupt cache file is replaced by a fresh answer.
    std::fs::write(&path, "{not json").unwrap();
    let toolchain = find_toolchain(None).unwrap();
    assert_eq!(stdlib_modules(&toolchain, cache.path()).unwrap(), modules);
}
