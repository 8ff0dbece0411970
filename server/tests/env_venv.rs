//! Building and reusing venvs with the real interpreter and the real uv,
//! each test in its own temporary cache. The install tests reach PyPI
//! through uv as configured on the machine.

use runnable::env::{find_toolchain, EnvError, EnvManager, Environment};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const MARKER: &str = ".runnable-complete";
const MISSING: &str = "runnable-no-such-dist-xyz";

fn manager(cache: &Path) -> EnvManager {
    let toolchain = find_toolchain(None).expect("python3 on PATH");
    assert!(toolchain.uv.is_some(), "uv must be on PATH: pip install uv");
    EnvManager::new(toolchain, Some(cache.to_path_buf()))
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| name.to_string()).collect()
}

/// Run `code` with the venv's interpreter; Ok(stdout) or Err(stderr).
fn python(env: &Environment, code: &str) -> Result<String, String> {
    let out = Command::new(&env.python)
        .args(["-c", code])
        .output()
        .expect("run the venv python");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn build_dirs(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache.join("envs"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".build-")
        })
        .collect()
}

#[test]
fn an_empty_venv_is_created_once_and_then_reused() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());

    let start = Instant::now();
    let first = manager.prepare(&BTreeSet::new(), false).unwrap();
    let created_in = start.elapsed();
    eprintln!("empty venv created in {created_in:?}");

    assert_eq!(first.venv, cache.path().join("envs").join(&first.key));
    assert_eq!(first.key, manager.env_key(&BTreeSet::new()));
    assert!(first.installed.is_empty() && first.missing.is_empty() && first.failed.is_empty());
    // It is a real venv of the base interpreter, isolated from its packages.
    let prefix = python(&first, "import sys; print(sys.prefix)").unwrap();
    assert_eq!(Path::new(&prefix), first.venv);
    let version = python(&first, "import platform; print(platform.python_version())").unwrap();
    assert_eq!(version, manager.toolchain().python_version);
    assert!(
        python(&first, "import uv").is_err(),
        "base site-packages leaked in"
    );

    let marker = first.venv.join(MARKER);
    let built_at = std::fs::metadata(&marker).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));

    let start = Instant::now();
    let second = manager.prepare(&BTreeSet::new(), false).unwrap();
    let reused_in = start.elapsed();
    assert_eq!(second, first);
    assert_eq!(
        std::fs::metadata(&marker).unwrap().modified().unwrap(),
        built_at,
        "rebuilt"
    );
    assert!(
        reused_in < Duration::from_millis(500),
        "reuse took {reused_in:?}"
    );
    assert!(
        build_dirs(cache.path()).is_empty(),
        "build directory left behind"
    );
}

#[test]
fn without_install_the_missing_distributions_are_listed() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let env = manager.prepare(&set(&["tabulate", "six"]), false).unwrap();
    // Nothing is installed: the empty venv stands in.
    assert_eq!(env.key, manager.env_key(&BTreeSet::new()));
    assert!(env.installed.is_empty());
    assert_eq!(env.missing, ["six", "tabulate"]);
    assert!(env.failed.is_empty());
    assert!(python(&env, "import six").is_err());
    assert!(python(&env, "import sys").is_ok());
}

#[test]
fn install_builds_a_reusable_venv_with_the_distribution() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let wanted = set(&["six"]);

    let start = Instant::now();
    let env = manager.prepare(&wanted, true).unwrap();
    eprintln!("venv with six built in {:?}", start.elapsed());
    assert_eq!(env.key, manager.env_key(&wanted));
    assert_ne!(env.key, manager.env_key(&BTreeSet::new()));
    assert_eq!(env.installed, ["six"]);
    assert!(env.missing.is_empty() && env.failed.is_empty(), "{env:?}");
    let location = python(&env, "import six; print(six.__file__)").unwrap();
    assert!(
        Path::new(&location).starts_with(&env.venv),
        "six came from {location}, not the venv"
    );

    // Next time, with or without install (and however the name is spelt),
    // the same venv is reused without rebuilding.
    let built_at = std::fs::metadata(env.venv.join(MARKER))
        .unwrap()
        .modified()
        .unwrap();
    let start = Instant::now();
    let again = manager.prepare(&wanted, false).unwrap();
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(again, env);
    let respelt = manager.prepare(&set(&["Six"]), true).unwrap();
    assert_eq!(respelt.venv, env.venv);
    assert_eq!(respelt.installed, ["Six"]);
    let marker = env.venv.join(MARKER);
    assert_eq!(
        std::fs::metadata(&marker).unwrap().modified().unwrap(),
        built_at
    );
}

#[test]
fn constraints_build_their_own_venv_with_the_older_release() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let wanted = set(&["six"]);
    // A bound that is no plain version bound never reaches uv.
    let constraints = vec!["six<1.16".to_string(), "six;--index-url=x".to_string()];

    let older = manager.prepare_constrained(&wanted, &constraints, true).unwrap();
    assert!(older.missing.is_empty() && older.failed.is_empty(), "{older:?}");
    assert_eq!(older.constraints, ["six<1.16"]);
    assert_eq!(older.key, manager.constrained_key(&wanted, &["six<1.16".to_string()]));
    assert_ne!(older.key, manager.env_key(&wanted), "cached apart from the newest");
    assert_eq!(python(&older, "import six; print(six.__version__)").unwrap(), "1.15.0");
    assert_eq!(runnable::env::installed_versions(&older.venv).get("six").map(String::as_str), Some("1.15.0"));

    // Reused, not rebuilt; the newest is another venv.
    let again = manager.prepare_constrained(&wanted, &constraints, false).unwrap();
    assert_eq!(again, older);
    let newest = manager.prepare(&wanted, true).unwrap();
    assert_ne!(newest.venv, older.venv);
    assert!(newest.constraints.is_empty());
    assert_ne!(python(&newest, "import six; print(six.__version__)").unwrap(), "1.15.0");
}

