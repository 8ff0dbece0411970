//! The model stages through the language server: the progress says
//! "asking the model" while a model call is out, Cancel stops the run at
//! once (the call is not waited for), and the model's prefix is applied
//! like the rules' would be.

mod support;
#[path = "support/model_server.rs"]
mod model_server;

use model_server::{ModelServer, Reply};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::{uri, Client};

const RUN: Duration = Duration::from_secs(120);
static ENGINE: Mutex<()> = Mutex::new(());

/// A fragment the rules cannot cover: the checksum of `code` must be 417.
const GATE: &str = "total = 0\nfor ch in code:\n    total = (total * 31 + ord(ch)) % 1000\nif total == 417:\n    print(\"valid code\", code)\n    print(\"unlocked\")\nprint(\"done\")\n";

fn word_with_checksum(target: u32) -> String {
    let sum = |s: &str| s.chars().fold(0u32, |t, c| (t * 31 + c as u32) % 1000);
    for a in 'a'..='z' {
        for b in 'a'..='z' {
            for c in 'a'..='z' {
                let w: String = [a, b, c].iter().collect();
                if sum(&w) == target {
                    return w;
                }
            }
        }
    }
    panic!("no word with checksum {target}")
}

fn start(dir: &std::path::Path, url: &str) -> Client {
    let client = Client::start(dir);
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-lsp-cache");
    client.initialize(
        json!({"cacheDir": cache, "runPolicy": "always", "budgetSeconds": 30, "llm": {"enabled": true, "endpoint": url, "model": "scripted"}}),
        false,
    );
    client
}

fn make_runnable(client: &Client, u: &str) {
    let version = client.doc(u).version;
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 6, "character": 0}});
    let r = client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "version": version, "range": range}]}));
    assert!(r.is_ok(), "{r:?}");
}

fn open(client: &Client, dir: &std::path::Path) -> String {
    let path = dir.join("gate.py");
    std::fs::write(&path, GATE).unwrap();
    let u = uri(&path);
    client.open(&u, "python", GATE);
    u
}

#[test]
fn progress_says_asking_the_model_and_cancel_stops_it_at_once() {
    let _turn = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    let server = ModelServer::start(|_| Reply::chat("late").after(Duration::from_secs(60)));
    let dir = tempfile::tempdir().unwrap();
    let client = start(dir.path(), &server.url);
    let u = open(&client, dir.path());
    make_runnable(&client, &u);
    let asking = client
        .wait_for("$/progress", RUN, |p| p["value"]["message"].as_str().is_some_and(|m| m.starts_with("asking the model")))
        .unwrap_or_else(|| panic!("no 'asking the model' progress: {:#?}", client.messages("$/progress")));
    let token = asking["params"]["token"].clone();
    // The request is out and the server will not answer for a minute.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.requests().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!server.requests().is_empty());
    let t = Instant::now();
    client.notify("window/workDoneProgress/cancel", json!({"token": token}));
    let done = client.wait_for("runnable/runFinished", Duration::from_secs(10), |p| p["uri"] == u).expect("the run ends");
    assert!(t.elapsed() < Duration::from_secs(1), "ended {:?} after the cancel", t.elapsed());
    assert_eq!(done["params"]["status"], "cancelled", "{done}");
    assert!(client.messages("workspace/applyEdit").is_empty());
}

#[test]
fn the_models_prefix_is_applied_in_the_editor() {
    let _turn = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    let word = word_with_checksum(417);
    let answer = format!("code = {word:?}");
    let server = ModelServer::start(move |_| Reply::prefixes(&[answer.as_str()]));
    let dir = tempfile::tempdir().unwrap();
    let client = start(dir.path(), &server.url);
    let u = open(&client, dir.path());
    make_runnable(&client, &u);
    let done = client.wait_for("runnable/runFinished", RUN, |p| p["uri"] == u).expect("the run ends");
    let params: &Value = &done["params"];
    assert_eq!(params["status"], "completed", "{params}");
    assert!(client.doc(&u).text.contains(&word), "{}", client.doc(&u).text);
    assert!(!server.requests().is_empty());
}
