//! End-to-end tests of `runnable lsp`: the server served in process over
//! duplex pipes (its own transport guard and framing), driven by a small
//! client (tests/support) that answers the server's requests like an editor
//! and applies its edits; one smoke test drives the real binary over stdio.

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use support::{column, uri, Client, Enc};

const SHORT: Duration = Duration::from_secs(10);
const RUN: Duration = Duration::from_secs(120);

/// Tests that run the engine take turns: the machine has two cores, and a
/// cancellation test must not wait behind another test's runs.
static ENGINE: Mutex<()> = Mutex::new(());

fn engine_turn() -> std::sync::MutexGuard<'static, ()> {
    ENGINE.lock().unwrap_or_else(|e| e.into_inner())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(repo().join("tests/fixtures").join(name)).unwrap()
}

/// Shared across tests (venvs are reused), under the target's temp dir.
fn shared_cache() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-lsp-cache")
}

struct Session {
    client: Client,
    _dir: tempfile::TempDir,
    _cache: Option<tempfile::TempDir>,
}

impl Session {
    fn start(options: Value, utf8: bool) -> Session {
        Session::start_with(options, utf8, |_| {})
    }

    /// With the client's capabilities changed by `caps` (a client lacking one).
    fn start_with(options: Value, utf8: bool, caps: impl FnOnce(&mut Value)) -> Session {
        Session::start_on(Client::start, options, utf8, caps)
    }

    /// With the client `connect` starts (in process, or the real binary).
    fn start_on(connect: fn(&Path) -> Client, options: Value, utf8: bool, caps: impl FnOnce(&mut Value)) -> Session {
        let dir = tempfile::tempdir().unwrap();
        let client = connect(dir.path());
        let mut options = options;
        if options.get("cacheDir").is_none() {
            options["cacheDir"] = json!(shared_cache());
        }
        // These tests are about running; approval has its own (tests/policy_lsp.rs).
        if options.get("runPolicy").is_none() {
            options["runPolicy"] = json!("always");
        }
        client.initialize_with(options, utf8, caps);
        Session { client, _dir: dir, _cache: None }
    }

    /// With a cache of its own (a fresh environment), removed at the end.
    fn with_fresh_cache(options: Value) -> Session {
        let cache = tempfile::tempdir().unwrap();
        let mut options = options;
        options["cacheDir"] = json!(cache.path());
        let mut s = Session::start(options, false);
        s._cache = Some(cache);
        s
    }

    fn root(&self) -> &Path {
        &self.client.root
    }

    /// Write `text` to `<root>/<name>` and open it.
    fn open(&self, name: &str, language: &str, text: &str) -> String {
        let path = self.root().join(name);
        std::fs::write(&path, text).unwrap();
        let u = uri(&path);
        self.client.open(&u, language, text);
        u
    }

    fn diagnostics(&self, u: &str, timeout: Duration, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let msg = self
            .client
            .wait(timeout, |m| {
                let p = &m["params"];
                (m["method"] == "textDocument/publishDiagnostics" && p["uri"] == u && pred(p["diagnostics"].as_array().unwrap())).then(|| p.clone())
            })
            .unwrap_or_else(|| panic!("no matching diagnostics for {u}; got {:#?}", self.client.messages("textDocument/publishDiagnostics")));
        msg["diagnostics"].as_array().unwrap().clone()
    }

    fn code_actions(&self, u: &str, range: Value, only: Option<Value>, diagnostics: Value) -> Result<Value, Value> {
        let mut context = json!({"diagnostics": diagnostics});
        if let Some(only) = only {
            context["only"] = only;
        }
        self.client.request("textDocument/codeAction", json!({"textDocument": {"uri": u}, "range": range, "context": context}))
    }

    fn make_runnable(&self, u: &str, range: Value) {
        let version = self.client.doc(u).version;
        let r = self.client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "version": version, "range": range}]}));
        assert!(r.is_ok(), "{r:?}");
    }

    /// After a cancel at `since`, a new run of `u` is accepted within 2 s:
    /// the program in the sandbox was stopped, not left to its own timeout
    /// (10 s here). The new run is cancelled and finishes too.
    fn restarts_soon_after_cancel(&self, u: &str, since: Instant) {
        let finished = || self.client.messages("runnable/runFinished").iter().filter(|m| m["params"]["uri"] == u).count();
        let before = finished();
        loop {
            let version = self.client.doc(u).version;
            let args = json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "version": version, "range": range(0, 0, 0, 0)}]});
            match self.client.request("workspace/executeCommand", args) {
                Ok(_) => break,
                Err(e) if since.elapsed() < Duration::from_secs(2) && e["message"].as_str().is_some_and(|m| m.contains("already running")) => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Err(e) => panic!("no new run {:?} after the cancel: {e}", since.elapsed()),
            }
        }
        assert!(since.elapsed() < Duration::from_secs(2), "a new run started only {:?} after the cancel", since.elapsed());
        let r = self.client.request("workspace/executeCommand", json!({"command": "runnable.cancel", "arguments": [{"uri": u}]})).unwrap();
        assert_eq!(r, json!(true));
        let deadline = Instant::now() + SHORT;
        while finished() == before {
            assert!(Instant::now() < deadline, "the second run never finished");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn run_finished(&self, u: &str, timeout: Duration) -> Value {
        self.client
            .wait_for("runnable/runFinished", timeout, |p| p["uri"] == u)
            .unwrap_or_else(|| panic!("no runFinished for {u}"))["params"]
            .clone()
    }

    /// The Markdown of `textDocument/hover` at the start of `line` ("" when none).
    fn hover(&self, u: &str, line: u64) -> String {
        let r = self.client.request("textDocument/hover", json!({"textDocument": {"uri": u}, "position": {"line": line, "character": 0}})).unwrap();
        if !r.is_null() {
            assert_eq!(r["contents"]["kind"], "markdown", "{r}");
        }
        r["contents"]["value"].as_str().unwrap_or("").to_string()
    }

    fn inlay_hints(&self, u: &str) -> Vec<Value> {
        let lines = self.client.doc(u).text.split('\n').count() as u32;
        let r = self.client.request("textDocument/inlayHint", json!({"textDocument": {"uri": u}, "range": range(0, 0, lines - 1, 0)}));
        r.unwrap().as_array().cloned().unwrap_or_default()
    }
}

/// `running: run 1, 0.3 s`.
fn regex_like_running(message: &str) -> bool {
    let Some(rest) = message.strip_prefix("running: run 1, ") else { return false };
    rest.strip_suffix(" s").is_some_and(|secs| secs.parse::<f64>().is_ok_and(|s| s >= 0.0))
}

fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
    json!({"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}})
}

fn codes(diags: &[Value]) -> Vec<String> {
    diags.iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
}

#[test]
fn initialize_negotiates_the_position_encoding() {
    let s = Session::start(json!({}), true);
    assert_eq!(s.client.encoding(), Enc::Utf8);
    let s16 = Session::start(json!({}), false);
    assert_eq!(s16.client.encoding(), Enc::Utf16);
    // Capabilities the editors rely on.
    let dir = tempfile::tempdir().unwrap();
    let c = Client::start(dir.path());
    let init = c.initialize(json!({"cacheDir": shared_cache()}), false);
    let caps = &init["capabilities"];
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    assert_eq!(caps["codeActionProvider"]["resolveProvider"], true);
    let kinds = caps["codeActionProvider"]["codeActionKinds"].as_array().unwrap();
    assert!(kinds.contains(&json!("refactor.rewrite.makeRunnable")), "{kinds:?}");
    let commands = caps["executeCommandProvider"]["commands"].as_array().unwrap();
    for c in ["runnable.makeRunnable", "runnable.showReport", "runnable.cancel"] {
        assert!(commands.contains(&json!(c)), "{c}");
    }
    assert_eq!(caps["inlayHintProvider"], true);
}

#[test]
fn diagnostics_for_undefined_names_unresolved_imports_and_missing_files() {
    let s = Session::with_fresh_cache(json!({}));
    let text = "import nosuchmodule_xyz\nimport tabulate\nx = np.array([1, 2])\nwith open(\"absent.txt\") as f:\n    print(f.read(), helper(x))\n";
    let u = s.open("diag.py", "python", text);
    let diags = s.diagnostics(&u, RUN, |d| codes(d).iter().filter(|c| *c == "unresolved-import").count() == 2);
    let codes = codes(&diags);
    assert!(diags.iter().all(|d| d["source"] == "runnable"), "{diags:#?}");
    let find = |code: &str, needle: &str| {
        diags.iter().find(|d| d["code"] == code && d["message"].as_str().unwrap().contains(needle)).unwrap_or_else(|| panic!("{code} {needle}: {diags:#?}")).clone()
    };
    let unknown = find("unresolved-import", "nosuchmodule_xyz");
    assert_eq!(unknown["range"], range(0, 7, 0, 23));
    let not_installed = find("unresolved-import", "not installed: run Make this runnable to install");
    assert_eq!(not_installed["range"]["start"]["line"], 1);
    let np = find("undefined-name", "`np`");
    assert_eq!(np["range"], range(2, 4, 2, 6));
    assert_eq!(np["data"]["fix"], "import numpy as np");
    find("undefined-name", "`helper`");
    let file = find("missing-file", "absent.txt");
    assert_eq!(file["range"], range(3, 10, 3, 22));
    assert_eq!(codes.len(), 5, "{diags:#?}");
    // Published with the document version.
    let published = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == u.as_str()).unwrap();
    assert_eq!(published["params"]["version"], 1);

    // Fixing the name removes its diagnostic at the next version.
    let v = s.client.edit(&u, (2, 4), (2, 6), "sum");
    let msg = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == u.as_str() && p["version"] == v).unwrap();
    let after: Vec<Value> = msg["params"]["diagnostics"].as_array().unwrap().clone();
    assert!(!after.iter().any(|d| d["message"].as_str().unwrap().contains("`np`")), "{after:#?}");

    // Closing clears them.
    s.client.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == u.as_str() && p["diagnostics"] == json!([])).expect("cleared on close");
}

#[test]
fn quick_fix_adds_the_conventional_import() {
    let s = Session::start(json!({}), false);
    let u = s.open("qf.py", "python", "\"\"\"Doc.\"\"\"\nx = np.zeros(3)\nc = Counter(x)\n");
    let diags = s.diagnostics(&u, SHORT, |d| codes(d).iter().filter(|c| *c == "undefined-name").count() == 2);
    let np = diags.iter().find(|d| d["message"].as_str().unwrap().contains("`np`")).unwrap().clone();
    let actions = s.code_actions(&u, np["range"].clone(), Some(json!(["quickfix"])), json!([np])).unwrap();
    let actions = actions.as_array().unwrap();
    // This name's import, and one action for every missing import of the file.
    assert_eq!(actions.len(), 2, "{actions:#?}");
    assert!(actions.iter().any(|a| a["title"] == "Add all missing imports (2)"), "{actions:#?}");
    let a = actions.iter().find(|a| a["title"] == "Add `import numpy as np`").unwrap_or_else(|| panic!("{actions:#?}"));
    assert_eq!(a["kind"], "quickfix");
    let edit = &a["edit"]["documentChanges"][0];
    assert_eq!(edit["textDocument"]["version"], 1);
    assert_eq!(edit["edits"][0]["newText"], "import numpy as np\n");
    assert_eq!(edit["edits"][0]["range"], range(1, 0, 1, 0), "after the docstring");
    let counter = diags.iter().find(|d| d["message"].as_str().unwrap().contains("`Counter`")).unwrap().clone();
    let actions = s.code_actions(&u, counter["range"].clone(), None, json!([counter])).unwrap();
    let fix = actions.as_array().unwrap().iter().find(|a| a["kind"] == "quickfix").unwrap();
    assert_eq!(fix["edit"]["documentChanges"][0]["edits"][0]["newText"], "from collections import Counter\n");
}

#[test]
fn make_runnable_is_listed_instantly_with_data_and_no_edit() {
    let s = Session::start(json!({}), false);
    let text = "import os\n\ndef area(w, h):\n    total = w * h\n    return total\n\nprint(area(2, 3))\n";
    let u = s.open("list.py", "python", text);
    let t = Instant::now();
    let actions = s.code_actions(&u, range(3, 4, 4, 16), None, json!([])).unwrap();
    assert!(t.elapsed() < Duration::from_secs(2), "listing took {:?}", t.elapsed());
    let a = actions.as_array().unwrap().iter().find(|a| a["kind"] == "refactor.rewrite.makeRunnable").expect("listed").clone();
    assert_eq!(a["title"], "Make this runnable");
    assert!(a.get("edit").is_none() || a["edit"].is_null(), "{a}");
    assert_eq!(a["data"]["uri"], u.as_str());
    assert_eq!(a["data"]["version"], 1);
    assert_eq!(a["data"]["range"], range(3, 0, 4, 16));
    // No run started: nothing but diagnostics came back.
    assert!(s.client.messages("window/workDoneProgress/create").is_empty());

    // Empty selection: the enclosing top-level function.
    let actions = s.code_actions(&u, range(3, 6, 3, 6), Some(json!(["refactor"])), json!([])).unwrap();
    let a = &actions.as_array().unwrap()[0];
    assert_eq!(a["data"]["range"], range(2, 0, 4, 16));
    // context.only is respected.
    let actions = s.code_actions(&u, range(3, 6, 3, 6), Some(json!(["quickfix"])), json!([])).unwrap();
    assert!(actions.as_array().unwrap().is_empty(), "{actions}");
    // Nothing on a blank line between statements.
    let actions = s.code_actions(&u, range(5, 0, 5, 0), None, json!([])).unwrap();
    assert!(actions.as_array().unwrap().is_empty(), "{actions}");

    // Markdown: the ```python fence around the cursor.
    let md = "# Notes\n\n```python\nfields = line.split(',')\nprint(fields)\n```\n";
    let m = s.open("notes.md", "markdown", md);
    let actions = s.code_actions(&m, range(3, 2, 3, 2), None, json!([])).unwrap();
    let a = &actions.as_array().unwrap()[0];
    assert_eq!(a["kind"], "refactor.rewrite.makeRunnable");
    assert_eq!(a["data"]["range"], range(3, 0, 4, 13));
    let actions = s.code_actions(&m, range(0, 0, 0, 0), None, json!([])).unwrap();
    assert!(actions.as_array().unwrap().is_empty(), "outside a fence: {actions}");
}

