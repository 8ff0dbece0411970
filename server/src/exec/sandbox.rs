//! How a worker process is started: bubblewrap, an unprivileged uid, a clean
//! environment.
//!
//! Layers, each used when available (see `shared/notes/sandbox.md`):
//! - bubblewrap: read-only root, private `/tmp`, `/dev`, `/proc`, no network,
//!   own PID namespace, new session; only the worker's scratch directory is
//!   writable.
//! - an unprivileged uid when we run as root (RLIMIT_NPROC does not apply to
//!   uid 0): each worker of a pool gets its own uid from a range, leased with
//!   a lock file so that two pools (or two processes) never share one.
//! - a seccomp filter (`seccomp.rs`) on the worker and every run, given to
//!   bubblewrap (`--add-seccomp-fd`) or installed before exec without it.
//! - only descriptors 0-2 cross into the sandbox (everything the server
//!   inherited or opened is closed between fork and exec).
//! - rlimits, set by the harness in each run's child; size caps on the
//!   scratch directory and `/dev/shm` (tmpfs `size=`).

use crate::host;
use crate::path_set::outermost;
use super::seccomp;
use super::types::{Containment, ExecError};
use super::{ExecConfig, SandboxMode};
use seccompiler::BpfProgram;
use serde::Deserialize;
use std::sync::Arc;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::io::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// First uid handed to workers when running as root.
pub const UID_BASE: u32 = 60000;
/// How many uids above [`UID_BASE`] may be used (stays below systemd's
/// DynamicUser range 61184-65519).
pub const UID_SPAN: u32 = 1000;

/// What `sys` says about the interpreter, asked once, outside the sandbox.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct InterpreterInfo {
    pub executable: PathBuf,
    pub prefix: String,
    pub base_prefix: String,
    pub exec_prefix: String,
    pub base_exec_prefix: String,
    pub path: Vec<PathBuf>,
    pub version: String,
}

const PROBE: &str = "import sys, json\n\
print(json.dumps({'executable': sys.executable, 'prefix': sys.prefix,\n\
 'base_prefix': getattr(sys, 'base_prefix', sys.prefix), 'exec_prefix': sys.exec_prefix,\n\
 'base_exec_prefix': getattr(sys, 'base_exec_prefix', sys.exec_prefix),\n\
 'path': [p for p in sys.path if p], 'version': '%d.%d.%d' % tuple(sys.version_info[:3])}))\n";

/// `-s` (no user site) normally; `-S` (no site-packages at all, only the
/// standard library) for a base interpreter used without a venv.
fn site_flag(site_packages: bool) -> &'static str {
    if site_packages { "-s" } else { "-S" }
}

fn spawn_error(python: &Path, msg: impl Into<String>) -> ExecError {
    ExecError::Spawn(python.to_path_buf(), io::Error::other(msg.into()))
}

/// Wait for `child` at most `limit`; kill it when it takes longer.
pub(crate) fn wait_with_timeout(child: &mut Child, limit: Duration) -> io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait()? {
            return Ok(Some(st));
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Ask the interpreter where it lives. Runs with the caller's environment
/// minus `PYTHON*` variables, so that a pyenv shim still resolves.
pub(crate) fn probe_interpreter(python: &Path, site_packages: bool) -> Result<InterpreterInfo, ExecError> {
    let mut cmd = Command::new(python);
    cmd.args([site_flag(site_packages), "-c", PROBE]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PYTHON") {
            cmd.env_remove(k);
        }
    }
    let mut child = cmd.spawn().map_err(|e| ExecError::Spawn(python.to_path_buf(), e))?;
    let status = wait_with_timeout(&mut child, Duration::from_secs(60))
        .map_err(|e| ExecError::Spawn(python.to_path_buf(), e))?
        .ok_or_else(|| spawn_error(python, "the interpreter did not answer within 60 s"))?;
    let mut out = String::new();
    let mut err = String::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut err);
    }
    if !status.success() {
        return Err(spawn_error(python, format!("it exited with {status}: {}", tail(&err, 1500))));
    }
    let info: InterpreterInfo = serde_json::from_str(out.trim())
        .map_err(|e| spawn_error(python, format!("unexpected answer to the probe ({e}): {}", tail(&out, 500))))?;
    let mut parts = info.version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) < (3, 8) {
        return Err(spawn_error(python, format!("Python {} is too old (3.8 or newer is needed)", info.version)));
    }
    Ok(info)
}

