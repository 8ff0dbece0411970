//! A pool of warm workers for one interpreter.

use super::sandbox::{self, SandboxPlan, UidLease};
use super::types::*;
use super::worker::{Attempt, Worker};
use super::ExecConfig;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

const HARNESS: &str = include_str!("harness.py");

/// Runs programs in up to `max_workers` sandboxed worker processes of one
/// interpreter. Cheap to share (`Send + Sync`): each `run` takes an idle
/// worker, starts one if fewer than `max_workers` exist, or waits for one.
/// With `warm: false` every run gets a fresh worker process. Dropping the
/// pool kills every worker and all their processes.
pub struct WorkerPool {
    cfg: ExecConfig,
    plan: SandboxPlan,
    harness: PathBuf,
    /// Dedicated uid of each slot (root), or None (our own uid).
    slot_uids: Vec<Option<u32>>,
    state: Mutex<State>,
    freed: Condvar,
    spawned: AtomicU64,
    /// Preload modules that made a worker die or hang: not preloaded again.
    bad_preload: Mutex<BTreeSet<String>>,
    containment: Containment,
    // Dropped after the workers (see Drop): the scratch roots live in `dir`,
    // and the uids stay reserved until their processes are gone.
    _leases: Vec<UidLease>,
    dir: tempfile::TempDir,
}

struct State {
    idle: Vec<Worker>,
    free_slots: Vec<usize>,
}

impl WorkerPool {
    /// Probe the interpreter, plan the sandbox and start one worker to prove
    /// that it works. Fails with [`ExecError::Spawn`] when the interpreter
    /// does not exist or cannot start (inside the sandbox).
    pub fn new(config: ExecConfig) -> Result<Self, ExecError> {
        let mut cfg = config;
        cfg.max_workers = cfg.max_workers.max(1);
        let plan = SandboxPlan::new(&cfg)?;
        let dir = tempfile::Builder::new().prefix("runnable-exec-").tempdir_in(pool_base()).map_err(ExecError::Scratch)?;
        // Workers run as other uids: they must traverse (not list) the pool dir.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o711)).map_err(ExecError::Scratch)?;
        let harness = dir.path().join("harness.py");
        fs::write(&harness, HARNESS).map_err(ExecError::Scratch)?;
        fs::set_permissions(&harness, fs::Permissions::from_mode(0o644)).map_err(ExecError::Scratch)?;
        let leases = if plan.root {
            sandbox::lease_uids(cfg.max_workers).map_err(|e| ExecError::Spawn(cfg.python.clone(), e))?
        } else {
            Vec::new()
        };
        let slot_uids: Vec<Option<u32>> = if plan.root {
            leases.iter().map(|l| Some(l.uid)).collect()
        } else {
            vec![None; cfg.max_workers]
        };
        let containment = plan.containment(slot_uids.first().copied().flatten());
        let pool = WorkerPool {
            state: Mutex::new(State { idle: Vec::new(), free_slots: (0..cfg.max_workers).rev().collect() }),
            cfg,
            plan,
            harness,
            slot_uids,
            freed: Condvar::new(),
            spawned: AtomicU64::new(0),
            bad_preload: Mutex::new(BTreeSet::new()),
            containment,
            _leases: leases,
            dir,
        };
        let first = pool.acquire()?;
        pool.release(first);
        Ok(pool)
    }

    pub fn config(&self) -> &ExecConfig {
        &self.cfg
    }

    /// The interpreter the workers actually run (the probe's `sys.executable`,
    /// e.g. a pyenv shim resolved to the real binary).
    pub fn interpreter(&self) -> &Path {
        &self.plan.interp.executable
    }

    /// The interpreter's version, e.g. "3.11.7".
    pub fn python_version(&self) -> &str {
        &self.plan.interp.version
    }

