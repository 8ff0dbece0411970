//! Isolated virtual environments built with `uv`, one per set of
//! distributions, reused across runs and processes.
//!
//! Layout under `<cache>/envs/`:
//!
//! * `<key>/` — a complete venv. It is built in `.build-*/venv` and renamed
//!   into place only after its marker file is written, so a venv at its final
//!   path is never half-built. Venvs are created `--relocatable`, which keeps
//!   console scripts working after the rename.
//! * `<key>.lock` — held while a process builds that key.
//! * `<key>.outcome.json` — for a requested set that only partly installed:
//!   which venv holds the part that did, and why the rest failed.
//!
//! uv runs contained (`contain.rs`): scrubbed environment, bubblewrap, an
//! unprivileged uid as root. Installs are wheels only, except for the
//! distributions the caller allows to be built from source; that set is part
//! of the key, so a venv in which build code ran is never reused for a
//! wheels-only request (nor the other way round).

use super::contain::{self, Containment, InstallerContainment, Job};
use super::error::EnvError;
use super::installed;
use super::process::{self, RunError};
use super::stdlib::{self, hex};
use super::toolchain::Toolchain;
use crate::knowledge::{is_valid_distribution_name, normalize_distribution, requirement_name};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Creating an empty venv takes well under a second; this is for a machine
/// under heavy load.
const VENV_TIMEOUT: Duration = Duration::from_secs(120);
/// One `uv pip install` (download, build, install).
const INSTALL_TIMEOUT: Duration = Duration::from_secs(600);
/// All installs of one build together, the all-at-once attempt and the
/// one-by-one retries: bounded so a list of slow builds can't take hours.
const INSTALL_BUDGET: Duration = Duration::from_secs(1200);
/// How long a process waits for another one building the same key.
const LOCK_WAIT: Duration = Duration::from_secs(1800);
/// With `install`, failures recorded this recently are reported again
/// instead of retried, so an edit-run loop doesn't re-run a failing build
/// each time; after this, a fixed network or index gets its chance.
const FAILURE_TTL: Duration = Duration::from_secs(900);
/// Leftover build directories (from a killed process) older than this are
/// removed. Far above the longest possible build.
const STALE_BUILD: Duration = Duration::from_secs(6 * 3600);

const MARKER: &str = ".runnable-complete";
const BUILD_PREFIX: &str = ".build-";

/// A ready virtual environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Environment {
    /// The venv's interpreter (`<venv>/bin/python`).
    pub python: PathBuf,
    pub venv: PathBuf,
    /// The environment key: a hash of the base interpreter, of the
    /// distributions the venv actually holds and of its version constraints.
    pub key: String,
    /// Version constraints it was built with (`pandas<2`), empty for the
    /// newest releases.
    pub constraints: Vec<String>,
    /// Requested distributions the venv has.
    pub installed: Vec<String>,
    /// Requested distributions it does not have (not installed because
    /// installing was not allowed, or because installing failed).
    pub missing: Vec<String>,
    /// Distributions whose installation failed, each with a short reason
    /// (possibly recorded by an earlier attempt).
    pub failed: Vec<(String, String)>,
    /// Programs see `venv`'s site-packages. `false` for the base
    /// interpreter itself, run with `-S` (the standard library only), which
    /// stands in for a venv when there is no `uv` to build one.
    pub site_packages: bool,
}

impl Environment {
    /// `file` relative to the venv's site-packages, when it really is a file
    /// there (resolved: no `..` and no symlink leads out): whatever a run
    /// reports about a path, this is what the host checks.
    pub fn site_relative(&self, file: &str) -> Option<PathBuf> {
        let file = std::fs::canonicalize(file).ok()?;
        if !file.is_file() {
            return None;
        }
        site_dirs(&self.venv)
            .into_iter()
            .filter_map(|dir| std::fs::canonicalize(dir).ok())
            .find_map(|dir| file.strip_prefix(&dir).ok().map(Path::to_path_buf))
    }
}

/// Builds and reuses venvs for one base interpreter.
#[derive(Debug, Clone)]
pub struct EnvManager {
    toolchain: Toolchain,
    cache_dir: PathBuf,
    /// How uv is contained on this machine, found out at the first build.
    containment: Arc<OnceLock<Containment>>,
    /// Where uv's allowed variables come from (None: this process's
    /// environment, read at each command).
    host_env: Option<Arc<Vec<(OsString, OsString)>>>,
}

/// What happened to a requested set that only partly installed.
#[derive(Debug, Serialize, Deserialize)]
struct Outcome {
    key: String,
    installed: Vec<String>,
    failed: Vec<(String, String)>,
    recorded_unix: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    python: PathBuf,
    python_version: String,
    distributions: Vec<String>,
    #[serde(default)]
    constraints: Vec<String>,
    /// Distributions that were allowed to be built from source.
    #[serde(default)]
    builds: Vec<String>,
    created_unix: u64,
}

/// A venv under construction in its own temporary directory.
struct Build {
    _dir: tempfile::TempDir,
    venv: PathBuf,
    installed: Vec<String>,
    failed: Vec<(String, String)>,
}