#[test]
fn a_client_without_resolve_support_gets_the_command_and_running_it_runs() {
    let _turn = engine_turn();
    // As eglot 1.9: code action literals, no `resolveSupport`.
    let s = Session::start_with(json!({}), false, |caps| {
        caps["textDocument"]["codeAction"].as_object_mut().unwrap().remove("resolveSupport");
    });
    let text = fixture("string_from_methods.py");
    let u = s.open("eglot.py", "python", &text);
    let actions = s.code_actions(&u, range(1, 0, 3, 0), Some(json!(["refactor"])), json!([])).unwrap();
    let action = actions.as_array().unwrap().iter().find(|a| a["kind"] == "refactor.rewrite.makeRunnable").expect("listed").clone();
    let command = &action["command"];
    assert_eq!(command["command"], "runnable.makeRunnable", "{action}");
    assert_eq!(command["arguments"], json!([action["data"]]), "{action}");
    // The client executes the action's command, as such a client does.
    let r = s.client.request("workspace/executeCommand", json!({"command": command["command"], "arguments": command["arguments"]}));
    assert!(r.is_ok(), "{r:?}");
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(s.client.messages("workspace/applyEdit").len(), 1);
    assert!(s.client.doc(&u).text.contains("record_line = "), "the prefix was inserted");

    // A client that resolves gets no command (it would start a second run).
    let s2 = Session::start(json!({}), false);
    let u2 = s2.open("vscode.py", "python", &text);
    let actions = s2.code_actions(&u2, range(1, 0, 3, 0), Some(json!(["refactor"])), json!([])).unwrap();
    assert!(actions[0].get("command").is_none_or(|c| c.is_null()), "{actions}");
}

