"""Runnable execution worker (embedded in the Rust binary, see exec/worker.rs).

One long-lived process per interpreter. It reads one JSON request per line on
its original stdin and answers one JSON event per line on its original stdout;
both descriptors are moved away at start so nothing else (preloaded modules,
the program) can write into the protocol channel.

Events it sends:
  {"event": "ready", ...}                     once, at start
  {"event": "started", "id": N}               just before forking the run's child
  {"event": "result", "id": N, ...}           the outcome of the run
  {"event": "error", "id": N, "message": M}   the harness itself failed

For each request the worker imports the preload modules (failures ignored),
creates a fresh run directory with the resources and `program.py`, and forks a
child that runs the program under the line tracer of shared/bench/measure.py
(plus hit counts and value probes). The child reports through a pipe; the
worker enforces a hard timeout, kills whatever the program left behind, reads
the captured output and removes the run directory.

Must stay compatible with Python 3.8+.
"""
import ast
import base64
import errno
import gc
import json
import mmap
import os
import re
import reprlib
import resource
import select
import shutil
import signal
import sys
import types
import threading
import time
import traceback

# The harness's own folder is not a place to import from: with the sandbox
# off, a run could write a module there that the worker would import later.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

# What the child needs to report, bound now: the program may monkeypatch the
# modules it shares with the harness (json.dumps = ..., os._exit = ...).
_dumps = json.dumps
_write = os.write
_exit = os._exit
_getpid = os.getpid
_settrace = sys.settrace
_getframe = sys._getframe
_flush_targets = lambda: (sys.__stdout__, sys.__stderr__, sys.stdout, sys.stderr)
import builtins as _builtins_module
_BUILTINS = dict(_builtins_module.__dict__)

PROTO_IN = None   # file object on the original stdin (requests)
PROTO_OUT = -1    # fd of the original stdout (events)
WORKER_PID = -1
OPTS = {"scratch": None, "sweep": "none", "nproc": "relative", "dedicated-uid": None}
HARD_GRACE = 1.0  # seconds between the soft timer and the hard kill
NOFILE = 1024
REPORT_FD = 1023  # where the child keeps its end of the report pipe
REPORT_FILE = "..report"  # fallback when the program closed that pipe
REPORT_CAP = 16 << 20     # a child's report larger than this is not read
PRINTED_LINE_CAP = 1000   # characters of output kept per program line
PRINTED_LINES_CAP = 200   # program lines whose output is kept
PRINTED_TOTAL_CAP = 32 << 10
MEMORY_POLL = 0.05        # seconds between two looks at the run's memory
PR_SET_DUMPABLE = 4
_WORKER_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGQUIT", "SIGALRM", "SIGTSTP",
                   "SIGTTIN", "SIGTTOU")


def _encode(obj):
    # Lone surrogates (from undecodable file names, say) become "?".
    return _dumps(obj, ensure_ascii=False).encode("utf-8", "replace")


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = _write(fd, view)
        view = view[n:]


def send(obj):
    _write_all(PROTO_OUT, _encode(obj) + b"\n")


# --------------------------------------------------------------------------- worker

_LIBC = None


def _set_dumpable(flag):
    """prctl(PR_SET_DUMPABLE): a process that is not dumpable cannot be
    traced, nor its memory read or written through /proc/<pid>/mem, by
    another process of the same uid. The worker is not, so no run can plant
    code in the worker that serves later runs; each run's child is again, so
    the program's own processes behave as usual among themselves."""
    global _LIBC
    try:
        if _LIBC is None:
            import ctypes
            _LIBC = ctypes.CDLL(None, use_errno=True)
        return _LIBC.prctl(PR_SET_DUMPABLE, int(flag), 0, 0, 0) == 0
    except BaseException:
        return False


def _site_builtins():
    """`python -S` (the base interpreter without site-packages) leaves out
    the names `site` adds to builtins; programs use `exit()` and `quit()`."""
    if not sys.flags.no_site:
        return
    import builtins
    import _sitebuiltins
    builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
    builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")
    builtins.help = _sitebuiltins._Helper()


