//! Settings (docs/protocol.md "Settings"): from `initializationOptions`,
//! `workspace/didChangeConfiguration` (`settings.runnable`) and, from a
//! client that answers it, `workspace/configuration` (section `runnable`,
//! pulled after `initialized`). Each message carries the whole object;
//! absent keys take their defaults.

use crate::knowledge::{is_valid_distribution_name, normalize_distribution};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

/// Every settings key, in the editors' spelling. A consistency test compares
/// it with docs/protocol.md and the README (and the editors compare theirs with it).
pub const SETTINGS_KEYS: &[&str] = &[
    "interpreter",
    "cacheDir",
    "installPolicy",
    "runPolicy",
    "allowBuilds",
    "budgetSeconds",
    "resourceDir",
    "hints.coverage",
    "hints.values",
    "hints.output",
    "llm.enabled",
    "llm.endpoint",
    "llm.model",
    "llm.models.environment",
    "llm.models.exploration",
    "llm.models.evolution",
    "llm.maxCalls",
    "memory.enabled",
];

/// The configuration section of our settings (`settings.runnable`, and the
/// section a `workspace/configuration` pull asks for).
pub const SECTION: &str = "runnable";

/// The commands of `workspace/executeCommand`.
pub const CMD_MAKE_RUNNABLE: &str = "runnable.makeRunnable";
pub const CMD_SHOW_REPORT: &str = "runnable.showReport";
pub const CMD_CANCEL: &str = "runnable.cancel";
/// `{uri, path, how}`: create a sample of a file the code reads (quick fix).
pub const CMD_CREATE_SAMPLE: &str = "runnable.createSample";
/// `{uri}`: the provenance lens's answers (Keep the prefix, Remove it).
pub const CMD_KEEP: &str = "runnable.keep";
pub const CMD_REMOVE: &str = "runnable.remove";
pub const COMMANDS: &[&str] = &[CMD_MAKE_RUNNABLE, CMD_SHOW_REPORT, CMD_CANCEL, CMD_CREATE_SAMPLE, CMD_KEEP, CMD_REMOVE];
/// The code action kind and title.
pub const ACTION_KIND: &str = "refactor.rewrite.makeRunnable";
pub const ACTION_TITLE: &str = "Make this runnable";
/// The custom notification sent after each run.
pub const RUN_FINISHED: &str = "runnable/runFinished";
/// `source` of every diagnostic, and the diagnostic codes.
pub const SOURCE: &str = "runnable";
pub const CODE_UNDEFINED: &str = "undefined-name";
pub const CODE_UNRESOLVED: &str = "unresolved-import";
pub const CODE_MISSING_FILE: &str = "missing-file";
pub const CODE_RUNTIME: &str = "runtime-error";
pub const CODE_SYNTAX: &str = "syntax-error";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InstallPolicy {
    #[default]
    Ask,
    Never,
    Always,
}

/// Whether fragments may run at all (docs/protocol.md "Approval").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunPolicy {
    /// The first run in a workspace asks ("Run" / "Always in this workspace" / "Cancel").
    #[default]
    Ask,
    /// Every run goes ahead.
    Always,
    /// Nothing runs: a run is refused at once (status `refused`).
    Never,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub interpreter: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    pub install_policy: InstallPolicy,
    pub run_policy: RunPolicy,
    /// Distributions that may be built from a source archive (normalised).
    pub allow_builds: BTreeSet<String>,
    pub budget_seconds: f64,
    pub resource_dir: String,
    pub hints_coverage: bool,
    pub hints_values: bool,
    /// What a line printed, as a hint (`› hello`).
    pub hints_output: bool,
    pub llm_enabled: bool,
    /// OpenAI-compatible base URL; the key only ever from the environment.
    pub llm_endpoint: Option<String>,
    pub llm_model: Option<String>,
    pub llm_models: [Option<String>; 3],
    pub llm_max_calls: usize,
    /// Results cache and remembered templates (`memory/`).
    pub memory_enabled: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            interpreter: None,
            cache_dir: None,
            install_policy: InstallPolicy::Ask,
            run_policy: RunPolicy::Ask,
            allow_builds: BTreeSet::new(),
            budget_seconds: 20.0,
            resource_dir: ".runnable".into(),
            hints_coverage: true,
            hints_values: true,
            hints_output: true,
            llm_enabled: false,
            llm_endpoint: None,
            llm_model: None,
            llm_models: [None, None, None],
            llm_max_calls: crate::llm::config::DEFAULT_MAX_CALLS,
            memory_enabled: true,
        }
    }
}

