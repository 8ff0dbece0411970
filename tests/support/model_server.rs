//! A scripted stand-in for an OpenAI-compatible server (Chat Completions
//! over plain HTTP on 127.0.0.1), so the model stages are tested with no
//! real model: each test answers each request with a closure, and every
//! request is kept for the test to inspect (model per stage, JSON schema,
//! redaction).
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    /// Header lines, lowercased names: `authorization: Bearer x`.
    pub headers: Vec<String>,
    pub raw: String,
    pub body: Value,
    /// 0-based order of arrival.
    pub n: usize,
}

impl Seen {
    pub fn model(&self) -> &str {
        self.body["model"].as_str().unwrap_or("")
    }
    /// The text of every message, joined.
    pub fn text(&self) -> String {
        self.body["messages"].as_array().map(|m| m.iter().filter_map(|m| m["content"].as_str()).collect::<Vec<_>>().join("\n")).unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering (a slow or hung server).
    pub delay: Duration,
}

impl Reply {
    /// A chat completion whose message is `content`.
    pub fn chat(content: &str) -> Reply {
        let body = json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}});
        Reply { status: 200, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
    }
    /// `{"prefixes": [...]}` with these prefixes and no files.
    pub fn prefixes(prefixes: &[&str]) -> Reply {
        let items: Vec<Value> = prefixes.iter().map(|p| json!({"prefix": p, "files": []})).collect();
        Reply::chat(&json!({ "prefixes": items }).to_string())
    }
    pub fn status(status: u16, body: &str) -> Reply {
        Reply { status, headers: vec![], body: body.into(), delay: Duration::ZERO }
    }
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub fn after(mut self, d: Duration) -> Reply {
        self.delay = d;
        self
    }
}

pub struct ModelServer {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl ModelServer {
    /// Serve on a free port; `answer` decides every reply.
    pub fn start(answer: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let answer = Arc::new(answer);
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, answer) = (log.clone(), answer.clone());
                std::thread::spawn(move || serve(stream, &log, &*answer));
            }
        });
        ModelServer { url, seen }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>, answer: &(dyn Fn(&Seen) -> Reply + Send + Sync)) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end().to_string();
        if line.is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        headers.push(lower);
    }
    let mut body = vec![0u8; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let raw = String::from_utf8_lossy(&body).to_string();
    let seen = {
        let mut log = log.lock().unwrap();
        let s = Seen { path, headers, body: serde_json::from_str(&raw).unwrap_or(Value::Null), raw, n: log.len() };
        log.push(s.clone());
        s
    };
    let reply = answer(&seen);
    std::thread::sleep(reply.delay);
    let reason = if reply.status == 200 { "OK" } else { "Error" };
    let mut head = format!("HTTP/1.1 {} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n", reply.status, reply.body.len());
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(reply.body.as_bytes());
    let _ = out.flush();
}