pub(crate) fn tail(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.len() <= n {
        return s.to_string();
    }
    let mut start = s.len() - n;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    format!("...{}", &s[start..])
}

pub(crate) use crate::host::is_root;

/// The resolved way to start workers for one interpreter.
#[derive(Debug)]
pub(crate) struct SandboxPlan {
    pub interp: InterpreterInfo,
    /// bubblewrap, when it is used.
    bwrap: Option<PathBuf>,
    setpriv: Option<PathBuf>,
    /// We run as root: workers get dedicated unprivileged uids.
    pub root: bool,
    /// (no bwrap, root) The interpreter is under a directory the worker uid
    /// cannot traverse: keep CAP_DAC_READ_SEARCH so it can still be read.
    caps: bool,
    /// (bwrap) Directories the worker uid cannot traverse that lead to the
    /// interpreter: replaced by an empty tmpfs in the sandbox.
    hidden: Vec<PathBuf>,
    /// (bwrap) Interpreter directories to bind read-only because they are
    /// under a tmpfs (`/tmp` or `hidden`).
    interp_binds: Vec<PathBuf>,
    /// The seccomp programs every sandboxed process gets (None: this
    /// machine has no filter; `seccomp_note` says why).
    seccomp: Option<Arc<Vec<BpfProgram>>>,
    seccomp_note: Option<String>,
    /// tmpfs caps (bubblewrap only).
    scratch_bytes: u64,
    shm_bytes: u64,
    note: Option<String>,
    /// `ExecConfig::network`: keep the host's network namespace.
    network: bool,
    /// `ExecConfig::site_packages`.
    site_packages: bool,
}