impl Settings {
    /// Settings from a JSON object (nested `{"hints": {"coverage": ..}}` or
    /// dotted `{"hints.coverage": ..}` keys). Returns the settings and one
    /// warning per key that is unknown or has a value of the wrong type
    /// (that key keeps its default).
    pub fn from_json(value: &Value) -> (Settings, Vec<String>) {
        let mut s = Settings::default();
        let mut warnings = Vec::new();
        let mut flat = Vec::new();
        if let Some(obj) = value.as_object() {
            flatten("", obj, &mut flat);
        } else if !value.is_null() && value.as_array().is_none_or(|a| !a.is_empty()) {
            // (An empty list is how some clients, Neovim's Lua among them, encode `{}`.)
            warnings.push(format!("settings must be an object, got {value}"));
        }
        for (key, v) in flat {
            let ok = match key.as_str() {
                "interpreter" => opt_path(&v).map(|p| s.interpreter = p).is_some(),
                "cacheDir" => opt_path(&v).map(|p| s.cache_dir = p).is_some(),
                "installPolicy" => match v.as_str() {
                    Some("ask") => Some(InstallPolicy::Ask),
                    Some("never") => Some(InstallPolicy::Never),
                    Some("always") => Some(InstallPolicy::Always),
                    _ => None,
                }
                .map(|p| s.install_policy = p)
                .is_some(),
                "runPolicy" => match v.as_str() {
                    Some("ask") => Some(RunPolicy::Ask),
                    Some("always") => Some(RunPolicy::Always),
                    Some("never") => Some(RunPolicy::Never),
                    _ => None,
                }
                .map(|p| s.run_policy = p)
                .is_some(),
                "allowBuilds" => distribution_names(&v).map(|names| s.allow_builds = names).is_some(),
                "budgetSeconds" => v.as_f64().filter(|b| b.is_finite() && *b > 0.0).map(|b| s.budget_seconds = b).is_some(),
                "resourceDir" => v
                    .as_str()
                    .filter(|d| is_relative_folder(d))
                    .map(|d| s.resource_dir = d.trim_end_matches('/').to_string())
                    .is_some(),
                "hints.coverage" => v.as_bool().map(|b| s.hints_coverage = b).is_some(),
                "hints.values" => v.as_bool().map(|b| s.hints_values = b).is_some(),
                "hints.output" => v.as_bool().map(|b| s.hints_output = b).is_some(),
                "llm.enabled" => v.as_bool().map(|b| s.llm_enabled = b).is_some(),
                "llm.endpoint" => opt_string(&v).map(|e| s.llm_endpoint = e).is_some(),
                "llm.model" => opt_string(&v).map(|m| s.llm_model = m).is_some(),
                "llm.models.environment" => opt_string(&v).map(|m| s.llm_models[0] = m).is_some(),
                "llm.models.exploration" => opt_string(&v).map(|m| s.llm_models[1] = m).is_some(),
                "llm.models.evolution" => opt_string(&v).map(|m| s.llm_models[2] = m).is_some(),
                "llm.maxCalls" => match &v {
                    Value::Null => Some(crate::llm::config::DEFAULT_MAX_CALLS),
                    _ => v.as_u64().filter(|n| *n <= 1000).map(|n| n as usize),
                }
                .map(|n| s.llm_max_calls = n)
                .is_some(),
                "memory.enabled" => v.as_bool().map(|b| s.memory_enabled = b).is_some(),
                _ => {
                    warnings.push(format!("unknown setting `{key}`"));
                    continue;
                }
            };
            if !ok {
                warnings.push(format!("setting `{key}` has an invalid value {v}; using its default"));
            }
        }
        (s, warnings)
    }

    /// The settings object of a `workspace/didChangeConfiguration`:
    /// `settings.runnable` when present, else `settings` itself if it has
    /// any of our keys. None when it holds nothing of ours (clients that
    /// send `null` or only other sections): the current settings stay.
    pub fn from_change(settings: &Value) -> Option<(Settings, Vec<String>)> {
        match settings.get(SECTION) {
            Some(inner) if inner.is_object() => Some(Settings::from_json(inner)),
            _ => {
                let obj = settings.as_object()?;
                let ours = obj.keys().any(|k| SETTINGS_KEYS.iter().any(|s| s == k || s.split('.').next() == Some(k.as_str())));
                ours.then(|| Settings::from_json(settings))
            }
        }
    }

