//! The optional model stages (issue 17) against a scripted OpenAI-compatible
//! server: the client's behaviour on every answer a real server gives
//! (clean, fenced, prose, truncated, wrong schema, 429 with Retry-After,
//! 500, timeouts, garbage, cancellation), and `runnable fix --llm` end to
//! end: the model is asked only where the rules stall, its good prefix
//! raises coverage and is reported `proposed_by: model`, its fakes of a
//! library are rejected before they run, secrets never reach it, and a
//! recorded transcript replays with no network.

#[path = "support/model_server.rs"]
mod model_server;
#[path = "support/precondition.rs"]
mod precondition;

use model_server::{ModelServer, Reply, Seen};
use runnable::llm::client::{ChatRequest, Client, Message};
use runnable::llm::{LlmConfig, LlmError, Stage};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn config(url: &str) -> LlmConfig {
    let mut c = LlmConfig::new(Some(url.to_string()));
    c.timeout = Duration::from_secs(5);
    c
}

fn ask(client: &Client) -> Result<runnable::llm::client::ChatAnswer, LlmError> {
    let req = ChatRequest { stage: Stage::Exploration, messages: vec![Message::user("hi")], schema: Some(("prefixes", json!({"type": "object"}))) };
    client.chat(&req, None)
}

#[test]
fn requests_name_the_stage_model_ask_for_the_schema_and_carry_the_key() {
    let server = ModelServer::start(|_| Reply::chat("{\"prefixes\": []}"));
    let mut c = config(&server.url);
    c.model = Some("general".into());
    c.environment_model = Some("cheap".into());
    c.api_key = Some("test-key-123".into());
    let client = Client::new(&c).unwrap();
    let a = ask(&client).unwrap();
    assert_eq!((a.prompt_tokens, a.completion_tokens), (100, 20));
    let env = ChatRequest { stage: Stage::Environment, messages: vec![Message::user("x")], schema: None };
    client.chat(&env, None).unwrap();
    let seen = server.requests();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].model(), "general");
    assert_eq!(seen[1].model(), "cheap", "the environment stage has its own model");
    assert_eq!(seen[0].body["response_format"]["type"], "json_schema");
    assert_eq!(seen[0].body["response_format"]["json_schema"]["name"], "prefixes");
    assert!(seen[1].body.get("response_format").is_none());
    assert!(seen[0].headers.iter().any(|h| h == "authorization: bearer test-key-123"), "{:?}", seen[0].headers);
}

#[test]
fn a_server_without_json_schema_is_asked_again_in_words() {
    let server = ModelServer::start(|s: &Seen| {
        if s.body.get("response_format").is_some() {
            Reply::status(400, "{\"error\": \"response_format is not supported\"}")
        } else {
            Reply::chat("ok")
        }
    });
    let client = Client::new(&config(&server.url)).unwrap();
    assert_eq!(ask(&client).unwrap().content, "ok");
    assert_eq!(ask(&client).unwrap().content, "ok");
    let seen = server.requests();
    assert_eq!(seen.len(), 3, "the schema is dropped once, then for good");
    assert!(seen[2].body.get("response_format").is_none());
}