impl EnvManager {
    /// `cache_dir` defaults to the user cache directory (`$XDG_CACHE_HOME`
    /// or `~/.cache` on Linux) joined with `runnable`, or a directory in the
    /// system temp dir when there is no home.
    pub fn new(toolchain: Toolchain, cache_dir: Option<PathBuf>) -> Self {
        let cache_dir = cache_dir
            .or_else(|| dirs::cache_dir().map(|dir| dir.join("runnable")))
            .unwrap_or_else(|| std::env::temp_dir().join("runnable-cache"));
        EnvManager {
            toolchain,
            cache_dir,
            containment: Arc::new(OnceLock::new()),
            host_env: None,
        }
    }

    /// Take uv's allowed variables (see `contain::PASSED`) from `vars`
    /// instead of this process's environment.
    pub fn with_host_env(mut self, vars: Vec<(OsString, OsString)>) -> Self {
        self.host_env = Some(Arc::new(vars));
        self
    }

    /// How the installer is contained here (bubblewrap, uid, what is missing).
    pub fn installer_containment(&self) -> InstallerContainment {
        self.containment_plan().map(Containment::report).unwrap_or(InstallerContainment {
            bubblewrap: false,
            unprivileged_uid: None,
            note: Some("`uv` was not found: nothing can be installed".into()),
        })
    }

    fn containment_plan(&self) -> Option<&Containment> {
        let uv = self.toolchain.uv.as_deref()?;
        Some(self.containment.get_or_init(|| {
            let home = self
                .host_env()
                .into_iter()
                .find(|(name, _)| name == "HOME")
                .map(|(_, value)| PathBuf::from(value))
                .or_else(dirs::home_dir);
            Containment::probe(&self.toolchain, uv, &self.cache_dir, home)
        }))
    }

    fn host_env(&self) -> Vec<(OsString, OsString)> {
        match &self.host_env {
            Some(vars) => vars.as_ref().clone(),
            None => std::env::vars_os().collect(),
        }
    }

    pub fn toolchain(&self) -> &Toolchain {
        &self.toolchain
    }

    pub fn cache_dir(&self) -> &Path {
        &self.cache_dir
    }

    /// The base interpreter's standard-library module names (cached on disk).
    pub fn stdlib_modules(&self) -> Result<BTreeSet<String>, EnvError> {
        stdlib::stdlib_modules(&self.toolchain, &self.cache_dir)
    }

    /// The key of the venv holding exactly `distributions` (names compared
    /// in normalised form: `PyYAML` and `pyyaml` share a key).
    pub fn env_key(&self, distributions: &BTreeSet<String>) -> String {
        self.constrained_key(distributions, &[])
    }

    /// The key of the venv holding `distributions` built with `constraints`
    /// (the same as [`EnvManager::env_key`] when there are none).
    pub fn constrained_key(&self, distributions: &BTreeSet<String>, constraints: &[String]) -> String {
        let names: BTreeSet<String> = distributions
            .iter()
            .map(|name| normalize_distribution(name))
            .collect();
        self.key_of(names.iter(), constraints, &BTreeSet::new())
    }

    /// A venv with as many of `distributions` as possible.
    ///
    /// A complete venv for exactly this set is reused. Otherwise, without
    /// `install`, the venv of an earlier partial install of this set is
    /// reused if there is one, else an empty venv (always allowed), and
    /// `missing` lists what it lacks. With `install`, the set is installed
    /// all at once, or, if that fails, one by one; each failure is recorded
    /// with a short reason and the venv is keyed on what did install.
    /// Invalid names are never passed to `uv`: they are reported as failed.
    pub fn prepare(
        &self,
        distributions: &BTreeSet<String>,
        install: bool,
    ) -> Result<Environment, EnvError> {
        self.prepare_constrained(distributions, &[], install)
    }

    /// Like [`EnvManager::prepare`], with version `constraints` (`pandas<2`,
    /// `numpy<1.24`) that the resolver must respect, also for distributions
    /// only installed as dependencies. The venv has its own key (the
    /// constraints are part of it), so it is cached beside the newest one.
    /// The constrained distributions are installed from wheels only: an old
    /// release without a wheel for this interpreter fails fast instead of
    /// being built from source. A constraint that is not a plain version
    /// bound (`name<2`, `name>=1,<2`) is dropped, never passed to `uv`.
    pub fn prepare_constrained(
        &self,
        distributions: &BTreeSet<String>,
        constraints: &[String],
        install: bool,
    ) -> Result<Environment, EnvError> {
        self.prepare_allowing(distributions, constraints, install, &BTreeSet::new())
    }

