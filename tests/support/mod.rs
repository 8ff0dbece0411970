//! A small LSP client for the end-to-end tests. It serves the language
//! server in process (`runnable::lsp::serve` over `tokio::io::duplex`: the
//! server's own transport guard and framing) or, for the one stdio smoke
//! test, drives the real `runnable lsp` binary; tower-lsp-server frames the
//! messages both ways (`connection`). It answers the server's requests the
//! way an editor would (applying workspace edits to its copy of the
//! documents and reporting them back with `didChange`), and records every
//! message so a test can wait for one by method and predicate.

#![allow(dead_code)]

pub mod canary;
mod connection;
pub mod precondition;

use connection::{Connection, Editor};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Once};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enc {
    Utf8,
    Utf16,
}

#[derive(Debug, Clone)]
pub struct Doc {
    pub text: String,
    pub version: i32,
}

#[derive(Default)]
struct Shared {
    /// Every message from the server, in order.
    log: Vec<Value>,
    /// Open documents by URI (the client's copy).
    docs: HashMap<String, Doc>,
    /// Title to answer `window/showMessageRequest` with (None: dismiss).
    message_answer: Option<String>,
    /// Whether `workspace/applyEdit` is applied (else answered `applied: false`).
    apply_edits: bool,
    encoding: Option<Enc>,
    closed: bool,
    /// The answer to `workspace/configuration` for the section `runnable`
    /// (None: `null`, as a client that does not know it), and how long the
    /// editor takes to give it.
    configuration: Option<Value>,
    configuration_delay: Duration,
}

/// The editor's side of the session: what the server sent and the documents.
#[derive(Default)]
struct Session {
    shared: Mutex<Shared>,
    changed: Condvar,
}

impl Editor for Session {
    fn message(&self, msg: Value) {
        self.shared.lock().unwrap().log.push(msg);
        self.changed.notify_all();
    }

    fn request(&self, msg: Value) -> (Value, Vec<Value>) {
        answer_request(&self.shared, &msg)
    }

    fn closed(&self) {
        self.shared.lock().unwrap().closed = true;
        self.changed.notify_all();
    }

    fn delay(&self, msg: &Value) -> Duration {
        match msg["method"].as_str() {
            Some("workspace/configuration") => self.shared.lock().unwrap().configuration_delay,
            _ => Duration::ZERO,
        }
    }
}

pub struct Client {
    conn: Connection,
    session: Arc<Session>,
    next_id: AtomicI64,
    pub root: PathBuf,
}

pub fn server_binary() -> &'static str {
    env!("CARGO_BIN_EXE_runnable")
}

impl Client {
    /// Serve the language server in process with a temp workspace `root`.
    pub fn start(root: &Path) -> Client {
        // Memory off: each test sees fresh runs (tests/memory.rs tests
        // memory). The server reads this from its environment, and here its
        // environment is this process's; set once, before the first server.
        static MEMORY_OFF: Once = Once::new();
        MEMORY_OFF.call_once(|| std::env::set_var("RUNNABLE_MEMORY", "off"));
        Self::with(root, Connection::in_process)
    }

    /// Serve the language server in process with memory as the settings
    /// say (every other test runs it off): for tests of memory, which give
    /// it a temporary `cacheDir` and must never reach the user's store.
    pub fn start_with_memory(root: &Path) -> Client {
        assert!(std::env::var_os("RUNNABLE_MEMORY").is_none(), "memory is forced off in this test process");
        Self::with(root, Connection::in_process)
    }

    /// Start the real `runnable lsp` binary over stdio (the smoke test of
    /// the real transport and process).
    pub fn start_binary(root: &Path) -> Client {
        let mut command = Command::new(server_binary());
        command.arg("lsp").env("RUNNABLE_MEMORY", "off");
        Self::with(root, |session| Connection::binary(session, command))
    }

    fn with(root: &Path, connect: impl FnOnce(Arc<Session>) -> Connection) -> Client {
        let session = Arc::new(Session::default());
        session.shared.lock().unwrap().apply_edits = true;
        let conn = connect(session.clone());
        Client { conn, session, next_id: AtomicI64::new(1), root: root.to_path_buf() }
    }

    fn shared(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.session.shared.lock().unwrap()
    }

    /// The server's process: this one when it is served in process.
    pub fn pid(&self) -> u32 {
        self.conn.pid()
    }

    pub fn set_message_answer(&self, answer: Option<&str>) {
        self.shared().message_answer = answer.map(str::to_string);
    }

    /// Answer `workspace/configuration` (section `runnable`) with `settings`
    /// after `delay` (the client must announce the capability: see
    /// `initialize_with`).
    pub fn set_configuration(&self, settings: Option<Value>, delay: Duration) {
        let mut s = self.shared();
        s.configuration = settings;
        s.configuration_delay = delay;
    }

    pub fn set_apply_edits(&self, apply: bool) {
        self.shared().apply_edits = apply;
    }

