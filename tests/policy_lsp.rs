//! Approval and escalation in `runnable lsp`, end to end (served in process):
//! `runPolicy` ("never" refuses, "ask" asks once per workspace, "Cancel"
//! runs and edits nothing), and the network denial question ("Allow network
//! for this run" re-runs once with the network; nothing is remembered),
//! proven with a loopback canary the sandbox cannot reach.

mod support;

use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::canary::{sandbox_or_skip, Canary};
use support::{uri, Client};

const SHORT: Duration = Duration::from_secs(10);
const RUN: Duration = Duration::from_secs(120);

/// Tests that run the engine take turns (two cores).
static ENGINE: Mutex<()> = Mutex::new(());

fn engine_turn() -> std::sync::MutexGuard<'static, ()> {
    ENGINE.lock().unwrap_or_else(|e| e.into_inner())
}

fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-lsp-cache")
}

fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
    json!({"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}})
}

struct Session {
    client: Client,
    _dir: tempfile::TempDir,
}

impl Session {
    fn start(options: Value) -> Session {
        let dir = tempfile::tempdir().unwrap();
        let client = Client::start(dir.path());
        let mut options = options;
        options["cacheDir"] = json!(shared_cache());
        client.initialize(options, false);
        Session { client, _dir: dir }
    }

    /// Write `text` to `path` and open it.
    fn open_at(&self, path: &std::path::Path, text: &str) -> String {
        std::fs::write(path, text).unwrap();
        let u = uri(path);
        self.client.open(&u, "python", text);
        u
    }

    fn open(&self, name: &str, text: &str) -> String {
        self.open_at(&self.client.root.join(name), text)
    }

    fn make_runnable(&self, u: &str, r: Value) {
        let version = self.client.doc(u).version;
        let res = self.client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "version": version, "range": r}]}));
        assert!(res.is_ok(), "{res:?}");
    }

    fn finished(&self) -> Vec<Value> {
        self.client.messages("runnable/runFinished").into_iter().map(|m| m["params"].clone()).collect()
    }

    /// The `n`th (1-based) runFinished of the session.
    fn nth_finished(&self, n: usize) -> Value {
        let deadline = Instant::now() + RUN;
        while self.finished().len() < n {
            assert!(Instant::now() < deadline, "no runFinished #{n} within {RUN:?}; got {:#?}", self.finished());
            std::thread::sleep(Duration::from_millis(50));
        }
        self.finished()[n - 1].clone()
    }

    fn questions(&self) -> Vec<Value> {
        self.client.messages("window/showMessageRequest").into_iter().map(|m| m["params"].clone()).collect()
    }

    /// Worker processes (`harness.py`) the server started: a run that ran
    /// anything leaves its warm workers behind. Served in process, they are
    /// this process's; the engine tests take turns, and a session that ends
    /// shuts its server down (killing its workers) before the next turn.
    fn workers(&self) -> Vec<u32> {
        support::descendants(self.client.pid())
            .into_iter()
            .filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains("harness.py")))
            .collect()
    }
}

fn titles(question: &Value) -> Vec<String> {
    question["actions"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap().to_string()).collect()
}

#[test]
fn run_policy_never_refuses_and_nothing_runs() {
    let _turn = engine_turn();
    let s = Session::start(json!({"runPolicy": "never"}));
    let text = "print(name.upper())\n";
    let u = s.open("never.py", text);
    // The action is still listed ...
    let actions = s
        .client
        .request("textDocument/codeAction", json!({"textDocument": {"uri": u}, "range": range(0, 0, 0, 0), "context": {"diagnostics": []}}))
        .unwrap();
    assert!(actions.as_array().unwrap().iter().any(|a| a["kind"] == "refactor.rewrite.makeRunnable"), "{actions}");
    // ... but the run ends at once, saying why.
    s.make_runnable(&u, range(0, 0, 0, 0));
    let done = s.nth_finished(1);
    assert_eq!(done["status"], "refused", "{done}");
    assert!(done["error"].as_str().unwrap().contains("runPolicy"), "{done}");
    assert_eq!((done["covered"].as_u64(), done["executable"].as_u64()), (Some(0), Some(0)));
    let told = s.client.wait_for("window/showMessage", SHORT, |p| p["message"].as_str().is_some_and(|m| m.contains("runPolicy")));
    assert!(told.is_some(), "the user is told why nothing ran");
    assert!(s.questions().is_empty(), "never does not ask");
    assert!(s.client.messages("$/progress").is_empty(), "no progress: nothing started");
    assert!(s.client.messages("workspace/applyEdit").is_empty());
    assert_eq!(s.client.doc(&u).text, text);
    assert!(s.workers().is_empty(), "a worker was started: {:?}", s.workers());
}

