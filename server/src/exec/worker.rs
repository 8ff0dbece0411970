//! One worker process: its start, the line protocol and the watchdog.
//!
//! Protocol (one JSON object per line, see `harness.py`):
//! - worker -> us, once: `{"event":"ready", "prefix", ...}`
//! - us -> worker: `{"id", "program", "probes", "resources":[{"path","data"(base64)}],
//!   "preload", "timeout", "hard_grace", "limits"}`
//! - worker -> us: `{"event":"started","id"}` just before the child is forked
//!   (preloading and writing files happen before, under a separate budget),
//!   then `{"event":"result","id",...}` or `{"event":"error","id","message"}`.
//!
//! The watchdog: if the result does not arrive within timeout + hard grace +
//! a margin, or the worker's stdout closes, the worker is killed (and with it
//! its PID namespace or its uid's processes) and replaced by the pool. The
//! same happens, within [`CANCEL_POLL`], when the caller's cancel flag is set.

use super::sandbox::{self, SandboxPlan};
use super::types::*;
use super::untrusted;
use base64::Engine as _;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

/// Seconds between the child's own timer and the worker's hard kill.
pub(crate) const HARD_GRACE: Duration = Duration::from_secs(1);
/// Extra time the Rust side waits beyond timeout + hard grace before it
/// declares the worker stuck.
pub(crate) const WATCHDOG_MARGIN: Duration = Duration::from_secs(5);
/// How often a cancellable run's watchdog looks at the cancel flag.
pub(crate) const CANCEL_POLL: Duration = Duration::from_millis(25);
/// Budget to start a worker (interpreter start-up inside the sandbox).
const STARTUP_BUDGET: Duration = Duration::from_secs(60);
/// Budget between sending a request and the child being forked: importing
/// preload modules and writing the resources.
const PREPARE_BUDGET: Duration = Duration::from_secs(120);
const WRITE_BUDGET: Duration = Duration::from_secs(30);

#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
enum Event {
    Ready {
        prefix: String,
        /// The worker made itself non-dumpable (`PR_SET_DUMPABLE 0`).
        #[serde(default)]
        untraceable: bool,
    },
    /// No pid: nothing a sandboxed process says is a pid the host acts on.
    Started {
        id: u64,
    },
    Result(Box<WireResult>),
    Error {
        id: Option<u64>,
        message: String,
    },
}

#[derive(Deserialize)]
struct WireResult {
    id: u64,
    status: RunStatus,
    #[serde(default)]
    hit: Vec<u32>,
    #[serde(default)]
    completed: Vec<u32>,
    #[serde(default)]
    counts: BTreeMap<String, u64>,
    #[serde(default)]
    values: BTreeMap<String, Vec<(String, String)>>,
    #[serde(default)]
    printed: BTreeMap<String, String>,
    exception: Option<ExceptionInfo>,
    #[serde(default)]
    caught: Option<ExceptionInfo>,
    limit: Option<String>,
    #[serde(default)]
    stdout: String,
    #[serde(default)]
    stderr: String,
    #[serde(default)]
    duration: f64,
}

impl WireResult {
    /// The outcome, with every piece of text checked: the report comes
    /// from a process the fragment controls (`untrusted.rs`).
    fn into_outcome(self, limits: &Limits) -> RunOutcome {
        let outcome = RunOutcome {
            status: self.status,
            hit: self.hit,
            completed: self.completed,
            hit_counts: int_keys(self.counts),
            exception: self.exception,
            caught: self.caught,
            limit: self.limit,
            values: int_keys(self.values),
            printed: int_keys(self.printed),
            stdout: self.stdout,
            stderr: self.stderr,
            duration: Duration::from_secs_f64(if self.duration.is_finite() { self.duration.clamp(0.0, 1e6) } else { 0.0 }),
        };
        untrusted::sanitize_outcome(outcome, limits.output_bytes)
    }
}

/// JSON object keys are strings; line numbers are not.
fn int_keys<V>(m: BTreeMap<String, V>) -> BTreeMap<u32, V> {
    m.into_iter().filter_map(|(k, v)| k.parse().ok().map(|k| (k, v))).collect()
}

