//! Running `uv` contained. `uv pip install` downloads from the network and,
//! when a distribution has only a source archive (and the user allowed
//! building it), runs that archive's build code: it must not see the user's
//! secrets or files, nor write anywhere but the venv being built.
//!
//! Layers, each used when available:
//! - a scrubbed environment (always): only the variables in [`PASSED`] come
//!   from the host, `HOME` and `TMPDIR` point into the build directory, and
//!   uv's cache is one of ours ([`uv_cache_dir`]);
//! - bubblewrap: read-only root, private `/tmp`, tmpfs over the user's home
//!   and `/root` (the interpreter, uv and local indexes are bound back
//!   read-only), read-write only the build directory and uv's cache, own
//!   PID/IPC/UTS namespaces, a new session; the network stays shared because
//!   uv needs the package index;
//! - as root, an unprivileged uid ([`INSTALLER_UID`]), so build code cannot
//!   read root-only files such as `/etc/shadow`. The build directory and the
//!   cache are handed to that uid, and the finished venv is handed back.
//!
//! The argument lists are built by pure functions ([`scrubbed_env`],
//! [`bwrap_args`]); [`Containment::probe`] does the I/O of finding out what
//! this machine allows, once per [`super::EnvManager`].

use crate::host;
use crate::path_set::outermost;
use super::toolchain::{self, Toolchain};
use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The uid the installer runs as when we are root: above the sandbox's
/// worker range (60000-60999), so no fragment worker ever owns a venv file,
/// and below systemd's DynamicUser range (61184-65519).
pub const INSTALLER_UID: u32 = 61100;

/// Host variables uv may see, by exact name: what it needs to run (PATH,
/// the locale), the package sources the user configured for uv (or pip, for
/// build backends that call it), TLS trust and proxies. Nothing else, in
/// particular no tokens, cloud credentials or `XDG_*` directories.
pub const PASSED: &[&str] = &[
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "UV_INDEX_STRATEGY",
    "UV_NATIVE_TLS",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
];

/// Passed variables whose values may name local files or directories (a
/// `--find-links` folder, a `file://` index, a CA bundle under `$HOME`):
/// those are bound read-only into the sandbox so the settings keep working.
const PATH_VALUED: &[&str] = &[
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_FIND_LINKS",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
];

const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Whether a variable name looks like a credential. [`PASSED`] never
/// matches (a unit test checks it); [`scrubbed_env`] checks it again so that
/// a careless addition to the list cannot leak one.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    const MARKS: &[&str] = &["TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "_KEY", "APIKEY", "AUTH"];
    const PREFIXES: &[&str] = &["AWS_", "GITHUB_", "GH_", "GITLAB_", "AZURE_", "GOOGLE_", "GCP_", "OPENAI_", "ANTHROPIC_", "HF_", "NPM_", "CARGO_REGISTRY"];
    upper.ends_with("KEY") || MARKS.iter().any(|m| upper.contains(m)) || PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// What we set ourselves, whatever the host says.
#[derive(Debug, Clone)]
pub struct Ours<'a> {
    /// An empty directory of the build (never the user's home).
    pub home: &'a Path,
    pub tmp: &'a Path,
    pub uv_cache: &'a Path,
    /// Copy files from the cache into the venv instead of hard-linking
    /// them: when the installer runs as another uid, a hard link would make
    /// the venv's files the cache's inodes, writable by later installs.
    pub copy: bool,
}

/// The whole environment of a uv process: the allowed host variables (never
/// one that looks like a secret) and ours.
pub fn scrubbed_env<I>(host: I, ours: &Ours) -> Vec<(OsString, OsString)>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    let mut out: Vec<(OsString, OsString)> = host
        .into_iter()
        .filter(|(name, _)| name.to_str().is_some_and(|n| PASSED.contains(&n) && !is_secret_name(n)))
        .collect();
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    if !out.iter().any(|(name, _)| name == "PATH") {
        out.push(("PATH".into(), DEFAULT_PATH.into()));
    }
    out.push(("HOME".into(), ours.home.into()));
    out.push(("TMPDIR".into(), ours.tmp.into()));
    out.push(("UV_CACHE_DIR".into(), ours.uv_cache.into()));
    out.push(("UV_PYTHON_DOWNLOADS".into(), "never".into()));
    if ours.copy {
        out.push(("UV_LINK_MODE".into(), "copy".into()));
    }
    out
}