    pub fn encoding(&self) -> Enc {
        self.shared().encoding.unwrap_or(Enc::Utf16)
    }

    /// Send a JSON-RPC message (framed by the library's codec).
    pub fn send(&self, value: Value) {
        self.conn.send(value);
    }

    /// Write bytes as they are (hostile input), after every message sent before.
    pub fn send_raw(&self, bytes: &[u8]) {
        self.conn.send_raw(bytes);
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Send a request and return its id.
    pub fn request_async(&self, method: &str, params: Value) -> i64 {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Wait for the response to request `id`: Ok(result) or Err(error).
    pub fn response(&self, id: i64, timeout: Duration) -> Result<Value, Value> {
        let msg = self
            .wait(timeout, |m| (m.get("method").is_none() && m.get("id") == Some(&json!(id))).then(|| m.clone()))
            .unwrap_or_else(|| panic!("no response to request {id} within {timeout:?}"));
        match msg.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    pub fn request(&self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.request_async(method, params);
        self.response(id, Duration::from_secs(30))
    }

    /// The first logged message for which `f` returns Some, waiting up to `timeout`.
    pub fn wait<T>(&self, timeout: Duration, mut f: impl FnMut(&Value) -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + timeout;
        let mut s = self.shared();
        loop {
            if let Some(t) = s.log.iter().find_map(&mut f) {
                return Some(t);
            }
            let now = Instant::now();
            if now >= deadline || s.closed {
                return None;
            }
            s = self.session.changed.wait_timeout(s, deadline - now).unwrap().0;
        }
    }

    /// All logged messages with this method.
    pub fn messages(&self, method: &str) -> Vec<Value> {
        self.shared().log.iter().filter(|m| m["method"] == method).cloned().collect()
    }
    /// Wait for a message with this method whose params satisfy `pred`.
    pub fn wait_for(&self, method: &str, timeout: Duration, mut pred: impl FnMut(&Value) -> bool) -> Option<Value> {
        self.wait(timeout, |m| (m["method"] == method && pred(&m["params"])).then(|| m.clone()))
    }

    /// `initialize` + `initialized`. `utf8`: offer UTF-8 positions.
    pub fn initialize(&self, options: Value, utf8: bool) -> Value {
        self.initialize_with(options, utf8, |_| {})
    }

    /// `initialize` with the capabilities changed by `edit` first (to play a
    /// client that lacks one).
    pub fn initialize_with(&self, options: Value, utf8: bool, edit: impl FnOnce(&mut Value)) -> Value {
        let encodings = if utf8 { json!(["utf-8", "utf-16"]) } else { json!(["utf-16"]) };
        let root_uri = uri(&self.root);
        let mut params = json!({
                    "processId": std::process::id(),
                    "rootUri": root_uri,
                    "workspaceFolders": [{"uri": root_uri, "name": "ws"}],
                    "initializationOptions": options,
                    "capabilities": {
                        "general": {"positionEncodings": encodings},
                        "window": {"workDoneProgress": true, "showDocument": {"support": true}},
                        "workspace": {
                            "workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]},
                            "inlayHint": {"refreshSupport": true},
                            "configuration": false
                        },
                        "textDocument": {
                            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "refactor"]}},
                                           "resolveSupport": {"properties": ["edit"]}, "dataSupport": true},
                            "inlayHint": {}
                        }
                    }
                });
        edit(&mut params["capabilities"]);
        let result = self.request("initialize", params).expect("initialize succeeds");
        let enc = match result["capabilities"]["positionEncoding"].as_str() {
            Some("utf-8") => Enc::Utf8,
            _ => Enc::Utf16,
        };
        self.shared().encoding = Some(enc);
        self.notify("initialized", json!({}));
        result
    }

    pub fn open(&self, uri: &str, language: &str, text: &str) {
        self.shared().docs.insert(uri.to_string(), Doc { text: text.to_string(), version: 1 });
        self.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}));
    }

    pub fn doc(&self, uri: &str) -> Doc {
        self.shared().docs[uri].clone()
    }

    /// Replace `[start, end)` (LSP positions) with `text`, as an editor would.
    pub fn edit(&self, uri: &str, start: (u32, u32), end: (u32, u32), text: &str) -> i32 {
        let change = json!({"range": {"start": {"line": start.0, "character": start.1}, "end": {"line": end.0, "character": end.1}}, "text": text});
        let mut s = self.shared();
        let enc = s.encoding.unwrap_or(Enc::Utf16);
        let doc = s.docs.get_mut(uri).expect("open document");
        apply_text_edits(&mut doc.text, &[change.clone()], enc);
        doc.version += 1;
        let version = doc.version;
        drop(s);
        self.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}));
        version
    }

    /// `shutdown` and `exit`, then the binary's exit status (only the binary has one).
    pub fn shutdown_and_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.conn.wait_exit(timeout)
    }
}

