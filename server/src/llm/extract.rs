//! Reading what a model answered: JSON when the server kept to the schema,
//! else the JSON inside fenced code or prose, else (for a program) the
//! fenced code itself. Each shape is checked; what does not fit says why,
//! for the one repair round. Pure.

use serde_json::Value;

/// One file a proposal creates next to the program.
#[derive(Debug, Clone, PartialEq)]
pub struct FileProposal {
    pub path: String,
    pub content: String,
}

/// One prefix and its files, as a model wrote them.
#[derive(Debug, Clone, PartialEq)]
pub struct PrefixProposal {
    pub prefix: String,
    pub files: Vec<FileProposal>,
}

/// What the environment stage proposes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EnvironmentProposal {
    /// (distribution, why).
    pub distributions: Vec<(String, String)>,
    pub files: Vec<FileProposal>,
}

/// The JSON value in `text`: the whole of it, a fenced block, or the
/// outermost braces in prose.
pub fn json_in(text: &str) -> Result<Value, String> {
    let t = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(t) {
        return Ok(v);
    }
    for block in fenced_blocks(t) {
        if let Ok(v) = serde_json::from_str::<Value>(block.trim()) {
            return Ok(v);
        }
    }
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(a), Some(b)) = (t.find(open), t.rfind(close)) {
            if a < b {
                if let Ok(v) = serde_json::from_str::<Value>(&t[a..=b]) {
                    return Ok(v);
                }
            }
        }
    }
    Err(if t.is_empty() { "the answer was empty".into() } else { "the answer holds no complete JSON value (it may be cut off)".into() })
}

/// The bodies of ``` fenced blocks, in order.
pub fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_start = after.find('\n').map(|i| i + 1).unwrap_or(after.len());
        let body = &after[body_start..];
        let Some(end) = body.find("```") else { break };
        out.push(&body[..end]);
        rest = &body[end + 3..];
    }
    out
}

fn files_of(v: &Value) -> Result<Vec<FileProposal>, String> {
    let Some(list) = v.get("files") else { return Ok(Vec::new()) };
    let list = list.as_array().ok_or("`files` must be a list")?;
    list.iter()
        .map(|f| match (f.get("path").and_then(Value::as_str), f.get("content").and_then(Value::as_str)) {
            (Some(p), Some(c)) => Ok(FileProposal { path: p.to_string(), content: c.to_string() }),
            _ => Err("each file needs a string `path` and a string `content`".to_string()),
        })
        .collect()
}

fn prefix_of(v: &Value) -> Result<PrefixProposal, String> {
    let prefix = v.get("prefix").and_then(Value::as_str).ok_or("each item needs a string `prefix`")?;
    Ok(PrefixProposal { prefix: prefix.to_string(), files: files_of(v)? })
}

/// `{"prefixes": [{"prefix", "files"}]}`, or a bare list of them, or one.
pub fn prefixes(text: &str) -> Result<Vec<PrefixProposal>, String> {
    let v = json_in(text)?;
    let items = match (&v, v.get("prefixes")) {
        (_, Some(Value::Array(a))) => a.clone(),
        (Value::Array(a), _) => a.clone(),
        (Value::Object(o), _) if o.contains_key("prefix") => vec![v.clone()],
        _ => return Err("expected {\"prefixes\": [{\"prefix\": \"...\", \"files\": [...]}]}".into()),
    };
    if items.is_empty() {
        return Err("`prefixes` is empty".into());
    }
    items.iter().map(prefix_of).collect()
}

/// The generator program: `{"program": "..."}` or a fenced Python block.
pub fn program(text: &str) -> Result<String, String> {
    if let Ok(v) = json_in(text) {
        if let Some(p) = v.get("program").and_then(Value::as_str) {
            return Ok(p.to_string());
        }
    }
    fenced_blocks(text)
        .into_iter()
        .find(|b| b.contains("print("))
        .map(str::to_string)
        .ok_or_else(|| "expected {\"program\": \"...\"}: a Python program that prints one JSON object per line".into())
}

/// One candidate per line a generator printed (lines that are not such an
/// object are skipped: the generator is as untrusted as any program).
pub fn generated(stdout: &str, cap: usize) -> Vec<PrefixProposal> {
    stdout.lines().filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok()).filter_map(|v| prefix_of(&v).ok()).take(cap).collect()
}

/// `{"distributions": [{"name", "reason"}], "files": [...]}`.
pub fn environment(text: &str) -> Result<EnvironmentProposal, String> {
    let v = json_in(text)?;
    if !v.is_object() || (v.get("distributions").is_none() && v.get("files").is_none()) {
        return Err("expected {\"distributions\": [...], \"files\": [...]}".into());
    }
    let distributions = match v.get("distributions") {
        None => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|d| match d {
                Value::String(s) => Ok((s.clone(), String::new())),
                _ => match d.get("name").and_then(Value::as_str) {
                    Some(n) => Ok((n.to_string(), d.get("reason").and_then(Value::as_str).unwrap_or("").to_string())),
                    None => Err("each distribution needs a `name`".to_string()),
                },
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`distributions` must be a list".into()),
    };
    Ok(EnvironmentProposal { distributions, files: files_of(&v)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_in_every_shape_a_model_writes() {
        let clean = r#"{"prefixes": [{"prefix": "x = 1", "files": []}]}"#;
        let fenced = format!("Here you go:\n```json\n{clean}\n```\nGood luck");
        let prose = format!("Sure! The answer is {clean} and that is all.");
        for t in [clean.to_string(), fenced, prose] {
            assert_eq!(prefixes(&t).unwrap(), vec![PrefixProposal { prefix: "x = 1".into(), files: vec![] }], "{t}");
        }
        assert!(prefixes(r#"{"prefixes": [{"prefix": "x = "#).unwrap_err().contains("cut off"));
        assert!(prefixes(r#"{"answer": 42}"#).is_err(), "a wrong schema is an error");
        assert!(prefixes(r#"{"prefixes": [{"prefix": 3}]}"#).is_err());
        assert!(prefixes("").is_err());
    }

    #[test]
    fn a_program_comes_from_json_or_a_fence_and_its_lines_are_read_one_by_one() {
        assert_eq!(program(r#"{"program": "print(1)"}"#).unwrap(), "print(1)");
        assert_eq!(program("Try:\n```python\nprint('{}')\n```").unwrap(), "print('{}')\n");
        assert!(program("no code here").is_err());
        let out = "{\"prefix\": \"a = 1\"}\nnot json\n{\"prefix\": \"a = 2\", \"files\": [{\"path\": \"d.txt\", \"content\": \"x\"}]}\n{\"other\": 1}\n";
        let got = generated(out, 10);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].files[0].path, "d.txt");
        assert_eq!(generated(out, 1).len(), 1);
    }

    #[test]
    fn environment_answers_take_names_or_objects() {
        let e = environment(r#"{"distributions": ["requests", {"name": "pyyaml", "reason": "import yaml"}], "files": [{"path": "c.yaml", "content": "a: 1"}]}"#).unwrap();
        assert_eq!(e.distributions, vec![("requests".into(), "".into()), ("pyyaml".into(), "import yaml".into())]);
        assert_eq!(e.files.len(), 1);
        assert!(environment(r#"{"x": 1}"#).is_err());
    }
}