/// Local paths named by the passed settings (`/srv/wheels`,
/// `file:///srv/index`), absolute ones only.
pub fn local_paths(env: &[(OsString, OsString)]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (name, value) in env {
        if !name.to_str().is_some_and(|n| PATH_VALUED.contains(&n)) {
            continue;
        }
        let value = value.to_string_lossy();
        for token in value.split([',', ' ', '\n', '\t']).filter(|t| !t.is_empty()) {
            // `name=url` entries of UV_INDEX.
            let token = token.split_once('=').filter(|(n, _)| !n.contains('/')).map_or(token, |(_, url)| url);
            let path = token.strip_prefix("file://").unwrap_or(token);
            if path.starts_with('/') {
                out.push(PathBuf::from(path));
            }
        }
    }
    out
}

/// The filesystem of one contained uv command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mounts {
    /// Replaced by an empty tmpfs (the user's home, `/root`, `/tmp`, and,
    /// when dropping to another uid, folders that uid cannot traverse).
    pub hidden: Vec<PathBuf>,
    /// Bound back read-only (under a hidden folder): interpreter, uv, local
    /// indexes.
    pub read: Vec<PathBuf>,
    /// Bound read-write: the build directory and uv's cache.
    pub write: Vec<PathBuf>,
    pub chdir: PathBuf,
}

/// bubblewrap's arguments (before `--`) for `mounts`, pure. Directories on
/// the way to a bind inside a tmpfs are created 0755, so an unprivileged
/// uid can traverse them (bwrap would make them 0700).
pub fn bwrap_args(mounts: &Mounts, drop_caps: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"].map(OsString::from).to_vec();
    let push = |args: &mut Vec<OsString>, items: &[&OsStr]| args.extend(items.iter().map(|s| s.to_os_string()));
    let hidden = outermost(mounts.hidden.clone());
    let tmp = Path::new("/tmp");
    // Sticky and world-writable like the real ones: an unprivileged build
    // writes its temporary files there.
    push(&mut args, &["--perms".as_ref(), "1777".as_ref(), "--tmpfs".as_ref(), "/dev/shm".as_ref()]);
    for dir in &hidden {
        let perms = if dir == tmp { "1777" } else { "0755" };
        push(&mut args, &["--perms".as_ref(), perms.as_ref(), "--tmpfs".as_ref(), dir.as_os_str()]);
    }
    // What is readable needs a bind only where a tmpfs hides it; what is
    // writable always does (the root is read-only).
    let read = outermost(mounts.read.clone());
    let mut binds: Vec<(&PathBuf, bool)> = read
        .iter()
        .filter(|p| hidden.iter().any(|h| p.starts_with(h)))
        .map(|p| (p, false))
        .chain(mounts.write.iter().map(|p| (p, true)))
        .collect();
    // Outer paths first, so an inner bind is not covered by an outer one.
    binds.sort_by_key(|(p, rw)| (p.components().count(), p.to_path_buf(), *rw));
    binds.dedup_by(|a, b| a.0 == b.0);
    let mut made: BTreeSet<PathBuf> = BTreeSet::new();
    let mut bound: Vec<&Path> = Vec::new();
    for (path, rw) in binds {
        let mut ancestors: Vec<&Path> = path.ancestors().skip(1).filter(|a| a.parent().is_some()).collect();
        ancestors.reverse();
        for a in ancestors {
            let in_tmpfs = hidden.iter().any(|h| a.starts_with(h) && a != h);
            let in_bound = bound.iter().any(|b| a.starts_with(b));
            if in_tmpfs && !in_bound && made.insert(a.to_path_buf()) {
                push(&mut args, &["--perms".as_ref(), "0755".as_ref(), "--dir".as_ref(), a.as_os_str()]);
            }
        }
        let kind = if rw { "--bind" } else { "--ro-bind" };
        push(&mut args, &[kind.as_ref(), path.as_os_str(), path.as_os_str()]);
        bound.push(path);
    }
    for flag in ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session", "--die-with-parent"] {
        args.push(flag.into());
    }
    if drop_caps {
        // Root without a uid change: no capability to remount or reach
        // past the read-only binds.
        args.extend(["--cap-drop", "ALL"].map(OsString::from));
    }
    args.push("--chdir".into());
    args.push(mounts.chdir.clone().into());
    args
}