#[test]
fn run_policy_ask_asks_once_per_workspace_and_cancel_runs_nothing() {
    let _turn = engine_turn();
    let s = Session::start(json!({"runPolicy": "ask"}));
    let text = "print(name.upper())\n";
    let u = s.open("ask.py", text);

    // Cancel: nothing runs, nothing is edited.
    s.client.set_message_answer(Some("Cancel"));
    s.make_runnable(&u, range(0, 0, 0, 0));
    let done = s.nth_finished(1);
    assert_eq!(done["status"], "cancelled", "{done}");
    let q = &s.questions()[0];
    assert!(q["message"].as_str().unwrap().starts_with("Runnable: Run this code in the sandbox?"), "{q}");
    assert!(q["message"].as_str().unwrap().contains("line 1 of ask.py"), "{q}");
    assert_eq!(titles(q), ["Run", "Always in this workspace", "Cancel"]);
    assert!(s.client.messages("workspace/applyEdit").is_empty());
    assert_eq!(s.client.doc(&u).text, text);
    assert!(s.workers().is_empty(), "a worker was started: {:?}", s.workers());

    // Always in this workspace: runs, and the workspace is not asked again.
    s.client.set_message_answer(Some("Always in this workspace"));
    s.make_runnable(&u, range(0, 0, 0, 0));
    let done = s.nth_finished(2);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(s.questions().len(), 2);
    assert_eq!(s.client.messages("workspace/applyEdit").len(), 1, "the result is applied");
    assert!(!s.workers().is_empty(), "a run leaves warm workers (so their absence above means nothing ran)");
    let other = s.open("other.py", "x = 1\nprint(x)\n");
    s.make_runnable(&other, range(0, 0, 0, 0));
    assert_eq!(s.nth_finished(3)["status"], "completed");
    assert_eq!(s.questions().len(), 2, "a second run in the workspace asked again");

    // A document outside the workspace folder is another workspace: asked
    // again; "Run" allows that run only.
    let outside = tempfile::tempdir().unwrap();
    let far = s.open_at(&outside.path().join("far.py"), "y = 2\nprint(y)\n");
    s.client.set_message_answer(Some("Run"));
    s.make_runnable(&far, range(0, 0, 0, 0));
    assert_eq!(s.nth_finished(4)["status"], "completed");
    assert_eq!(s.questions().len(), 3, "outside the workspace folder it asks");
    s.client.set_message_answer(None);
    s.make_runnable(&far, range(0, 0, 0, 0));
    assert_eq!(s.nth_finished(5)["status"], "cancelled", "a dismissed question runs nothing");
    assert_eq!(s.questions().len(), 4, "\"Run\" was for one run only");
}

