//! What a user sets for the model stages: the endpoint, the model per stage
//! (a cheap one for the environment, a stronger one for exploration and
//! evolution), the budgets and the transcript files. Pure.

use super::prices::PriceTable;
use std::path::PathBuf;
use std::time::Duration;

/// The stages a model may serve, each with its own model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Environment,
    Exploration,
    Evolution,
}

impl Stage {
    pub const ALL: [Stage; 3] = [Stage::Environment, Stage::Exploration, Stage::Evolution];
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Environment => "environment",
            Stage::Exploration => "exploration",
            Stage::Evolution => "evolution",
        }
    }
}

/// The default routing when the user names no model: a small model where
/// the task is a lookup, a stronger one where it writes programs.
pub const DEFAULT_CHEAP_MODEL: &str = "gpt-4o-mini";
pub const DEFAULT_STRONG_MODEL: &str = "gpt-4o";
/// Calls per fragment unless `--llm-max-calls` says otherwise.
pub const DEFAULT_MAX_CALLS: usize = 12;

#[derive(Clone)]
pub struct LlmConfig {
    /// OpenAI-compatible base URL (`http://localhost:11434/v1`); `None`
    /// only when every answer comes from a replay file.
    pub endpoint: Option<String>,
    /// `--llm-model`: every stage's model unless a stage names its own.
    pub model: Option<String>,
    pub environment_model: Option<String>,
    pub exploration_model: Option<String>,
    pub evolution_model: Option<String>,
    pub max_calls: usize,
    /// Prompt plus completion tokens per fragment, when bounded.
    pub max_tokens: Option<u64>,
    pub record: Option<PathBuf>,
    pub replay: Option<PathBuf>,
    /// From the environment only (`RUNNABLE_LLM_API_KEY`, `OPENAI_API_KEY`).
    pub api_key: Option<String>,
    /// One HTTP request, connection to last byte.
    pub timeout: Duration,
    /// Retries after a 429, a 5xx or a dropped connection.
    pub retries: u32,
    /// Prefixes asked for per exploration call.
    pub k: usize,
    pub prices: PriceTable,
}

impl std::fmt::Debug for LlmConfig {
    // The key never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmConfig")
            .field("endpoint", &self.endpoint)
            .field("models", &Stage::ALL.map(|s| self.model_for(s)))
            .field("max_calls", &self.max_calls)
            .field("max_tokens", &self.max_tokens)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish_non_exhaustive()
    }
}

impl LlmConfig {
    pub fn new(endpoint: Option<String>) -> Self {
        LlmConfig {
            endpoint,
            model: None,
            environment_model: None,
            exploration_model: None,
            evolution_model: None,
            max_calls: DEFAULT_MAX_CALLS,
            max_tokens: None,
            record: None,
            replay: None,
            api_key: None,
            timeout: Duration::from_secs(60),
            retries: 3,
            k: 3,
            prices: PriceTable::builtin(),
        }
    }

    /// The model a stage's requests name.
    pub fn model_for(&self, stage: Stage) -> String {
        let own = match stage {
            Stage::Environment => &self.environment_model,
            Stage::Exploration => &self.exploration_model,
            Stage::Evolution => &self.evolution_model,
        };
        let default = match stage {
            Stage::Environment => DEFAULT_CHEAP_MODEL,
            Stage::Exploration | Stage::Evolution => DEFAULT_STRONG_MODEL,
        };
        own.clone().or_else(|| self.model.clone()).unwrap_or_else(|| default.to_string())
    }
}

/// The API key: `RUNNABLE_LLM_API_KEY`, else `OPENAI_API_KEY`, else none
/// (local servers need none). Never read from a settings file.
pub fn api_key_from(get: impl Fn(&str) -> Option<String>) -> Option<String> {
    ["RUNNABLE_LLM_API_KEY", "OPENAI_API_KEY"].iter().find_map(|k| get(k).filter(|v| !v.trim().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stage_has_its_model_and_the_general_one_fills_in() {
        let mut c = LlmConfig::new(Some("http://x/v1".into()));
        assert_eq!(c.model_for(Stage::Environment), DEFAULT_CHEAP_MODEL);
        assert_eq!(c.model_for(Stage::Evolution), DEFAULT_STRONG_MODEL);
        c.model = Some("llama3".into());
        c.evolution_model = Some("qwen-coder".into());
        assert_eq!(c.model_for(Stage::Environment), "llama3");
        assert_eq!(c.model_for(Stage::Evolution), "qwen-coder");
    }

    #[test]
    fn the_key_comes_from_the_runnable_variable_first() {
        let both = |k: &str| Some(format!("{k}-value"));
        assert_eq!(api_key_from(both).as_deref(), Some("RUNNABLE_LLM_API_KEY-value"));
        let openai = |k: &str| (k == "OPENAI_API_KEY").then(|| "sk".to_string());
        assert_eq!(api_key_from(openai).as_deref(), Some("sk"));
        assert_eq!(api_key_from(|_| Some(" ".into())), None);
        let c = LlmConfig { api_key: Some("sk-secret".into()), ..LlmConfig::new(None) };
        assert!(!format!("{c:?}").contains("sk-secret"));
    }
}