/// `setpriv`'s arguments (before `--`) that switch to `uid`.
pub fn setpriv_args(uid: u32) -> Vec<OsString> {
    [format!("--reuid={uid}"), format!("--regid={uid}"), "--clear-groups".into(), "--nnp".into()]
        .map(OsString::from)
        .to_vec()
}

/// How uv runs on this machine, found out once.
#[derive(Debug, Clone)]
pub struct Containment {
    bwrap: Option<PathBuf>,
    setpriv: Option<PathBuf>,
    /// The uid to run as (we are root and dropping is feasible).
    uid: Option<u32>,
    /// We are root.
    root: bool,
    /// uv itself (a pyenv shim resolved to the binary it runs).
    uv: PathBuf,
    /// What the interpreter needs to be read (its prefixes and bin dirs).
    interpreter: Vec<PathBuf>,
    /// The user's home and `/root`.
    homes: Vec<PathBuf>,
    note: Option<String>,
}

/// What the report says about the installer's containment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallerContainment {
    pub bubblewrap: bool,
    /// The uid uv runs as when it is not ours (we are root).
    pub unprivileged_uid: Option<u32>,
    /// Set when a layer is missing: what is not contained and why.
    pub note: Option<String>,
}

/// One contained uv command: the directories it may write and the host
/// environment its allowed variables come from.
pub struct Job<'a> {
    pub build_dir: &'a Path,
    pub uv_cache: &'a Path,
    pub host_env: Vec<(OsString, OsString)>,
    /// More it may read (a finished venv `uv pip list` looks into).
    pub read: &'a [PathBuf],
}

impl Containment {
    /// Find bubblewrap (and check it works), whether we are root and can
    /// drop to [`INSTALLER_UID`], the real uv and the interpreter's folders.
    pub fn probe(toolchain: &Toolchain, uv: &Path, cache_dir: &Path, home: Option<PathBuf>) -> Containment {
        let mut why_not = None;
        let bwrap = match host::working_bwrap(false) {
            Ok(path) => Some(path),
            Err(why) => {
                why_not = Some(why);
                None
            }
        };
        let root = host::is_root();
        let setpriv = if root { which::which("setpriv").ok() } else { None };
        let uv = real_uv(uv, &toolchain.python);
        let interpreter = interpreter_dirs(toolchain);
        let mut homes: Vec<PathBuf> = home.into_iter().filter(|h| h.is_absolute() && h.parent().is_some()).collect();
        homes.push(PathBuf::from("/root"));
        let mut not_dropped = None;
        let uid = if !root {
            None
        } else if host::account_ids().contains(&INSTALLER_UID) {
            not_dropped = Some(format!("uid {INSTALLER_UID} belongs to an account"));
            None
        } else if bwrap.is_some() && setpriv.is_none() {
            not_dropped = Some("setpriv (util-linux) is missing".to_string());
            None
        } else if bwrap.is_none() {
            // Without bwrap the real paths must be reachable by that uid.
            let mut needed = interpreter.clone();
            needed.push(uv.clone());
            needed.push(cache_dir.to_path_buf());
            match needed.iter().find_map(|p| host::blocking_ancestor(p)) {
                Some(blocked) => {
                    not_dropped = Some(format!("{} is not reachable by an unprivileged uid", blocked.display()));
                    None
                }
                None => Some(INSTALLER_UID),
            }
        } else {
            Some(INSTALLER_UID)
        };
        let mut notes = Vec::new();
        if let Some(why) = why_not {
            notes.push(format!(
                "{why}: the package installer (uv, and the build code of packages you allowed with --allow-build) \
                 runs with a scrubbed environment only, not isolated from your files"
            ));
        }
        if let Some(why) = not_dropped {
            notes.push(format!("the package installer runs as root ({why})"));
        }
        let note = (!notes.is_empty()).then(|| notes.join("; "));
        Containment { bwrap, setpriv, uid, root, uv, interpreter, homes, note }
    }

    pub fn report(&self) -> InstallerContainment {
        InstallerContainment { bubblewrap: self.bwrap.is_some(), unprivileged_uid: self.uid, note: self.note.clone() }
    }

