//! The messages each stage sends, built from [`Feedback`], and redacted as
//! a whole just before they leave ([`crate::redact::Redactor`]: the fragment, its
//! files and the run's text alike). Pure.

use super::client::{ChatRequest, Message};
use super::config::Stage;
use super::feedback::Feedback;
use crate::redact::Redactor;
use serde_json::{json, Value};

const RULES: &str = "You complete Python fragments so that they run. You write a PREFIX: Python placed above the fragment \
(imports and definitions of the names it uses) and the FILES the fragment reads. Hard rules: \
a module or library name is bound only by an import (never a class, object, function or mock standing for a library); \
never assign attributes of an imported module, never touch sys.modules, never create a file named like a real module; \
build library objects with the library's own API; values are small, realistic data. \
Never change the fragment. Placeholders like REDACTED_SECRET_1 stand for secrets: keep them as they are.";

fn describe(f: &Feedback) -> String {
    let mut s = format!("FRAGMENT:\n```python\n{}```\n\n", f.fragment);
    if !f.best_prefix.trim().is_empty() {
        s.push_str(&format!("BEST PREFIX SO FAR:\n```python\n{}```\n", f.best_prefix));
    }
    s.push_str(&format!("It covers {} of {} statements and {}.\n", f.covered, f.executable, if f.completed { "runs to the end" } else { "stops early" }));
    if !f.undefined.is_empty() {
        s.push_str(&format!("Undefined names: {}\n", f.undefined.join(", ")));
    }
    if let Some((line, text, e)) = &f.failing {
        s.push_str(&format!("Fails on fragment line {line} `{text}` with {e}\n"));
    }
    if !f.uncovered.is_empty() {
        s.push_str("Lines that never ran:\n");
        for (l, t) in &f.uncovered {
            s.push_str(&format!("  {l}: {t}\n"));
        }
    }
    if !f.reads.is_empty() {
        s.push_str("Files the fragment reads:\n");
        for (p, how) in &f.reads {
            s.push_str(&format!("  {p} (with {how})\n"));
        }
    }
    if !f.library_errors.is_empty() {
        s.push_str("Errors raised inside libraries:\n");
        for e in &f.library_errors {
            s.push_str(&format!("  {e}\n"));
        }
    }
    if !f.failed.is_empty() {
        s.push_str("Already tried, did not help:\n");
        for e in &f.failed {
            s.push_str(&format!("  {e}\n"));
        }
    }
    s
}

fn files_schema() -> Value {
    json!({"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}})
}

pub fn prefixes_schema() -> Value {
    json!({"type": "object", "properties": {"prefixes": {"type": "array", "items": {"type": "object",
        "properties": {"prefix": {"type": "string"}, "files": files_schema()}, "required": ["prefix", "files"]}}}, "required": ["prefixes"]})
}

pub fn program_schema() -> Value {
    json!({"type": "object", "properties": {"program": {"type": "string"}}, "required": ["program"]})
}

pub fn environment_schema() -> Value {
    json!({"type": "object", "properties": {
        "distributions": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "reason": {"type": "string"}}, "required": ["name"]}},
        "files": files_schema()}, "required": ["distributions", "files"]})
}

fn request(stage: Stage, user: String, schema: (&'static str, Value), redactor: &mut Redactor) -> ChatRequest {
    let messages = vec![Message::system(RULES), Message::user(redactor.redact(&user))];
    ChatRequest { stage, messages, schema: Some(schema) }
}

/// Exploration: `k` prefixes that get further.
pub fn exploration(f: &Feedback, k: usize, redactor: &mut Redactor) -> ChatRequest {
    let ask = format!(
        "{}\nWrite {k} different complete prefixes (each replaces the best prefix) that make more of the fragment run. \
Answer with JSON only: {{\"prefixes\": [{{\"prefix\": \"<python>\", \"files\": [{{\"path\": \"<relative path>\", \"content\": \"<text>\"}}]}}]}}",
        describe(f)
    );
    request(Stage::Exploration, ask, ("prefixes", prefixes_schema()), redactor)
}

/// Evolution: a generator program printing many candidate prefixes.
pub fn evolution(f: &Feedback, redactor: &mut Redactor) -> ChatRequest {
    let ask = format!(
        "{}\nWrite a short Python program (standard library only, no network, no files outside the current folder) that PRINTS \
candidate prefixes for the lines that never ran: one JSON object per line, {{\"prefix\": \"<python>\", \"files\": [...]}}, at most 20, \
varying the values that decide the branches. Answer with JSON only: {{\"program\": \"<python>\"}}",
        describe(f)
    );
    request(Stage::Evolution, ask, ("generator", program_schema()), redactor)
}

/// Environment: distributions and resource files.
pub fn environment(f: &Feedback, redactor: &mut Redactor) -> ChatRequest {
    let ask = format!(
        "{}\nName the PyPI distributions the fragment needs that are not installed, and the files it reads with contents it can parse. \
Answer with JSON only: {{\"distributions\": [{{\"name\": \"<pypi name>\", \"reason\": \"<import>\"}}], \"files\": [{{\"path\": \"...\", \"content\": \"...\"}}]}}",
        describe(f)
    );
    request(Stage::Environment, ask, ("environment", environment_schema()), redactor)
}

/// The one repair round: the answer and why it could not be read.
pub fn repair(mut req: ChatRequest, answer: &str, why: &str) -> ChatRequest {
    let cut: String = answer.chars().take(2000).collect();
    req.messages.push(Message::assistant(cut));
    req.messages.push(Message::user(format!("That answer could not be used: {why}. Answer again with only the JSON object the schema asks for, nothing else.")));
    req
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_holds_the_feedback_and_no_secret() {
        let f = Feedback {
            fragment: "client = Client(api_key='sk-abcdefghijklmnopqrstuvwx')\nprint(rows[0])\n".into(),
            covered: 1,
            executable: 2,
            undefined: vec!["rows".into()],
            failing: Some((2, "print(rows[0])".into(), "NameError: name 'rows' is not defined".into())),
            uncovered: vec![(2, "print(rows[0])".into())],
            failed: vec!["rows = [] … → IndexError: list index out of range".into()],
            ..Feedback::default()
        };
        let req = exploration(&f, 3, &mut Redactor::new());
        let text = &req.messages[1].content;
        assert!(!text.contains("sk-abcdefghijklmnopqrstuvwx"), "{text}");
        for want in ["Undefined names: rows", "line 2", "NameError", "IndexError", "Write 3 different"] {
            assert!(text.contains(want), "{want} missing from {text}");
        }
        assert_eq!(req.stage, Stage::Exploration);
        let r = repair(req, "garbage", "no JSON");
        assert_eq!(r.messages.len(), 4);
    }
}