#[test]
fn a_429_is_retried_after_the_time_the_server_asks_and_a_500_after_a_backoff() {
    let server = ModelServer::start(|s: &Seen| match s.n {
        0 => Reply::status(429, "{\"error\": \"slow down\"}").header("Retry-After", "1"),
        1 => Reply::status(500, "oops"),
        _ => Reply::chat("fine"),
    });
    let client = Client::new(&config(&server.url)).unwrap();
    let t = Instant::now();
    assert_eq!(ask(&client).unwrap().content, "fine");
    assert!(t.elapsed() >= Duration::from_millis(1000), "Retry-After honoured: {:?}", t.elapsed());
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn retries_end_and_client_errors_are_not_retried() {
    let server = ModelServer::start(|_| Reply::status(503, "down"));
    let mut c = config(&server.url);
    c.retries = 2;
    let client = Client::new(&c).unwrap();
    assert!(matches!(ask(&client), Err(LlmError::Status { status: 503, .. })));
    assert_eq!(server.requests().len(), 3);
    let bad = ModelServer::start(|_| Reply::status(401, "{\"error\": \"bad key\"}"));
    let client = Client::new(&config(&bad.url)).unwrap();
    assert!(matches!(ask(&client), Err(LlmError::Status { status: 401, .. })));
    assert_eq!(bad.requests().len(), 1);
}

#[test]
fn a_hung_server_times_out_and_garbage_is_an_error() {
    let server = ModelServer::start(|_| Reply::chat("late").after(Duration::from_secs(10)));
    let mut c = config(&server.url);
    c.timeout = Duration::from_millis(400);
    let client = Client::new(&c).unwrap();
    let t = Instant::now();
    assert!(matches!(ask(&client), Err(LlmError::Transport(m)) if m.contains("timed out")));
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    let garbage = ModelServer::start(|_| Reply::status(200, "<html>not json"));
    let client = Client::new(&config(&garbage.url)).unwrap();
    assert!(matches!(ask(&client), Err(LlmError::Malformed(_))));
    let wrong = ModelServer::start(|_| Reply::status(200, "{\"choices\": []}"));
    let client = Client::new(&config(&wrong.url)).unwrap();
    assert!(matches!(ask(&client), Err(LlmError::Malformed(_))));
}

#[test]
fn cancelling_stops_waiting_within_100_ms() {
    let server = ModelServer::start(|_| Reply::chat("late").after(Duration::from_secs(10)));
    let client = Client::new(&config(&server.url)).unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let setter = flag.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        setter.store(true, Ordering::SeqCst);
    });
    let req = ChatRequest { stage: Stage::Evolution, messages: vec![Message::user("hi")], schema: None };
    let t = Instant::now();
    assert!(matches!(client.chat(&req, Some(&flag)), Err(LlmError::Cancelled)));
    let after_cancel = t.elapsed().saturating_sub(Duration::from_millis(300));
    assert!(after_cancel < Duration::from_millis(100), "stopped {after_cancel:?} after the cancel");
}

// ---- end to end through the CLI ----

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_runnable"))
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("runnable-cache")
}

/// `fix --json` on `src` with the model at `url` (or only `extra`).
fn fix(src: &str, url: Option<&str>, extra: &[&str]) -> (Output, Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fragment.py");
    std::fs::write(&path, src).unwrap();
    let mut cmd = bin();
    cmd.arg("fix").arg(&path).arg("--json").arg("--cache-dir").arg(cache_dir());
    if let Some(u) = url {
        cmd.args(["--llm", u, "--llm-model-environment", "env-m", "--llm-model-exploration", "explore-m", "--llm-model-evolution", "evolve-m"]);
    }
    // No key of the developer's reaches the scripted server.
    let out = cmd.args(extra).env_remove("OPENAI_API_KEY").env_remove("RUNNABLE_LLM_API_KEY").output().expect("runnable runs");
    let j = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("no JSON: {}", String::from_utf8_lossy(&out.stderr)));
    (out, j, dir)
}

/// The checksum the fragments below compute: `total = (total*31 + ord(c)) % 1000`.
fn checksum(s: &str) -> u32 {
    s.chars().fold(0, |t, c| (t * 31 + c as u32) % 1000)
}

/// A short lowercase word with checksum `target`: what a model that reads
/// the loop would answer (the rules do not invert arithmetic).
fn word_with_checksum(target: u32) -> String {
    let letters: Vec<char> = ('a'..='z').collect();
    for &a in &letters {
        for &b in &letters {
            for &c in &letters {
                let w: String = [a, b, c].iter().collect();
                if checksum(&w) == target {
                    return w;
                }
            }
        }
    }
    panic!("no word with checksum {target}");
}

const CHECKSUM_GATE: &str = "total = 0\nfor ch in code:\n    total = (total * 31 + ord(ch)) % 1000\nif total == 417:\n    print(\"valid code\", code)\n    print(\"unlocked\")\nprint(\"done\")\n";

fn name_of<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["names"].as_array().unwrap().iter().find(|n| n["name"] == name).unwrap_or_else(|| panic!("no name {name}: {j}"))
}

fn exploration_requests(server: &ModelServer) -> Vec<Seen> {
    server.requests().into_iter().filter(|s| s.model() == "explore-m").collect()
}

#[test]
fn the_rules_alone_never_ask_and_report_no_model() {
    let (_, j, _) = fix(CHECKSUM_GATE, None, &[]);
    assert!(j["coverage"]["ratio"].as_f64().unwrap() < 1.0 && j["union_coverage"]["ratio"].as_f64().unwrap() < 1.0, "the rules cannot pass the checksum: {j}");
    assert_eq!(j["stats"]["llm_calls"], 0);
    assert!(j["llm"].is_null());
    assert_eq!(name_of(&j, "code")["proposed_by"], "rule");
}

