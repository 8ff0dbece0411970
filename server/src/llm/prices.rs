//! What the models cost: USD per million tokens, prompt and completion,
//! per model name; the built-in table (`prices.txt`) under the user's own.
//! The configuration holds a table and the budget prices what a fix spent
//! with it. Pure.

use std::collections::BTreeMap;

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
}