#[test]
fn make_runnable_inserts_the_prefix_reports_progress_and_hints() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let text = fixture("string_from_methods.py");
    let u = s.open("strings.py", "python", &text);
    s.make_runnable(&u, range(0, 0, 3, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["version"], 1);
    assert_eq!(done["covered"], 2);
    assert_eq!(done["executable"], 2);
    assert_eq!(done["ratio"], 1.0);

    // Progress: created, begun, reported, ended.
    let create = &s.client.messages("window/workDoneProgress/create")[0];
    let token = create["params"]["token"].clone();
    let progress: Vec<Value> = s.client.messages("$/progress").into_iter().filter(|p| p["params"]["token"] == token).map(|p| p["params"]["value"].clone()).collect();
    assert_eq!(progress.first().unwrap()["kind"], "begin", "{progress:#?}");
    assert_eq!(progress.first().unwrap()["title"], "Runnable");
    assert_eq!(progress.first().unwrap()["message"], "environment");
    assert!(progress.iter().any(|p| p["kind"] == "report" && p["message"].as_str().unwrap().starts_with("exploring: round ")), "{progress:#?}");
    assert_eq!(progress.last().unwrap()["kind"], "end");
    // The stages in order: environment, running (the first run, with its
    // number and the time so far), exploring; never back to an earlier one.
    let stage_of = |p: &Value| p["message"].as_str().unwrap_or("").split([':', ' ']).next().unwrap_or("").to_string();
    let stages: Vec<String> = progress.iter().filter(|p| p["kind"] != "end").map(stage_of).collect();
    let mut order: Vec<String> = stages.clone();
    order.dedup();
    assert_eq!(&order[..3], ["environment", "running", "exploring"], "{progress:#?}");
    let rank = |s: &str| ["environment", "running", "exploring", "evolving"].iter().position(|x| *x == s).unwrap_or_else(|| panic!("unknown stage {s}"));
    assert!(order.windows(2).all(|w| rank(&w[0]) < rank(&w[1])), "stages go back: {order:?}");
    let running = progress.iter().find(|p| stage_of(p) == "running").unwrap()["message"].as_str().unwrap().to_string();
    assert!(regex_like_running(&running), "{running}");

    // The edit: prefix above the fragment, applied at the version that ran.
    let edits = s.client.messages("workspace/applyEdit");
    assert_eq!(edits.len(), 1);
    let change = &edits[0]["params"]["edit"]["documentChanges"][0];
    assert_eq!(change["textDocument"]["version"], 1);
    let doc = s.client.doc(&u);
    let lines: Vec<&str> = doc.text.lines().collect();
    assert!(lines[0].starts_with("record_line = "), "{}", doc.text);
    assert_eq!(lines[1], "");
    assert_eq!(&lines[2..], text.lines().collect::<Vec<_>>().as_slice(), "the fragment is unchanged below the prefix");

    // Hints on the moved lines: `fields = ...` was line 1, now line 3.
    s.client.wait_for("workspace/inlayHint/refresh", SHORT, |_| true).expect("inlay hint refresh");
    let hints = s.inlay_hints(&u);
    let on = |line: u64| hints.iter().filter(|h| h["position"]["line"] == line).map(|h| h["label"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    // Both statements ran once, which needs no hint; the computed value does.
    assert_eq!(on(3).len(), 1, "{hints:#?}");
    assert!(on(3)[0].starts_with("= ['The quick"), "{hints:#?}");
    // Line 4 only shows what it printed: no count, no value.
    assert_eq!(on(4), vec!["› 1 THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG"], "{hints:#?}");
    assert!(on(2).is_empty() && on(0).is_empty(), "no hints on the comment or the prefix: {hints:#?}");
    // The hint sits at the end of its line.
    let h = hints.iter().find(|h| h["position"]["line"] == 3).unwrap();
    assert_eq!(h["position"]["character"].as_u64().unwrap() as usize, lines[3].encode_utf16().count());

    // Editing a line with results drops them; the others stay.
    s.client.edit(&u, (4, 0), (4, 0), "# ");
    let hints = s.inlay_hints(&u);
    assert!(!hints.is_empty() && hints.iter().all(|h| h["position"]["line"] == 3), "{hints:#?}");

    // Hints can be switched off.
    s.client.notify("workspace/didChangeConfiguration", json!({"settings": {"runnable": {"cacheDir": shared_cache(), "hints": {"values": false}}}}));
    let hints = s.inlay_hints(&u);
    assert!(hints.is_empty(), "{hints:#?}");

    // The report.
    let report = s.client.request("workspace/executeCommand", json!({"command": "runnable.showReport", "arguments": [{"uri": u}]})).unwrap();
    let path = support::path_of(report.as_str().unwrap());
    let md = std::fs::read_to_string(&path).unwrap();
    assert!(md.contains("- `record_line`: `str`"), "{md}");
    assert!(md.contains("2/2"), "{md}");
    s.client.wait_for("window/showDocument", SHORT, |p| p["uri"] == report).expect("report opened");
}

#[test]
fn coverage_hints_count_executions_of_the_statement_not_line_events() {
    let _turn = engine_turn();
    let s = Session::start(json!({"hints": {"values": false}}), false);
    let text = "import io\nwords = ['bb', 'a', 'ccc']\nupper = [w.upper() for w in words]\nwith io.StringIO('x') as fh:\n    first = fh.read()\nlongest = max(words, key=lambda w: len(w))\nfor w in words:\n    print(w)\n";
    let u = s.open("counts.py", "python", text);
    s.make_runnable(&u, range(0, 0, 8, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    s.client.wait_for("workspace/inlayHint/refresh", SHORT, |_| true).expect("inlay hint refresh");
    let doc = s.client.doc(&u).text;
    let hints = s.inlay_hints(&u);
    let line_of = |start: &str| doc.lines().position(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no {start:?} in {doc}")) as u64;
    let label = |start: &str| {
        let l = line_of(start);
        // Counts only: what a line printed is a hint of its own (`›`).
        hints.iter().filter(|h| h["position"]["line"] == l).map(|h| h["label"].as_str().unwrap().to_string()).filter(|l| !l.starts_with('›')).collect::<Vec<_>>()
    };
    // Once needs no hint (the hover says so); the loop body's three times do.
    for once in ["upper = ", "with io.StringIO", "    first = ", "longest = ", "for w in words"] {
        assert!(label(once).is_empty(), "{once}: {hints:#?}");
        assert!(s.hover(&u, line_of(once)).contains("ran once in the last run"), "{once}");
    }
    assert_eq!(label("    print(w)"), vec!["ran ×3"], "{hints:#?}");
}

#[test]
fn value_hints_skip_spelled_literals_and_the_hover_has_the_whole_value() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let text = "left = 4\nright = left * 2\ntable = 'a  b\\n' * 2\nif right > 100:\n    print('big')\n";
    let u = s.open("values.py", "python", text);
    s.make_runnable(&u, range(0, 0, 5, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    s.client.wait_for("workspace/inlayHint/refresh", SHORT, |_| true).expect("inlay hint refresh");
    let doc = s.client.doc(&u).text;
    let line_of = |start: &str| doc.lines().position(|l| l.starts_with(start)).unwrap() as u64;
    let hints = s.inlay_hints(&u);
    let label = |start: &str| {
        let l = line_of(start);
        hints.iter().filter(|h| h["position"]["line"] == l).map(|h| h["label"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert!(label("left = 4").is_empty(), "the line spells 4 and ran once: {hints:#?}");
    assert_eq!(label("right = "), vec!["= 8"], "{hints:#?}");
    assert_eq!(label("    print('big')"), vec!["not reached"], "{hints:#?}");
    let hover = s.hover(&u, line_of("right = "));
    assert!(hover.contains("```python\nright = 8\n```"), "{hover}");
    assert!(s.hover(&u, line_of("    print('big')")).contains("not reached"));
    // A statement that ran once has no hint, but its hover says so.
    assert!(label("if right").is_empty(), "{hints:#?}");
    assert_eq!(s.hover(&u, line_of("if right")), "Runnable: ran once in the last run");
}

#[test]
fn resolve_runs_and_creates_resource_files_next_to_the_document() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let text = fixture("missing_file.py");
    let u = s.open("inventory.py", "python", &text);
    s.diagnostics(&u, SHORT, |d| codes(d).contains(&"missing-file".to_string()));
    let actions = s.code_actions(&u, range(0, 0, 4, 0), Some(json!(["refactor.rewrite"])), json!([])).unwrap();
    let action = actions.as_array().unwrap()[0].clone();
    // The resolve request stays open for the run and comes back without an edit.
    let resolved = s.client.request_async("codeAction/resolve", action);
    let result = s.client.response(resolved, RUN).expect("resolved");
    assert_eq!(result["kind"], "refactor.rewrite.makeRunnable");
    let done = s.run_finished(&u, SHORT);
    assert_eq!(done["status"], "completed", "{done}");

    // The server writes the file itself (never through the editor, which
    // might follow a symlink at the path): the edit only changes the document.
    let edit = &s.client.messages("workspace/applyEdit")[0]["params"]["edit"];
    let ops = edit["documentChanges"].as_array().unwrap();
    assert!(ops.iter().all(|o| o.get("kind").is_none()), "no file operations: {ops:?}");
    let created = s.root().join(".runnable/inventory.txt");
    assert!(!std::fs::read_to_string(&created).unwrap().is_empty());
    // The folder the server created is not for git.
    assert_eq!(std::fs::read_to_string(s.root().join(".runnable/.gitignore")).unwrap(), "*\n");
    let doc = s.client.doc(&u).text;
    assert!(doc.contains("os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), \".runnable\"))"), "{doc}");
    // The file now exists where the code looks: the diagnostic goes.
    s.diagnostics(&u, SHORT, |d| !codes(d).contains(&"missing-file".to_string()));
    // And the result really runs from the document's folder.
    let out = std::process::Command::new("python3").arg(s.root().join("inventory.py")).current_dir("/").output().unwrap();
    std::fs::write(s.root().join("inventory.py"), &doc).unwrap();
    let out2 = std::process::Command::new("python3").arg(s.root().join("inventory.py")).current_dir("/").output().unwrap();
    assert!(!out.status.success(), "the original does not run");
    assert!(out2.status.success(), "{}", String::from_utf8_lossy(&out2.stderr));
}

#[test]
fn the_report_gets_no_diagnostics_of_its_own() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let u = s.open("area.py", "python", "def area(w, h):\n    return w * h\n");
    s.make_runnable(&u, range(0, 0, 2, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    let report = s.client.request("workspace/executeCommand", json!({"command": "runnable.showReport", "arguments": [{"uri": u}]})).unwrap();
    let path = support::path_of(report.as_str().unwrap());
    let md = std::fs::read_to_string(&path).unwrap();
    assert!(md.contains("## Driver") && md.contains("area("), "the driver calls the function: {md}");
    // The same text anywhere else is checked like any Markdown: the driver's
    // fence calls `area`, which it does not define.
    let copy = s.open("copy.md", "markdown", &md);
    s.diagnostics(&copy, SHORT, |d| codes(d).contains(&"undefined-name".to_string()));
    // The report itself, opened in the editor, is not.
    let r = uri(&path);
    s.client.open(&r, "markdown", &md);
    let diags = s.diagnostics(&r, SHORT, |_| true);
    assert!(diags.is_empty(), "{diags:#?}");
}

#[test]
fn declining_the_install_prompt_changes_nothing_and_the_next_run_asks_again() {
    let _turn = engine_turn();
    let cache = tempfile::tempdir().unwrap();
    let s = Session::start(json!({"cacheDir": cache.path(), "installPolicy": "ask"}), false);
    s.client.set_message_answer(Some("Not now"));
    let text = "import tabulate\nprint(tabulate.tabulate([[1, 2]]))\n";
    let u = s.open("table.py", "python", text);
    s.make_runnable(&u, range(0, 0, 0, 0));
    let ask = s.client.wait_for("window/showMessageRequest", RUN, |_| true).expect("asked before installing");
    let p = &ask["params"];
    assert!(p["message"].as_str().unwrap().contains("tabulate"), "{p}");
    let titles: Vec<&str> = p["actions"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(titles, vec!["Install", "Not now"]);
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "cancelled", "{done}");
    // Nothing changed: no edit, no file, the document as it was.
    assert!(s.client.messages("workspace/applyEdit").is_empty(), "{:?}", s.client.messages("workspace/applyEdit"));
    assert_eq!(s.client.doc(&u).text, text);
    assert!(!s.root().join(".runnable").exists(), "no resource folder");
    // Nothing installed anywhere in the cache.
    let found = walk(cache.path()).into_iter().any(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("tabulate")));
    assert!(!found, "tabulate was installed");
    // "Not now" is not remembered: the next run asks again.
    s.make_runnable(&u, range(0, 0, 0, 0));
    let deadline = Instant::now() + RUN;
    while s.client.messages("runnable/runFinished").len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(s.client.messages("runnable/runFinished").len(), 2, "the second run finished");
    assert_eq!(s.client.messages("window/showMessageRequest").len(), 2, "asked again");
    assert!(s.client.messages("workspace/applyEdit").is_empty());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() && !p.is_symlink() {
                out.extend(walk(&p));
            }
            out.push(p);
        }
    }
    out
}

#[test]
fn a_long_run_is_cancelled_through_its_progress() {
    let _turn = engine_turn();
    let s = Session::start(json!({"budgetSeconds": 30}), false);
    let u = s.open("spin.py", "python", "while True:\n    pass\n");
    s.make_runnable(&u, range(0, 0, 1, 8));
    let begin = s.client.wait_for("$/progress", RUN, |p| p["value"]["kind"] == "begin").expect("progress begins");
    let token = begin["params"]["token"].clone();
    assert_eq!(begin["params"]["value"]["cancellable"], true);
    std::thread::sleep(Duration::from_millis(1500));
    let t = Instant::now();
    s.client.notify("window/workDoneProgress/cancel", json!({"token": token}));
    s.client.wait_for("$/progress", SHORT, |p| p["token"] == token && p["value"]["kind"] == "end").expect("progress ends");
    assert!(t.elapsed() < Duration::from_secs(3), "ended after {:?}", t.elapsed());
    let done = s.run_finished(&u, SHORT);
    assert_eq!(done["status"], "cancelled");
    assert!(s.client.messages("workspace/applyEdit").is_empty());
    // Cancelling with the command when nothing runs says so. The program
    // in the sandbox was killed, so the slot is free within 2 s.
    let deadline = t + Duration::from_secs(2);
    loop {
        let r = s.client.request("workspace/executeCommand", json!({"command": "runnable.cancel", "arguments": [{"uri": u}]})).unwrap();
        if r == json!(false) || Instant::now() > deadline {
            assert_eq!(r, json!(false), "the cancelled run had not freed its slot {:?} after the cancel", t.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    s.restarts_soon_after_cancel(&u, t);
}

#[test]
fn an_edit_during_the_run_means_nothing_is_applied() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let u = s.open("slow.py", "python", "import time\ntime.sleep(2)\nprint(greeting.upper())\n");
    s.make_runnable(&u, range(0, 0, 2, 0));
    s.client.wait_for("$/progress", RUN, |p| p["value"]["kind"] == "begin").expect("progress begins");
    s.client.edit(&u, (0, 0), (0, 0), "# edited\n");
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["version"], 1);
    assert!(s.client.messages("workspace/applyEdit").is_empty(), "a stale edit was sent");
    let warn = s.client.wait_for("window/showMessage", SHORT, |p| p["message"].as_str().unwrap().contains("document changed during the run; result not applied"));
    assert!(warn.is_some());
    assert!(s.inlay_hints(&u).is_empty(), "no hints from a stale run");
}

#[test]
fn garbage_gets_error_responses_and_the_server_keeps_serving() {
    let s = Session::start(json!({}), false);
    let u = s.open("g.py", "python", "x = 1\n");
    // Not JSON at all.
    s.client.send_raw(b"Content-Length: 9\r\n\r\n{not json");
    let parse = s.client.wait(SHORT, |m| (m["error"]["code"] == -32700).then(|| m.clone())).expect("parse error response");
    assert_eq!(parse["id"], Value::Null);
    // Not a JSON-RPC message (the method is not a string), and a request
    // without a method: bytes no codec would write, so written as they are.
    s.client.send_raw(b"Content-Length: 37\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":901,\"method\":5}");
    s.client.wait(SHORT, |m| (m["error"]["code"] == -32600).then_some(())).expect("invalid request");
    s.client.send_raw(b"Content-Length: 5\r\n\r\n[1,2]");
    s.client.send_raw(b"Content-Length: 48\r\n\r\n{\"jsonrpc\":\"1.0\",\"id\":902,\"method\":\"initialize\"}");
    s.client.wait(SHORT, |m| (m["id"] == 902 && m["error"]["code"] == -32600).then_some(())).expect("wrong version");
    s.client.send_raw(b"this is not a header\r\n");
    s.client.send_raw(b"Content-Length: 38\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":900,\"params\":{}}");
    s.client.wait(SHORT, |m| (m["id"] == 900 && m["error"]["code"] == -32601).then_some(())).expect("no such method");
    // Unknown method.
    let r = s.client.request("runnable/nonsense", json!({}));
    assert_eq!(r.unwrap_err()["code"], -32601);
    // Out-of-range positions and a range past the end.
    let r = s.code_actions(&u, range(40, 0, 40, 3), None, json!([]));
    assert_eq!(r.unwrap_err()["code"], -32602);
    let r = s.client.request("textDocument/inlayHint", json!({"textDocument": {"uri": u}, "range": range(0, 0, 99, 0)}));
    assert_eq!(r.unwrap_err()["code"], -32602);
    let r = s.client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "range": range(7, 0, 3, 0)}]}));
    assert_eq!(r.unwrap_err()["code"], -32602);
    let r = s.client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": ["nonsense"]}));
    assert_eq!(r.unwrap_err()["code"], -32602);
    let r = s.client.request("workspace/executeCommand", json!({"command": "runnable.noSuchCommand"}));
    assert_eq!(r.unwrap_err()["code"], -32602);
    let r = s.client.request("codeAction/resolve", json!({"title": "Make this runnable", "kind": "refactor.rewrite.makeRunnable", "data": {"uri": 3}}));
    assert_eq!(r.unwrap_err()["code"], -32602);
    // An edit past the end is clamped, not a crash.
    s.client.notify("textDocument/didChange", json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"range": range(50, 0, 60, 0), "text": "y = 2\n"}]}));
    // Still serving.
    let actions = s.code_actions(&u, range(0, 0, 0, 0), None, json!([])).unwrap();
    assert_eq!(actions.as_array().unwrap()[0]["data"]["version"], 2);
}