    /// Like [`EnvManager::prepare_constrained`], allowing the distributions
    /// of `builds` (and only those, as requested or as dependencies) to be
    /// built from a source archive when no wheel fits. Building runs the
    /// archive's code, contained like uv itself. The set is part of the key.
    pub fn prepare_allowing(
        &self,
        distributions: &BTreeSet<String>,
        constraints: &[String],
        install: bool,
        builds: &BTreeSet<String>,
    ) -> Result<Environment, EnvError> {
        let builds: BTreeSet<String> = builds
            .iter()
            .map(|name| name.trim())
            .filter(|name| is_valid_distribution_name(name))
            .map(normalize_distribution)
            .collect();
        let builds = &builds;
        let mut constraints: Vec<String> = constraints
            .iter()
            .map(|c| c.trim().to_string())
            .filter(|c| requirement_name(c).is_some())
            .collect();
        constraints.sort();
        constraints.dedup();
        let constraints = &constraints[..];
        if self.toolchain.uv.is_none() {
            // Only installing needs uv: the standard library runs as it is.
            return Ok(self.base_environment(distributions, install));
        }
        let envs = self.envs_dir();
        std::fs::create_dir_all(&envs).map_err(|error| {
            EnvError::io(
                format!("cannot create the cache directory {}", envs.display()),
                error,
            )
        })?;
        remove_stale_builds(&envs);

        // Normalised name -> name as requested (the first spelling wins).
        let mut requested: BTreeMap<String, String> = BTreeMap::new();
        let mut refused = Vec::new();
        for name in distributions {
            let name = name.trim();
            if is_valid_distribution_name(name) {
                requested
                    .entry(normalize_distribution(name))
                    .or_insert_with(|| name.to_string());
            } else {
                refused.push((
                    name.to_string(),
                    "not a valid distribution name".to_string(),
                ));
            }
        }
        let wanted: Vec<String> = requested.values().cloned().collect();
        let key = self.key_of(requested.keys(), constraints, builds);

        let mut env = if let Some(env) = self.reuse(&key, &wanted, constraints, install) {
            env
        } else if !install {
            self.empty_env(&wanted)?
        } else {
            let _lock = self.lock(&key)?;
            // Another process may have finished it while we waited.
            match self.reuse(&key, &wanted, constraints, install) {
                Some(env) => env,
                None => self.install(&key, &wanted, constraints, builds)?,
            }
        };
        for (name, reason) in refused {
            env.missing.push(name.clone());
            env.failed.push((name, reason));
        }
        Ok(env)
    }

    /// A finished venv for `key`: complete for the whole set, or the venv of
    /// a recorded partial install (with `install`, only a recent record).
    fn reuse(&self, key: &str, wanted: &[String], constraints: &[String], install: bool) -> Option<Environment> {
        if self.is_complete(key) {
            return Some(self.environment(key, wanted.to_vec(), constraints, Vec::new(), Vec::new()));
        }
        let outcome = self.read_outcome(key)?;
        if !self.is_complete(&outcome.key) {
            return None;
        }
        if install && now_unix().saturating_sub(outcome.recorded_unix) > FAILURE_TTL.as_secs() {
            return None;
        }
        let have: BTreeSet<String> = outcome
            .installed
            .iter()
            .map(|name| normalize_distribution(name))
            .collect();
        let missing = wanted
            .iter()
            .filter(|name| !have.contains(&normalize_distribution(name)))
            .cloned()
            .collect();
        Some(self.environment(&outcome.key, outcome.installed, constraints, missing, outcome.failed))
    }

    /// The base interpreter without site-packages, for a machine without
    /// `uv`: every requested distribution is missing, and when installing
    /// was asked for, each says why it was not installed.
    fn base_environment(&self, distributions: &BTreeSet<String>, install: bool) -> Environment {
        let missing: Vec<String> = distributions.iter().map(|d| d.trim().to_string()).filter(|d| !d.is_empty()).collect();
        let failed = if install {
            missing.iter().map(|d| (d.clone(), "`uv` was not found on PATH; install it with `pip install uv` to install packages".to_string())).collect()
        } else {
            Vec::new()
        };
        Environment {
            python: self.toolchain.python.clone(),
            venv: PathBuf::new(),
            key: "base".to_string(),
            constraints: Vec::new(),
            installed: Vec::new(),
            missing,
            failed,
            site_packages: false,
        }
    }

    /// The empty venv, standing in for `wanted` when installing is not allowed.
    fn empty_env(&self, wanted: &[String]) -> Result<Environment, EnvError> {
        let key = self.key_of(std::iter::empty::<&String>(), &[], &BTreeSet::new());
        if !self.is_complete(&key) {
            let _lock = self.lock(&key)?;
            if !self.is_complete(&key) {
                let build = self.build(&[], &[], &BTreeSet::new())?;
                self.finish(build, &key, &[], &BTreeSet::new())?;
            }
        }
        Ok(self.environment(&key, Vec::new(), &[], wanted.to_vec(), Vec::new()))
    }

    /// Build `wanted` (the caller holds the lock of `key`, its set's key).
    fn install(&self, key: &str, wanted: &[String], constraints: &[String], builds: &BTreeSet<String>) -> Result<Environment, EnvError> {
        let build = self.build(wanted, constraints, builds)?;
        let installed = build.installed.clone();
        let failed = build.failed.clone();
        let actual = self.key_of(installed.iter().map(|name| normalize_distribution(name)), constraints, builds);
        if actual == key {
            self.finish(build, key, constraints, builds)?;
            return Ok(self.environment(key, installed, constraints, Vec::new(), Vec::new()));
        }
        // Only part installed: the venv belongs under the key of that part.
        // Its set is strictly smaller than ours, so taking its lock while
        // holding ours can't deadlock.
        {
            let _lock = self.lock(&actual)?;
            if !self.is_complete(&actual) {
                self.finish(build, &actual, constraints, builds)?;
            }
        }
        let outcome = Outcome {
            key: actual.clone(),
            installed: installed.clone(),
            failed: failed.clone(),
            recorded_unix: now_unix(),
        };
        self.write_outcome(key, &outcome)?;
        let missing = wanted
            .iter()
            .filter(|name| !installed.contains(name))
            .cloned()
            .collect();
        Ok(self.environment(&actual, installed, constraints, missing, failed))
    }