    /// The answer to a `workspace/configuration` pull of [`SECTION`]: the
    /// settings object itself. None when it is `null` (a client that does
    /// not know the section): the current settings stay.
    pub fn from_pulled(answer: &Value) -> Option<(Settings, Vec<String>)> {
        (!answer.is_null()).then(|| Settings::from_json(answer))
    }

    /// The model stages' configuration, when `llm.enabled` and an endpoint
    /// is set; the key from the environment only (`RUNNABLE_LLM_API_KEY`,
    /// else `OPENAI_API_KEY`).
    pub fn llm_config(&self) -> Option<crate::llm::LlmConfig> {
        let endpoint = self.llm_endpoint.clone().filter(|_| self.llm_enabled)?;
        let mut c = crate::llm::LlmConfig::new(Some(endpoint));
        c.model = self.llm_model.clone();
        [c.environment_model, c.exploration_model, c.evolution_model] = self.llm_models.clone();
        c.max_calls = self.llm_max_calls;
        c.api_key = crate::llm::config::api_key_from(|k| std::env::var(k).ok());
        Some(c)
    }

    pub fn budget(&self) -> Duration {
        Duration::from_secs_f64(self.budget_seconds.clamp(1.0, 3600.0))
    }
}

fn flatten(prefix: &str, obj: &serde_json::Map<String, Value>, out: &mut Vec<(String, Value)>) {
    for (k, v) in obj {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            Value::Object(inner) if matches!(key.as_str(), "hints" | "llm" | "llm.models" | "memory") => flatten(&key, inner, out),
            _ => out.push((key, v.clone())),
        }
    }
}

/// An array of distribution names (normalised); `null` (and `{}`, which is
/// how Lua sends an empty list) is the empty set; anything else, or a name
/// that is not one, is invalid.
fn distribution_names(v: &Value) -> Option<BTreeSet<String>> {
    match v {
        Value::Null => Some(BTreeSet::new()),
        Value::Object(map) if map.is_empty() => Some(BTreeSet::new()),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::trim).filter(|n| is_valid_distribution_name(n)).map(normalize_distribution))
            .collect(),
        _ => None,
    }
}

/// `null` or `""` -> Some(None); a string -> Some(Some(it)); else None (invalid).
fn opt_string(v: &Value) -> Option<Option<String>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) if s.trim().is_empty() => Some(None),
        Value::String(s) => Some(Some(s.trim().to_string())),
        _ => None,
    }
}

/// `null` or `""` -> Some(None); a string -> Some(Some(path)); else None (invalid).
fn opt_path(v: &Value) -> Option<Option<PathBuf>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) if s.trim().is_empty() => Some(None),
        Value::String(s) => Some(Some(PathBuf::from(s))),
        _ => None,
    }
}