fn bare_outcome(status: RunStatus, limit: String, duration: Duration) -> RunOutcome {
    RunOutcome {
        status,
        hit: Vec::new(),
        completed: Vec::new(),
        hit_counts: BTreeMap::new(),
        exception: None,
        caught: None,
        limit: Some(limit),
        values: BTreeMap::new(),
        printed: BTreeMap::new(),
        stdout: String::new(),
        stderr: String::new(),
        duration,
    }
}

/// A completed outcome with nothing in it, for tests.
#[cfg(test)]
pub(crate) fn test_outcome() -> RunOutcome {
    RunOutcome { status: RunStatus::Completed, limit: None, ..bare_outcome(RunStatus::Completed, String::new(), Duration::ZERO) }
}

/// The outcome of a run its caller cancelled.
pub(crate) fn cancelled_outcome(duration: Duration) -> RunOutcome {
    bare_outcome(RunStatus::Timeout, CANCELLED.to_string(), duration)
}

/// What came of handing a request to a worker.
#[allow(clippy::large_enum_variant)] // one short-lived value per run
pub(crate) enum Attempt {
    /// The program was started; this is its outcome (or a harness error).
    Ran(Result<RunOutcome, ExecError>),
    /// The program never started; the worker is unusable. `preload` says
    /// whether preparing (importing the preload modules) is to blame.
    NotStarted { error: ExecError, preload: bool },
}

enum Wait {
    Eof,
    Timeout,
    Bad(String),
    /// The caller's cancel flag was set.
    Cancelled,
}

pub(crate) struct Worker {
    pub slot: usize,
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Line>,
    scratch: PathBuf,
    log: PathBuf,
    /// Dedicated uid: all its processes die with the worker.
    uid: Option<u32>,
    /// The worker's pids are host pids (no PID namespace): its session
    /// (it is the leader, `setsid` before exec) is how the host finds what
    /// a run left behind.
    host_pids: bool,
    next_id: u64,
    dead: bool,
}

// ---------------------------------------------------------------- spawning

struct SpawnJob {
    cmd: Command,
    reply: Sender<io::Result<Child>>,
}

/// Workers are started from one long-lived thread: bubblewrap's
/// `--die-with-parent` (PR_SET_PDEATHSIG) fires when the *thread* that
/// spawned it exits, and callers' threads come and go.
fn spawn_child(mut cmd: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Option<Sender<SpawnJob>>> = OnceLock::new();
    let tx = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<SpawnJob>();
        thread::Builder::new()
            .name("runnable-exec-spawner".into())
            .spawn(move || {
                for mut job in rx {
                    let _ = job.reply.send(job.cmd.spawn());
                }
            })
            .ok()
            .map(|_| tx)
    });
    let Some(tx) = tx else { return cmd.spawn() };
    let (rtx, rrx) = mpsc::channel();
    match tx.send(SpawnJob { cmd, reply: rtx }) {
        Ok(()) => rrx.recv().unwrap_or_else(|_| Err(io::Error::other("the spawner thread is gone"))),
        Err(mpsc::SendError(job)) => {
            let mut cmd = job.cmd;
            cmd.spawn()
        }
    }
}

