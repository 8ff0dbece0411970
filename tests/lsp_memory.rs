//! Memory through the language server (issue 18), and the client's settings
//! before the first run. The server runs in process with memory as its
//! settings say; every test gives it a temporary `cacheDir` (its store), and
//! the default cache dir (`XDG_CACHE_HOME`, where the user's store would be)
//! is pointed at another temporary dir, which must never get a store.

mod support;

use runnable::memory::store::Store;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::{uri, Client};

/// Free names whose values the rules must find (several runs), standard
/// library only (no install).
const FRAGMENT: &str = "for item in items:\n    print(item.upper())\nprint(config['name'], len(rows) > 2)\n";
const RUN: Duration = Duration::from_secs(120);

/// The default cache dir of every server in this process: a temporary dir
/// set once, before the first server starts.
fn default_cache() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        std::env::set_var("XDG_CACHE_HOME", dir.path());
        dir
    })
    .path()
}

/// Whether a memory store is anywhere below `dir`.
fn has_store(dir: &Path) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
        let p = e.path();
        p.file_name().is_some_and(|n| n == "memory.sqlite3") || (p.is_dir() && has_store(&p))
    })
}

fn whole(text: &str) -> Value {
    let lines = text.lines().count() as u32;
    json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}})
}

struct Session {
    client: Client,
    uri: String,
    _work: tempfile::TempDir,
}

impl Session {
    fn start(work: tempfile::TempDir) -> Session {
        default_cache();
        let client = Client::start_with_memory(work.path());
        let uri = uri(&work.path().join("fragment.py"));
        Session { client, uri, _work: work }
    }

    fn make_runnable(&self) {
        let version = self.client.doc(&self.uri).version;
        let args = json!({"command": "runnable.makeRunnable", "arguments": [{"uri": self.uri, "version": version, "range": whole(FRAGMENT)}]});
        let r = self.client.request("workspace/executeCommand", args);
        assert!(r.is_ok(), "{r:?}");
    }