    /// The dedicated uids of the pool's worker slots (empty unless running as root).
    pub fn worker_uids(&self) -> Vec<u32> {
        self.slot_uids.iter().flatten().copied().collect()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn spawn(&self, slot: usize) -> Result<Worker, ExecError> {
        let n = self.spawned.fetch_add(1, Ordering::Relaxed);
        let scratch = self.dir.path().join(format!("w{slot}-{n}"));
        let log = self.dir.path().join(format!("w{slot}-{n}.log"));
        Worker::spawn(&self.plan, &self.harness, scratch, log, slot, self.slot_uids[slot])
    }

    /// An idle live worker, a new one in a free slot, or wait for either.
    fn acquire(&self) -> Result<Worker, ExecError> {
        let mut st = self.lock();
        loop {
            let mut dead = Vec::new();
            let mut found = None;
            while let Some(mut w) = st.idle.pop() {
                if w.is_alive() {
                    found = Some(w);
                    break;
                }
                dead.push(w);
            }
            if !dead.is_empty() {
                drop(st);
                let slots: Vec<usize> = dead.iter().map(|w| w.slot).collect();
                drop(dead); // kills and sweeps, outside the lock
                st = self.lock();
                st.free_slots.extend(slots);
            }
            if let Some(w) = found {
                return Ok(w);
            }
            if let Some(slot) = st.free_slots.pop() {
                drop(st);
                return self.spawn(slot).inspect_err(|_| {
                    self.lock().free_slots.push(slot);
                    self.freed.notify_one();
                });
            }
            st = self.freed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, mut w: Worker) {
        if self.cfg.warm && w.is_alive() {
            self.lock().idle.push(w);
        } else {
            let slot = w.slot;
            drop(w);
            self.lock().free_slots.push(slot);
        }
        self.freed.notify_one();
    }

    fn usable_preload(&self, req: &RunRequest) -> Vec<String> {
        let bad = self.bad_preload.lock().unwrap_or_else(|e| e.into_inner());
        req.preload.iter().filter(|m| !bad.contains(*m)).cloned().collect()
    }
}

impl Executor for WorkerPool {
    fn run(&self, req: &RunRequest) -> Result<RunOutcome, ExecError> {
        self.run_with(req, None)
    }

    fn run_cancellable(&self, req: &RunRequest, cancel: &AtomicBool) -> Result<RunOutcome, ExecError> {
        self.run_with(req, Some(cancel))
    }

    fn containment(&self) -> Containment {
        self.containment.clone()
    }
}

impl WorkerPool {
    /// A run; with `cancel`, the worker's watchdog polls the flag and kills
    /// the worker when it is set (the pool replaces it on the next run).
    fn run_with(&self, req: &RunRequest, cancel: Option<&AtomicBool>) -> Result<RunOutcome, ExecError> {
        // Every path inside the run directory, or no run.
        super::run_dir::layout(&req.resources)?;
        let mut preload = self.usable_preload(req);
        let mut tries = 0;
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                return Ok(super::worker::cancelled_outcome(std::time::Duration::ZERO));
            }
            let mut w = self.acquire()?;
            let attempt = w.run(req, &self.cfg.limits, &preload, cancel);
            self.release(w);
            match attempt {
                Attempt::Ran(res) => return res,
                Attempt::NotStarted { error, preload: blame_preload } => {
                    tries += 1;
                    if blame_preload {
                        self.bad_preload.lock().unwrap_or_else(|e| e.into_inner()).extend(preload.drain(..));
                    }
                    if tries >= 2 {
                        return Err(error);
                    }
                }
            }
        }
    }
}

impl Drop for WorkerPool {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut self.lock().idle);
        drop(idle);
    }
}