impl SandboxPlan {
    pub fn new(cfg: &ExecConfig) -> Result<SandboxPlan, ExecError> {
        let interp = probe_interpreter(&cfg.python, cfg.site_packages)?;
        let root = is_root();
        let mut why_not = None;
        let bwrap = match cfg.sandbox {
            SandboxMode::Off => {
                why_not = Some("the sandbox is turned off".to_string());
                None
            }
            SandboxMode::Auto => match host::working_bwrap(true) {
                Ok(p) => Some(p),
                Err(why) => {
                    why_not = Some(why);
                    None
                }
            },
        };
        let setpriv = if root { which::which("setpriv").ok() } else { None };
        let paths = outermost(interpreter_paths(&interp));
        let blocked = if root { outermost(paths.iter().filter_map(|p| host::blocking_ancestor(p)).collect()) } else { Vec::new() };
        let tmp = Path::new("/tmp");
        let (hidden, interp_binds, caps) = if bwrap.is_some() {
            let hidden: Vec<PathBuf> = blocked.iter().filter(|a| !a.starts_with(tmp)).cloned().collect();
            let binds = paths
                .iter()
                .filter(|p| p.starts_with(tmp) || hidden.iter().any(|h| p.starts_with(h)))
                .cloned()
                .collect();
            (hidden, binds, false)
        } else {
            (Vec::new(), Vec::new(), root && !blocked.is_empty())
        };
        let note = why_not.map(|why| {
            let mut n = format!("{why}: programs run without filesystem or network isolation");
            if root {
                n.push_str(", as an unprivileged uid and under resource limits only");
                if caps {
                    n.push_str(&format!(
                        "; they can also read every file on the machine, because the interpreter lives under {} \
                         which that uid cannot otherwise reach",
                        blocked[0].display()
                    ));
                }
                if setpriv.is_none() {
                    n.push_str(" (setpriv is missing: the uid is dropped directly)");
                }
            } else {
                n.push_str(
                    ", as your own user (they can read your files and signal your other processes) under \
                     resource limits only",
                );
            }
            n
        });
        let (seccomp, seccomp_note) = match seccomp::baseline() {
            Ok(p) => (Some(Arc::new(p)), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(SandboxPlan {
            interp,
            bwrap,
            setpriv,
            root,
            caps,
            hidden,
            interp_binds,
            seccomp,
            seccomp_note,
            scratch_bytes: cfg.limits.scratch_bytes,
            shm_bytes: cfg.limits.shm_bytes,
            note,
            network: cfg.network,
            site_packages: cfg.site_packages,
        })
    }

    pub fn uses_bwrap(&self) -> bool {
        self.bwrap.is_some()
    }

    pub fn containment(&self, first_uid: Option<u32>) -> Containment {
        let uid = if self.root {
            first_uid
        } else {
            // SAFETY: getuid has no preconditions.
            Some(unsafe { libc::getuid() })
        };
        let mut layers = Vec::new();
        if self.bwrap.is_some() {
            layers.push(if self.network { "bubblewrap: read-only root, private /tmp, own PID and IPC namespaces; network allowed for this run" } else { "bubblewrap: read-only root, private /tmp, no network, own PID and IPC namespaces" }.to_string());
            layers.push(format!(
                "tmpfs caps: scratch {} MiB, /dev/shm {} MiB",
                self.scratch_bytes >> 20,
                self.shm_bytes >> 20
            ));
        }
        match uid {
            Some(u) if self.root => layers.push(format!("dedicated unprivileged uid {u} (its own process limit covers the whole run)")),
            Some(u) => layers.push(format!("your uid {u} (process limit relative to your other processes)")),
            None => {}
        }
        if self.seccomp.is_some() {
            layers.push("seccomp: no ptrace, process_vm_*, namespaces, mounts, io_uring, bpf, perf, keyrings, kexec, modules".into());
        }
        layers.push("descriptors: only stdin, stdout and stderr enter the sandbox".into());
        layers.push("worker not traceable by runs (PR_SET_DUMPABLE 0); scratch and /dev/shm wiped after each run".into());
        layers.push("per process: address space, CPU time, file size, open files; per run: resident memory of all its processes (polled by the worker; cgroups are not used)".into());
        let mut note = self.note.clone();
        if let Some(why) = &self.seccomp_note {
            let n = note.get_or_insert_with(String::new);
            if !n.is_empty() {
                n.push_str("; ");
            }
            n.push_str(why);
        }
        let network = self.network || self.bwrap.is_none();
        Containment {
            bubblewrap: self.bwrap.is_some(),
            unprivileged_uid: uid,
            network,
            seccomp: self.seccomp.is_some(),
            layers,
            note,
        }
    }

    /// The command that starts one worker. `uid` is the dedicated uid when
    /// running as root.
    pub fn command(&self, harness: &Path, scratch: &Path, uid: Option<u32>) -> Command {
        let sweep = if self.bwrap.is_some() {
            "pidns"
        } else if uid.is_some() {
            "uid"
        } else {
            "none"
        };
        let nproc = if uid.is_some() { "dedicated" } else { "relative" };
        // With bubblewrap, it installs the filters just before it executes
        // the worker (it needs the denied calls itself); they reach it as
        // descriptors 3, 4, ... Without it, pre_exec installs them.
        let seccomp_fds: Vec<OwnedFd> = match (&self.bwrap, &self.seccomp) {
            (Some(_), Some(progs)) => progs.iter().filter_map(|p| memfd_with(&seccomp::to_bytes(p)).ok()).collect(),
            _ => Vec::new(),
        };
        let mut argv: Vec<OsString> = Vec::new();
        if let Some(bwrap) = &self.bwrap {
            argv.push(bwrap.into());
            let mut m = Mounts::default();
            m.raw(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
            m.tmpfs_sized(Path::new("/dev/shm"), "1777", Some(self.shm_bytes));
            m.tmpfs(Path::new("/tmp"), "0755");
            for h in &self.hidden {
                m.tmpfs(h, "0755");
            }
            for p in &self.interp_binds {
                m.bind(p, false);
            }
            m.bind(harness, false);
            // The scratch directory is a tmpfs of its own: its size is
            // capped, and nothing in it is visible outside the sandbox.
            // Sticky and world-writable because bubblewrap makes it as root
            // and the worker runs as its own uid.
            m.tmpfs_sized(scratch, "1777", Some(self.scratch_bytes));
            // The private /tmp stays empty: without this, a non-root user
            // (who owns the tmpfs in its user namespace) could fill it.
            m.raw(&["--remount-ro", "/tmp"]);
            argv.extend(m.args);
            for i in 0..seccomp_fds.len() {
                argv.push("--add-seccomp-fd".into());
                argv.push((FIRST_PASSED_FD + i as i32).to_string().into());
            }
            // The one escalation: network for a re-run the user allowed.
            if !self.network {
                argv.push("--unshare-net".into());
            }
            for a in [
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--new-session",
                "--die-with-parent",
                "--chdir",
            ] {
                argv.push(a.into());
            }
            argv.push(scratch.into());
            argv.push("--".into());
        }
        let mut direct_drop = None;
        if let Some(u) = uid {
            match &self.setpriv {
                Some(sp) => {
                    argv.push(sp.into());
                    argv.push(format!("--reuid={u}").into());
                    argv.push(format!("--regid={u}").into());
                    argv.push("--clear-groups".into());
                    argv.push("--nnp".into());
                    if self.caps {
                        argv.push("--inh-caps=+dac_read_search".into());
                        argv.push("--ambient-caps=+dac_read_search".into());
                    }
                    argv.push("--".into());
                }
                None => direct_drop = Some(u),
            }
        }
        argv.push(self.interp.executable.clone().into());
        argv.push(site_flag(self.site_packages).into());
        argv.push("-B".into());
        argv.push(harness.into());
        for (k, v) in [("--scratch", scratch.as_os_str()), ("--sweep", sweep.as_ref()), ("--nproc", nproc.as_ref())] {
            argv.push(k.into());
            argv.push(v.into());
        }
        if let Some(u) = uid {
            argv.push("--dedicated-uid".into());
            argv.push(u.to_string().into());
        }
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]).env_clear().envs(self.env(scratch)).current_dir(scratch);
        let bwrap = self.bwrap.is_some();
        let drop_to = if bwrap { None } else { direct_drop };
        let filters = if bwrap { None } else { self.seccomp.clone() };
        let passed: Vec<i32> = seccomp_fds.iter().map(|f| f.as_raw_fd()).collect();
        // SAFETY: between fork and exec the closure only calls
        // async-signal-safe functions (setsid, fcntl, dup2, close_range or
        // close, setgroups, setresgid, setresuid, prctl, seccomp) and
        // allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                let _keep_open = &seccomp_fds;
                if !bwrap && libc::setsid() < 0 {
                    // A new session: no controlling terminal to inject input into.
                    return Err(io::Error::last_os_error());
                }
                place_passed_fds(&passed)?;
                close_from(FIRST_PASSED_FD + passed.len() as i32);
                if let Some(u) = drop_to {
                    if libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setresgid(u, u, u) != 0
                        || libc::setresuid(u, u, u) != 0
                        || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some(progs) = &filters {
                    if seccomp::install(progs) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        cmd
    }

    /// The worker's whole environment.
    fn env(&self, scratch: &Path) -> Vec<(OsString, OsString)> {
        let bin = self.interp.executable.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        let mut path = bin.into_os_string();
        path.push(":/usr/bin:/bin");
        let s = scratch.as_os_str().to_owned();
        let mut v: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), path),
            ("HOME".into(), s.clone()),
            ("TMPDIR".into(), s),
            ("MPLCONFIGDIR".into(), scratch.join(".mpl").into_os_string()),
        ];
        for (k, val) in [
            ("LANG", "C.UTF-8"),
            ("MPLBACKEND", "Agg"),
            ("PYTHONDONTWRITEBYTECODE", "1"),
            ("PYTHONHASHSEED", "0"),
            ("OPENBLAS_NUM_THREADS", "1"),
            ("OMP_NUM_THREADS", "1"),
            ("MKL_NUM_THREADS", "1"),
        ] {
            v.push((k.into(), val.into()));
        }
        v
    }
}