    /// `uv <args>` contained for `job`.
    pub fn command<S: AsRef<OsStr>>(&self, args: &[S], job: &Job) -> Command {
        let home = job.build_dir.join("home");
        let tmp = job.build_dir.join("tmp");
        let ours = Ours { home: &home, tmp: &tmp, uv_cache: job.uv_cache, copy: self.uid.is_some() };
        let env = scrubbed_env(job.host_env.iter().cloned(), &ours);
        let mut argv: Vec<OsString> = Vec::new();
        let mut direct_drop = None;
        if let Some(bwrap) = &self.bwrap {
            let mut read = self.interpreter.clone();
            read.push(self.uv.parent().map_or_else(|| self.uv.clone(), Path::to_path_buf));
            read.extend(local_paths(&env).into_iter().filter(|p| p.exists()));
            read.extend(job.read.iter().cloned());
            let write = vec![job.build_dir.to_path_buf(), job.uv_cache.to_path_buf()];
            let mut hidden = self.homes.clone();
            hidden.push(PathBuf::from("/tmp"));
            if self.uid.is_some() {
                // Folders the unprivileged uid could not traverse on the way
                // to what it needs become traversable tmpfs (0755).
                hidden.extend(read.iter().chain(&write).filter_map(|p| host::blocking_ancestor(p)));
            }
            let mounts = Mounts { hidden, read, write, chdir: job.build_dir.to_path_buf() };
            argv.push(bwrap.into());
            argv.extend(bwrap_args(&mounts, self.root && self.uid.is_none()));
            argv.push("--".into());
            if let (Some(uid), Some(setpriv)) = (self.uid, &self.setpriv) {
                argv.push(setpriv.into());
                argv.extend(setpriv_args(uid));
                argv.push("--".into());
            }
        } else {
            direct_drop = self.uid;
        }
        argv.push(self.uv.clone().into());
        argv.extend(args.iter().map(|a| a.as_ref().to_os_string()));
        let mut command = Command::new(&argv[0]);
        command.args(&argv[1..]).env_clear().envs(env).current_dir(job.build_dir);
        if let Some(uid) = direct_drop {
            // SAFETY: the closure only calls async-signal-safe functions.
            unsafe {
                command.pre_exec(move || {
                    if libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setresgid(uid, uid, uid) != 0
                        || libc::setresuid(uid, uid, uid) != 0
                        || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        command
    }

    /// Make `dir` (and its `home`/`tmp`) ready for uv: created, and owned by
    /// the installer uid when there is one (all of it when it was not yet).
    pub fn hand_over(&self, dir: &Path, with_scratch: bool) -> io::Result<()> {
        std::fs::create_dir_all(dir)?;
        if with_scratch {
            std::fs::create_dir_all(dir.join("home"))?;
            std::fs::create_dir_all(dir.join("tmp"))?;
        }
        let Some(uid) = self.uid else { return Ok(()) };
        if std::fs::symlink_metadata(dir)?.uid() != uid {
            chown_tree(dir, |_| true, uid, uid)?;
        } else if with_scratch {
            for sub in ["home", "tmp"] {
                std::os::unix::fs::lchown(dir.join(sub), Some(uid), Some(uid))?;
            }
        }
        Ok(())
    }

    /// Give a finished venv back to us: what the installer uid owns there
    /// becomes ours, so a later install (or a build it runs) cannot change
    /// it. Files it does not own (it could have hard-linked someone else's)
    /// are left alone.
    pub fn take_back(&self, dir: &Path) -> io::Result<()> {
        let Some(uid) = self.uid else { return Ok(()) };
        // SAFETY: geteuid/getegid have no preconditions.
        let (me, group) = unsafe { (libc::geteuid(), libc::getegid()) };
        chown_tree(dir, |meta| meta.uid() == uid, me, group)
    }
}

/// lchown every entry of the tree at `root` (symlinks not followed) that
/// `pick` selects.
fn chown_tree(root: &Path, pick: impl Fn(&std::fs::Metadata) -> bool + Copy, uid: u32, gid: u32) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(root)?;
    if pick(&meta) {
        std::os::unix::fs::lchown(root, Some(uid), Some(gid))?;
    }
    if meta.is_dir() {
        for entry in std::fs::read_dir(root)? {
            chown_tree(&entry?.path(), pick, uid, gid)?;
        }
    }
    Ok(())
}

/// Our uv cache: `<cache>/uv` for wheels-only installs, `<cache>/uv-builds`
/// when builds are allowed, so wheels built from allowed source archives
/// (and anything their build code left in the cache) never serve a
/// wheels-only install. Ours rather than the user's `~/.cache/uv`: as root
/// it must be writable by the installer uid, and it must be bound into the
/// sandbox.
pub fn uv_cache_dir(cache_dir: &Path, builds: bool) -> PathBuf {
    cache_dir.join(if builds { "uv-builds" } else { "uv" })
}

/// The binary uv really is: a pyenv shim (a shell script that needs the
/// whole pyenv tree and `$HOME`) is replaced by the uv beside the
/// interpreter, which is what the shim would run.
fn real_uv(uv: &Path, python: &Path) -> PathBuf {
    let uv = std::fs::canonicalize(uv).unwrap_or_else(|_| uv.to_path_buf());
    if !is_script(&uv) {
        return uv;
    }
    let beside = [python.to_path_buf(), std::fs::canonicalize(python).unwrap_or_default()]
        .into_iter()
        .filter_map(|p| Some(p.parent()?.join("uv")))
        .find(|candidate| candidate.is_file() && !is_script(candidate));
    beside.and_then(|b| std::fs::canonicalize(b).ok()).unwrap_or(uv)
}

fn is_script(path: &Path) -> bool {
    let mut start = [0u8; 2];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut start)).is_ok() && &start == b"#!"
}

const PREFIXES: &str = "import sys, json\n\
print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]))\n";

/// The interpreter's prefixes and the folders of its executable (as run and
/// as resolved): what `uv venv` and the venv's python read.
fn interpreter_dirs(toolchain: &Toolchain) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Ok(done) = toolchain::run_script(&toolchain.python, PREFIXES, "it did not answer within") {
        if let Ok(prefixes) = serde_json::from_str::<Vec<String>>(done.stdout.trim()) {
            dirs.extend(prefixes.into_iter().map(PathBuf::from));
        }
    }
    for python in [toolchain.python.clone(), std::fs::canonicalize(&toolchain.python).unwrap_or_default()] {
        if let Some(dir) = python.parent() {
            dirs.push(dir.to_path_buf());
        }
    }
    let dirs = dirs.into_iter().filter(|d| d.is_absolute()).filter_map(|d| std::fs::canonicalize(d).ok()).collect();
    outermost(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))).collect()
    }

    fn strings(args: &[OsString]) -> String {
        args.iter().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_allow_list_holds_no_secret() {
        for name in PASSED {
            assert!(!is_secret_name(name), "{name}");
        }
        for name in ["GITHUB_TOKEN", "RUNNABLE_CANARY_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "OPENAI_API_KEY", "MY_SECRET", "DB_PASSWORD", "UV_INDEX_MINE_PASSWORD", "SSH_AUTH_SOCK", "GH_ENTERPRISE_HOST"] {
            assert!(is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn the_environment_keeps_only_allowed_names_and_sets_ours() {
        let host = os(&[
            ("PATH", "/usr/bin:/bin"),
            ("HOME", "/root"),
            ("GITHUB_TOKEN", "ghp_x"),
            ("RUNNABLE_CANARY_TOKEN", "canary"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("UV_INDEX_URL", "https://mirror.example/simple"),
            ("UV_CACHE_DIR", "/somewhere/else"),
            ("UV_LINK_MODE", "symlink"),
            ("XDG_CONFIG_HOME", "/root/.config"),
            ("PYTHONPATH", "/evil"),
            ("https_proxy", "http://proxy:3128"),
        ]);
        let ours = Ours { home: Path::new("/b/home"), tmp: Path::new("/b/tmp"), uv_cache: Path::new("/c/uv"), copy: true };
        let env = scrubbed_env(host, &ours);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.to_string_lossy().into_owned());
        assert_eq!(get("PATH").as_deref(), Some("/usr/bin:/bin"));
        assert_eq!(get("HOME").as_deref(), Some("/b/home"));
        assert_eq!(get("TMPDIR").as_deref(), Some("/b/tmp"));
        assert_eq!(get("UV_CACHE_DIR").as_deref(), Some("/c/uv"));
        assert_eq!(get("UV_PYTHON_DOWNLOADS").as_deref(), Some("never"));
        assert_eq!(get("UV_LINK_MODE").as_deref(), Some("copy"));
        assert_eq!(get("UV_INDEX_URL").as_deref(), Some("https://mirror.example/simple"));
        assert_eq!(get("https_proxy").as_deref(), Some("http://proxy:3128"));
        for gone in ["GITHUB_TOKEN", "RUNNABLE_CANARY_TOKEN", "AWS_SECRET_ACCESS_KEY", "XDG_CONFIG_HOME", "PYTHONPATH"] {
            assert_eq!(get(gone), None, "{gone}");
        }
        // Every name appears once: ours are never doubled by the host's.
        let names: BTreeSet<_> = env.iter().map(|(n, _)| n.clone()).collect();
        assert_eq!(names.len(), env.len(), "{env:?}");
        // Without a host PATH there is still one; without a uid change links stay uv's choice.
        let env = scrubbed_env(Vec::new(), &Ours { copy: false, ..ours });
        assert!(env.iter().any(|(n, v)| n == "PATH" && v == DEFAULT_PATH));
        assert!(!env.iter().any(|(n, _)| n == "UV_LINK_MODE"));
    }

    #[test]
    fn local_index_settings_name_their_folders() {
        let env = os(&[
            ("UV_FIND_LINKS", "/srv/wheels,https://example.org/links"),
            ("UV_INDEX", "internal=file:///srv/index other=https://x/simple"),
            ("SSL_CERT_FILE", "/root/ca.pem"),
            ("PATH", "/usr/bin"),
        ]);
        assert_eq!(local_paths(&env), [PathBuf::from("/srv/wheels"), PathBuf::from("/srv/index"), PathBuf::from("/root/ca.pem")]);
    }

    #[test]
    fn bubblewrap_hides_homes_and_binds_back_only_what_uv_needs() {
        let mounts = Mounts {
            hidden: vec!["/root".into(), "/tmp".into(), "/root/.cache".into()],
            read: vec!["/root/.pyenv/versions/3.11.7".into(), "/usr".into(), "/root/.pyenv/versions/3.11.7/bin".into()],
            write: vec!["/root/.cache/runnable/envs/.build-x".into(), "/root/.cache/runnable/uv".into(), "/srv/cache/uv".into()],
            chdir: "/root/.cache/runnable/envs/.build-x".into(),
        };
        let args = strings(&bwrap_args(&mounts, false));
        assert_eq!(
            args,
            "--ro-bind / / --dev /dev --proc /proc --perms 1777 --tmpfs /dev/shm \
             --perms 0755 --tmpfs /root --perms 1777 --tmpfs /tmp \
             --bind /srv/cache/uv /srv/cache/uv \
             --perms 0755 --dir /root/.cache --perms 0755 --dir /root/.cache/runnable \
             --bind /root/.cache/runnable/uv /root/.cache/runnable/uv \
             --perms 0755 --dir /root/.pyenv --perms 0755 --dir /root/.pyenv/versions \
             --ro-bind /root/.pyenv/versions/3.11.7 /root/.pyenv/versions/3.11.7 \
             --perms 0755 --dir /root/.cache/runnable/envs \
             --bind /root/.cache/runnable/envs/.build-x /root/.cache/runnable/envs/.build-x \
             --unshare-pid --unshare-ipc --unshare-uts --new-session --die-with-parent \
             --chdir /root/.cache/runnable/envs/.build-x"
        );
        // The network is uv's (the index); root without a uid change loses its capabilities.
        assert!(!args.contains("--unshare-net"));
        assert!(strings(&bwrap_args(&mounts, true)).contains("--cap-drop ALL"));
    }

    #[test]
    fn the_uid_change_is_complete() {
        assert_eq!(strings(&setpriv_args(61100)), "--reuid=61100 --regid=61100 --clear-groups --nnp");
    }

    #[test]
    fn builds_get_a_cache_of_their_own() {
        let cache = Path::new("/c");
        assert_eq!(uv_cache_dir(cache, false), Path::new("/c/uv"));
        assert_eq!(uv_cache_dir(cache, true), Path::new("/c/uv-builds"));
    }
}
