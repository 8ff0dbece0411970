//! What the model stages may spend per fragment (calls, tokens) and what
//! they spent, per stage, with an estimated cost from a price table. Pure.

use super::config::Stage;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Calls, tokens and time of one stage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StageStats {
    pub calls: usize,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub seconds: f64,
    /// Proposals rejected before they ran because they faked a library.
    pub rejected: usize,
    /// Proposals the model made that ran in the sandbox.
    pub proposals: usize,
    /// Of those, the ones kept (they raised coverage).
    pub kept: usize,
    /// The stage's model.
    pub model: String,
}

/// Everything the model stages did in one fix.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmStats {
    pub stages: BTreeMap<Stage, StageStats>,
    /// Why a call gave nothing (the first few, in words).
    pub errors: Vec<String>,
}

impl LlmStats {
    pub fn stage(&mut self, stage: Stage) -> &mut StageStats {
        self.stages.entry(stage).or_default()
    }
    pub fn calls(&self) -> usize {
        self.stages.values().map(|s| s.calls).sum()
    }
    pub fn tokens(&self) -> (u64, u64) {
        self.stages.values().fold((0, 0), |(p, c), s| (p + s.prompt_tokens, c + s.completion_tokens))
    }
    pub fn rejected(&self) -> usize {
        self.stages.values().map(|s| s.rejected).sum()
    }
    pub fn note_error(&mut self, e: String) {
        if self.errors.len() < 4 && !self.errors.contains(&e) {
            self.errors.push(e);
        }
    }
    /// Estimated cost in USD with `prices`.
    pub fn cost(&self, prices: &PriceTable) -> f64 {
        self.stages.values().map(|s| prices.cost(&s.model, s.prompt_tokens, s.completion_tokens)).sum()
    }
}

/// Whether one more call fits in the budget.
pub fn may_call(stats: &LlmStats, max_calls: usize, max_tokens: Option<u64>) -> Result<(), &'static str> {
    if stats.calls() >= max_calls {
        return Err("the call budget (--llm-max-calls) is spent");
    }
    let (p, c) = stats.tokens();
    if max_tokens.is_some_and(|m| p + c >= m) {
        return Err("the token budget (--llm-max-tokens) is spent");
    }
    Ok(())
}

/// USD per million tokens, prompt and completion, per model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable(pub BTreeMap<String, (f64, f64)>);

const BUILTIN_PRICES: &str = include_str!("prices.txt");

impl PriceTable {
    pub fn builtin() -> Self {
        Self::parse(BUILTIN_PRICES).unwrap_or_default()
    }
    /// Lines `model prompt completion` (USD per million tokens); `#` comments.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let parts: Vec<&str> = line.split_whitespace().collect();
            let price = |s: &str| s.parse::<f64>().ok().filter(|p| p.is_finite() && *p >= 0.0);
            match parts.as_slice() {
                [model, p, c] => match (price(p), price(c)) {
                    (Some(p), Some(c)) => {
                        out.insert(model.to_string(), (p, c));
                    }
                    _ => return Err(format!("line {}: prices must be non-negative numbers", n + 1)),
                },
                _ => return Err(format!("line {}: expected `model prompt_usd_per_million completion_usd_per_million`", n + 1)),
            }
        }
        Ok(PriceTable(out))
    }
    /// The user's table over the built-in one.
    pub fn with(mut self, other: PriceTable) -> Self {
        self.0.extend(other.0);
        self
    }
    pub fn cost(&self, model: &str, prompt: u64, completion: u64) -> f64 {
        let (p, c) = self.0.get(model).copied().unwrap_or((0.0, 0.0));
        (prompt as f64 * p + completion as f64 * c) / 1e6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_parse_and_cost_is_per_million_tokens() {
        let t = PriceTable::builtin().with(PriceTable::parse("mine 1 2\n# c\n").unwrap());
        assert_eq!(t.cost("mine", 1_000_000, 500_000), 2.0);
        assert_eq!(t.cost("llama3", 5_000, 5_000), 0.0, "a local model costs nothing");
        assert!(t.cost("gpt-4o", 1000, 1000) > 0.0);
        assert!(PriceTable::parse("m one 2").is_err());
        assert!(PriceTable::parse("m 1").is_err());
    }

    #[test]
    fn the_budget_counts_calls_and_tokens() {
        let mut s = LlmStats::default();
        assert!(may_call(&s, 2, Some(100)).is_ok());
        s.stage(Stage::Exploration).calls = 1;
        s.stage(Stage::Evolution).calls = 1;
        assert!(may_call(&s, 2, None).is_err());
        s.stage(Stage::Evolution).calls = 0;
        s.stage(Stage::Exploration).prompt_tokens = 80;
        s.stage(Stage::Exploration).completion_tokens = 20;
        assert!(may_call(&s, 5, Some(100)).is_err());
        assert_eq!(s.tokens(), (80, 20));
    }
}
