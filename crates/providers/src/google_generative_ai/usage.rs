//! Gemini `usageMetadata` → pi's `Usage`.

use clawloop_core::{ModelCost, Usage};

use crate::usage_count::saturating_sum;
use serde::Deserialize;

/// The `usageMetadata` object of a chunk. Gemini repeats it on every chunk with cumulative
/// counts, so the last one wins. Every field is optional and read leniently: a counter that is
/// `null` or a float must not fail the whole stream.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    /// Prompt tokens, cached ones included.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub prompt_token_count: Option<u64>,
    /// Answer tokens (thoughts excluded).
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub candidates_token_count: Option<u64>,
    /// Thinking tokens.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub thoughts_token_count: Option<u64>,
    /// Prompt tokens served from the context cache (part of `promptTokenCount`).
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub cached_content_token_count: Option<u64>,
    /// Total tokens as Google counts them.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    pub total_token_count: Option<u64>,
}

impl UsageMetadata {
    /// pi's mapping (pi-mono §1.8) with pi's `Usage` contract that `input` excludes cached
    /// tokens: `cacheRead` = `cachedContentTokenCount`, `input` = `promptTokenCount` − cached,
    /// `output` = `candidatesTokenCount` + `thoughtsTokenCount`, `totalTokens` =
    /// `totalTokenCount` (or the sum when Google sends none). Gemini has no cache-write counter.
    /// The cost is computed from `prices`.
    pub fn to_usage(&self, prices: &ModelCost) -> Usage {
        let cache_read = self.cached_content_token_count.unwrap_or(0);
        let input = self
            .prompt_token_count
            .unwrap_or(0)
            .saturating_sub(cache_read);
        let output = self
            .candidates_token_count
            .unwrap_or(0)
            .saturating_add(self.thoughts_token_count.unwrap_or(0));
        let total_tokens = self
            .total_token_count
            .filter(|t| *t > 0)
            .unwrap_or_else(|| saturating_sum([input, output, cache_read]));
        let mut usage = Usage {
            input,
            output,
            cache_read,
            cache_write: 0,
            total_tokens,
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
    fn cached_and_thought_tokens() {
        let wire: UsageMetadata = serde_json::from_str(
            r#"{"promptTokenCount":1000,"cachedContentTokenCount":800,"candidatesTokenCount":10,
                "thoughtsTokenCount":30,"totalTokenCount":1040,"serviceTier":"standard"}"#,
        )
        .unwrap();
        let usage = wire.to_usage(&ModelCost {
            input: 1.0,
            output: 2.0,
            cache_read: 0.5,
            cache_write: 0.0,
        });
        assert_eq!(
            (
                usage.input,
                usage.output,
                usage.cache_read,
                usage.cache_write,
                usage.total_tokens
            ),
            (200, 40, 800, 0, 1040)
        );
        assert!((usage.cost.total - (200.0 + 80.0 + 400.0) / 1e6).abs() < 1e-12);
    }

    #[test]
    fn missing_total_and_odd_counters() {
        let wire: UsageMetadata = serde_json::from_str(
            r#"{"promptTokenCount":7,"candidatesTokenCount":2.0,"totalTokenCount":null}"#,
        )
        .unwrap();
        let usage = wire.to_usage(&ModelCost::default());
        assert_eq!((usage.input, usage.output, usage.total_tokens), (7, 2, 9));
    }
}