/// The `n`th network question, waiting for it.
fn network_question(s: &Session, n: usize) -> Value {
    let deadline = Instant::now() + RUN;
    loop {
        let qs: Vec<Value> = s.questions().into_iter().filter(|q| q["message"].as_str().unwrap().contains("blocked network access")).collect();
        if qs.len() >= n {
            return qs[n - 1].clone();
        }
        assert!(Instant::now() < deadline, "no network question #{n}; questions: {:#?}", s.questions());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_network_denial_is_reported_and_allow_reruns_once_with_the_network() {
    if !sandbox_or_skip("a_network_denial_is_reported_and_allow_reruns_once_with_the_network") {
        return;
    }
    let _turn = engine_turn();
    let canary = Canary::start();
    let s = Session::start(json!({"runPolicy": "always"}));
    let u = s.open("fetch.py", &canary.fragment());
    let whole = range(0, 0, 4, 0);

    // 1. "Not now": the sandboxed result is applied, with its denial.
    s.client.set_message_answer(Some("Not now"));
    s.make_runnable(&u, whole.clone());
    let q = network_question(&s, 1);
    assert!(q["message"].as_str().unwrap().starts_with("Runnable: the sandbox blocked network access ("), "{q}");
    assert!(q["message"].as_str().unwrap().ends_with("). Allow network for this run?"), "{q}");
    assert_eq!(titles(&q), ["Allow network for this run", "Not now"]);
    let done = s.nth_finished(1);
    assert_eq!(done["status"], "raised", "{done}");
    assert_eq!(done["network"], false);
    assert_eq!(done["denied"][0]["what"], "network", "{done}");
    assert_eq!(done["denied"][0]["layer"], "network namespace (bubblewrap --unshare-net)");
    assert!(canary.received().is_empty(), "the sandboxed run reached the host's loopback");

    // 2. "Allow network for this run": asked again (nothing remembered), and
    // the re-run reaches the canary; its result is the one reported.
    s.client.set_message_answer(Some("Allow network for this run"));
    s.make_runnable(&u, whole.clone());
    network_question(&s, 2);
    let done = s.nth_finished(2);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["network"], true, "{done}");
    assert_eq!(done["denied"], json!([]), "{done}");
    let deadline = Instant::now() + SHORT;
    while canary.received().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let got = canary.received();
    assert!(!got.is_empty() && got.iter().all(|g| g == "canary"), "{got:?}");
    let reached = got.len();
    let progress: Vec<Value> = s.client.messages("$/progress");
    assert!(progress.iter().any(|p| p["params"]["value"]["message"] == "re-running with network access"), "the re-run is announced");

    // 3. The next run is offline again.
    s.client.set_message_answer(Some("Not now"));
    s.make_runnable(&u, whole);
    network_question(&s, 3);
    let done = s.nth_finished(3);
    assert_eq!(done["network"], false, "{done}");
    assert_eq!(done["denied"][0]["what"], "network", "{done}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(canary.received().len(), reached, "a later run reached the canary without being allowed");
}

#[test]
fn failed_name_resolution_in_the_sandbox_is_a_network_denial() {
    if !sandbox_or_skip("failed_name_resolution_in_the_sandbox_is_a_network_denial") {
        return;
    }
    let _turn = engine_turn();
    let s = Session::start(json!({"runPolicy": "always"}));
    // Resolved inside the sandbox's own namespace only: no packet leaves it.
    let u = s.open("resolve.py", "import socket\ninfo = socket.getaddrinfo(\"example.invalid\", 80)\nprint(info)\n");
    s.client.set_message_answer(Some("Not now"));
    s.make_runnable(&u, range(0, 0, 3, 0));
    let q = network_question(&s, 1);
    assert!(q["message"].as_str().unwrap().contains("gaierror"), "{q}");
    let done = s.nth_finished(1);
    assert_eq!(done["denied"][0]["what"], "network", "{done}");
    assert!(done["denied"][0]["detail"].as_str().unwrap().contains("name resolution"), "{done}");
    assert_eq!(done["network"], false);

    // urlopen: the result completes with an offline stand-in for it, and the
    // denial of the first run is still reported and asked about.
    let u = s.open("fetch_url.py", "import urllib.request\npage = urllib.request.urlopen(\"http://example.invalid\")\nprint(page.read())\n");
    s.make_runnable(&u, range(0, 0, 3, 0));
    let q = network_question(&s, 2);
    assert!(q["message"].as_str().unwrap().contains("URLError"), "{q}");
    let done = s.nth_finished(2);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["denied"][0]["what"], "network", "{done}");
    assert_eq!(done["network"], false);
}
