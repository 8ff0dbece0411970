//! Building and reusing venvs with the real interpreter and the real uv,
//! each test in its own temporary cache. The install tests reach PyPI
//! through uv as configured on the machine.

use runnable::env::{find_toolchain, EnvManager, Environment};
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
    assert_eq!(manager.installed_versions(&older.venv).get("six").map(String::as_str), Some("1.15.0"));

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
fn without_uv_the_base_interpreter_serves_and_installing_says_how_to_get_uv() {
    let mut toolchain = find_toolchain(None).unwrap();
    toolchain.uv = None;
    let python = toolchain.python.clone();
    let cache = tempfile::tempdir().unwrap();
    let manager = EnvManager::new(toolchain, Some(cache.path().to_path_buf()));
    // The standard library needs no venv: the interpreter itself, without site-packages.
    let env = manager.prepare(&BTreeSet::new(), false).unwrap();
    assert_eq!(env.python, python);
    assert!(!env.site_packages);
    assert!(env.missing.is_empty() && env.failed.is_empty(), "{env:?}");
    // A package cannot be installed without uv: missing, and when installing was asked, why.
    let wanted: BTreeSet<String> = ["tabulate".to_string()].into();
    let env = manager.prepare(&wanted, false).unwrap();
    assert_eq!(env.missing, ["tabulate"]);
    assert!(env.failed.is_empty(), "not asked to install: {env:?}");
    let env = manager.prepare(&wanted, true).unwrap();
    assert_eq!(env.missing, ["tabulate"]);
    assert!(env.failed.iter().any(|(d, why)| d == "tabulate" && why.contains("pip install uv")), "{env:?}");
    // Nothing was built.
    assert!(std::fs::read_dir(cache.path()).unwrap().next().is_none() || !cache.path().join("envs").exists());
}

#[test]
fn the_default_cache_is_the_user_cache_dir() {
    let toolchain = find_toolchain(None).unwrap();
    let manager = EnvManager::new(toolchain, None);
    if let Some(user_cache) = dirs::cache_dir() {
        assert_eq!(manager.cache_dir(), user_cache.join("runnable"));
    }
}

// ------------------------------------------------------------ a hostile build
//
// A local source archive whose setup.py records what its build code can see
// and do: its environment, uid and home, and whether it could write outside
// the venv. It leaves a marker in uv's cache (the one place outside the venv
// it may write), so a test can tell whether its code ran at all.

const CANARY: &str = "runnable-f8-canary";
const PARENT: &str = "runnable-f8-parent";
const MARKER_FILE: &str = "runnable-f8-canary-ran";

/// Whether a test that needs PyPI (uv's build backends come from it) can
/// run; under `CI=true` (or `RUNNABLE_REQUIRE_PRECONDITIONS=1`) a missing PyPI or
/// bubblewrap fails the test instead of skipping it.
fn required() -> bool {
    ["CI", "RUNNABLE_REQUIRE_PRECONDITIONS"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|x| x == "true" || x == "1"))
}

fn pypi_reachable() -> bool {
    use std::net::{TcpStream, ToSocketAddrs};
    let reachable = ("pypi.org", 443)
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .is_some_and(|addr| TcpStream::connect_timeout(&addr, Duration::from_secs(5)).is_ok());
    if !reachable {
        assert!(!required(), "PyPI is not reachable and CI requires this test to run");
        eprintln!("note: PyPI is not reachable: skipped");
    }
    reachable
}

/// The folders and files the hostile build targets, outside the venv.
struct Canary {
    _root: tempfile::TempDir,
    links: PathBuf,
    outside: PathBuf,
    secret: PathBuf,
    in_home: Vec<PathBuf>,
}

impl Canary {
    fn new() -> Canary {
        let root = tempfile::tempdir().unwrap();
        let links = root.path().join("links");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(&links).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let secret = root.path().join("secret.txt");
        std::fs::write(&secret, "canary-secret-file").unwrap();
        let tag = format!("runnable-f8-canary-{}", std::process::id());
        let mut homes: Vec<PathBuf> = vec![PathBuf::from("/root")];
        homes.extend(dirs::home_dir());
        homes.dedup();
        let in_home = homes.iter().map(|h| h.join(&tag)).collect();
        let canary = Canary { _root: root, links, outside, secret, in_home };
        canary.write_packages();
        canary
    }