    /// Create a venv in a fresh build directory and install `wanted` into it:
    /// all at once, else one by one.
    fn build(&self, wanted: &[String], constraints: &[String], builds: &BTreeSet<String>) -> Result<Build, EnvError> {
        let envs = self.envs_dir();
        let dir = tempfile::Builder::new()
            .prefix(BUILD_PREFIX)
            .tempdir_in(&envs)
            .map_err(|error| {
                EnvError::io(
                    format!("cannot create a build directory in {}", envs.display()),
                    error,
                )
            })?;
        let containment = self.containment_plan().ok_or(EnvError::UvNotFound)?;
        // Absolute: uv runs in the build directory, and binds need real paths.
        let absolute = |path: PathBuf| std::path::absolute(&path).unwrap_or(path);
        let uv_cache = absolute(contain::uv_cache_dir(&self.cache_dir, !builds.is_empty()));
        let hand_over = |path: &Path, scratch: bool| {
            containment.hand_over(path, scratch).map_err(|error| {
                EnvError::io(format!("cannot prepare {} for the installer", path.display()), error)
            })
        };
        let build_dir = absolute(dir.path().to_path_buf());
        hand_over(&build_dir, true)?;
        hand_over(&uv_cache, false)?;
        let job = Job { build_dir: &build_dir, uv_cache: &uv_cache, host_env: self.host_env(), read: &[] };
        let venv = build_dir.join("venv");
        let mut args: Vec<OsString> = ["venv", "--no-progress", "--no-python-downloads", "--relocatable", "--python"]
            .map(OsString::from)
            .to_vec();
        args.push(self.toolchain.python.clone().into());
        args.push(venv.clone().into());
        let mut command = self.uv_command(containment, &job, &args);
        match self.run_uv(&mut command, VENV_TIMEOUT)? {
            Ok(()) => {}
            Err(failed) => {
                let mut reason = failed.reason;
                if reason.contains("unexpected argument") {
                    reason.push_str("; this uv is too old, upgrade it with `pip install -U uv`");
                }
                return Err(EnvError::Uv {
                    command: process::describe(&command),
                    reason,
                });
            }
        }
        let mut build = Build {
            _dir: dir,
            venv,
            installed: Vec::new(),
            failed: Vec::new(),
        };
        if wanted.is_empty() {
            self.take_back(containment, &build.venv)?;
            return Ok(build);
        }
        let constraints_file = if constraints.is_empty() {
            None
        } else {
            let path = build_dir.join("constraints.txt");
            std::fs::write(&path, constraints.join("\n") + "\n").map_err(|error| {
                EnvError::io(format!("cannot write {}", path.display()), error)
            })?;
            Some(path)
        };
        let pins = Pins { file: constraints_file.as_deref(), builds };
        let install = Install { containment, job: &job, venv: &build.venv, pins: &pins, deadline: Instant::now() + INSTALL_BUDGET };

        match self.pip_install(&install, wanted)? {
            Ok(()) => build.installed = wanted.to_vec(),
            Err(reason) if wanted.len() == 1 => build.failed.push((wanted[0].clone(), reason)),
            // One bad name fails the whole batch: find out which.
            Err(_) => {
                for name in wanted {
                    match self.pip_install(&install, std::slice::from_ref(name))? {
                        Ok(()) => build.installed.push(name.clone()),
                        Err(reason) => build.failed.push((name.clone(), reason)),
                    }
                }
            }
        }
        self.take_back(containment, &build.venv)?;
        Ok(build)
    }

    /// Normalised distribution name -> version of what `venv` holds, as
    /// `uv pip list` says (empty when it cannot say; the reason is logged).
    /// uv runs contained like every uv command: it starts the venv's
    /// interpreter, and a package's `.pth` file runs code at that start.
    pub fn installed_versions(&self, venv: &Path) -> BTreeMap<String, String> {
        // Without uv nothing was ever installed: every environment is then
        // the base interpreter (`base_environment`), and no venv holds a
        // distribution, so there is nothing to list.
        let Some(containment) = self.containment_plan() else { return BTreeMap::new() };
        self.list_installed(containment, venv).unwrap_or_else(|error| {
            tracing::warn!("cannot list what {} holds: {error}", venv.display());
            BTreeMap::new()
        })
    }

