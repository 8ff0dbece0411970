//! Memory end to end through the CLI (issue 18): the same request twice is
//! answered from the results cache the second time, with the same report
//! and saying so; another fragment, another setting, or the results cache
//! turned off is a miss. Every test has a store of its own in a temporary
//! cache dir, and the user's cache dir is pointed at another temporary dir
//! that must stay empty.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Free names whose values the rules must find (several runs), standard
/// library only (no install).
const FRAGMENT: &str = "import json\nfor item in items:\n    print(item.upper())\nprint(json.dumps(config['name']), len(rows) > 2)\n";

struct Cli {
    cache: tempfile::TempDir,
    /// `HOME` and `XDG_CACHE_HOME` of the runs: the user's store would be here.
    user: tempfile::TempDir,
    work: tempfile::TempDir,
}

impl Cli {
    fn new() -> Cli {
        Cli { cache: tempfile::tempdir().unwrap(), user: tempfile::tempdir().unwrap(), work: tempfile::tempdir().unwrap() }
    }

    /// `runnable fix --json` on `src` with this store.
    fn fix(&self, src: &str, extra: &[&str]) -> Value {
        self.fix_file("fragment.py", src, extra)
    }

    /// The same, with the fragment in the file `name` of the work dir.
    fn fix_file(&self, name: &str, src: &str, extra: &[&str]) -> Value {
        let path = self.work.path().join(name);
        std::fs::write(&path, src).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_runnable"))
            .arg("fix")
            .arg(&path)
            .arg("--json")
            .arg("--cache-dir")
            .arg(self.cache.path())
            .args(extra)
            .env_remove("RUNNABLE_MEMORY")
            .env("HOME", self.user.path())
            .env("XDG_CACHE_HOME", self.user.path().join("cache"))
            .output()
            .expect("runnable runs");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)))
    }

    fn assert_users_store_untouched(&self) {
        assert!(!has_store(self.user.path()), "a store was made in the user's dirs");
        assert!(self.cache.path().join("memory").join("memory.sqlite3").exists(), "the temporary store was used");
    }
}

/// Whether a memory store is anywhere below `dir`.
fn has_store(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().flatten().any(|e| {
        let p = e.path();
        p.file_name().is_some_and(|n| n == "memory.sqlite3") || (p.is_dir() && has_store(&p))
    })
}

fn cached(j: &Value) -> bool {
    j["memory"]["cached"] == true
}

/// The report without what differs between a run and its stored copy.
fn result(j: &Value) -> Value {
    let mut j = j.clone();
    let o = j.as_object_mut().unwrap();
    o.remove("stats");
    o.remove("memory");
    j
}

#[test]
fn the_same_fragment_twice_is_a_cached_hit_with_the_same_report() {
    let cli = Cli::new();
    let first = cli.fix(FRAGMENT, &[]);
    assert!(!cached(&first), "a fresh store has nothing: {first}");
    assert!(first["stats"]["executions"].as_u64().unwrap() > 0, "{first}");
    assert_eq!(first["coverage"]["ratio"], 1.0, "{first}");
    let second = cli.fix(FRAGMENT, &[]);
    assert!(cached(&second), "the second run says it came from the cache: {second}");
    assert_eq!(second["stats"]["executions"], 0, "nothing ran: {second}");
    assert_eq!(result(&second), result(&first), "identical otherwise");
    cli.assert_users_store_untouched();
}

#[test]
fn a_fragment_that_prints_nothing_is_cached_too() {
    // Its report has no `printed` lines: the stored text must still read back.
    let cli = Cli::new();
    let quiet = "total = sum(values)\nmean = total / len(values)\n";
    let first = cli.fix(quiet, &[]);
    assert!(!cached(&first) && first["stdout"] == "", "{first}");
    let second = cli.fix(quiet, &[]);
    assert!(cached(&second), "served from the cache: {second}");
    assert_eq!(result(&second), result(&first));
}

#[test]
fn another_fragment_another_setting_or_the_results_cache_off_miss() {
    let cli = Cli::new();
    assert!(!cached(&cli.fix(FRAGMENT, &[])));
    // One constant changed.
    let edited = FRAGMENT.replace("> 2", "> 3");
    let other = cli.fix(&edited, &[]);
    assert!(!cached(&other), "another fragment misses: {other}");
    assert!(other["stats"]["executions"].as_u64().unwrap() > 0);
    // Another budget.
    let budget = cli.fix(FRAGMENT, &["--budget-seconds", "17"]);
    assert!(!cached(&budget), "another setting misses: {budget}");
    // Templates only: the stored result is not served.
    let templates_only = cli.fix(FRAGMENT, &["--no-results-cache"]);
    assert!(!cached(&templates_only), "{templates_only}");
    assert!(templates_only["stats"]["executions"].as_u64().unwrap() > 0);
    // The same request as the first, again: still stored.
    assert!(cached(&cli.fix(FRAGMENT, &[])));
    cli.assert_users_store_untouched();
}

#[test]
fn no_memory_reads_and_writes_nothing() {
    let cli = Cli::new();
    let j = cli.fix(FRAGMENT, &["--no-memory"]);
    assert!(!cached(&j));
    let j = cli.fix(FRAGMENT, &["--no-memory"]);
    assert!(!cached(&j), "{j}");
    assert!(!cli.cache.path().join("memory").exists(), "no store is made");
    assert!(!has_store(cli.user.path()));
}

#[test]
fn two_processes_writing_one_store_at_once_both_keep_their_results() {
    // Two `runnable fix` processes on one store at the same time (WAL, a
    // busy timeout, short transactions): both finish, and what each stored
    // is there afterwards.
    let cli = Cli::new();
    let other = FRAGMENT.replace("> 2", "> 3");
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| cli.fix_file("a.py", FRAGMENT, &[]));
        let b = s.spawn(|| cli.fix_file("b.py", &other, &[]));
        (a.join().unwrap(), b.join().unwrap())
    });
    for j in [&a, &b] {
        assert!(!cached(j), "{j}");
        assert!(j["stats"]["executions"].as_u64().unwrap() > 0, "{j}");
    }
    let again_a = cli.fix_file("a.py", FRAGMENT, &[]);
    let again_b = cli.fix_file("b.py", &other, &[]);
    assert!(cached(&again_a) && cached(&again_b), "both results were stored");
    assert_eq!(result(&again_a), result(&a));
    assert_eq!(result(&again_b), result(&b));
    let store = runnable::memory::store::Store::open(&cli.cache.path().join("memory")).unwrap();
    assert!(store.moved_aside.is_none(), "the store stayed healthy");
    assert_eq!(store.stats().unwrap().results, 2);
    cli.assert_users_store_untouched();
}
