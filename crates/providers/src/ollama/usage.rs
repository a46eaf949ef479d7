//! Ollama's final-line counters → pi's `Usage`.

use clawloop_core::{ModelCost, Usage};
use serde::Deserialize;

/// The counters of the `done: true` line. Read leniently: a counter that is `null` or a float
/// must not fail the stream.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
pub struct OllamaCounts {
    /// Prompt tokens evaluated.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub prompt_eval_count: Option<u64>,
    /// Tokens generated (thinking included).
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub eval_count: Option<u64>,
}

impl OllamaCounts {
    /// `input` = `prompt_eval_count`, `output` = `eval_count`, total = their sum (OpenClaw's
    /// mapping; Ollama reports no cache counters). The cost is computed from `prices`.
    pub fn to_usage(&self, prices: &ModelCost) -> Usage {
        let input = self.prompt_eval_count.unwrap_or(0);
        let output = self.eval_count.unwrap_or(0);
        let mut usage = Usage {
            input,
            output,
            total_tokens: input.saturating_add(output),
            ..Usage::default()
        };
        usage.apply_cost(prices);
        usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn counts() {
        let counts: OllamaCounts = serde_json::from_str(
            r#"{"prompt_eval_count":42,"eval_count":17.0,"eval_duration":1234}"#,
        )
        .unwrap();
        let usage = counts.to_usage(&ModelCost {
            input: 1.0,
            output: 2.0,
            ..ModelCost::default()
        });
        assert_eq!(
            (usage.input, usage.output, usage.total_tokens),
            (42, 17, 59)
        );
        assert!((usage.cost.total - 76.0 / 1e6).abs() < 1e-12);
        let empty: OllamaCounts = serde_json::from_str(r#"{"prompt_eval_count":null}"#).unwrap();
        assert_eq!(empty.to_usage(&ModelCost::default()).total_tokens, 0);
    }
}