    fn list_installed(&self, containment: &Containment, venv: &Path) -> Result<BTreeMap<String, String>, EnvError> {
        let envs = self.envs_dir();
        // uv's home and temporary files: a build directory of its own (a
        // stale one is removed like any other).
        let scratch = tempfile::Builder::new().prefix(BUILD_PREFIX).tempdir_in(&envs).map_err(|error| EnvError::io(format!("cannot create a directory in {}", envs.display()), error))?;
        let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let (scratch_dir, uv_cache, venv) = (absolute(scratch.path()), absolute(&contain::uv_cache_dir(&self.cache_dir, false)), absolute(venv));
        for (path, with_scratch) in [(&scratch_dir, true), (&uv_cache, false)] {
            containment.hand_over(path, with_scratch).map_err(|error| EnvError::io(format!("cannot prepare {} for the installer", path.display()), error))?;
        }
        let job = Job { build_dir: &scratch_dir, uv_cache: &uv_cache, host_env: self.host_env(), read: std::slice::from_ref(&venv) };
        let mut command = self.uv_command(containment, &job, &installed::pip_list_args(&venv_python(&venv)));
        let described = process::describe(&command);
        let describe = || described.clone();
        let done = match process::run(&mut command, VENV_TIMEOUT) {
            Ok(done) => done,
            Err(RunError::Timeout) => return Err(EnvError::Timeout { command: describe(), secs: VENV_TIMEOUT.as_secs() }),
            Err(RunError::Spawn(error)) | Err(RunError::Wait(error)) => return Err(EnvError::io(format!("cannot run `{}`", describe()), error)),
        };
        if !done.status.success() {
            return Err(EnvError::Uv { command: describe(), reason: short_reason(&done.stderr, &done.status.to_string()) });
        }
        installed::parse_pip_list(&done.stdout).map_err(|error| EnvError::Uv { command: describe(), reason: format!("its output is not the JSON list: {error}") })
    }

    /// The venv's files become ours again (see `Containment::take_back`).
    fn take_back(&self, containment: &Containment, venv: &Path) -> Result<(), EnvError> {
        containment
            .take_back(venv)
            .map_err(|error| EnvError::io(format!("cannot take back {} from the installer", venv.display()), error))
    }