#[test]
fn where_the_rules_stall_the_model_prefix_raises_coverage_and_says_so() {
    let word = word_with_checksum(417);
    let answer = format!("code = {word:?}");
    let server = ModelServer::start(move |s: &Seen| if s.model() == "explore-m" { Reply::prefixes(&[answer.as_str()]) } else { Reply::status(404, "no") });
    let (_, j, _) = fix(CHECKSUM_GATE, Some(&server.url), &[]);
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "the rules alone stay below (the test above): {j}");
    assert_eq!(name_of(&j, "code")["proposed_by"], "model", "{j}");
    assert!(j["prefix"].as_str().unwrap().contains(&word));
    assert!(j["stats"]["llm_calls"].as_u64().unwrap() >= 1);
    assert_eq!(j["stats"]["llm_tokens"]["prompt"], 100 * j["stats"]["llm_calls"].as_u64().unwrap());
    assert_eq!(j["stats"]["llm_stages"]["exploration"]["kept"], 1, "{j}");
    // The context is what the rules learned: the failing line, its
    // exception, the best prefix; the answer's shape is asked by schema.
    let first = &exploration_requests(&server)[0];
    let text = first.text();
    assert!(text.contains("Lines that never ran") && text.contains("print(\"unlocked\")"), "{text}");
    assert!(text.contains("BEST PREFIX SO FAR"), "{text}");
    assert_eq!(first.body["response_format"]["json_schema"]["name"], "prefixes");
}