#[test]
fn a_nonexistent_distribution_fails_cleanly_while_the_others_install() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let wanted = set(&["six", MISSING]);

    let env = manager.prepare(&wanted, true).unwrap();
    assert_eq!(env.installed, ["six"]);
    assert_eq!(env.missing, [MISSING]);
    assert_eq!(env.failed.len(), 1, "{:?}", env.failed);
    let (name, reason) = &env.failed[0];
    assert_eq!(name, MISSING);
    assert!(reason.contains("not found"), "reason: {reason}");
    assert!(
        reason.len() < 300 && !reason.contains('\n'),
        "reason: {reason}"
    );
    // Keyed on what did install, so asking for just six reuses it.
    assert_eq!(env.key, manager.env_key(&set(&["six"])));
    assert!(python(&env, "import six").is_ok());
    let just_six = manager.prepare(&set(&["six"]), false).unwrap();
    assert_eq!(just_six.venv, env.venv);
    assert!(just_six.missing.is_empty());

    // The recorded outcome is reused: no second attempt right away.
    let start = Instant::now();
    let again = manager.prepare(&wanted, true).unwrap();
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(again, env);
    let without_install = manager.prepare(&wanted, false).unwrap();
    assert_eq!(without_install, env);

    // Once the record is old, installing tries again (and records anew).
    let outcome_path = cache
        .path()
        .join("envs")
        .join(format!("{}.outcome.json", manager.env_key(&wanted)));
    let mut outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&outcome_path).unwrap()).unwrap();
    outcome["recorded_unix"] = 0.into();
    std::fs::write(&outcome_path, outcome.to_string()).unwrap();
    let retried = manager.prepare(&wanted, true).unwrap();
    assert_eq!(retried, env);
    let outcome: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&outcome_path).unwrap()).unwrap();
    assert!(
        outcome["recorded_unix"].as_u64().unwrap() > 0,
        "not retried"
    );
}

#[test]
fn only_failures_install_nothing_and_give_the_empty_venv() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let env = manager
        .prepare(&set(&[MISSING, "--index-url=http://127.0.0.1:9/"]), true)
        .unwrap();
    assert!(env.installed.is_empty());
    assert_eq!(env.key, manager.env_key(&BTreeSet::new()));
    let failed: BTreeSet<&str> = env.failed.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        failed,
        BTreeSet::from([MISSING, "--index-url=http://127.0.0.1:9/"])
    );
    let refused = &env
        .failed
        .iter()
        .find(|(name, _)| name.starts_with("--"))
        .unwrap()
        .1;
    assert!(
        refused.contains("not a valid distribution name"),
        "{refused}"
    );
    assert_eq!(env.missing.len(), 2);
    assert!(python(&env, "import sys").is_ok());
}

#[test]
fn a_half_built_venv_is_rebuilt_not_trusted() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let key = manager.env_key(&BTreeSet::new());
    let venv = cache.path().join("envs").join(&key);
    // What a crash mid-build elsewhere could leave: a venv without marker.
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("bin").join("python"), "#!/bin/sh\nexit 1\n").unwrap();

    let env = manager.prepare(&BTreeSet::new(), false).unwrap();
    assert_eq!(env.venv, venv);
    assert!(venv.join(MARKER).is_file());
    assert!(python(&env, "print(40 + 2)").unwrap() == "42");
}

#[test]
fn concurrent_preparations_of_one_key_share_one_build() {
    let cache = tempfile::tempdir().unwrap();
    let envs: Vec<Environment> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|_| scope.spawn(|| manager(cache.path()).prepare(&BTreeSet::new(), false)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap().unwrap())
            .collect()
    });
    assert!(envs.iter().all(|env| *env == envs[0]));
    let marker = std::fs::read_to_string(envs[0].venv.join(MARKER)).unwrap();
    assert!(marker.contains(&*manager(cache.path()).toolchain().python_version));
    assert!(python(&envs[0], "import json").is_ok());
    assert!(build_dirs(cache.path()).is_empty());
}

#[test]
fn without_uv_preparing_says_how_to_get_it() {
    let mut toolchain = find_toolchain(None).unwrap();
    toolchain.uv = None;
    let cache = tempfile::tempdir().unwrap();
    let error = EnvManager::new(toolchain, Some(cache.path().to_path_buf()))
        .prepare(&BTreeSet::new(), false)
        .unwrap_err();
    assert!(matches!(error, EnvError::UvNotFound), "{error:?}");
    assert!(error.to_string().contains("pip install uv"), "{error}");
}

#[test]
fn the_default_cache_is_the_user_cache_dir() {
    let toolchain = find_toolchain(None).unwrap();
    let manager = EnvManager::new(toolchain, None);
    if let Some(user_cache) = dirs::cache_dir() {
        assert_eq!(manager.cache_dir(), user_cache.join("runnable"));
    }
}