    /// `uv pip install` into the build's venv, wheels only except for the
    /// allowed builds: `Ok(Ok(()))` on success, `Ok(Err(reason))` when uv
    /// failed or ran out of time, `Err` when uv could not be run.
    ///
    /// uv has no "wheels only, but these may be built" switch: `--no-binary
    /// NAME` on top of `--only-binary :all:` allows building NAME but also
    /// refuses its wheels. So the first attempt is wheels only, and an
    /// allowed distribution is built from source only once uv said it has
    /// no usable wheel.
    fn pip_install(&self, install: &Install, names: &[String]) -> Result<Result<(), String>, EnvError> {
        let mut from_source: BTreeSet<String> = BTreeSet::new();
        loop {
            let left = install.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Err(format!(
                    "not attempted: the {} s installation budget ran out",
                    INSTALL_BUDGET.as_secs()
                )));
            }
            let args = pip_install_args(&venv_python(install.venv), install.pins.file, &from_source, names);
            let mut command = self.uv_command(install.containment, install.job, &args);
            let failed = match self.run_uv(&mut command, left.min(INSTALL_TIMEOUT))? {
                Ok(()) => return Ok(Ok(())),
                Err(failed) => failed,
            };
            let allowed: Vec<String> = failed
                .source_only
                .iter()
                .filter(|name| install.pins.builds.contains(*name) && !from_source.contains(*name))
                .cloned()
                .collect();
            if allowed.is_empty() {
                let refused = failed.source_only.iter().find(|name| !install.pins.builds.contains(*name));
                return Ok(Err(match refused {
                    Some(name) => source_only_reason(name, names),
                    None => failed.reason,
                }));
            }
            from_source.extend(allowed);
        }
    }

    /// `uv <args>`, contained.
    fn uv_command(&self, containment: &Containment, job: &Job, args: &[OsString]) -> Command {
        // A neutral working directory (the build's): a pyproject.toml or
        // uv.toml in the user's current directory must not change how caches
        // are built.
        containment.command(args, job)
    }

    /// Run a uv command: `Ok(Err(failure))` for a failure or a timeout (a
    /// short reason for a report), `Err` only when uv cannot be started.
    fn run_uv(
        &self,
        command: &mut Command,
        timeout: Duration,
    ) -> Result<Result<(), Failed>, EnvError> {
        match process::run(command, timeout) {
            Ok(done) if done.status.success() => Ok(Ok(())),
            Ok(done) => Ok(Err(Failed {
                reason: short_reason(&done.stderr, &done.status.to_string()),
                source_only: source_only(&done.stderr),
            })),
            Err(RunError::Timeout) => Ok(Err(Failed {
                reason: format!("did not finish within {} s and was stopped", timeout.as_secs()),
                source_only: Vec::new(),
            })),
            Err(RunError::Spawn(error)) | Err(RunError::Wait(error)) => Err(EnvError::io(
                format!("cannot run `{}`", process::describe(command)),
                error,
            )),
        }
    }

    /// Mark the build complete and move it to `<envs>/<key>` (the caller
    /// holds the lock of `key`).
    fn finish(&self, build: Build, key: &str, constraints: &[String], builds: &BTreeSet<String>) -> Result<(), EnvError> {
        let marker = Marker {
            python: self.toolchain.python.clone(),
            python_version: self.toolchain.python_version.clone(),
            distributions: build.installed.clone(),
            constraints: constraints.to_vec(),
            builds: builds.iter().cloned().collect(),
            created_unix: now_unix(),
        };
        let json = serde_json::to_vec_pretty(&marker).unwrap_or_default();
        let marker_path = build.venv.join(MARKER);
        std::fs::write(&marker_path, json).map_err(|error| {
            EnvError::io(format!("cannot write {}", marker_path.display()), error)
        })?;
        let dest = self.venv_dir(key);
        if dest.exists() {
            // Not complete (we hold the lock and checked): a leftover.
            std::fs::remove_dir_all(&dest).map_err(|error| {
                EnvError::io(
                    format!("cannot remove the incomplete venv {}", dest.display()),
                    error,
                )
            })?;
        }
        std::fs::rename(&build.venv, &dest).map_err(|error| {
            EnvError::io(
                format!("cannot move the new venv to {}", dest.display()),
                error,
            )
        })
    }

    fn lock(&self, key: &str) -> Result<File, EnvError> {
        let path = self.envs_dir().join(format!("{key}.lock"));
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|error| {
                EnvError::io(
                    format!("cannot open the lock file {}", path.display()),
                    error,
                )
            })?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(EnvError::LockTimeout {
                        lock: path,
                        secs: LOCK_WAIT.as_secs(),
                    })
                }
                Err(TryLockError::Error(error)) => {
                    return Err(EnvError::io(
                        format!("cannot lock {}", path.display()),
                        error,
                    ))
                }
            }
        }
    }

    fn read_outcome(&self, key: &str) -> Option<Outcome> {
        let text = std::fs::read_to_string(self.outcome_path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    fn write_outcome(&self, key: &str, outcome: &Outcome) -> Result<(), EnvError> {
        let path = self.outcome_path(key);
        let json = serde_json::to_vec_pretty(outcome).unwrap_or_default();
        let write = || -> std::io::Result<()> {
            let mut file = tempfile::NamedTempFile::new_in(self.envs_dir())?;
            std::io::Write::write_all(&mut file, &json)?;
            file.persist(&path).map_err(|error| error.error)?;
            Ok(())
        };
        write().map_err(|error| EnvError::io(format!("cannot write {}", path.display()), error))
    }

    fn environment(
        &self,
        key: &str,
        installed: Vec<String>,
        constraints: &[String],
        missing: Vec<String>,
        failed: Vec<(String, String)>,
    ) -> Environment {
        let venv = self.venv_dir(key);
        Environment {
            python: venv_python(&venv),
            venv,
            key: key.to_string(),
            constraints: constraints.to_vec(),
            installed,
            missing,
            failed,
            site_packages: true,
        }
    }

    fn is_complete(&self, key: &str) -> bool {
        let venv = self.venv_dir(key);
        venv.join(MARKER).is_file() && venv_python(&venv).exists()
    }

    /// Hash of the base interpreter, the normalised distribution names, the
    /// (sorted) constraints and the distributions allowed to be built; without
    /// constraints and builds the key is the one venvs had before those
    /// existed, so they stay valid.
    ///
    /// The whole allowed set counts, not only the requested names in it: an
    /// allowed name may enter as a dependency, and a wheels-only request
    /// must never get a venv in which build code ran.
    fn key_of<I, S>(&self, normalized_names: I, constraints: &[String], builds: &BTreeSet<String>) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut names: Vec<String> = normalized_names
            .into_iter()
            .map(|name| name.as_ref().to_string())
            .collect();
        names.sort();
        names.dedup();
        let mut hasher = Sha256::new();
        hasher.update(b"runnable-env-v1\0");
        hasher.update(self.toolchain.python.as_os_str().as_encoded_bytes());
        hasher.update(b"\0");
        hasher.update(self.toolchain.python_version.as_bytes());
        for name in &names {
            hasher.update(b"\0");
            hasher.update(name.as_bytes());
        }
        let mut constraints = constraints.to_vec();
        constraints.sort();
        constraints.dedup();
        for constraint in &constraints {
            hasher.update(b"\0constraint\0");
            hasher.update(constraint.as_bytes());
        }
        for name in builds {
            hasher.update(b"\0build\0");
            hasher.update(name.as_bytes());
        }
        hex(&hasher.finalize()[..12])
    }

    fn envs_dir(&self) -> PathBuf {
        self.cache_dir.join("envs")
    }

    fn venv_dir(&self, key: &str) -> PathBuf {
        self.envs_dir().join(key)
    }

    fn outcome_path(&self, key: &str) -> PathBuf {
        self.envs_dir().join(format!("{key}.outcome.json"))
    }
}

/// What one build passes to every `uv pip install`: the constraints file
/// and the (normalised) distributions allowed to be built from source.
struct Pins<'a> {
    file: Option<&'a Path>,
    builds: &'a BTreeSet<String>,
}

/// Everything `pip_install` needs besides the names.
struct Install<'a> {
    containment: &'a Containment,
    job: &'a Job<'a>,
    venv: &'a Path,
    pins: &'a Pins<'a>,
    /// All installs of the build share this deadline.
    deadline: Instant,
}

/// A uv command that failed.
struct Failed {
    /// One line for a report.
    reason: String,
    /// Normalised distributions uv refused because only a source archive
    /// was usable and building was off for them.
    source_only: Vec<String>,
}