    /// Wait for the `n`th `runnable/runFinished` (1-based) and return its params.
    fn finished(&self, n: usize) -> Value {
        let deadline = Instant::now() + RUN;
        loop {
            if let Some(m) = self.client.messages("runnable/runFinished").get(n - 1) {
                return m["params"].clone();
            }
            assert!(Instant::now() < deadline, "run {n} did not finish");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// One run, start to end: its `runFinished`, the edit it sent and its
    /// progress messages.
    fn run(&self, n: usize) -> (Value, Value, Vec<Value>) {
        let progress_before = self.client.messages("$/progress").len();
        self.make_runnable();
        let done = self.finished(n);
        let edits = self.client.messages("workspace/applyEdit");
        let edit = edits.get(n - 1).unwrap_or_else(|| panic!("run {n} sent no edit: {done}"))["params"]["edit"].clone();
        let progress = self.client.messages("$/progress")[progress_before..].iter().map(|m| m["params"]["value"].clone()).collect();
        (done, edit, progress)
    }
}

/// Whether the progress of a run says its result is the stored one.
fn says_cached(progress: &[Value]) -> bool {
    let reported = progress.iter().any(|v| v["kind"] == "report" && v["message"] == "cached");
    let ended = progress.iter().any(|v| v["kind"] == "end" && v["message"].as_str().is_some_and(|m| m.ends_with("(cached)")));
    assert_eq!(reported, ended, "the report and the end message agree: {progress:?}");
    reported
}

fn stats(cache: &Path) -> runnable::memory::store::Stats {
    Store::open(&cache.join(runnable::memory::DIR)).unwrap().stats().unwrap()
}

#[test]
fn the_same_run_again_is_the_stored_result_says_so_and_memory_enabled_false_turns_it_off() {
    let cache = tempfile::tempdir().unwrap();
    let s = Session::start(tempfile::tempdir().unwrap());
    // The edit is declined, so the document (and the fragment) stays the same.
    s.client.set_apply_edits(false);
    let settings = json!({"cacheDir": cache.path(), "runPolicy": "always"});
    s.client.initialize(settings.clone(), false);
    s.client.open(&s.uri, "python", FRAGMENT);

    let (first, first_edit, first_progress) = s.run(1);
    assert_eq!(first["cached"], false, "{first}");
    assert!(!says_cached(&first_progress), "{first_progress:?}");
    assert!(first["covered"].as_u64().unwrap() > 0, "{first}");
    assert_eq!(stats(cache.path()).results, 1, "the first result is stored");

    let (second, second_edit, second_progress) = s.run(2);
    assert_eq!(second["cached"], true, "{second}");
    assert!(says_cached(&second_progress), "{second_progress:?}");
    // Nothing ran the second time: no program run was announced.
    assert!(!second_progress.iter().any(|v| v["message"].as_str().is_some_and(|m| m.starts_with("running"))), "{second_progress:?}");
    // Otherwise the same result, and the same edit.
    let mut same = second.clone();
    same["cached"] = json!(false);
    assert_eq!(same, first);
    assert_eq!(second_edit, first_edit);
    assert_eq!(stats(cache.path()).result_hits, 1);

    // `memory.enabled: false` from the client: a fresh run, nothing read or kept.
    let mut off = settings;
    off["memory"] = json!({"enabled": false});
    s.client.notify("workspace/didChangeConfiguration", json!({"settings": {"runnable": off}}));
    let (third, third_edit, third_progress) = s.run(3);
    assert_eq!(third["cached"], false, "{third}");
    assert!(!says_cached(&third_progress), "{third_progress:?}");
    assert!(third_progress.iter().any(|v| v["message"].as_str().is_some_and(|m| m.starts_with("running"))), "it ran: {third_progress:?}");
    assert_eq!(third_edit, first_edit, "the same fragment gets the same result");
    let after = stats(cache.path());
    assert_eq!((after.results, after.result_hits), (1, 1), "memory off neither read nor wrote the store");
    assert!(!has_store(default_cache()), "a store was made in the default cache dir");
}

#[test]
fn the_first_run_after_start_up_waits_for_the_settings_the_client_is_asked_for() {
    // The client answers `workspace/configuration` late; its answer names
    // another cache dir than `initializationOptions` did. The first run,
    // asked for at once, must use the answer's.
    let root = tempfile::tempdir().unwrap();
    let early: PathBuf = root.path().join("from-initialization-options");
    let pulled: PathBuf = root.path().join("from-the-pull");
    let s = Session::start(tempfile::tempdir().unwrap());
    s.client.set_configuration(Some(json!({"cacheDir": pulled, "runPolicy": "always"})), Duration::from_millis(1500));
    s.client.initialize_with(json!({"cacheDir": early, "runPolicy": "always", "memory": {"enabled": false}}), false, |caps| {
        caps["workspace"]["configuration"] = json!(true);
    });
    s.client.open(&s.uri, "python", FRAGMENT);
    s.make_runnable();
    let done = s.finished(1);
    assert!(matches!(done["status"].as_str(), Some("completed" | "raised")), "{done}");
    let asked = s.client.messages("workspace/configuration");
    assert_eq!(asked.len(), 1, "the settings are pulled once, after initialized");
    assert_eq!(asked[0]["params"]["items"], json!([{"section": "runnable"}]));
    // The run's engine was the pulled cache dir's (memory on there: its
    // result is in that store), and nothing was built for the early one.
    assert_eq!(stats(&pulled).results, 1, "the first run used the pulled cacheDir");
    assert!(!early.exists(), "the cacheDir of initializationOptions was used before the client's answer");
    assert!(!has_store(default_cache()), "a store was made in the default cache dir");
}

#[test]
fn a_client_that_does_not_know_the_section_keeps_the_initialization_options() {
    // `null` for our section (a client with no such settings): the
    // settings of `initializationOptions` stay, and runs do not wait for more.
    let cache = tempfile::tempdir().unwrap();
    let s = Session::start(tempfile::tempdir().unwrap());
    s.client.set_configuration(None, Duration::ZERO);
    s.client.initialize_with(json!({"cacheDir": cache.path(), "runPolicy": "always"}), false, |caps| {
        caps["workspace"]["configuration"] = json!(true);
    });
    s.client.open(&s.uri, "python", FRAGMENT);
    s.make_runnable();
    let done = s.finished(1);
    assert!(matches!(done["status"].as_str(), Some("completed" | "raised")), "{done}");
    assert_eq!(s.client.messages("workspace/configuration").len(), 1);
    assert_eq!(stats(cache.path()).results, 1, "the run used the cacheDir of initializationOptions");
}
