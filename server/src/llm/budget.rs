//! What the model stages may spend per fragment (calls, tokens) and what
//! they spent, per stage, with an estimated cost from a price table
//! (`prices`). Pure.

use super::config::Stage;
use super::prices::PriceTable;
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

#[cfg(test)]
mod tests {
    use super::*;

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