/// The arguments of one `uv pip install`: wheels only (`--only-binary
/// :all:`) except the distributions in `from_source`, which are built.
fn pip_install_args(python: &Path, constraints: Option<&Path>, from_source: &BTreeSet<String>, names: &[String]) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["pip", "install", "--no-progress", "--no-python-downloads", "--python"].map(OsString::from).to_vec();
    args.push(python.into());
    args.extend(["--only-binary", ":all:"].map(OsString::from));
    for name in from_source {
        args.push("--no-binary".into());
        args.push(name.into());
    }
    if let Some(file) = constraints {
        args.push("--constraint".into());
        args.push(file.into());
    }
    args.extend(names.iter().map(OsString::from));
    args
}

/// The distributions uv refused for want of a wheel while building was off
/// (its hint: "Wheels are required for `NAME` because building from source
/// is disabled"), normalised.
fn source_only(stderr: &str) -> Vec<String> {
    const HINT: &str = "Wheels are required for `";
    let mut out: Vec<String> = Vec::new();
    for (at, _) in stderr.match_indices(HINT) {
        let rest = &stderr[at + HINT.len()..];
        let Some(end) = rest.find('`') else { continue };
        let (name, after) = (&rest[..end], &rest[end..]);
        if after.starts_with("` because building from source is disabled") && is_valid_distribution_name(name) {
            let name = normalize_distribution(name);
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Why `name` was not installed while installing `requested`: only a
/// source archive fits, and building it would run its code.
fn source_only_reason(name: &str, requested: &[String]) -> String {
    let own = requested.len() == 1 && normalize_distribution(&requested[0]) == name;
    let what = if own { String::new() } else { format!(" for its dependency {name}") };
    format!("only a source distribution is available{what}; building it runs its code: allow it with --allow-build {name}")
}

/// The site-packages folders a venv may have (`lib/python3.11/site-packages`).
fn site_dirs(venv: &Path) -> Vec<PathBuf> {
    let lib = if cfg!(windows) { venv.join("Lib") } else { venv.join("lib") };
    let mut dirs = vec![lib.join("site-packages")];
    if let Ok(entries) = std::fs::read_dir(&lib) {
        dirs.extend(entries.flatten().map(|entry| entry.path().join("site-packages")));
    }
    dirs
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0)
}

/// Remove build directories left behind by killed processes.
fn remove_stale_builds(envs: &Path) {
    let Ok(entries) = std::fs::read_dir(envs) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry
            .file_name()
            .to_string_lossy()
            .starts_with(BUILD_PREFIX)
            && entry
                .metadata()
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age > STALE_BUILD);
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The most telling line of uv's error output, for a one-line report:
/// a Python exception from a failed build, else the decisive clause of a
/// resolver explanation ("x was not found in the package registry"), else
/// the last line that is not a hint, without uv's `error:`/`cause:`
/// prefixes.
pub(crate) fn short_reason(stderr: &str, status: &str) -> String {
    const MAX: usize = 300;
    let mut lines: Vec<&str> = Vec::new();
    let mut in_hint = false;
    for line in stderr.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            in_hint = false;
            continue;
        }
        if trimmed.starts_with("hint:") {
            in_hint = true;
        }
        if !in_hint {
            lines.push(trimmed);
        }
    }

    let headline = lines
        .iter()
        .find_map(|line| line.strip_prefix("error:"))
        .map(str::trim);
    let exception = lines
        .iter()
        .rposition(|line| is_exception_line(line))
        .map(|at| {
            lines[at..]
                .iter()
                .take(3)
                .copied()
                .collect::<Vec<_>>()
                .join(" ")
        });
    let resolution = lines.iter().rev().find_map(|line| resolver_clause(line));
    let reason = match (exception, resolution) {
        (Some(exception), _) => match headline {
            Some(headline) => format!("{headline}: {exception}"),
            None => exception,
        },
        (None, Some(resolution)) => resolution,
        (None, None) => match lines.last() {
            Some(last) => strip_uv_prefix(last).to_string(),
            None => format!("uv failed ({status}) without saying why"),
        },
    };
    truncate(&reason, MAX)
}

/// The decisive clause of a resolver explanation: the last "because ..."
/// up to "and you require" (`Because x was not found in the package
/// registry and you require x, we can conclude ...` -> `x was not found in
/// the package registry`).
fn resolver_clause(line: &str) -> Option<String> {
    let start = line.rfind("ecause ")? + "ecause ".len();
    let rest = &line[start..];
    let end = [" and you require", ", we can conclude"]
        .iter()
        .filter_map(|stop| rest.find(stop))
        .min()
        .unwrap_or(rest.len());
    let clause = rest[..end].trim().trim_end_matches([',', '.']);
    (!clause.is_empty()).then(|| clause.to_string())
}

/// `ValueError: ...`, `Exception: ...`, `error: command 'gcc' failed ...`
/// style lines of a Python traceback or compiler.
fn is_exception_line(line: &str) -> bool {
    let Some((name, _)) = line.split_once(':') else {
        return false;
    };
    let ident = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && (ident.ends_with("Error") || ident.ends_with("Exception"))
}

fn strip_uv_prefix(line: &str) -> &str {
    let mut line = line.trim_start_matches(['×', '╰', '─', '▶', '│', ' ']);
    for prefix in ["error:", "cause:", "warning:"] {
        if let Some(rest) = line.strip_prefix(prefix) {
            line = rest.trim_start();
        }
    }
    line
}