impl Worker {
    pub fn spawn(
        plan: &SandboxPlan,
        harness: &Path,
        scratch: PathBuf,
        log: PathBuf,
        slot: usize,
        uid: Option<u32>,
    ) -> Result<Worker, ExecError> {
        let python = plan.interp.executable.clone();
        fs::create_dir(&scratch).map_err(ExecError::Scratch)?;
        if let Some(u) = uid {
            std::os::unix::fs::chown(&scratch, Some(u), Some(u)).map_err(ExecError::Scratch)?;
        }
        fs::set_permissions(&scratch, fs::Permissions::from_mode(0o700)).map_err(ExecError::Scratch)?;
        let logf = File::create(&log).map_err(ExecError::Scratch)?;
        let mut cmd = plan.command(harness, &scratch, uid);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::from(logf));
        let mut child = match spawn_child(cmd) {
            Ok(c) => c,
            Err(e) => {
                let _ = fs::remove_dir_all(&scratch);
                let _ = fs::remove_file(&log);
                return Err(ExecError::Spawn(python, e));
            }
        };
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take().expect("stdin is piped");
        set_nonblocking(stdin.as_raw_fd());
        let (tx, rx) = mpsc::channel();
        let reader = thread::Builder::new().name("runnable-exec-reader".into()).spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let line = read_line_capped(&mut r, MAX_LINE);
                let end = !matches!(line, Line::Text(_));
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        let mut w = Worker {
            slot,
            child,
            stdin: Some(stdin),
            events: rx,
            scratch,
            log,
            uid,
            host_pids: !plan.uses_bwrap(),
            next_id: 1,
            dead: false,
        };
        if let Err(e) = reader {
            w.dead = true;
            return Err(ExecError::Spawn(python, e));
        }
        match w.next_event(Instant::now() + STARTUP_BUDGET) {
            Ok(Event::Ready { prefix, untraceable }) => {
                if !untraceable {
                    // Fail closed: a traceable worker is one a run could
                    // take over for every later run.
                    w.dead = true;
                    return Err(sandbox_spawn_error(
                        &python,
                        "the worker could not make itself untraceable (prctl PR_SET_DUMPABLE through ctypes failed: \
                         is this Python built without ctypes?)"
                            .into(),
                    ));
                }
                if prefix != plan.interp.prefix {
                    w.dead = true;
                    return Err(sandbox_spawn_error(
                        &python,
                        format!(
                            "inside the sandbox the interpreter found its files under {prefix} instead of {}: \
                             part of the installation is not readable for the worker's uid",
                            plan.interp.prefix
                        ),
                    ));
                }
                Ok(w)
            }
            Ok(_) => {
                w.dead = true;
                Err(sandbox_spawn_error(&python, "the worker sent something else than its ready message".into()))
            }
            Err(Wait::Bad(m)) => {
                w.dead = true;
                Err(sandbox_spawn_error(&python, format!("unreadable ready message: {m}")))
            }
            Err(Wait::Timeout | Wait::Cancelled) => {
                w.dead = true;
                Err(sandbox_spawn_error(&python, format!("the worker did not start within {STARTUP_BUDGET:?}")))
            }
            Err(Wait::Eof) => {
                let status = sandbox::wait_with_timeout(&mut w.child, Duration::from_secs(5))
                    .ok()
                    .flatten()
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "still running".into());
                w.dead = true;
                Err(sandbox_spawn_error(
                    &python,
                    format!("the worker exited at start ({status}): {}", w.log_tail()),
                ))
            }
        }
    }

    fn log_tail(&self) -> String {
        let text = fs::read(&self.log).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
        let t = sandbox::tail(&text, 2000);
        if t.is_empty() {
            "(no output)".into()
        } else {
            t
        }
    }

    fn next_event(&mut self, deadline: Instant) -> Result<Event, Wait> {
        self.next_event_or_cancel(deadline, None)
    }

    /// The next event, waiting until `deadline`, or [`Wait::Cancelled`]
    /// within [`CANCEL_POLL`] of `cancel` being set.
    fn next_event_or_cancel(&mut self, deadline: Instant, cancel: Option<&AtomicBool>) -> Result<Event, Wait> {
        let line = loop {
            if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                return Err(Wait::Cancelled);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let wait = if cancel.is_some() { left.min(CANCEL_POLL) } else { left };
            match self.events.recv_timeout(wait) {
                Ok(Line::Text(l)) => break l,
                Ok(Line::TooLong) => {
                    return Err(Wait::Bad(format!("the worker sent a line of more than {} MiB", MAX_LINE >> 20)))
                }
                Ok(Line::End) => return Err(Wait::Eof),
                Err(RecvTimeoutError::Timeout) if Instant::now() < deadline => continue,
                Err(RecvTimeoutError::Timeout) => return Err(Wait::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(Wait::Eof),
            }
        };
        serde_json::from_slice(&line)
            .map_err(|e| Wait::Bad(format!("{e}: {}", sandbox::tail(&String::from_utf8_lossy(&line), 300))))
    }

    /// The next event about request `id`, skipping stale ones (a late
    /// message about an earlier request must not be taken for this one).
    fn event_for(&mut self, id: u64, deadline: Instant, cancel: Option<&AtomicBool>) -> Result<Event, Wait> {
        loop {
            let ev = self.next_event_or_cancel(deadline, cancel)?;
            let about = match &ev {
                Event::Started { id, .. } => Some(*id),
                Event::Result(r) => Some(r.id),
                Event::Error { id, .. } => *id,
                Event::Ready { .. } => None,
            };
            match about {
                Some(other) if other != id => continue,
                _ => return Ok(ev),
            }
        }
    }

    /// The worker can take another request.
    pub fn is_alive(&mut self) -> bool {
        if self.dead {
            return false;
        }
        if !matches!(self.child.try_wait(), Ok(None)) {
            self.dead = true;
        }
        !self.dead
    }

    /// Hand `req` to the worker and wait for its outcome; with `cancel`, a
    /// set flag kills the worker (it is dead afterwards) and the outcome is
    /// [`cancelled_outcome`].
    pub fn run(&mut self, req: &RunRequest, limits: &Limits, preload: &[String], cancel: Option<&AtomicBool>) -> Attempt {
        if !self.is_alive() {
            return Attempt::NotStarted {
                error: ExecError::WorkerDied("the worker had exited before the run".into()),
                preload: false,
            };
        }
        let id = self.next_id;
        self.next_id += 1;
        let b64 = base64::engine::general_purpose::STANDARD;
        // Paths rebased onto the run directory: none has a `..` (the pool
        // checked them; a bad one here is refused, never sent).
        let layout = match super::run_dir::layout(&req.resources) {
            Ok(l) => l,
            Err(e) => return Attempt::Ran(Err(e)),
        };
        let resources: Vec<serde_json::Value> = layout
            .resources
            .iter()
            .map(|r| serde_json::json!({"path": r.path, "data": b64.encode(&r.content)}))
            .collect();
        let probes: BTreeMap<String, &Vec<String>> = req.probes.iter().map(|(k, v)| (k.to_string(), v)).collect();
        let msg = serde_json::json!({
            "id": id,
            "program": req.program,
            "probes": probes,
            "resources": resources,
            "workdir": layout.workdir,
            "preload": preload,
            "timeout": req.timeout.as_secs_f64(),
            "hard_grace": HARD_GRACE.as_secs_f64(),
            "limits": {
                "memory_bytes": limits.memory_bytes,
                "cpu_seconds": limits.cpu_seconds,
                "file_bytes": limits.file_bytes,
                "processes": limits.processes,
                "output_bytes": limits.output_bytes,
            },
        });
        let mut line = msg.to_string().into_bytes();
        line.push(b'\n');
        let started = Instant::now();
        if let Err(e) = self.send(&line) {
            self.dead = true;
            return Attempt::NotStarted {
                error: ExecError::WorkerDied(format!("could not send the request to the worker: {e}")),
                preload: false,
            };
        }
        match self.event_for(id, started + PREPARE_BUDGET, cancel) {
            Ok(Event::Started { .. }) => {}
            Ok(Event::Error { message, .. }) => return Attempt::Ran(Err(ExecError::Protocol(message))),
            Ok(_) => {
                self.dead = true;
                return Attempt::Ran(Err(ExecError::Protocol("unexpected event before the run started".into())));
            }
            Err(Wait::Bad(m)) => {
                self.dead = true;
                return Attempt::Ran(Err(ExecError::Protocol(m)));
            }
            Err(Wait::Eof) => {
                self.dead = true;
                return Attempt::NotStarted {
                    error: ExecError::WorkerDied(format!(
                        "the worker died while preparing the run (importing {preload:?}?): {}",
                        self.log_tail()
                    )),
                    preload: !preload.is_empty(),
                };
            }
            Err(Wait::Cancelled) => {
                self.dead = true;
                self.terminate();
                return Attempt::Ran(Ok(cancelled_outcome(started.elapsed())));
            }
            Err(Wait::Timeout) => {
                self.dead = true;
                return Attempt::NotStarted {
                    error: ExecError::WorkerDied(format!(
                        "the worker did not start the run within {PREPARE_BUDGET:?} (importing {preload:?}?)"
                    )),
                    preload: !preload.is_empty(),
                };
            }
        }
        let run_start = Instant::now();
        let deadline = run_start + req.timeout + HARD_GRACE + WATCHDOG_MARGIN;
        let res = match self.event_for(id, deadline, cancel) {
            Ok(Event::Result(r)) => Ok(r.into_outcome(limits)),
            Ok(Event::Error { message, .. }) => Err(ExecError::Protocol(message)),
            Ok(_) => {
                self.dead = true;
                Err(ExecError::Protocol("unexpected event during the run".into()))
            }
            Err(Wait::Bad(m)) => {
                self.dead = true;
                self.terminate();
                Err(ExecError::Protocol(m))
            }
            Err(Wait::Eof) => {
                self.dead = true;
                let status = self.terminate();
                Ok(bare_outcome(
                    RunStatus::Limit,
                    format!(
                        "the execution worker died during the run ({status}); the program probably killed it \
                         (for example os.kill(os.getppid(), 9)); a new worker replaces it"
                    ),
                    run_start.elapsed(),
                ))
            }
            Err(Wait::Cancelled) => {
                self.dead = true;
                self.terminate();
                Ok(cancelled_outcome(run_start.elapsed()))
            }
            Err(Wait::Timeout) => {
                self.dead = true;
                self.terminate();
                Ok(bare_outcome(
                    RunStatus::Timeout,
                    format!(
                        "timed out after {:?}: the worker did not answer within {:?} and was killed; a new worker \
                         replaces it",
                        req.timeout,
                        run_start.elapsed()
                    ),
                    run_start.elapsed(),
                ))
            }
        };
        Attempt::Ran(res)
    }

    fn send(&mut self, data: &[u8]) -> io::Result<()> {
        let fd = match &self.stdin {
            Some(s) => s.as_raw_fd(),
            None => return Err(io::Error::from(io::ErrorKind::BrokenPipe)),
        };
        write_all_deadline(fd, data, Instant::now() + WRITE_BUDGET)
    }

    /// Kill the worker and everything it started; returns how it ended.
    fn terminate(&mut self) -> String {
        drop(self.stdin.take());
        let pid = self.child.id() as i32;
        // Our own child: its pid (and so its session id) is the host's
        // knowledge, never something the worker said. While it is not
        // reaped the number cannot be reused.
        if self.host_pids {
            sandbox::kill_session(pid);
        }
        let status = match self.child.try_wait() {
            Ok(Some(st)) => st,
            _ => {
                // SAFETY: plain kill(2) on our own, unreaped child.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                match self.child.wait() {
                    Ok(st) => st,
                    Err(e) => return format!("could not be reaped: {e}"),
                }
            }
        };
        if let Some(u) = self.uid {
            sandbox::kill_uid_processes(u);
        }
        status.to_string()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.terminate();
        for _ in 0..5 {
            match fs::remove_dir_all(&self.scratch) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => thread::sleep(Duration::from_millis(20)),
                _ => break,
            }
        }
        let _ = fs::remove_file(&self.log);
    }
}