    fn setup_py(&self) -> String {
        let writes: Vec<String> = self.in_home.iter().chain([&self.outside.join("planted")]).map(|p| p.display().to_string()).collect();
        format!(
            r#"import json, os
report = {{"env": dict(os.environ), "uid": os.getuid(), "home": os.path.expanduser("~"), "writes": {{}}, "reads": {{}}}}
for target in {writes:?}:
    try:
        with open(target, "w") as f:
            f.write("planted")
        report["writes"][target] = "written"
    except OSError as e:
        report["writes"][target] = repr(e)
for target in [{secret:?}, "/etc/shadow"]:
    try:
        with open(target) as f:
            report["reads"][target] = f.read()
    except OSError as e:
        report["reads"][target] = "denied: " + repr(e)
cache = os.environ.get("UV_CACHE_DIR")
if cache:
    open(os.path.join(cache, {marker:?}), "w").write("ran")
with open(os.path.join("canary_pkg", "report.json"), "w") as f:
    json.dump(report, f)
from setuptools import setup
setup(name={name:?}, version="1.0", packages=["canary_pkg"], package_data={{"canary_pkg": ["report.json"]}})
"#,
            secret = self.secret.display().to_string(),
            marker = MARKER_FILE,
            name = CANARY,
        )
    }

    /// `runnable_f8_canary-1.0.tar.gz` (source only) and a pure wheel of
    /// `runnable-f8-parent` that depends on it, written with Python's own
    /// tarfile/zipfile (no build code runs here).
    fn write_packages(&self) {
        let script = r#"import io, sys, tarfile, zipfile
links, setup_py = sys.argv[1], sys.argv[2]
def add(t, name, text):
    data = text.encode()
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    t.addfile(info, io.BytesIO(data))
with tarfile.open(links + "/runnable_f8_canary-1.0.tar.gz", "w:gz") as t:
    add(t, "runnable_f8_canary-1.0/PKG-INFO", "Metadata-Version: 2.1\nName: runnable-f8-canary\nVersion: 1.0\n")
    add(t, "runnable_f8_canary-1.0/setup.py", open(setup_py).read())
    add(t, "runnable_f8_canary-1.0/canary_pkg/__init__.py", "")
with zipfile.ZipFile(links + "/runnable_f8_parent-1.0-py3-none-any.whl", "w") as z:
    z.writestr("runnable_f8_parent/__init__.py", "")
    z.writestr("runnable_f8_parent-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: runnable-f8-parent\nVersion: 1.0\nRequires-Dist: runnable-f8-canary\n")
    z.writestr("runnable_f8_parent-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: runnable-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("runnable_f8_parent-1.0.dist-info/RECORD", "")
"#;
        let setup_py = self.links.parent().unwrap().join("setup.py");
        std::fs::write(&setup_py, self.setup_py()).unwrap();
        let out = Command::new("python3").args(["-c", script]).arg(&self.links).arg(&setup_py).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    /// The host environment uv is given: ours, two planted tokens, and the
    /// local folder of packages.
    fn host_env(&self) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
        let mut vars: Vec<_> = std::env::vars_os().filter(|(k, _)| k != "UV_FIND_LINKS").collect();
        for (k, v) in [("RUNNABLE_CANARY_TOKEN", "canary-token-4711"), ("GITHUB_TOKEN", "ghp_canary4711")] {
            vars.push((k.into(), v.into()));
        }
        vars.push(("UV_FIND_LINKS".into(), self.links.clone().into()));
        vars
    }

    fn nothing_planted(&self) {
        for path in self.in_home.iter().chain([&self.outside.join("planted")]) {
            assert!(!path.exists(), "the build wrote {}", path.display());
        }
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        for path in &self.in_home {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn markers(cache: &Path) -> Vec<PathBuf> {
    ["uv", "uv-builds"].iter().map(|d| cache.join(d).join(MARKER_FILE)).filter(|p| p.exists()).collect()
}

#[test]
fn a_source_only_package_is_refused_and_its_code_never_runs() {
    if !pypi_reachable() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let canary = Canary::new();
    let manager = manager(cache.path()).with_host_env(canary.host_env());

    let env = manager.prepare(&set(&[CANARY]), true).unwrap();
    assert!(env.installed.is_empty(), "{env:?}");
    assert_eq!(env.missing, [CANARY]);
    assert_eq!(
        env.failed,
        [(CANARY.to_string(), format!("only a source distribution is available; building it runs its code: allow it with --allow-build {CANARY}"))]
    );
    // Also when it comes in as the dependency of a wheel.
    let env = manager.prepare(&set(&[PARENT]), true).unwrap();
    assert_eq!(env.missing, [PARENT], "{env:?}");
    assert!(env.failed[0].1.contains(&format!("for its dependency {CANARY}")), "{:?}", env.failed);
    assert!(env.failed[0].1.contains(&format!("--allow-build {CANARY}")), "{:?}", env.failed);

    assert!(markers(cache.path()).is_empty(), "the build code ran");
    canary.nothing_planted();
}

#[test]
fn an_allowed_build_runs_contained_and_its_venv_is_not_reused_without_the_permission() {
    if !pypi_reachable() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let canary = Canary::new();
    let manager = manager(cache.path()).with_host_env(canary.host_env());
    let contained = manager.installer_containment();
    eprintln!("installer containment: {contained:?}");
    if !contained.bubblewrap {
        assert!(!required(), "bubblewrap is not usable and CI requires the contained installer: {contained:?}");
        eprintln!("note: no bubblewrap: only the environment is checked");
    }

    let builds = set(&[CANARY]);
    let env = manager.prepare_allowing(&set(&[PARENT]), &[], true, &builds).unwrap();
    assert!(env.missing.is_empty(), "{env:?}");
    assert_ne!(env.key, manager.env_key(&set(&[PARENT])), "a build-allowed venv has its own key");
    let report = python(&env, "import canary_pkg, os; print(open(os.path.join(os.path.dirname(canary_pkg.__file__), 'report.json')).read())").unwrap();
    assert_eq!(markers(cache.path()), [cache.path().join("uv-builds").join(MARKER_FILE)], "the build ran, with the builds' own cache");
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    eprintln!("build saw: uid {} home {} writes {} reads {} env {:?}", report["uid"], report["home"], report["writes"], report["reads"], report["env"].as_object().unwrap().keys().collect::<Vec<_>>());

    // No secret reached the build, by name or by value.
    let env_seen = report["env"].as_object().unwrap();
    for name in env_seen.keys() {
        assert!(!runnable::env::is_secret_name(name), "{name} reached the build");
    }
    let text = report.to_string();
    assert!(!text.contains("canary-token-4711") && !text.contains("ghp_canary4711"), "{text}");
    // Its home is an empty folder of the build, not the user's.
    let home = report["home"].as_str().unwrap();
    let real_home = dirs::home_dir().unwrap();
    assert!(Path::new(home) != real_home && home != "/root", "HOME {home}");
    assert!(home.contains("/.build-"), "HOME {home}");
    if contained.bubblewrap {
        // Nothing outside the venv (and uv's cache) was writable or readable.
        for (target, result) in report["writes"].as_object().unwrap() {
            assert_ne!(result, "written", "{target}");
        }
        assert!(report["reads"][canary.secret.display().to_string()].as_str().unwrap().starts_with("denied"), "{}", report["reads"]);
    }
    if let Some(uid) = contained.unprivileged_uid {
        assert_eq!(report["uid"], uid, "{}", report["uid"]);
        assert!(report["reads"]["/etc/shadow"].as_str().unwrap().starts_with("denied"), "{}", report["reads"]);
        // The finished venv is ours again: a later install cannot change it.
        use std::os::unix::fs::MetadataExt;
        let me = unsafe { libc::geteuid() };
        assert_eq!(std::fs::metadata(&env.python).unwrap().uid(), me);
    }
    canary.nothing_planted();

    // Without the permission, the same set is not served from that venv.
    let wheels_only = manager.prepare(&set(&[PARENT]), true).unwrap();
    assert_ne!(wheels_only.venv, env.venv);
    assert_eq!(wheels_only.missing, [PARENT], "{wheels_only:?}");
}

#[test]
fn only_a_real_file_of_site_packages_counts_as_library_code() {
    let cache = tempfile::tempdir().unwrap();
    let manager = manager(cache.path());
    let env = manager.prepare(&BTreeSet::new(), false).unwrap();
    let site = python(&env, "import sysconfig; print(sysconfig.get_paths()['purelib'])").unwrap();
    let site = PathBuf::from(site);
    std::fs::create_dir_all(site.join("pandas")).unwrap();
    let real = site.join("pandas").join("_optional.py");
    std::fs::write(&real, "").unwrap();
    assert_eq!(env.site_relative(real.to_str().unwrap()), Some(PathBuf::from("pandas/_optional.py")));
    // Named by a path that leaves and re-enters the venv: still that file.
    let detour = format!("{}/../site-packages/pandas/_optional.py", site.display());
    assert_eq!(env.site_relative(&detour), Some(PathBuf::from("pandas/_optional.py")));

    // What a fragment may claim instead: a made-up file, a file elsewhere,
    // a symlink in site-packages that leads out, the folder itself.
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("pandas").join("_optional.py");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    std::fs::write(&elsewhere, "").unwrap();
    std::os::unix::fs::symlink(&elsewhere, site.join("pandas").join("link.py")).unwrap();
    for claim in [
        site.join("pandas").join("missing.py").display().to_string(),
        elsewhere.display().to_string(),
        site.join("pandas").join("link.py").display().to_string(),
        site.join("pandas").display().to_string(),
        "pandas/_optional.py".to_string(),
        "<string>".to_string(),
    ] {
        assert_eq!(env.site_relative(&claim), None, "{claim}");
    }
}