#[test]
fn a_proposal_that_fakes_a_library_is_rejected_before_it_runs() {
    let fragment = format!("config = json.loads(raw)\ncode = config[\"code\"]\n{CHECKSUM_GATE}");
    let word = word_with_checksum(417);
    let good = format!("import json\nraw = '{{\"code\": \"{word}\"}}'");
    let server = ModelServer::start(move |_| {
        Reply::prefixes(&[
            "class json:\n    @staticmethod\n    def loads(s):\n        return {'code': 'x'}\nraw = ''",
            "import json\njson.loads = lambda s: {'code': 'x'}\nraw = ''",
            "import sys, types\nsys.modules['json'] = types.ModuleType('json')\nraw = ''",
            good.as_str(),
        ])
    });
    let (_, j, _) = fix(&fragment, Some(&server.url), &[]);
    assert_eq!(j["stats"]["llm_rejected"], 3, "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    let prefix = j["prefix"].as_str().unwrap();
    assert!(!prefix.contains("class json") && !prefix.contains("json.loads =") && !prefix.contains("sys.modules"), "{prefix}");
    assert_eq!(name_of(&j, "json")["kind"], "import");
    assert_eq!(name_of(&j, "raw")["proposed_by"], "model");
}

#[test]
fn secrets_in_the_fragment_never_reach_the_model_or_the_transcript() {
    let secrets = ["sk-live0123456789abcdefghijkl", "hunter2-very-secret", "ghp_abcdefghijklmnopqrstuvwxyz0123", "wiki.corp"];
    let fragment = format!(
        "API_KEY = \"{}\"\nDB_PASSWORD = \"{}\"\nGH = \"{}\"\nDOCS = \"https://{}/pages\"\n{CHECKSUM_GATE}",
        secrets[0], secrets[1], secrets[2], secrets[3]
    );
    let server = ModelServer::start(|_| Reply::chat("I cannot help"));
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("t.jsonl");
    let (_, j, _) = fix(&fragment, Some(&server.url), &["--llm-record", record.to_str().unwrap()]);
    let seen = server.requests();
    assert!(!seen.is_empty(), "{j}");
    let transcript = std::fs::read_to_string(&record).unwrap();
    for s in &seen {
        for secret in secrets {
            assert!(!s.raw.contains(secret), "{secret} sent in {}", s.raw);
        }
        assert!(s.raw.contains("REDACTED_SECRET_1"), "the placeholder stands in: {}", s.raw);
    }
    for secret in secrets {
        assert!(!transcript.contains(secret), "{secret} in the transcript");
    }
    assert!(j["coverage"]["ratio"].as_f64().unwrap() < 1.0, "an unhelpful model leaves the rules' result: {j}");
    assert!(!j["llm"]["errors"].as_array().unwrap().is_empty(), "why the model gave nothing is said: {j}");
}

#[test]
fn a_recorded_run_replays_with_no_network() {
    let word = word_with_checksum(417);
    let answer = format!("Here is a prefix:\n```json\n{{\"prefixes\": [{{\"prefix\": \"code = '{word}'\", \"files\": []}}]}}\n```\n");
    let server = ModelServer::start(move |_| Reply::chat(&answer));
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let (_, first, _) = fix(CHECKSUM_GATE, Some(&server.url), &["--llm-record", record.to_str().unwrap()]);
    assert_eq!(first["coverage"]["ratio"], 1.0, "a fenced answer is read: {first}");
    let asked = server.requests().len();
    let models = ["--llm-model-environment", "env-m", "--llm-model-exploration", "explore-m", "--llm-model-evolution", "evolve-m"];
    let mut args = vec!["--llm-replay", record.to_str().unwrap()];
    args.extend(models);
    let (_, again, _) = fix(CHECKSUM_GATE, None, &args);
    assert_eq!(server.requests().len(), asked, "the replay asked nobody");
    assert_eq!(again["prefix"], first["prefix"]);
    assert_eq!(again["coverage"], first["coverage"]);
    assert_eq!(again["stats"]["llm_calls"], first["stats"]["llm_calls"]);
}

#[test]
fn a_truncated_answer_gets_one_repair_round() {
    let word = word_with_checksum(417);
    let good = format!("code = '{word}'");
    let server = ModelServer::start(move |s: &Seen| {
        if s.body["messages"].as_array().unwrap().len() > 2 {
            Reply::prefixes(&[good.as_str()])
        } else {
            Reply::chat("{\"prefixes\": [{\"prefix\": \"code = ")
        }
    });
    let (_, j, _) = fix(CHECKSUM_GATE, Some(&server.url), &[]);
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
    let repair = &exploration_requests(&server)[1];
    assert!(repair.text().contains("could not be used"), "{}", repair.text());
}

#[test]
fn the_call_budget_is_kept() {
    let server = ModelServer::start(|_| Reply::chat("{\"wrong\": \"schema\"}"));
    let (_, j, _) = fix(CHECKSUM_GATE, Some(&server.url), &["--llm-max-calls", "1"]);
    assert_eq!(server.requests().len(), 1, "{j}");
    assert_eq!(j["stats"]["llm_calls"], 1);
}

#[test]
fn evolution_runs_the_models_generator_and_keeps_what_covers_new_branches() {
    let fragment = "total = 0\nfor ch in code:\n    total = (total * 31 + ord(ch)) % 1000\nif total == 417:\n    print(\"gold\")\nelif total == 3:\n    print(\"silver\")\nprint(\"done\")\n";
    let (a, b) = (word_with_checksum(417), word_with_checksum(3));
    let program = format!("import json\nfor w in [{a:?}, {b:?}]:\n    print(json.dumps({{'prefix': 'code = %r' % w, 'files': []}}))\n");
    let server = ModelServer::start(move |s: &Seen| match s.model() {
        "evolve-m" => Reply::chat(&json!({ "program": program }).to_string()),
        _ => Reply::prefixes(&["code = 'zz'"]),
    });
    let (_, j, _) = fix(fragment, Some(&server.url), &[]);
    assert!(server.requests().iter().any(|s| s.model() == "evolve-m"), "{j}");
    assert_eq!(j["union_coverage"]["ratio"], 1.0, "{j}");
    let variants = j["variants"].as_array().unwrap();
    assert!(variants.iter().any(|v| v["proposed_by"] == "model"), "{j}");
    assert!(j["stats"]["llm_stages"]["evolution"]["proposals"].as_u64().unwrap() >= 2, "{j}");
}

#[test]
fn the_environment_stage_proposes_files_checked_against_the_fragment_and_names_for_consent() {
    let fragment = "import json\nname = \"-\".join([\"app\", \"dev\"]) + \".json\"\nwith open(name) as f:\n    profile = json.load(f)\nprint(profile[\"level\"] + 1)\n";
    let server = ModelServer::start(|s: &Seen| match s.model() {
        "env-m" => Reply::chat(
            &json!({"distributions": [{"name": "requests", "reason": "http"}, {"name": "left-padder-xyz", "reason": "?"}],
                "files": [{"path": "app-dev.json", "content": "{\"level\": 3}"}, {"path": "elsewhere.json", "content": "{}"}]})
            .to_string(),
        ),
        _ => Reply::chat("no idea"),
    });
    let (_, j, _) = fix(fragment, Some(&server.url), &[]);
    assert_eq!(j["status"], "completed", "{j}");
    assert!(j["resources"].as_array().unwrap().iter().any(|r| r["path"] == "app-dev.json"), "{j}");
    assert_eq!(j["llm"]["consent"], json!(["left-padder-xyz"]), "an unknown name is shown, never installed: {j}");
    assert!(j["llm"]["rejected_files"][0].as_str().unwrap().starts_with("elsewhere.json"), "{j}");
    assert!(j["missing_packages"].as_array().unwrap().iter().all(|p| p != "left-padder-xyz"));
}

/// The module is imported by a computed name: the engine's own plan cannot
/// see it, so only the environment stage can name its distribution.
const COMPUTED_IMPORT: &str = "import importlib\nmod = importlib.import_module(\"s\" + \"ix\")\nprint(mod.PY3)\n";

fn proposed<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["llm"]["distributions"].as_array().unwrap().iter().find(|d| d["name"] == name).unwrap_or_else(|| panic!("{name} not proposed: {j}"))
}