/// bwrap arguments for mounts, creating traversable (0755) directories on
/// the way to a bind destination inside a tmpfs (bwrap would make them 0700).
#[derive(Default)]
struct Mounts {
    args: Vec<OsString>,
    tmpfs: Vec<PathBuf>,
    bound: Vec<PathBuf>,
    made: BTreeSet<PathBuf>,
}

impl Mounts {
    fn raw(&mut self, a: &[&str]) {
        self.args.extend(a.iter().map(OsString::from));
    }

    fn tmpfs(&mut self, p: &Path, perms: &str) {
        self.tmpfs_sized(p, perms, None);
    }

    fn tmpfs_sized(&mut self, p: &Path, perms: &str, size: Option<u64>) {
        self.ancestors(p);
        self.raw(&["--perms", perms]);
        if let Some(n) = size {
            self.args.push("--size".into());
            self.args.push(n.to_string().into());
        }
        self.args.push("--tmpfs".into());
        self.args.push(p.into());
        self.tmpfs.push(p.to_path_buf());
    }

    /// Traversable directories on the way to `p` inside an earlier tmpfs.
    fn ancestors(&mut self, p: &Path) {
        let mut ancestors: Vec<&Path> = p.ancestors().skip(1).filter(|a| a.parent().is_some()).collect();
        ancestors.reverse();
        for a in ancestors {
            let in_tmpfs = self.tmpfs.iter().any(|t| a.starts_with(t) && a != t);
            let in_bound = self.bound.iter().any(|b| a.starts_with(b));
            if in_tmpfs && !in_bound && !self.made.contains(a) {
                self.raw(&["--perms", "0755", "--dir"]);
                self.args.push(a.into());
                self.made.insert(a.to_path_buf());
            }
        }
    }

