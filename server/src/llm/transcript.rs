//! `--llm-record FILE` / `--llm-replay FILE`: every request body and the
//! server's answer, one JSON object per line, so a model-backed run can be
//! repeated with no network and tests can use real transcripts. A replayed
//! request must be byte-for-byte the recorded one (the prompts hold nothing
//! that changes between runs: addresses are normalised in `feedback`).

use super::LlmError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    request: serde_json::Value,
    /// The server's answer body as it came (a chat completion).
    response: serde_json::Value,
}

/// Answers read from a recording, by request body.
pub struct Replay {
    answers: HashMap<String, Vec<serde_json::Value>>,
    /// How many times each request was answered (a request asked twice is
    /// answered with its recorded answers in order).
    used: Mutex<HashMap<String, usize>>,
}

impl Replay {
    pub fn load(path: &Path) -> Result<Replay, LlmError> {
        let text = std::fs::read_to_string(path).map_err(|e| LlmError::Transcript(format!("{}: {e}", path.display())))?;
        let mut answers: HashMap<String, Vec<serde_json::Value>> = HashMap::new();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let e: Entry = serde_json::from_str(line).map_err(|e| LlmError::Transcript(format!("{} line {}: {e}", path.display(), n + 1)))?;
            answers.entry(key(&e.request)).or_default().push(e.response);
        }
        Ok(Replay { answers, used: Mutex::new(HashMap::new()) })
    }

    pub fn answer(&self, request: &serde_json::Value) -> Result<serde_json::Value, LlmError> {
        let k = key(request);
        let list = self.answers.get(&k).ok_or_else(|| LlmError::NotRecorded(summary(request)))?;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let n = used.entry(k).or_insert(0);
        let answer = list.get(*n).or(list.last()).cloned().ok_or_else(|| LlmError::NotRecorded(summary(request)))?;
        *n += 1;
        Ok(answer)
    }
}

/// Appends request/answer pairs to a file.
pub struct Recorder {
    file: Mutex<std::fs::File>,
}

impl Recorder {
    pub fn create(path: &Path) -> Result<Recorder, LlmError> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| LlmError::Transcript(format!("{}: {e}", path.display())))?;
        Ok(Recorder { file: Mutex::new(file) })
    }

    pub fn record(&self, request: &serde_json::Value, response: &serde_json::Value) -> Result<(), LlmError> {
        let line = serde_json::to_string(&Entry { request: request.clone(), response: response.clone() }).map_err(|e| LlmError::Transcript(e.to_string()))?;
        let mut f = self.file.lock().unwrap_or_else(|e| e.into_inner());
        writeln!(f, "{line}").map_err(|e| LlmError::Transcript(e.to_string()))
    }
}

fn key(request: &serde_json::Value) -> String {
    // serde_json keeps object keys sorted (no preserve_order): canonical.
    request.to_string()
}

fn summary(request: &serde_json::Value) -> String {
    format!("model {}", request.get("model").and_then(|m| m.as_str()).unwrap_or("?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_answers_the_same_requests_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let rec = Recorder::create(&path).unwrap();
        let req = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        rec.record(&req, &serde_json::json!({"n": 1})).unwrap();
        rec.record(&req, &serde_json::json!({"n": 2})).unwrap();
        let replay = Replay::load(&path).unwrap();
        assert_eq!(replay.answer(&req).unwrap()["n"], 1);
        assert_eq!(replay.answer(&req).unwrap()["n"], 2);
        assert_eq!(replay.answer(&req).unwrap()["n"], 2, "the last answer repeats");
        let other = serde_json::json!({"model": "m", "messages": []});
        assert!(matches!(replay.answer(&other), Err(LlmError::NotRecorded(_))));
    }
}