def main():
    global PROTO_IN, PROTO_OUT, WORKER_PID
    _site_builtins()
    args = sys.argv[1:]
    for i in range(0, len(args) - 1, 2):
        OPTS[args[i].lstrip("-")] = args[i + 1]
    WORKER_PID = os.getpid()
    # kill(-1) is only safe inside our own PID namespace (where we are PID 2,
    # under bwrap's init) or as a uid that belongs to this worker alone.
    if OPTS["sweep"] == "pidns" and os.getpid() > 3:
        OPTS["sweep"] = "none"
    if OPTS["sweep"] == "uid" and (os.getuid() == 0 or os.geteuid() == 0
                                   or str(os.getuid()) != OPTS.get("dedicated-uid")):
        OPTS["sweep"] = "none"
    PROTO_OUT = os.dup(1)
    PROTO_IN = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # The program may signal its parent; only SIGKILL/SIGSTOP can still stop
    # the worker, and the Rust side handles those.
    for name in _WORKER_SIGNALS:
        if hasattr(signal, name):
            try:
                signal.signal(getattr(signal, name), signal.SIG_IGN)
            except (OSError, ValueError):
                pass
    untraceable = _set_dumpable(0)
    send({"event": "ready", "pid": os.getpid(), "uid": os.getuid(), "executable": sys.executable,
          "untraceable": untraceable,
          "sweep": OPTS["sweep"], "prefix": sys.prefix, "base_prefix": getattr(sys, "base_prefix", sys.prefix),
          "version": "%d.%d.%d" % tuple(sys.version_info[:3])})
    while True:
        line = PROTO_IN.readline()
        if not line:
            os._exit(0)
        req = None
        try:
            req = json.loads(line)
            handle(req)
        except BaseException as e:  # the worker must survive anything
            try:
                msg = "".join(traceback.format_exception(type(e), e, e.__traceback__))
                send({"event": "error", "id": req.get("id") if isinstance(req, dict) else None,
                      "message": "harness failure: " + msg[-4000:]})
            except BaseException:
                os._exit(3)


def _preload(modules):
    new = False
    for m in modules or ():
        if not isinstance(m, str) or not m or m in sys.modules:
            continue
        try:
            __import__(m)
            new = True
        except BaseException:
            pass
    if new and hasattr(gc, "freeze"):
        gc.collect()
        gc.freeze()  # keep the imported objects' pages shared with the forks


def _safe_relpath(rel):
    if not isinstance(rel, str) or not rel or "\0" in rel or os.path.isabs(rel):
        return None
    parts = rel.replace("\\", "/").split("/")
    if any(p == ".." for p in parts):
        return None
    norm = os.path.normpath(rel)
    if norm in (".", "") or norm.startswith(".."):
        return None
    return norm


def _rmtree(path):
    """Remove a tree the program may have made unreadable. Never raises."""
    try:
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            return
        # Something was not removable: make every directory ours again.
        stack = [path]
        while stack:
            d = stack.pop()
            try:
                os.chmod(d, 0o700)
                with os.scandir(d) as it:
                    for e in it:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
            except OSError:
                continue
        shutil.rmtree(path, ignore_errors=True)
    except BaseException:
        pass


def _count_tasks_of_uid(uid):
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/status" % name) as f:
                txt = f.read()
        except OSError:
            continue
        real = threads = None
        for ln in txt.splitlines():
            if ln.startswith("Uid:"):
                real = int(ln.split()[1])
            elif ln.startswith("Threads:"):
                threads = int(ln.split()[1])
        if real == uid:
            total += threads or 1
    return total


def _nproc_base():
    """Tasks that already count against RLIMIT_NPROC for this uid."""
    if OPTS["nproc"] == "dedicated":
        try:
            return len(os.listdir("/proc/self/task"))
        except OSError:
            return 1
    try:
        return _count_tasks_of_uid(os.getuid())
    except (OSError, ValueError, IndexError):
        return 1


def handle(req):
    rid = int(req["id"])
    _preload(req.get("preload"))
    scratch = OPTS["scratch"]
    runs = os.path.join(scratch, "runs")
    os.makedirs(runs, exist_ok=True)
    # The same path for every run of this worker, so that __file__ and
    # tracebacks do not vary from run to run.
    run_dir = os.path.join(runs, "run")
    if os.path.lexists(run_dir):
        _rmtree(run_dir)
    if os.path.lexists(run_dir):
        run_dir = os.path.join(runs, "run-%d" % rid)
    os.mkdir(run_dir, 0o755)
    try:
        for res in req.get("resources") or ():
            rel = _safe_relpath(res.get("path"))
            if rel is None:
                raise ValueError("invalid resource path %r" % (res.get("path"),))
            dest = os.path.join(run_dir, rel)
            parent = os.path.dirname(dest)
            if parent:
                os.makedirs(parent, exist_ok=True)
            with open(dest, "wb") as f:
                f.write(base64.b64decode(res.get("data", "")))
        # The program's folder: the run directory, or nested in it as deep
        # as the resources' paths go up (rebased by the host, `run_dir.rs`),
        # so `../data/x.csv` is inside the run directory.
        work_dir = run_dir
        if req.get("workdir"):
            rel = _safe_relpath(req.get("workdir"))
            if rel is None:
                raise ValueError("invalid workdir %r" % (req.get("workdir"),))
            work_dir = os.path.join(run_dir, rel)
            os.makedirs(work_dir, exist_ok=True)
        prog = os.path.join(work_dir, "program.py")
        with open(prog, "w", encoding="utf-8", newline="") as f:
            f.write(req["program"])
        limits = req.get("limits") or {}
        nproc = _nproc_base() + 1 + int(limits.get("processes", 64))
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        # The worker keeps its own descriptors on the output files: the
        # program may rename or delete its directory, or fill the scratch
        # tmpfs (anonymous files are outside it, so what it printed before
        # is still there to report).
        outs = [_output_file(run_dir, name) for name in ("..stdout", "..stderr")]
        try:
            r_fd, w_fd = os.pipe()
            # Said before the fork: from here on the host's run deadline
            # applies. Sent after it, a child that stops or kills the worker
            # before the worker is scheduled again would leave the host
            # waiting out the (long) preparation budget instead.
            send({"event": "started", "id": rid})
            t0 = time.monotonic()
            pid = os.fork()
            if pid == 0:
                try:
                    child(req, run_dir, work_dir, prog, r_fd, w_fd, nproc, outs)
                finally:
                    os._exit(70)
            os.close(w_fd)
            if not _safe_sweep():
                try:
                    os.setpgid(pid, pid)
                except OSError:
                    pass
            try:
                out = supervise(pid, r_fd, t0, req, os.path.join(run_dir, REPORT_FILE))
            finally:
                cleanup_processes(pid)
                os.close(r_fd)
            cap = int(limits.get("output_bytes", 65536))
            out["stdout"] = _read_head(outs[0], cap)
            out["stderr"] = _read_head(outs[1], cap)
            _explain_lost_report(out)
        finally:
            for fd in outs:
                os.close(fd)
        out["event"] = "result"
        out["id"] = rid
        send(out)
    finally:
        # Nothing may raise past this point: the answer has been sent.
        try:
            _rmtree(run_dir)
            _clean_scratch(scratch)
        except BaseException:
            pass