    fn bind(&mut self, p: &Path, rw: bool) {
        self.ancestors(p);
        self.args.push(if rw { "--bind" } else { "--ro-bind" }.into());
        self.args.push(p.into());
        self.args.push(p.into());
        self.bound.push(p.to_path_buf());
    }
}

/// The first descriptor number handed to bubblewrap (the seccomp programs).
const FIRST_PASSED_FD: i32 = 3;

/// An anonymous file holding `data`, at offset 0, close-on-exec
/// (it is moved to a fixed number in the child only).
fn memfd_with(data: &[u8]) -> io::Result<OwnedFd> {
    // SAFETY: memfd_create with a NUL-terminated name; the fd is ours.
    let fd = unsafe { libc::memfd_create(c"runnable-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd was just created and is owned by nobody else.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut f = File::from(owned);
    io::Write::write_all(&mut f, data)?;
    io::Seek::seek(&mut f, io::SeekFrom::Start(0))?;
    Ok(f.into())
}

/// Move `fds` to 3, 4, ... (without close-on-exec), never clobbering one
/// of them on the way. Runs between fork and exec.
fn place_passed_fds(fds: &[i32]) -> io::Result<()> {
    let above = FIRST_PASSED_FD + fds.len() as i32;
    let mut tmp = [0i32; 8];
    if fds.len() > tmp.len() {
        return Err(io::Error::other("too many descriptors to pass"));
    }
    for (i, &fd) in fds.iter().enumerate() {
        // SAFETY: plain fcntl on a descriptor of this process.
        let t = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, above) };
        if t < 0 {
            return Err(io::Error::last_os_error());
        }
        tmp[i] = t;
    }
    for (i, &t) in tmp[..fds.len()].iter().enumerate() {
        // SAFETY: dup2 to a fixed number; dup2 clears close-on-exec.
        if unsafe { libc::dup2(t, FIRST_PASSED_FD + i as i32) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Close every descriptor from `first` on: whatever the server inherited
/// from its parent (an editor, a shell) or opened itself must not reach a
/// fragment. Runs between fork and exec.
fn close_from(first: i32) {
    // SAFETY: close_range(2) on this process's own table.
    let r = unsafe { libc::syscall(libc::SYS_close_range, first as libc::c_uint, libc::c_uint::MAX, 0 as libc::c_uint) };
    if r == 0 {
        return;
    }
    // Kernels before 5.9: close them one by one up to the limit.
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct we pass.
    let max = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 { lim.rlim_cur.min(1 << 20) as i32 } else { 65536 };
    for fd in first..max {
        // SAFETY: closing a descriptor number of this process.
        unsafe {
            libc::close(fd);
        }
    }
}

/// Directories the worker must be able to read to run the interpreter.
fn interpreter_paths(info: &InterpreterInfo) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut add = |p: &Path| {
        if p.is_absolute() {
            if let Ok(c) = fs::canonicalize(p) {
                out.push(c);
            }
        }
    };
    for p in [&info.prefix, &info.base_prefix, &info.exec_prefix, &info.base_exec_prefix] {
        add(Path::new(p));
    }
    if let Some(d) = info.executable.parent() {
        add(d);
    }
    if let Ok(real) = fs::canonicalize(&info.executable) {
        if let Some(d) = real.parent() {
            add(d);
        }
    }
    for p in &info.path {
        add(p);
    }
    out
}

// ------------------------------------------------------------------ uids

/// A uid reserved for one worker slot, held by a lock file for as long as
/// this value lives.
#[derive(Debug)]
pub(crate) struct UidLease {
    pub uid: u32,
    _lock: File,
}

fn lock_dir() -> io::Result<PathBuf> {
    let run = Path::new("/run");
    let dir = if run.is_dir() { run.join("runnable-exec") } else { std::env::temp_dir().join("runnable-exec-uids") };
    fs::create_dir_all(&dir)?;
    let md = fs::symlink_metadata(&dir)?;
    if !md.is_dir() || md.uid() != 0 {
        return Err(io::Error::other(format!("{} is not a directory owned by root", dir.display())));
    }
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
    Ok(dir)
}

/// Reserve `n` uids no account uses and no other pool holds.
pub(crate) fn lease_uids(n: usize) -> io::Result<Vec<UidLease>> {
    let dir = lock_dir()?;
    let taken = host::account_ids();
    let mut leases = Vec::new();
    for uid in UID_BASE..UID_BASE + UID_SPAN {
        if leases.len() == n {
            break;
        }
        if taken.contains(&uid) {
            continue;
        }
        let f = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(uid.to_string()))?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            continue;
        }
        // Whoever held it before is gone; so should be their processes.
        kill_uid_processes(uid);
        leases.push(UidLease { uid, _lock: f });
    }
    if leases.len() < n {
        return Err(io::Error::other(format!(
            "no free unprivileged uid left in {}..{}",
            UID_BASE,
            UID_BASE + UID_SPAN
        )));
    }
    Ok(leases)
}