/// Answer a server->client request like an editor.
/// Returns the result and the notifications to send before it.
fn answer_request(shared: &Mutex<Shared>, msg: &Value) -> (Value, Vec<Value>) {
    let result = match msg["method"].as_str().unwrap_or("") {
        "workspace/applyEdit" => {
            let mut s = shared.lock().unwrap();
            if !s.apply_edits {
                return (json!({"applied": false, "failureReason": "the test declined"}), Vec::new());
            }
            let enc = s.encoding.unwrap_or(Enc::Utf16);
            let mut notes = Vec::new();
            match apply_workspace_edit(&mut s.docs, &msg["params"]["edit"], enc, &mut notes) {
                // Report the edits back, as an editor does, before answering.
                Ok(()) => return (json!({"applied": true}), notes),
                Err(e) => json!({"applied": false, "failureReason": e}),
            }
        }
        "window/showMessageRequest" => {
            let answer = shared.lock().unwrap().message_answer.clone();
            match answer {
                Some(title) => json!({"title": title}),
                None => Value::Null,
            }
        }
        "window/showDocument" => json!({"success": true}),
        "workspace/configuration" => {
            let ours = shared.lock().unwrap().configuration.clone().unwrap_or(Value::Null);
            let items = msg["params"]["items"].as_array().cloned().unwrap_or_default();
            json!(items.iter().map(|i| if i["section"] == "runnable" { ours.clone() } else { Value::Null }).collect::<Vec<_>>())
        }
        _ => Value::Null,
    };
    (result, Vec::new())
}

fn apply_workspace_edit(docs: &mut HashMap<String, Doc>, edit: &Value, enc: Enc, notes: &mut Vec<Value>) -> Result<(), String> {
    let ops = edit["documentChanges"].as_array().cloned().unwrap_or_default();
    for op in ops {
        if op["kind"] == "create" {
            let path = path_of(op["uri"].as_str().unwrap());
            std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&path, "").map_err(|e| e.to_string())?;
            continue;
        }
        let uri = op["textDocument"]["uri"].as_str().unwrap().to_string();
        let edits = op["edits"].as_array().cloned().unwrap_or_default();
        if let Some(doc) = docs.get_mut(&uri) {
            if let Some(v) = op["textDocument"]["version"].as_i64() {
                if v as i32 != doc.version {
                    return Err(format!("version {v} is not the document's {}", doc.version));
                }
            }
            let changes = apply_text_edits(&mut doc.text, &edits, enc);
            doc.version += 1;
            notes.push(json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": doc.version}, "contentChanges": changes}}));
        } else {
            let path = path_of(&uri);
            let mut text = std::fs::read_to_string(&path).unwrap_or_default();
            apply_text_edits(&mut text, &edits, enc);
            std::fs::write(&path, text).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Apply LSP text edits (positions in `enc`) to `text`; returns them in the
/// order applied (last first), valid as sequential didChange content changes.
pub fn apply_text_edits(text: &mut String, edits: &[Value], enc: Enc) -> Vec<Value> {
    let mut sorted: Vec<&Value> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse((e["range"]["start"]["line"].as_u64(), e["range"]["start"]["character"].as_u64())));
    let mut applied = Vec::new();
    for e in sorted {
        let start = offset(text, &e["range"]["start"], enc);
        let end = offset(text, &e["range"]["end"], enc);
        let new_text = e["newText"].as_str().or(e["text"].as_str()).unwrap_or("");
        text.replace_range(start..end, new_text);
        applied.push(json!({"range": e["range"], "text": new_text}));
    }
    applied
}

/// Byte offset of an LSP position.
pub fn offset(text: &str, pos: &Value, enc: Enc) -> usize {
    let line = pos["line"].as_u64().unwrap() as usize;
    let character = pos["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[start..text[start..].find('\n').map_or(text.len(), |i| start + i)];
    let mut units = 0;
    for (i, c) in line_text.char_indices() {
        if units >= character {
            return start + i;
        }
        units += match enc {
            Enc::Utf8 => c.len_utf8(),
            Enc::Utf16 => c.len_utf16(),
        };
    }
    start + line_text.len()
}

/// The LSP column of byte offset `col` in `line`.
pub fn column(line: &str, byte_col: usize, enc: Enc) -> u32 {
    match enc {
        Enc::Utf8 => byte_col as u32,
        Enc::Utf16 => line[..byte_col].encode_utf16().count() as u32,
    }
}

pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

pub fn path_of(uri: &str) -> PathBuf {
    PathBuf::from(uri.strip_prefix("file://").unwrap())
}

/// Every process whose ancestry leads to `pid`.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
            // pid (comm) state ppid ...
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else { continue };
            let ppid = after.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
            parent.insert(p, ppid);
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for (child, pp) in &parent {
            if *pp == p && !out.contains(child) {
                out.push(*child);
                frontier.push(*child);
            }
        }
    }
    out
}

/// Whether a process is alive (exists and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rfind(')').map(|i| stat[i + 2..].starts_with('Z')).unwrap_or(false),
        Err(_) => false,
    }
}