fn has_package(j: &Value, name: &str) -> bool {
    j["packages"].as_array().unwrap().iter().any(|p| p.as_str().unwrap().to_ascii_lowercase().starts_with(name))
}

#[test]
fn with_install_a_curated_proposal_is_installed_like_the_engines_own_and_an_unknown_name_never() {
    let server = ModelServer::start(|s: &Seen| match s.model() {
        "env-m" => Reply::chat(&json!({"distributions": [{"name": "six", "reason": "import_module"}, {"name": "left-padder-xyz", "reason": "?"}], "files": []}).to_string()),
        _ => Reply::chat("no idea"),
    });
    // Without consent: both only reported.
    let (_, j, _) = fix(COMPUTED_IMPORT, Some(&server.url), &[]);
    assert!(proposed(&j, "six")["curated"].as_bool().unwrap(), "{j}");
    assert_eq!(proposed(&j, "six")["installed"], false, "no --install, nothing installed: {j}");
    assert!(!has_package(&j, "six"), "{j}");
    // With consent (`--install`): the curated name is installed and the
    // fragment runs; the unknown one is still only shown.
    let (_, j, _) = fix(COMPUTED_IMPORT, Some(&server.url), &["--install"]);
    assert_eq!(j["llm"]["consent"], json!(["left-padder-xyz"]), "{j}");
    assert_eq!(proposed(&j, "left-padder-xyz")["installed"], false, "{j}");
    assert!(!has_package(&j, "left-padder"), "an unknown name is never installed: {j}");
    if proposed(&j, "six")["installed"] != true {
        precondition::skip(&format!("six could not be installed (PyPI unreachable?): {}", j["llm"]));
        return;
    }
    assert!(has_package(&j, "six"), "{j}");
    assert_eq!(j["status"], "completed", "{j}");
    assert_eq!(j["coverage"]["ratio"], 1.0, "{j}");
}

#[test]
fn bench_adds_the_model_columns_at_the_end_and_prints_the_stages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("gate.py"), CHECKSUM_GATE).unwrap();
    let word = word_with_checksum(417);
    let answer = format!("code = {word:?}");
    let server = ModelServer::start(move |_| Reply::prefixes(&[answer.as_str()]));
    let csv = dir.path().join("out.csv");
    let out = bin()
        .arg("bench")
        .arg(dir.path())
        .args(["--out", csv.to_str().unwrap(), "--llm", &server.url, "--llm-model", "gpt-4o"])
        .arg("--cache-dir")
        .arg(cache_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("llm tokens") && stdout.contains("exploration 1 calls") && stdout.contains("estimated cost $"), "{stdout}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let header = text.lines().next().unwrap();
    assert!(header.contains(",stand_in_names,real,llm_prompt_tokens,") && header.ends_with(",llm_cost_usd,model_names,blocker"), "{header}");
    let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    let cost: f64 = row[row.len() - 3].parse().unwrap();
    assert!(cost > 0.0, "gpt-4o has a price: {row:?}");
}
