//! One OpenAI-compatible Chat Completions client (OpenAI, Ollama, vLLM,
//! llama.cpp's server, LM Studio): JSON schema output where the server
//! takes it, timeouts, retries with backoff on 429/5xx honouring
//! `Retry-After`, and cancellation within tens of milliseconds (the request
//! runs on its own thread; the caller stops waiting when the flag is set).

use super::config::{LlmConfig, Stage};
use super::transcript::{Recorder, Replay};
use super::LlmError;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How often a waiting call looks at the cancel flag.
const POLL: Duration = Duration::from_millis(20);
/// The longest `Retry-After` honoured; a server asking more is given up on.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// The largest answer body read.
const MAX_BODY: u64 = 4 << 20;

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

impl Message {
    pub fn system(c: impl Into<String>) -> Self {
        Message { role: "system", content: c.into() }
    }
    pub fn user(c: impl Into<String>) -> Self {
        Message { role: "user", content: c.into() }
    }
    pub fn assistant(c: impl Into<String>) -> Self {
        Message { role: "assistant", content: c.into() }
    }
}

#[derive(Debug, Clone)]
pub struct ChatRequest {
    pub stage: Stage,
    pub messages: Vec<Message>,
    /// The JSON schema the answer must follow (name, schema).
    pub schema: Option<(&'static str, Value)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatAnswer {
    pub content: String,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub seconds: f64,
}

pub struct Client {
    endpoint: Option<String>,
    key: Option<String>,
    models: [String; 3],
    agent: ureq::Agent,
    retries: u32,
    recorder: Option<Recorder>,
    replay: Option<Replay>,
    /// Cleared when the server refused `response_format` once: later
    /// requests ask in words and the answer is extracted.
    schema_supported: AtomicBool,
}

impl Client {
    pub fn new(config: &LlmConfig) -> Result<Client, LlmError> {
        let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(config.timeout)).http_status_as_error(false).build().into();
        Ok(Client {
            endpoint: config.endpoint.as_ref().map(|e| e.trim_end_matches('/').to_string()),
            key: config.api_key.clone(),
            models: Stage::ALL.map(|s| config.model_for(s)),
            agent,
            retries: config.retries,
            recorder: config.record.as_deref().map(Recorder::create).transpose()?,
            replay: config.replay.as_deref().map(Replay::load).transpose()?,
            schema_supported: AtomicBool::new(true),
        })
    }

    pub fn model(&self, stage: Stage) -> &str {
        &self.models[stage as usize]
    }

    /// The request body as sent (also the transcript's key).
    pub fn body(&self, req: &ChatRequest, with_schema: bool) -> Value {
        let messages: Vec<Value> = req.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
        let mut body = json!({"model": self.model(req.stage), "messages": messages, "temperature": 0.2});
        if let (true, Some((name, schema))) = (with_schema, &req.schema) {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": false}});
        }
        body
    }

    /// Ask once (with retries); `cancel` stops waiting at once.
    pub fn chat(&self, req: &ChatRequest, cancel: Option<&AtomicBool>) -> Result<ChatAnswer, LlmError> {
        let started = Instant::now();
        let with_schema = req.schema.is_some() && self.schema_supported.load(Ordering::Relaxed);
        let body = self.body(req, with_schema);
        let answer = match self.send_with_retries(&body, cancel) {
            // A server that does not take `response_format` says so with a
            // 400 naming it: ask again in words.
            Err(LlmError::Status { status: 400 | 422, body: text }) if with_schema && text.contains("response_format") => {
                self.schema_supported.store(false, Ordering::Relaxed);
                self.send_with_retries(&self.body(req, false), cancel)?
            }
            other => other?,
        };
        let mut parsed = parse_completion(&answer)?;
        parsed.seconds = started.elapsed().as_secs_f64();
        Ok(parsed)
    }

    fn send_with_retries(&self, body: &Value, cancel: Option<&AtomicBool>) -> Result<Value, LlmError> {
        if let Some(replay) = &self.replay {
            return replay.answer(body);
        }
        let endpoint = self.endpoint.clone().ok_or_else(|| LlmError::Transport("no endpoint (--llm URL)".into()))?;
        let url = format!("{endpoint}/chat/completions");
        let mut attempt = 0;
        loop {
            let result = self.send_once(&url, body, cancel);
            let wait = match &result {
                Err(Retry::Again { after, .. }) if attempt < self.retries => after.unwrap_or(Duration::from_millis(250 << attempt)),
                _ => Duration::ZERO,
            };
            match result {
                Ok(v) => {
                    if let Some(r) = &self.recorder {
                        r.record(body, &v)?;
                    }
                    return Ok(v);
                }
                Err(Retry::Again { error, .. }) if attempt < self.retries && wait <= MAX_RETRY_AFTER => {
                    tracing::debug!("model request failed ({error}); retrying in {wait:?}");
                    sleep_unless(wait, cancel)?;
                    attempt += 1;
                }
                Err(Retry::Again { error, .. } | Retry::Final(error)) => return Err(error),
            }
        }
    }