/// A folder below the document's folder: relative, no `..`.
fn is_relative_folder(d: &str) -> bool {
    let p = std::path::Path::new(d);
    !d.trim().is_empty() && p.is_relative() && p.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_match_the_protocol() {
        let (s, w) = Settings::from_json(&json!({}));
        assert!(w.is_empty());
        assert_eq!(s, Settings::default());
        assert_eq!(s.budget_seconds, 20.0);
        assert_eq!(s.resource_dir, ".runnable");
        assert_eq!(s.install_policy, InstallPolicy::Ask);
        assert_eq!(s.run_policy, RunPolicy::Ask);
        assert!(s.hints_coverage && s.hints_values && !s.llm_enabled && s.memory_enabled);
    }

    #[test]
    fn nested_and_dotted_keys_both_work() {
        let (s, w) = Settings::from_json(&json!({
            "interpreter": "/usr/bin/python3", "cacheDir": "/tmp/c", "installPolicy": "never", "runPolicy": "never",
            "budgetSeconds": 5, "resourceDir": "data/", "hints": {"coverage": false}, "hints.values": false,
            "llm": {"enabled": true},
            "memory": {"enabled": false}
        }));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.interpreter, Some(PathBuf::from("/usr/bin/python3")));
        assert_eq!(s.cache_dir, Some(PathBuf::from("/tmp/c")));
        assert_eq!(s.install_policy, InstallPolicy::Never);
        assert_eq!(s.run_policy, RunPolicy::Never);
        assert_eq!(s.budget_seconds, 5.0);
        assert_eq!(s.resource_dir, "data");
        assert!(!s.hints_coverage && !s.hints_values && s.llm_enabled && !s.memory_enabled);
    }

    #[test]
    fn model_settings_route_stages_and_need_enabled_and_an_endpoint() {
        let (s, w) = Settings::from_json(&json!({"llm": {"enabled": true, "endpoint": "http://localhost:11434/v1", "model": "llama3",
            "models": {"evolution": "qwen2.5-coder"}, "maxCalls": 4}}));
        assert!(w.is_empty(), "{w:?}");
        let c = s.llm_config().unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("http://localhost:11434/v1"));
        assert_eq!(c.model_for(crate::llm::Stage::Environment), "llama3");
        assert_eq!(c.model_for(crate::llm::Stage::Evolution), "qwen2.5-coder");
        assert_eq!(c.max_calls, 4);
        let (off, _) = Settings::from_json(&json!({"llm.endpoint": "http://x/v1"}));
        assert!(off.llm_config().is_none(), "off unless enabled");
        let (_, w) = Settings::from_json(&json!({"llm.maxCalls": -1, "llm.apiKey": "sk-x"}));
        assert_eq!(w.len(), 2, "no key in settings: {w:?}");
    }

    #[test]
    fn builds_are_allowed_by_distribution_name() {
        let (s, w) = Settings::from_json(&json!({"allowBuilds": ["MySQLclient", " pyyaml "]}));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.allow_builds, BTreeSet::from(["mysqlclient".to_string(), "pyyaml".to_string()]));
        for bad in [json!("mysqlclient"), json!(["--index-url=http://x"]), json!([1])] {
            let (s, w) = Settings::from_json(&json!({ "allowBuilds": bad }));
            assert!(s.allow_builds.is_empty() && w.len() == 1, "{bad}: {w:?}");
        }
    }

    #[test]
    fn bad_values_warn_and_keep_defaults() {
        let (s, w) = Settings::from_json(&json!({
            "installPolicy": "sometimes", "runPolicy": true, "budgetSeconds": -1, "resourceDir": "../out", "colour": 1
        }));
        assert_eq!(s, Settings::default());
        assert_eq!(w.len(), 5, "{w:?}");
        let (s, w) = Settings::from_json(&json!({"runPolicy": "sometimes"}));
        assert_eq!(s.run_policy, RunPolicy::Ask, "a bad runPolicy keeps the default");
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn configuration_change_reads_the_runnable_section() {
        let (s, _) = Settings::from_change(&json!({"runnable": {"installPolicy": "always"}})).unwrap();
        assert_eq!(s.install_policy, InstallPolicy::Always);
        let (s, _) = Settings::from_change(&json!({"installPolicy": "never"})).unwrap();
        assert_eq!(s.install_policy, InstallPolicy::Never);
        let (s, _) = Settings::from_change(&json!({"runnable": {"runPolicy": "always"}})).unwrap();
        assert_eq!(s.run_policy, RunPolicy::Always);
        let (s, _) = Settings::from_change(&json!({"runPolicy": "never"})).unwrap();
        assert_eq!(s.run_policy, RunPolicy::Never);
        let (s, _) = Settings::from_change(&json!({"hints": {"values": false}})).unwrap();
        assert!(!s.hints_values);
        assert!(Settings::from_change(&Value::Null).is_none());
        // A pull's answer is the section's object; null keeps the current settings.
        let (s, w) = Settings::from_pulled(&json!({"cacheDir": "/tmp/c", "memory.enabled": false})).unwrap();
        assert!(w.is_empty() && s.cache_dir == Some(PathBuf::from("/tmp/c")) && !s.memory_enabled);
        assert!(Settings::from_pulled(&Value::Null).is_none());
        assert!(Settings::from_change(&json!({"python": {"analysis": {}}})).is_none());
    }

    #[test]
    fn every_key_is_parsed_and_documented() {
        let protocol = include_str!("../../../docs/protocol.md");
        let readme = include_str!("../../../README.md");
        for key in SETTINGS_KEYS {
            let (_, w) = Settings::from_json(&json!({ *key: null }));
            assert!(!w.iter().any(|w| w.contains("unknown")), "{key} is not parsed");
            assert!(protocol.contains(&format!("`{key}`")), "{key} missing from docs/protocol.md");
            assert!(readme.contains(&format!("`{key}`")), "{key} missing from README.md");
        }
        for name in COMMANDS.iter().chain([&ACTION_KIND, &RUN_FINISHED]) {
            assert!(protocol.contains(name), "{name} missing from docs/protocol.md");
        }
        for code in [CODE_UNDEFINED, CODE_UNRESOLVED, CODE_MISSING_FILE, CODE_RUNTIME, CODE_SYNTAX] {
            assert!(protocol.contains(code), "{code} missing from docs/protocol.md");
        }
    }
}