#[test]
fn emoji_and_cjk_lines_in_utf16_and_utf8() {
    let text = "s = \"😀漢字\"; t = np.pi\n";
    let byte_col = text.find("np").unwrap();
    for utf8 in [false, true] {
        let s = Session::start(json!({}), utf8);
        let enc = s.client.encoding();
        let u = s.open(if utf8 { "u8.py" } else { "u16.py" }, "python", text);
        let diags = s.diagnostics(&u, SHORT, |d| !d.is_empty());
        let np = diags.iter().find(|d| d["code"] == "undefined-name").unwrap();
        let start = column(text, byte_col, enc);
        assert_eq!(np["range"], range(0, start, 0, start + 2), "{enc:?}");
        assert_eq!(start, if utf8 { 22 } else { 16 });
        // An incremental edit after the emoji, in the same encoding.
        let v = s.client.edit(&u, (0, start), (0, start + 2), "math");
        let msg = s
            .client
            .wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == u.as_str() && p["version"] == v && p["diagnostics"][0]["data"]["fix"] == "import math")
            .expect("the renamed name, with its fix");
        let d = &msg["params"]["diagnostics"][0];
        assert!(d["message"].as_str().unwrap().contains("`math`"), "{d}");
        assert_eq!(d["range"], range(0, start, 0, start + 4));
        assert_eq!(d["data"]["fix"], "import math");
    }
}