    fn send_once(&self, url: &str, body: &Value, cancel: Option<&AtomicBool>) -> Result<Value, Retry> {
        let (tx, rx) = mpsc::channel();
        let agent = self.agent.clone();
        let (url, text, key) = (url.to_string(), body.to_string(), self.key.clone());
        // The request runs on its own thread so that a cancel need not wait
        // for the server: the thread ends by itself at the timeout.
        std::thread::spawn(move || {
            let _ = tx.send(post(&agent, &url, &text, key.as_deref()));
        });
        loop {
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(Retry::Final(LlmError::Cancelled));
            }
            match rx.recv_timeout(POLL) {
                Ok(r) => return r,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Retry::Final(LlmError::Transport("the request thread ended".into()))),
            }
        }
    }
}

enum Retry {
    /// Worth another try (429, 5xx, a dropped connection), after `after`
    /// when the server said how long.
    Again { error: LlmError, after: Option<Duration> },
    Final(LlmError),
}

fn post(agent: &ureq::Agent, url: &str, body: &str, key: Option<&str>) -> Result<Value, Retry> {
    let mut req = agent.post(url).header("Content-Type", "application/json");
    if let Some(k) = key {
        req = req.header("Authorization", &format!("Bearer {k}"));
    }
    let mut resp = match req.send(body) {
        Ok(r) => r,
        Err(ureq::Error::Timeout(t)) => return Err(Retry::Final(LlmError::Transport(format!("timed out ({t})")))),
        Err(e) => return Err(Retry::Again { error: LlmError::Transport(e.to_string()), after: None }),
    };
    let status = resp.status().as_u16();
    let after = resp.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(retry_after);
    let text = match resp.body_mut().with_config().limit(MAX_BODY).read_to_string() {
        Ok(t) => t,
        Err(ureq::Error::Timeout(t)) => return Err(Retry::Final(LlmError::Transport(format!("timed out ({t})")))),
        Err(e) => return Err(Retry::Again { error: LlmError::Transport(e.to_string()), after: None }),
    };
    let error = || LlmError::Status { status, body: text.chars().take(300).collect() };
    match status {
        200..=299 => serde_json::from_str(&text).map_err(|e| Retry::Final(LlmError::Malformed(format!("{e}: {}", text.chars().take(120).collect::<String>())))),
        429 | 500..=599 => Err(Retry::Again { error: error(), after }),
        _ => Err(Retry::Final(error())),
    }
}

/// `Retry-After` in seconds (the HTTP-date form is treated as "soon").
fn retry_after(v: &str) -> Option<Duration> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Some(Duration::from_secs_f64(s)),
        _ => Some(Duration::from_secs(1)),
    }
}

fn sleep_unless(wait: Duration, cancel: Option<&AtomicBool>) -> Result<(), LlmError> {
    let until = Instant::now() + wait;
    while Instant::now() < until {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(LlmError::Cancelled);
        }
        std::thread::sleep(POLL.min(until.saturating_duration_since(Instant::now())));
    }
    Ok(())
}

/// The text and token counts of a chat completion body.
pub fn parse_completion(v: &Value) -> Result<ChatAnswer, LlmError> {
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmError::Malformed(format!("no choices[0].message.content in {}", v.to_string().chars().take(120).collect::<String>())))?
        .to_string();
    let tokens = |k: &str| v.pointer(&format!("/usage/{k}")).and_then(Value::as_u64);
    // A server that does not count: about four characters a token.
    let prompt_tokens = tokens("prompt_tokens").unwrap_or(0);
    let completion_tokens = tokens("completion_tokens").unwrap_or((content.len() as u64).div_ceil(4));
    Ok(ChatAnswer { content, prompt_tokens, completion_tokens, seconds: 0.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_completion_gives_its_text_and_tokens() {
        let v = json!({"choices": [{"message": {"role": "assistant", "content": "{}"}}], "usage": {"prompt_tokens": 12, "completion_tokens": 3}});
        let a = parse_completion(&v).unwrap();
        assert_eq!((a.content.as_str(), a.prompt_tokens, a.completion_tokens), ("{}", 12, 3));
        assert!(matches!(parse_completion(&json!({"error": "x"})), Err(LlmError::Malformed(_))));
        assert_eq!(retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::from_secs(1)));
    }
}