fn truncate(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[OsString]) -> String {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn installs_are_wheels_only_except_the_builds_uv_asked_for() {
        let python = Path::new("/e/.build-x/venv/bin/python");
        let none = BTreeSet::new();
        assert_eq!(
            strings(&pip_install_args(python, None, &none, &["pandas".into()])),
            "pip install --no-progress --no-python-downloads --python /e/.build-x/venv/bin/python --only-binary :all: pandas"
        );
        let built: BTreeSet<String> = ["mysqlclient".to_string()].into();
        assert_eq!(
            strings(&pip_install_args(python, Some(Path::new("/e/c.txt")), &built, &["mysqlclient".into(), "six".into()])),
            "pip install --no-progress --no-python-downloads --python /e/.build-x/venv/bin/python --only-binary :all: \
             --no-binary mysqlclient --constraint /e/c.txt mysqlclient six"
        );
    }

    #[test]
    fn a_distribution_with_only_a_source_archive_is_named() {
        let stderr = "Using Python 3.11.7 environment at: venv\n\
            error: No solution found when resolving dependencies\n  \
            cause: Because runnable-f8-canary==1.0 has no usable wheels and only runnable-f8-canary==1.0 is available, \
            we can conclude that all versions of runnable-f8-canary cannot be used.\n\
            And because all versions of runnable-f8-parent depend on runnable-f8-canary and you require runnable-f8-parent, \
            we can conclude that your requirements are unsatisfiable.\n\n\
            hint: Wheels are required for `Runnable_F8.Canary` because building from source is disabled for all packages \
            (i.e., with `--no-build`)\n";
        assert_eq!(source_only(stderr), ["runnable-f8-canary"]);
        assert!(source_only("hint: Wheels are available for `pywin32` (v312) on the following platforms: `win32`").is_empty());
        assert_eq!(
            source_only_reason("runnable-f8-canary", &["runnable-f8-canary".into()]),
            "only a source distribution is available; building it runs its code: allow it with --allow-build runnable-f8-canary"
        );
        assert_eq!(
            source_only_reason("runnable-f8-canary", &["runnable-f8-parent".into()]),
            "only a source distribution is available for its dependency runnable-f8-canary; building it runs its code: \
             allow it with --allow-build runnable-f8-canary"
        );
    }

    #[test]
    fn reason_for_an_unknown_distribution() {
        let stderr = "Using Python 3.11.7 environment at: v2\n\
            error: No solution found when resolving dependencies\n  \
            cause: Because runnable-no-such-dist-xyz was not found in the package registry and \
            you require runnable-no-such-dist-xyz, we can conclude that your requirements are unsatisfiable.\n";
        assert_eq!(
            short_reason(stderr, "exit status: 1"),
            "runnable-no-such-dist-xyz was not found in the package registry"
        );
    }

    #[test]
    fn reason_for_a_failed_build_names_the_exception() {
        let stderr = "Using Python 3.11.7 environment at: v2\n\
            Resolved 1 package in 225ms\n   Building mysqlclient==2.3.2\n\
            error: Failed to build `mysqlclient==2.3.2`\n  \
            cause: The build backend returned an error\n  \
            cause: Call to `setuptools.build_meta.get_requires_for_build_wheel` failed (exit status: 1)\n\n\
            \x20        [stderr]\n\
            \x20        Traceback (most recent call last):\n\
            \x20          File \"<string>\", line 27, in find_package_name\n\
            \x20        Exception: Can not find valid pkg-config name.\n\
            \x20        Specify MYSQLCLIENT_CFLAGS and MYSQLCLIENT_LDFLAGS env vars manually\n\n\
            hint: Build failures usually indicate a problem with the package or the build environment\n";
        assert_eq!(
            short_reason(stderr, "exit status: 1"),
            "Failed to build `mysqlclient==2.3.2`: Exception: Can not find valid pkg-config name. \
             Specify MYSQLCLIENT_CFLAGS and MYSQLCLIENT_LDFLAGS env vars manually"
        );
    }

    #[test]
    fn reason_skips_hints_and_prefixes() {
        let stderr = "error: No solution found when resolving dependencies\n  \
            cause: Because pywin32<=302 has no wheels with a matching Python ABI tag and only \
            the following versions of pywin32 are available:\n    pywin32<=302\n    pywin32>=303\n\
            we can conclude that pywin32<303 cannot be used.\n\
            And because pywin32>=303 has no wheels with a matching platform tag (e.g., \
            `manylinux_2_36_x86_64`) and you require pywin32, we can conclude that your \
            requirements are unsatisfiable.\n\n\
            hint: Wheels are available for `pywin32` (v312) on the following platforms: `win32`\n";
        assert_eq!(
            short_reason(stderr, "exit status: 1"),
            "pywin32>=303 has no wheels with a matching platform tag (e.g., `manylinux_2_36_x86_64`)"
        );
        let stderr = "error: Failed to fetch: `https://index.invalid/simple/six/`\n  \
            cause: Request failed after 3 retries\n  cause: dns error: failed to lookup address\n";
        assert_eq!(
            short_reason(stderr, "exit status: 2"),
            "dns error: failed to lookup address"
        );
        assert_eq!(
            short_reason("", "exit status: 2"),
            "uv failed (exit status: 2) without saying why"
        );
        assert!(short_reason(&"x".repeat(1000), "").chars().count() <= 300);
    }
}