/// Live (non-zombie) processes whose real, effective or saved uid is `uid`.
pub fn processes_of_uid(uid: u32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir("/proc") else { return out };
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(status) = fs::read_to_string(e.path().join("status")) else { continue };
        let mut zombie = false;
        let mut matches = false;
        for line in status.lines() {
            if let Some(rest) = line.strip_prefix("State:") {
                zombie = matches!(rest.split_whitespace().next(), Some("Z") | Some("X"));
            } else if let Some(rest) = line.strip_prefix("Uid:") {
                matches = rest.split_whitespace().take(3).any(|s| s.parse() == Ok(uid));
            }
        }
        if matches && !zombie {
            out.push(pid);
        }
    }
    out
}

/// The session id of `pid`, from `/proc/<pid>/stat` (field 6, after the
/// command name, which may itself hold spaces and parentheses).
fn session_of(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(3)?.parse().ok()
}

/// SIGKILL every process in the session `sid` (a worker we started with
/// `setsid`, so `sid` is our own child's pid), a few rounds until none is
/// left: without a PID namespace or a uid of its own, that is where a run's
/// processes are. One that called `setsid` itself escapes this; the
/// process limit and the report's note cover that case.
pub(crate) fn kill_session(sid: i32) {
    if sid <= 1 {
        return;
    }
    for _ in 0..20 {
        let mut found = false;
        let Ok(rd) = fs::read_dir("/proc") else { return };
        for e in rd.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
            let Ok(stat) = fs::read_to_string(e.path().join("stat")) else { continue };
            if session_of(&stat) == Some(sid) {
                found = true;
                // SAFETY: plain kill(2) of a process in our child's session.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        if !found {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// SIGKILL every process of a dedicated uid until none is left (bounded).
pub(crate) fn kill_uid_processes(uid: u32) -> bool {
    if uid == 0 {
        return false;
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let pids = processes_of_uid(uid);
        if pids.is_empty() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        for pid in pids {
            // SAFETY: plain kill(2).
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_paths() {
        use crate::exec::resource_path_problem;
        for ok in ["a.csv", "data/x.json", "./a", "a/./b", "a..b"] {
            assert!(resource_path_problem(ok).is_none(), "{ok}");
        }
        let deep = vec!["d"; 40].join("/");
        let long = "n".repeat(300);
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a/..", ".", "a\\..\\b", "x\0y", "a\nb", &deep, &long, "C:\\Users\\ada\\x.jpg", "d:/data.csv", "\\\\srv\\share\\f"] {
            assert!(resource_path_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn session_is_read_after_the_command_name() {
        assert_eq!(session_of("42 (a) b) S 1 42 4242 0 -1"), Some(4242));
        assert_eq!(session_of("7 (python3) R 6 7 7 34816 7"), Some(7));
        assert_eq!(session_of("garbage"), None);
    }

    #[test]
    fn mounts_make_traversable_dirs_inside_tmpfs() {
        let mut m = Mounts::default();
        m.tmpfs(Path::new("/tmp"), "0755");
        m.bind(Path::new("/tmp/pool/w0"), true);
        m.bind(Path::new("/tmp/pool/harness.py"), false);
        let args: Vec<String> = m.args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(
            args.join(" "),
            "--perms 0755 --tmpfs /tmp --perms 0755 --dir /tmp/pool --bind /tmp/pool/w0 /tmp/pool/w0 \
             --ro-bind /tmp/pool/harness.py /tmp/pool/harness.py"
        );
    }
}