/// Where pools put their scratch roots: the temp dir, unless (as root) the
/// worker uids could not traverse it.
fn pool_base() -> PathBuf {
    let t = std::env::temp_dir();
    if sandbox::is_root() {
        use std::os::unix::fs::MetadataExt;
        let blocked = t.ancestors().any(|a| fs::metadata(a).map(|m| m.mode() & 0o001 == 0).unwrap_or(true));
        if blocked {
            return PathBuf::from("/tmp");
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn python() -> PathBuf {
        std::env::var_os("RUNNABLE_TEST_PYTHON").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("python3"))
    }

    fn req(program: &str) -> RunRequest {
        RunRequest {
            program: program.into(),
            probes: BTreeMap::new(),
            resources: Vec::new(),
            preload: Vec::new(),
            timeout: Duration::from_secs(10),
        }
    }

    #[test]
    fn a_cancelled_run_stops_promptly_and_the_pool_goes_on() {
        let mut cfg = ExecConfig::new(python());
        cfg.max_workers = 1;
        let pool = WorkerPool::new(cfg).expect("python3 starts in the sandbox");
        let cancel = Arc::new(AtomicBool::new(false));
        let setter = cancel.clone();
        let t0 = Instant::now();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            setter.store(true, Ordering::SeqCst);
            Instant::now()
        });
        let out = pool.run_cancellable(&req("while True:\n    pass\n"), &cancel).expect("the run is carried out");
        let cancelled_at = canceller.join().unwrap();
        assert_eq!(out.status, RunStatus::Timeout);
        assert_eq!(out.limit.as_deref(), Some(CANCELLED));
        // Well before the 10 s limit; the bound leaves room for a loaded
        // machine (CI runs the test binaries side by side on two cores).
        let late = Instant::now().duration_since(cancelled_at);
        assert!(late < Duration::from_secs(3), "the run went on {late:?} after the cancel");
        assert!(t0.elapsed() < Duration::from_secs(5), "took {:?}: the timeout, not the cancel, stopped it", t0.elapsed());
        // Already cancelled: nothing runs. Then a fresh worker serves the next run.
        let again = pool.run_cancellable(&req("print(1)\n"), &cancel).unwrap();
        assert_eq!(again.limit.as_deref(), Some(CANCELLED));
        let next = pool.run_cancellable(&req("print('ok')\n"), &AtomicBool::new(false)).unwrap();
        assert_eq!(next.status, RunStatus::Completed, "{next:?}");
        assert_eq!(next.stdout.trim(), "ok");
    }

    #[test]
    fn counts_are_statement_starts_not_line_events() {
        let pool = WorkerPool::new(ExecConfig::new(python())).expect("python3 starts in the sandbox");
        let program = [
            "import io",                                     // 1
            "fh = io.StringIO('a\\nb\\nc\\nd\\n')", // 2
            "rows = [line.strip() for line in fh]",          // 3: once (a frame of its own < 3.12, inline after)
            "with io.StringIO() as f:",                      // 4: once (entered and left)
            "    n = 1",                                     // 5
            "best = max(rows, key=lambda r: r)",             // 6: once (the lambda's frames start nothing)
            "for r in rows:",                                // 7: once (re-evaluated from its body)
            "    n += 1",                                    // 8: four times
            "i = 0",                                         // 9
            "while True:",                                   // 10
            "    i += 1",                                    // 11: three times, even where the loop jumps back to it
            "    if i == 3:",                                // 12
            "        break",                                 // 13
            "def g():",                                      // 14
            "    for x in rows:",                            // 15: once per generator, resumed or not
            "        yield x",                               // 16
            "total = sum(1 for _ in g())",                   // 17
            "x = [1,",                                       // 18: a multi-line statement once
            "     2]",                                       // 19: not a statement's first line
        ]
        .join("\n")
            + "\n";
        let out = pool.run(&req(&program)).expect("the run is carried out");
        assert_eq!(out.status, RunStatus::Completed, "{out:?}");
        let count = |l: u32| out.hit_counts.get(&l).copied().unwrap_or(0);
        for (line, want) in [(3, 1), (4, 1), (5, 1), (6, 1), (7, 1), (8, 4), (11, 3), (12, 3), (13, 1), (15, 1), (16, 4), (17, 1), (18, 1), (19, 0)] {
            assert_eq!(count(line), want, "line {line}: {}", program.lines().nth(line as usize - 1).unwrap());
        }
        // Coverage still sees every line that had a line event.
        assert!(out.hit.contains(&19) && out.hit.contains(&3), "{:?}", out.hit);
    }
}