def _output_file(run_dir, name):
    if hasattr(os, "memfd_create"):
        try:
            return os.memfd_create(name, os.MFD_CLOEXEC)
        except OSError:
            pass
    return os.open(os.path.join(run_dir, name), os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)


def _clean_dir(root, only_uid=None):
    """Remove everything in `root` (entries of `only_uid`, when given)."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        p = os.path.join(root, name)
        try:
            st = os.lstat(p)
            if only_uid is not None and st.st_uid != only_uid:
                continue
            if os.path.isdir(p) and not os.path.islink(p):
                _rmtree(p)
            else:
                os.unlink(p)
        except OSError:
            pass


def _clean_scratch(scratch):
    """Forget whatever the program left: the scratch root (HOME, TMPDIR,
    the run directories, caches such as MPLCONFIGDIR) and /dev/shm. Nothing
    a run wrote survives it, so no run sees what an earlier one left. Runs
    only when every process of the run is gone."""
    _clean_dir(scratch)
    if OPTS["sweep"] == "pidns" and _safe_sweep():
        _clean_dir("/dev/shm")  # bubblewrap's own tmpfs
    elif _safe_sweep():
        _clean_dir("/dev/shm", only_uid=os.getuid())  # the host's: only ours


def _explain_lost_report(out):
    """A child that ended without its report while its processes were
    failing to fork (seen under heavy load with fork bombs) hit the process
    limit: say so instead of "ended before it could report"."""
    exc = out.get("exception") or {}
    lost = out.get("status") == "raised" and exc.get("type_name") == "SystemExit" and "before it could report" in (exc.get("message") or "")
    if lost and "BlockingIOError: [Errno 11]" in (out.get("stderr") or ""):
        out["status"] = "limit"
        out["limit"] = "process limit: the program kept forking until it could not"


def _read_head(fd, cap):
    try:
        data = os.pread(fd, cap, 0)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _run_memory(child_pid):
    """Resident private memory (RssAnon) of all the run's processes, bytes:
    every process of our PID namespace or of our dedicated uid but the
    worker (and bubblewrap's init), else those in the child's process
    group. Read from /proc/<pid>/statm, which needs no ptrace access."""
    uid = os.getuid()
    mode = OPTS["sweep"] if _safe_sweep() else "group"
    total = 0
    for pid in _other_pids():
        try:
            if mode == "uid" and os.stat("/proc/%d" % pid).st_uid != uid:
                continue
            if mode == "group" and os.getpgid(pid) != child_pid:
                continue
            with open("/proc/%d/statm" % pid, "rb") as f:
                fields = f.read().split()
            total += max(0, int(fields[1]) - int(fields[2])) * _PAGE
        except (OSError, ValueError, IndexError):
            continue
    return total


def supervise(pid, r_fd, t0, req, report_file):
    timeout = float(req.get("timeout", 10.0))
    hard = t0 + timeout + float(req.get("hard_grace", HARD_GRACE))
    limits = req.get("limits") or {}
    run_memory_cap = int(limits.get("memory_bytes", 4 << 30))
    next_poll = t0 + MEMORY_POLL
    memory_killed = False
    size = 0
    too_big = False
    chunks = []
    pidfd = None
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    watch = [r_fd] + ([pidfd] if pidfd is not None else [])
    status = rusage = None
    hard_killed = False
    try:
        while True:
            wpid, st, ru = os.wait4(pid, os.WNOHANG)
            if wpid == pid:
                status, rusage = st, ru
                break
            now = time.monotonic()
            if now >= hard:
                hard_killed = True
                _kill_run(pid)
                _, status, rusage = os.wait4(pid, 0)
                break
            if now >= next_poll:
                # RLIMIT_AS bounds each process; this bounds them together
                # (five children of 3.9 GiB each were possible before).
                next_poll = now + MEMORY_POLL
                if _run_memory(pid) > run_memory_cap:
                    memory_killed = True
                    _kill_run(pid)
                    _, status, rusage = os.wait4(pid, 0)
                    break
            wait = min(hard, next_poll) - now
            if pidfd is None:
                wait = min(wait, 0.005)
            try:
                ready, _, _ = select.select(watch, [], [], wait)
            except InterruptedError:
                continue
            if r_fd in ready:
                data = os.read(r_fd, 1 << 16)
                if data:
                    size += len(data)
                    if size > REPORT_CAP:
                        too_big = True  # keep draining, stop keeping
                        chunks = []
                    elif not too_big:
                        chunks.append(data)
                else:
                    watch.remove(r_fd)
                    if not watch:  # no pidfd: poll the child
                        time.sleep(0.002)
    finally:
        if pidfd is not None:
            os.close(pidfd)
    duration = time.monotonic() - t0
    # The child wrote its whole report before exiting: drain what is buffered.
    os.set_blocking(r_fd, False)
    while True:
        try:
            data = os.read(r_fd, 1 << 16)
        except (BlockingIOError, InterruptedError):
            break
        if not data:
            break
        size += len(data)
        if size > REPORT_CAP:
            too_big = True
            chunks = []
            break
        if not too_big:
            chunks.append(data)
    if not chunks and not too_big:
        try:
            with open(report_file, "rb") as f:
                chunks.append(f.read(REPORT_CAP + 1))
            if len(chunks[0]) > REPORT_CAP:
                too_big = True
                chunks = []
        except OSError:
            pass
    report = None
    if memory_killed:
        report = _empty("limit", "memory limit: the run's processes together held more than %d MiB"
                        % (run_memory_cap >> 20))
    elif too_big:
        report = _empty("limit", "the program's report was larger than %d MiB and was not read" % (REPORT_CAP >> 20))
    elif chunks:
        try:
            report = json.loads(b"".join(chunks).decode("utf-8", "replace"))
        except ValueError:
            report = None
    if not isinstance(report, dict) or report.get("status") not in ("completed", "raised", "timeout", "limit"):
        report = _no_report(status, rusage, hard_killed, timeout, limits)
    report["duration"] = duration
    return report


_CRASH_SIGNALS = {"SIGSEGV", "SIGBUS", "SIGABRT", "SIGFPE", "SIGILL", "SIGSYS", "SIGTRAP"}


def _empty(status, limit=None, exception=None):
    return {"status": status, "hit": [], "completed": [], "counts": {}, "values": {},
            "exception": exception, "limit": limit}


def _exc_stub(type_name, message):
    return {"type_name": type_name, "message": message, "line": None, "name": None, "obj_type": None,
            "key": None, "module": None, "path": None, "bases": [type_name],
            "raised_in": None, "origin": None}


def _no_report(status, rusage, hard_killed, timeout, limits):
    """The child died without a report: say why from its wait status."""
    if hard_killed:
        return _empty("timeout", "timed out after %gs and was killed: it did not react to the timer "
                                 "(stuck in native code?); no trace is available" % timeout)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "signal %d" % sig
        cpu = (rusage.ru_utime + rusage.ru_stime) if rusage is not None else 0.0
        cpu_limit = float(limits.get("cpu_seconds", 30))
        if name == "SIGXCPU" or (name == "SIGKILL" and cpu >= cpu_limit):
            return _empty("limit", "CPU time limit (%gs) exceeded: killed by %s" % (cpu_limit, name))
        if name == "SIGKILL":
            return _empty("limit", "killed by SIGKILL (most likely memory exhaustion: the memory limit or the "
                                   "system's out-of-memory killer)")
        if name == "SIGXFSZ":
            return _empty("limit", "file size limit exceeded: killed by SIGXFSZ")
        if name in _CRASH_SIGNALS:
            return _empty("limit", "crashed with %s (in native code; possibly the memory limit)" % name)
        return _empty("raised", None, _exc_stub("Signal", "the program was terminated by %s" % name))
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    return _empty("raised", None, _exc_stub(
        "SystemExit", "the process ended with exit status %d before it could report (os._exit or a "
                      "crash of the harness)" % code))


def _killpg(pgid):
    for i in range(50):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        if i:
            time.sleep(0.001)


def _reap():
    while True:
        try:
            wpid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if wpid == 0:
            return


def _safe_sweep():
    """kill(-1) reaches exactly the program's processes: inside our own PID
    namespace (we are PID 2 under bwrap's init), or as a uid of our own."""
    if OPTS["sweep"] == "pidns":
        return WORKER_PID <= 3
    if OPTS["sweep"] == "uid":
        return os.getuid() != 0 and os.geteuid() != 0
    return False


def _kill_run(pid):
    if _safe_sweep():
        try:
            os.kill(-1, signal.SIGKILL)  # never the caller, never PID 1
        except OSError:
            pass
    else:
        _killpg(pid)


def cleanup_processes(pid):
    """Kill the run's process (group) and anything else the program started."""
    if not _safe_sweep():
        _killpg(pid)
        _reap()
        return
    for i in range(200):
        try:
            os.kill(-1, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            break
        _reap()
        if not _others_alive():
            break
        time.sleep(0.001)
    _reap()


def _other_pids():
    """Every pid in /proc but ours and PID 1 (bubblewrap's init)."""
    me = os.getpid()
    try:
        names = os.listdir("/proc")
    except OSError:
        return
    for name in names:
        if name.isdigit() and int(name) not in (me, 1):
            yield int(name)


def _others_alive():
    uid = os.getuid()
    for pid in _other_pids():
        try:
            with open("/proc/%d/status" % pid) as f:
                txt = f.read()
        except OSError:
            continue
        state = ""
        uids = ()
        for ln in txt.splitlines():
            if ln.startswith("State:"):
                state = ln.split()[1]
            elif ln.startswith("Uid:"):
                uids = [int(x) for x in ln.split()[1:4]]
        if state in ("Z", "X"):
            continue
        if OPTS["sweep"] == "uid" and uid not in uids:
            continue
        if OPTS["sweep"] == "pidns" and uids and uid not in uids:
            continue
        return True
    return False


# --------------------------------------------------------------------------- child

def _setlimit(res, soft, hard=None):
    try:
        cur_soft, cur_hard = resource.getrlimit(res)
        hard = soft if hard is None else hard
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
        resource.setrlimit(res, (min(soft, hard), hard))
    except (ValueError, OSError):
        pass


def _qualname(cls):
    mod = getattr(cls, "__module__", None)
    qn = getattr(cls, "__qualname__", None) or cls.__name__
    return qn if mod in (None, "builtins") else "%s.%s" % (mod, qn)


_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 80
for _attr in ("maxlist", "maxtuple", "maxset", "maxfrozenset", "maxdict", "maxdeque", "maxarray"):
    setattr(_REPR, _attr, 12)


def _short_repr(v, limit=80):
    t = type(v)
    if t in (list, tuple, set, frozenset, dict) and len(v) > 50:
        s = _REPR.repr(v)
    elif t in (str, bytes, bytearray) and len(v) > 4 * limit:
        s = repr(v[: 4 * limit])
    else:
        s = repr(v)
    if not isinstance(s, str):
        s = str(s)
    if len(s) > limit:
        s = s[: limit - 3] + "..."
    return s


def _safe_str(e, limit=1000):
    try:
        s = str(e)
    except BaseException:
        s = "<str() failed>"
    return s[:limit]


def exception_info(e, path):
    try:
        return _exception_info(e, path)
    except BaseException:
        return _exc_stub(type(e).__name__, "<the exception could not be described>")


def _exception_info(e, path):
    t = type(e)
    info = {"type_name": _qualname(t), "message": _safe_str(e), "line": None, "name": None,
            "obj_type": None, "key": None, "module": None, "path": None,
            "bases": [_qualname(c) for c in t.__mro__], "raised_in": None, "origin": None}
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            info["line"] = tb.tb_lineno
        tb = tb.tb_next
    if info["line"] is None and isinstance(e, SyntaxError) and e.filename == path:
        info["line"] = e.lineno
    try:
        if isinstance(e, (NameError, AttributeError)):
            name = getattr(e, "name", None)
            info["name"] = name if isinstance(name, str) else None
        if isinstance(e, AttributeError) and info["name"] is not None and hasattr(e, "obj"):
            info["obj_type"] = type(e.obj).__name__
        if isinstance(e, (NameError, AttributeError)) and info["name"] is None:
            _names_from_message(e, info)  # Python < 3.10 has no .name
        if isinstance(e, ImportError):
            mod = e.name if isinstance(e.name, str) else None
            info["module"] = mod
            info["name"] = mod
            msg = info["message"]
            if not isinstance(e, ModuleNotFoundError) and msg.startswith("cannot import name '"):
                info["name"] = msg[len("cannot import name '"):].split("'", 1)[0]
        if isinstance(e, (KeyError, IndexError)) and e.args:
            info["key"] = _short_repr(e.args[0], 200)
        if isinstance(e, OSError) and e.filename is not None:
            fn = e.filename
            info["path"] = os.fsdecode(fn) if isinstance(fn, (str, bytes)) else str(fn)
    except BaseException:
        pass
    try:
        info["raised_in"] = _raised_in(e, path, info)
        info["origin"] = _origin(e, info)
    except BaseException:
        pass
    return info


def _raised_in(e, path, info=None):
    """The module of the innermost frame when it is not the program's own
    (`pandas.core.generic`, `numpy.random.mtrand`): the error came from
    inside that code. None when the program's frame is the innermost.
    Its file goes to `info["raised_file"]`."""
    tb, last = e.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None or last.tb_frame.f_code.co_filename == path:
        return None
    if info is not None:
        info["raised_file"] = last.tb_frame.f_code.co_filename
    name = last.tb_frame.f_globals.get("__name__")
    return name if isinstance(name, str) else None


# `DataFrame.pivot() takes 1 positional argument but 4 were given`,
# `to_datetime() got an unexpected keyword argument 'x'`: the callee's qualified name.
_SIGNATURE = re.compile(r"^([A-Za-z_][\w.]*)\(\) (?:takes |got an unexpected keyword|got multiple values|missing \d+ required)")


def _origin(e, info):
    """The module that defines what the error is about: the object of an
    AttributeError (its class, or the module itself), the module of an
    ImportError, the callee of a signature TypeError (looked up among the
    names the innermost program frame sees). None when unknown."""
    if isinstance(e, AttributeError) and hasattr(e, "obj"):
        obj = e.obj
        if isinstance(obj, types.ModuleType):
            return obj.__name__
        mod = getattr(obj if isinstance(obj, type) else type(obj), "__module__", None)
        return mod if isinstance(mod, str) else None
    if isinstance(e, ImportError):
        return info.get("module")
    if isinstance(e, TypeError):
        m = _SIGNATURE.match(info.get("message") or "")
        if m:
            return _callee_module(e, m.group(1))
    return None


def _callee_module(e, qualname):
    """Where the callable `qualname` (as in its `__qualname__`) is defined,
    searching the values the innermost program frame can see, their types
    (and base classes) and the attributes of modules among them."""
    tb, frame = e.__traceback__, None
    while tb is not None:
        frame, tb = tb.tb_frame, tb.tb_next
    if frame is None:
        return None
    head, _, tail = qualname.partition(".")
    seen = 0
    for scope in (frame.f_locals, frame.f_globals, _BUILTINS):
        for value in list(scope.values()):
            seen += 1
            if seen > 2000:
                return None
            cands = [value]
            if isinstance(value, types.ModuleType):
                cands.append(getattr(value, head, None))
            elif not isinstance(value, type):
                cands.append(type(value))
            for c in cands:
                if c is None:
                    continue
                if not tail and getattr(c, "__qualname__", None) == qualname and callable(c):
                    mod = getattr(c, "__module__", None)
                    if isinstance(mod, str):
                        return mod
                if tail and isinstance(c, type):
                    for k in c.__mro__:
                        if k.__qualname__ == head and tail.split(".")[0] in vars(k):
                            return k.__module__
    return None


def _quoted(msg, after):
    i = msg.find(after)
    if i < 0:
        return None
    rest = msg[i + len(after):]
    return rest.split("'", 1)[0] if "'" in rest else None


def _names_from_message(e, info):
    msg = info["message"]
    if isinstance(e, NameError):
        for pre in ("name '", "local variable '", "free variable '", "cannot access local variable '"):
            if msg.startswith(pre):
                info["name"] = msg[len(pre):].split("'", 1)[0]
                return
    else:
        # "'T' object has no attribute 'x'", "module 'm' has no attribute 'x'",
        # "type object 'T' has no attribute 'x'"
        name = _quoted(msg, "has no attribute '")
        if name is None:
            return
        info["name"] = name
        if msg.startswith("module '"):
            info["obj_type"] = "module"
        elif msg.startswith("type object '"):
            info["obj_type"] = "type"
        elif msg.startswith("'") and "' object has no attribute" in msg:
            info["obj_type"] = msg[1:].split("'", 1)[0]


def limit_of(e, limits):
    """Which resource limit an exception reveals, in words (None if none)."""
    try:
        return _limit_of(e, limits)
    except BaseException:
        return None


def _limit_of(e, limits):
    if isinstance(e, MemoryError):
        return "memory limit (%d MiB of address space): MemoryError" % (int(limits.get("memory_bytes", 0)) >> 20)
    if isinstance(e, OSError):
        if e.errno == errno.EFBIG:
            return "file size limit (%d MiB): the output or a file grew too large" % (
                int(limits.get("file_bytes", 0)) >> 20)
        if e.errno == errno.EAGAIN and isinstance(e, BlockingIOError):
            return "process limit (%d processes): a process could not be created (EAGAIN)" % int(
                limits.get("processes", 0))
        if e.errno == errno.EMFILE:
            return "open files limit (%d descriptors)" % NOFILE
    if isinstance(e, RuntimeError) and "can't start new thread" in _safe_str(e):
        return "process limit (%d processes, threads included): a thread could not be started" % int(
            limits.get("processes", 0))
    return None


def child(req, run_dir, work_dir, prog, r_fd, w_fd, nproc, outs):
    me = os.getpid()
    _set_dumpable(1)
    if not _safe_sweep():
        # Without a PID namespace or a uid of our own, the process group is
        # how the worker finds the program's processes. (With them the child
        # stays in the worker's group, so that os.setsid() works as usual.)
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
    for name in _WORKER_SIGNALS:
        if hasattr(signal, name):
            try:
                signal.signal(getattr(signal, name), signal.SIG_DFL)
            except (OSError, ValueError):
                pass
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.close(r_fd)
    os.close(PROTO_OUT)
    os.close(PROTO_IN.fileno())
    report_fd = os.dup2(w_fd, REPORT_FD, inheritable=False) if w_fd != REPORT_FD else w_fd
    if w_fd != REPORT_FD:
        os.close(w_fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, f in zip((1, 2), outs):
        os.dup2(f, fd)
        os.close(f)
    os.chdir(work_dir)
    limits = req.get("limits") or {}
    mem = int(limits.get("memory_bytes", 4 << 30))
    cpu = int(limits.get("cpu_seconds", 30))
    _setlimit(resource.RLIMIT_CORE, 0)
    _setlimit(resource.RLIMIT_AS, mem)
    _setlimit(resource.RLIMIT_CPU, cpu, cpu + 1)
    _setlimit(resource.RLIMIT_FSIZE, int(limits.get("file_bytes", 64 << 20)))
    _setlimit(resource.RLIMIT_NOFILE, NOFILE)
    _setlimit(resource.RLIMIT_NPROC, nproc)
    sys.argv = [prog]
    if sys.path:
        sys.path[0] = work_dir
    else:
        sys.path.insert(0, work_dir)

    # ---- the tracer: the rule of shared/bench/measure.py, plus counts and probes
    path = prog
    hit_counts = {}
    # How many times each statement started, by its first line (the hint
    # "ran ×N"): a line event on a statement's first line counts when the
    # frame's previous line event lies outside that statement (or there is
    # none), so a loop's header re-evaluated from its body, a `with` left
    # at its exit, the lines of a multi-line statement and a comprehension
    # looping inline (3.12+) are one start; lambda, comprehension and
    # generator-expression frames (< 3.12) are part of the statement that
    # made them and start nothing. `stmt_end`: first line -> last line of
    # the outermost statement starting there, from the program's own AST.
    starts = {}
    stmt_end = {}
    nested = ("<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
    done_lines = set()
    probes = {}
    for k, names in (req.get("probes") or {}).items():
        probes[int(k)] = [n for n in names if isinstance(n, str)]
    values = {}
    # What the program wrote to stdout, by the line of the innermost program
    # frame that wrote it (`print(x)` on line 7 -> printed[7]), capped: the
    # editor shows it on that line. Written through as it was.
    printed = {}
    printed_total = [0]

    class LineStdout:
        __slots__ = ("_inner",)

        def __init__(self, inner):
            self._inner = inner

        def write(self, s):
            try:
                if type(s) is str and s and printed_total[0] < PRINTED_TOTAL_CAP:
                    f = _getframe(1)
                    while f is not None and f.f_code.co_filename != path:
                        f = f.f_back
                    if f is not None:
                        ln = f.f_lineno
                        have = printed.get(ln)
                        if have is not None or len(printed) < PRINTED_LINES_CAP:
                            have = have or ""
                            room = min(PRINTED_LINE_CAP - len(have), PRINTED_TOTAL_CAP - printed_total[0])
                            if room > 0:
                                piece = s[:room]
                                printed[ln] = have + piece
                                printed_total[0] += len(piece)
            except BaseException:
                pass
            return self._inner.write(s)

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def __iter__(self):
            return iter(self._inner)

    # The first exception a program frame saw, even if the program caught it:
    # a `try` body that fails silently is a failure to refine too.
    caught = [None]
    # In a run that raised inside an `except` block: the exception it was
    # handling, the cause to refine.
    handling = [None]
    quiet = (StopIteration, StopAsyncIteration, GeneratorExit)

    def probe(frame, line):
        seen = values.setdefault(line, {})
        names = probes[line]
        if len(seen) >= len(names):
            return
        try:
            loc = frame.f_locals
        except BaseException:
            return
        code = frame.f_code
        for n in names:
            if n in seen:
                continue
            try:
                if n in loc:
                    v = loc[n]
                elif n not in code.co_varnames and n not in code.co_cellvars and n in frame.f_globals:
                    v = frame.f_globals[n]
                else:
                    continue
            except BaseException:
                continue
            try:
                seen[n] = _short_repr(v)
            except BaseException as e:
                seen[n] = "<repr failed: %s>" % type(e).__name__

    class FrameTrace:
        __slots__ = ("last", "prev", "starts")

        def __init__(self, frame, prev=None):
            self.last = None
            # The previous line event of this frame, exceptions or not
            # (`last` is the measure.py rule's, reset by an exception).
            self.prev = prev
            self.starts = frame.f_code.co_name not in nested

        def __call__(self, frame, event, arg):
            if event == "line":
                last = self.last
                if last is not None:
                    done_lines.add(last)
                    if last in probes:
                        probe(frame, last)
                ln = frame.f_lineno
                self.last = ln
                hit_counts[ln] = hit_counts.get(ln, 0) + 1
                prev = self.prev
                self.prev = ln
                if self.starts and ln in stmt_end and (prev is None or prev < ln or prev > stmt_end[ln]):
                    starts[ln] = starts.get(ln, 0) + 1
            elif event == "exception":
                self.last = None          # the statement that raised did not complete
                if caught[0] is None and not isinstance(arg[1], quiet):
                    info = exception_info(arg[1], path)
                    # The traceback may not be attached yet: this frame says where.
                    if info.get("line") is None:
                        info["line"] = frame.f_lineno
                    caught[0] = info
            elif event == "return":
                last = self.last
                if last is not None:
                    done_lines.add(last)
                    if last in probes:
                        probe(frame, last)
                self.last = None
            return self

    def tr(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == path:
            # A generator resumed keeps its frame: its previous line still counts.
            before = frame.f_trace
            return FrameTrace(frame, before.prev if type(before) is FrameTrace else None)
        return None

    # Address space released before reporting, so that a MemoryError leaves
    # room to build the report (an untouched mapping costs no page faults).
    ballast = []
    try:
        ballast.append(mmap.mmap(-1, 16 << 20))
    except (OSError, ValueError):
        pass

    def finish(status, exc=None, limit=None):
        _settrace(None)
        if _getpid() != me:
            _exit(0)  # a process the program forked: never report
        try:
            _builtins_module.__dict__.update(_BUILTINS)  # the program is over
        except BaseException:
            pass
        for m in ballast:
            m.close()
        try:
            streams = _flush_targets()
        except BaseException:
            streams = ()
        for stream in streams:
            try:
                stream.flush()
            except BaseException:
                pass
        counts = dict(hit_counts)
        started = dict(starts)
        done = sorted(done_lines)
        vals = {}
        for line, seen in list(values.items()):
            names = probes.get(line, ())
            row = [[n, seen[n]] for n in names if n in seen]
            if row:
                vals[str(line)] = row
        rep = {"status": status, "hit": sorted(counts), "completed": done,
               "counts": {str(k): v for k, v in started.items()}, "values": vals,
               "printed": {str(k): v for k, v in list(printed.items())},
               "exception": exc, "limit": limit,
               "caught": caught[0] if status == "completed" else handling[0] if status == "raised" else None}
        data = _encode(rep)
        try:
            _write_all(report_fd, data)
        except BaseException:
            # the program closed the pipe (os.closerange...): use a file
            try:
                fd = os.open(os.path.join(run_dir, REPORT_FILE), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                _write_all(fd, data)
            except BaseException:
                pass
        _exit(0)

    timeout = float(req.get("timeout", 10.0))

    def on_alarm(signum, frame):
        finish("timeout", limit="timed out after %gs" % timeout)

    def on_xcpu(signum, frame):
        finish("limit", limit="CPU time limit (%ds) exceeded" % cpu)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGXCPU, on_xcpu)

    try:
        with open(path, encoding="utf-8") as f:
            src = f.read()
        code = compile(src, path, "exec")
    except BaseException as e:
        _print_exception(e, path)
        finish("raised", exception_info(e, path), limit_of(e, limits))
    try:
        _statement_ends(ast.parse(src), stmt_end)
    except BaseException:
        pass  # no counts then; coverage does not need them
    # The program runs as the real __main__ module, as `python program.py`
    # would run it: `sys.modules[__name__]` is the program, and functions it
    # defines can be pickled (multiprocessing, concurrent.futures).
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    g = main.__dict__
    if sys.stdout is not None:
        sys.stdout = LineStdout(sys.stdout)
    signal.setitimer(signal.ITIMER_REAL, max(timeout, 0.001))
    sys.settrace(tr)
    threading.settrace(tr)
    try:
        exec(code, g)
        _settrace(None)
        finish("completed")
    except SystemExit as e:
        _settrace(None)
        if e.code in (None, 0):
            finish("completed")
        info = exception_info(e, path)
        finish("raised", info)
    except BaseException as e:
        _settrace(None)
        info = exception_info(e, path)
        lim = limit_of(e, limits)
        # Raised while handling another (an `except` block that fails):
        # that one is the cause, reported as `caught`.
        ctx = getattr(e, "__context__", None)
        if ctx is not None and not getattr(e, "__suppress_context__", False) and not isinstance(ctx, quiet):
            handling[0] = exception_info(ctx, path)
        if isinstance(e, MemoryError):
            e = None
            g.clear()
            gc.collect()
        else:
            _print_exception(e, path)
        finish("limit" if lim else "raised", info, lim)


def _statement_ends(tree, out):
    """First line -> last line of the outermost statement starting there."""
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            first = node.lineno
            last = getattr(node, "end_lineno", None) or first
            if last > out.get(first, first - 1):
                out[first] = last


def _print_exception(e, path):
    """Write the traceback to the program's stderr, from its first own frame."""
    try:
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        lines = traceback.format_exception(type(e), e, tb)
        if tb is None and not isinstance(e, SyntaxError):
            lines = traceback.format_exception_only(type(e), e)
        sys.stderr.write("".join(lines))
    except BaseException:
        pass


if __name__ == "__main__":
    main()
