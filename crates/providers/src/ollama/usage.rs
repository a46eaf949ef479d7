//! Ollama's final-line counters → pi's `Usage`.

use clawloop_core::{ModelCost, Usage};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// The counters of the `done: true` line. Read leniently: a counter that is `null` or a float
/// must not fail the stream.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
pub struct OllamaCounts {
    /// Prompt tokens evaluated.
    #[serde(default, deserialize_with = "count")]
    pub prompt_eval_count: Option<u64>,
    /// Tokens generated (thinking included).
    #[serde(default, deserialize_with = "count")]
    pub eval_count: Option<u64>,
}

fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        _ => None,
    })
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
            total_tokens: input + output,
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