/// Longest protocol line taken from a worker: a result carries at most
/// two outputs of `output_bytes` and the trace of one program.
const MAX_LINE: usize = 32 << 20;

/// What the reader thread passes on.
enum Line {
    Text(Vec<u8>),
    /// Longer than [`MAX_LINE`]: the worker is not to be trusted further.
    TooLong,
    End,
}

/// One line of at most `max` bytes; a longer one is not kept in memory.
fn read_line_capped(r: &mut impl BufRead, max: usize) -> Line {
    let mut line = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok([]) | Err(_) => return Line::End,
            Ok(b) => b,
        };
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max {
            return Line::TooLong;
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(take);
        if done {
            return Line::Text(line);
        }
    }
}

fn sandbox_spawn_error(python: &Path, msg: String) -> ExecError {
    ExecError::Spawn(python.to_path_buf(), io::Error::other(msg))
}

fn set_nonblocking(fd: i32) {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

/// Write everything to a non-blocking pipe, or fail at the deadline: a
/// stopped worker must not block us forever.
fn write_all_deadline(fd: i32, mut data: &[u8], deadline: Instant) -> io::Result<()> {
    while !data.is_empty() {
        // SAFETY: writing from a valid slice to a descriptor we own.
        let n = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
        if n >= 0 {
            data = &data[n as usize..];
            continue;
        }
        let err = io::Error::last_os_error();
        match err.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, "the worker does not read its input"));
                }
                let mut pfd = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
                let ms = left.as_millis().min(i32::MAX as u128) as i32;
                // SAFETY: one valid pollfd.
                unsafe {
                    libc::poll(&mut pfd, 1, ms.max(1));
                }
            }
            _ => return Err(err),
        }
    }
    Ok(())
}