/// The one smoke test of the real binary over stdio: initialize, a code
/// action, a run, then shutdown and exit leave no process behind.
#[test]
fn shutdown_and_exit_leave_no_process_behind() {
    let _turn = engine_turn();
    let mut s = Session::start_on(Client::start_binary, json!({}), false, |_| {});
    let u = s.open("live.py", "python", &fixture("dict_from_keys.py"));
    let actions = s.code_actions(&u, range(0, 0, 3, 0), None, json!([])).unwrap();
    assert!(actions.as_array().unwrap().iter().any(|a| a["kind"] == "refactor.rewrite.makeRunnable"), "{actions}");
    s.make_runnable(&u, range(0, 0, 3, 0));
    s.run_finished(&u, RUN);
    let pid = s.client.pid();
    let children = support::descendants(pid);
    assert!(!children.is_empty(), "the engine keeps warm workers");
    let status = s.client.shutdown_and_exit(Duration::from_secs(30)).expect("the server exits");
    assert!(status.success(), "{status:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while children.iter().any(|c| support::alive(*c)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left: Vec<u32> = children.iter().copied().filter(|c| support::alive(*c)).collect();
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

#[test]
fn a_markdown_fence_is_made_runnable_in_place() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let md = "# Notes\n\n```python\nwords = sentence.split()\nprint(len(words))\n```\n\nDone.\n";
    let u = s.open("notes.md", "markdown", md);
    s.make_runnable(&u, range(3, 0, 3, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    let doc = s.client.doc(&u).text;
    let lines: Vec<&str> = doc.lines().collect();
    assert_eq!(lines[2], "```python");
    assert!(lines[3].starts_with("sentence = "), "{doc}");
    assert!(doc.contains("words = sentence.split()\nprint(len(words))\n```\n\nDone.\n"), "{doc}");
}

#[test]
fn cancel_request_on_the_resolve_cancels_its_run() {
    let _turn = engine_turn();
    let s = Session::start(json!({"budgetSeconds": 30}), false);
    let u = s.open("spin2.py", "python", "while True:\n    pass\n");
    let actions = s.code_actions(&u, range(0, 0, 0, 0), None, json!([])).unwrap();
    let action = actions.as_array().unwrap().iter().find(|a| a["kind"] == "refactor.rewrite.makeRunnable").unwrap().clone();
    let id = s.client.request_async("codeAction/resolve", action);
    s.client.wait_for("$/progress", RUN, |p| p["value"]["kind"] == "begin").expect("the run starts on resolve");
    std::thread::sleep(Duration::from_millis(1000));
    let t = Instant::now();
    s.client.notify("$/cancelRequest", json!({"id": id}));
    let r = s.client.response(id, SHORT);
    assert_eq!(r.unwrap_err()["code"], -32800, "RequestCancelled");
    let done = s.run_finished(&u, SHORT);
    assert_eq!(done["status"], "cancelled");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    s.client.wait_for("$/progress", SHORT, |p| p["value"]["kind"] == "end").expect("progress ends");
    s.restarts_soon_after_cancel(&u, t);
}

#[test]
fn the_cancel_command_stops_the_run_of_a_document() {
    let _turn = engine_turn();
    let s = Session::start(json!({"budgetSeconds": 30}), false);
    let u = s.open("spin3.py", "python", "while True:\n    pass\n");
    s.make_runnable(&u, range(0, 0, 0, 0));
    s.client.wait_for("$/progress", RUN, |p| p["value"]["kind"] == "begin").expect("progress begins");
    // A second run of the same document is refused while this one goes on.
    let version = s.client.doc(&u).version;
    let again = s.client.request("workspace/executeCommand", json!({"command": "runnable.makeRunnable", "arguments": [{"uri": u, "version": version, "range": range(0, 0, 0, 0)}]}));
    assert!(again.unwrap_err()["message"].as_str().unwrap().contains("already running"));
    std::thread::sleep(Duration::from_millis(1000));
    let t = Instant::now();
    let r = s.client.request("workspace/executeCommand", json!({"command": "runnable.cancel", "arguments": [{"uri": u}]})).unwrap();
    assert_eq!(r, json!(true));
    let done = s.run_finished(&u, SHORT);
    assert_eq!(done["status"], "cancelled");
    s.restarts_soon_after_cancel(&u, t);
}

#[test]
fn a_function_body_opens_a_runnable_copy_instead_of_reindenting() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let text = fixture("method_body.py");
    let u = s.open("method.py", "python", &text);
    s.make_runnable(&u, range(0, 0, 3, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(s.client.doc(&u).text, text, "the user's code is untouched");
    let copy = s.root().join(".runnable/method.runnable.py");
    let program = std::fs::read_to_string(&copy).unwrap();
    assert!(program.contains("def __runnable_fragment("), "{program}");
    s.client.wait_for("window/showDocument", SHORT, |p| p["uri"] == uri(&copy).as_str()).expect("the copy is opened");
    let out = std::process::Command::new("python3").arg(&copy).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Hints still land on the original lines.
    let hints = s.inlay_hints(&u);
    assert!(hints.iter().any(|h| h["position"]["line"] == 1 && h["label"].as_str().unwrap().starts_with("= 'The quick")), "{hints:#?}");
}

#[test]
fn the_line_where_the_run_stopped_gets_a_runtime_error() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let u = s.open("boom.py", "python", "total = 1\nraise ValueError('boom')\nprint(total)\n");
    s.make_runnable(&u, range(0, 0, 3, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "raised", "{done}");
    assert_eq!(done["error"], "ValueError: boom (line 2)");
    let diags = s.diagnostics(&u, SHORT, |d| codes(d).contains(&"runtime-error".to_string()));
    let d = diags.iter().find(|d| d["code"] == "runtime-error").unwrap();
    assert_eq!(d["range"], range(1, 0, 1, 24));
    assert_eq!(d["severity"], 1);
    assert!(d["message"].as_str().unwrap().contains("ValueError: boom"));
    let hints = s.inlay_hints(&u);
    assert!(hints.iter().any(|h| h["position"]["line"] == 2 && h["label"] == "not reached"), "{hints:#?}");
    // A line inserted above moves it; editing its line removes it.
    let v = s.client.edit(&u, (0, 0), (0, 0), "# note\n");
    let msg = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == u.as_str() && p["version"] == v).unwrap();
    let moved = msg["params"]["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "runtime-error").cloned().expect("still there");
    assert_eq!(moved["range"]["start"]["line"], 2);
    let v = s.client.edit(&u, (2, 0), (2, 0), "# ");
    let msg = s.client.wait_for("textDocument/publishDiagnostics", SHORT, |p| p["uri"] == u.as_str() && p["version"] == v).unwrap();
    assert!(!msg["params"]["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "runtime-error"));
}

/// The settings the server reads are the ones the editors offer (when the
/// editors are in the tree: `editors/vscode/package.json` declares them as
/// `runnable.<key>`).
#[test]
fn settings_keys_agree_with_the_editors() {
    let keys: Vec<&str> = runnable::lsp::SETTINGS_KEYS.to_vec();
    let protocol = std::fs::read_to_string(repo().join("docs/protocol.md")).unwrap();
    for k in &keys {
        assert!(protocol.contains(&format!("| `{k}` |")), "{k} is not in the settings table of docs/protocol.md");
    }
    let package = repo().join("editors/vscode/package.json");
    let Ok(text) = std::fs::read_to_string(&package) else {
        eprintln!("note: {} not found; only docs/protocol.md checked", package.display());
        return;
    };
    let json: Value = serde_json::from_str(&text).unwrap();
    let mut declared: Vec<String> = Vec::new();
    let config = &json["contributes"]["configuration"];
    let sections = if config.is_array() { config.as_array().unwrap().clone() } else { vec![config.clone()] };
    for section in sections {
        if let Some(props) = section["properties"].as_object() {
            declared.extend(props.keys().filter_map(|k| k.strip_prefix("runnable.")).map(str::to_string));
        }
    }
    for k in &keys {
        assert!(declared.iter().any(|d| d == k), "{k} is not declared in {}", package.display());
    }
}

#[test]
fn a_fragment_that_does_not_parse_changes_nothing() {
    let s = Session::start(json!({}), false);
    let u = s.open("broken.py", "python", "x = 1\nif x >:\n    pass\n");
    s.make_runnable(&u, range(0, 0, 3, 0));
    let done = s.run_finished(&u, RUN);
    assert_eq!(done["status"], "syntax-error", "{done}");
    assert!(done["error"].as_str().unwrap().starts_with("SyntaxError"), "{done}");
    assert!(s.client.messages("workspace/applyEdit").is_empty());
    assert!(s.inlay_hints(&u).is_empty());
    // The line that does not parse has its diagnostic, once, after the run
    // as before it (the analysis as you type and the run's result agree).
    let syntax = |d: &[Value]| d.iter().filter(|d| d["code"] == "syntax-error").cloned().collect::<Vec<_>>();
    // Every publish (on open, and again after the run with its result in
    // the document's state) has it exactly once.
    let publishes = |u: &str| s.client.messages("textDocument/publishDiagnostics").into_iter().filter(|m| m["params"]["uri"] == u).collect::<Vec<_>>();
    let deadline = Instant::now() + SHORT;
    while publishes(&u).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let all = publishes(&u);
    assert!(all.len() >= 2, "published on open and after the run: {all:#?}");
    for m in all {
        let diags = m["params"]["diagnostics"].as_array().unwrap().clone();
        let found = syntax(&diags);
        assert_eq!(found.len(), 1, "{diags:#?}");
        assert_eq!(found[0]["range"]["start"]["line"], 1, "{diags:#?}");
        assert_eq!(found[0]["source"], "runnable");
        assert_eq!(found[0]["severity"], 1, "an error: {diags:#?}");
    }
}

#[test]
fn a_python2_print_gets_a_syntax_error_as_you_type_and_a_quick_fix() {
    let s = Session::start(json!({}), false);
    let u = s.open("py2.py", "python", "name = 'x'\nprint name  # greet\n");
    let diags = s.diagnostics(&u, SHORT, |d| codes(d).contains(&"syntax-error".to_string()));
    let d = diags.iter().find(|d| d["code"] == "syntax-error").unwrap().clone();
    assert_eq!(d["source"], "runnable");
    assert_eq!(d["range"], range(1, 0, 1, 10), "{d}");
    assert!(d["message"].as_str().unwrap().contains("print(...)"), "{d}");
    let actions = s.code_actions(&u, d["range"].clone(), Some(json!(["quickfix"])), json!([d])).unwrap();
    let fix = &actions[0];
    assert_eq!(fix["title"], "Replace with `print(name)`", "{actions}");
    let e = &fix["edit"]["documentChanges"][0]["edits"][0];
    let at = |p: &Value| (p["line"].as_u64().unwrap() as u32, p["character"].as_u64().unwrap() as u32);
    s.client.edit(&u, at(&e["range"]["start"]), at(&e["range"]["end"]), e["newText"].as_str().unwrap());
    assert_eq!(s.client.doc(&u).text, "name = 'x'\nprint(name)  # greet\n");
    s.diagnostics(&u, SHORT, |d| d.is_empty());
}

#[test]
fn a_missing_interpreter_fails_the_run_clearly_and_frees_the_document() {
    let s = Session::start(json!({"interpreter": "/nonexistent/python3"}), false);
    let startup = s.client.wait_for("window/showMessage", SHORT, |p| p["message"].as_str().unwrap().contains("/nonexistent/python3"));
    assert!(startup.is_some(), "the engine's failure to start is shown");
    let u = s.open("any.py", "python", "print(1)\n");
    for round in 1..=2 {
        s.make_runnable(&u, range(0, 0, 0, 0));
        let deadline = Instant::now() + SHORT;
        while s.client.messages("runnable/runFinished").len() < round && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let done = s.client.messages("runnable/runFinished").last().unwrap()["params"].clone();
        assert_eq!(done["status"], "failed", "{done}");
        assert!(done["error"].as_str().unwrap().contains("/nonexistent/python3"), "{done}");
    }
}

#[test]
fn the_provenance_lens_keeps_or_removes_the_prefix_and_the_files_the_run_created() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let text = fixture("missing_file.py");
    let u = s.open("inventory.py", "python", &text);
    s.make_runnable(&u, range(0, 0, 4, 0));
    assert_eq!(s.run_finished(&u, RUN)["status"], "completed");
    let created = s.root().join(".runnable/inventory.txt");
    assert!(created.exists());
    let lens = |s: &Session| s.client.request("textDocument/codeLens", json!({"textDocument": {"uri": u}})).unwrap().as_array().cloned().unwrap_or_default();
    let lenses = lens(&s);
    let titles: Vec<&str> = lenses.iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
    assert_eq!(titles.len(), 3, "{lenses:?}");
    assert!(titles[0].starts_with("Runnable: ") && titles[0].contains("created inventory.txt"), "{titles:?}");
    assert_eq!(&titles[1..], ["Keep", "Remove"]);
    // On the prefix's first line.
    let doc = s.client.doc(&u).text;
    let line = lenses[0]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(doc.lines().nth(line).unwrap().starts_with("import os  # runnable"), "{line}: {doc}");
    // A file of the user's beside it is never touched by Remove.
    std::fs::write(s.root().join(".runnable/mine.txt"), "mine").unwrap();
    let r = s.client.request("workspace/executeCommand", json!({"command": "runnable.remove", "arguments": [{"uri": u}]}));
    assert_eq!(r.unwrap(), json!(true));
    let start = Instant::now();
    while created.exists() && start.elapsed() < SHORT {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!created.exists(), "the file the run created is deleted");
    assert_eq!(s.client.doc(&u).text, text, "prefix and driver are out, the fragment as it was");
    assert!(s.root().join(".runnable/mine.txt").exists());
    assert!(lens(&s).is_empty(), "the lens goes with them");
}

#[test]
fn what_a_print_wrote_is_a_hint_on_its_line_and_whole_on_hover() {
    let _turn = engine_turn();
    let s = Session::start(json!({}), false);
    let u = s.open("printing.py", "python", "for i in range(3):\n    print('row', i)\nprint('\\x1b[31mdone')\n");
    // Through the end of line 2 (a range ending at column 0 stops at the line before).
    s.make_runnable(&u, range(0, 0, 3, 0));
    assert_eq!(s.run_finished(&u, RUN)["status"], "completed");
    let hints = s.inlay_hints(&u);
    let label = |line: u64| {
        hints.iter().filter(|h| h["position"]["line"] == line).filter_map(|h| h["label"].as_str()).find(|l| l.starts_with("› ")).map(str::to_string)
    };
    assert_eq!(label(1).as_deref(), Some("› row 0 ⏎ row 1 ⏎ row 2"), "{hints:?}");
    assert_eq!(label(2).as_deref(), Some("› \u{fffd}[31mdone"), "no escape sequence reaches the editor: {hints:?}");
    let hover = s.hover(&u, 1);
    assert!(hover.contains("Printed:\n\n```text\nrow 0\nrow 1\nrow 2\n```"), "{hover}");
}

#[test]
fn quick_fixes_without_a_run_import_define_and_create_a_sample() {
    let s = Session::start(json!({}), false);
    let u = s.open("quick.py", "python", "rows = [['a', 1]]\nprint(tabulate(rows))\nfor line in summarize(rows):\n    print(line)\nwith open('scores.csv') as fh:\n    print(fh.read())\n");
    let diags = s.diagnostics(&u, SHORT, |d| codes(d).contains(&"missing-file".to_string()) && codes(d).iter().filter(|c| *c == "undefined-name").count() == 2);
    let titles = |line: u64| -> Vec<Value> {
        let here: Vec<Value> = diags.iter().filter(|d| d["range"]["start"]["line"] == line).cloned().collect();
        s.code_actions(&u, range(line as u32, 0, line as u32, 0), Some(json!(["quickfix"])), json!(here)).unwrap().as_array().cloned().unwrap()
    };
    let tab = titles(1);
    assert!(tab.iter().any(|a| a["title"] == "Add `from tabulate import tabulate`"), "{tab:?}");
    let define = titles(2);
    let stub = define.iter().find(|a| a["title"] == "Define `summarize` (a stub)").unwrap_or_else(|| panic!("{define:?}"));
    let new_text = stub["edit"]["documentChanges"][0]["edits"][0]["newText"].as_str().unwrap();
    assert!(new_text.starts_with("def summarize(*args, **kwargs):") && new_text.contains("return ["), "{new_text}");
    let sample = titles(4);
    let create = sample.iter().find(|a| a["title"] == "Create a sample `scores.csv`").unwrap_or_else(|| panic!("{sample:?}"));
    assert!(create.get("edit").is_none());
    let r = s.client.request("workspace/executeCommand", create["command"].clone()).unwrap();
    assert!(r.as_str().unwrap().ends_with("/scores.csv"), "{r}");
    let written = std::fs::read_to_string(s.root().join("scores.csv")).unwrap();
    assert!(written.lines().next().unwrap().contains(','), "{written}");
    // Never over a file that is there.
    std::fs::write(s.root().join("scores.csv"), "mine").unwrap();
    assert!(s.client.request("workspace/executeCommand", create["command"].clone()).is_err());
    assert_eq!(std::fs::read_to_string(s.root().join("scores.csv")).unwrap(), "mine");
}
