//! Chat Completions usage → pi's `Usage`.

use clawloop_core::{ModelCost, Usage};

use crate::usage_count::saturating_sum;
use serde::Deserialize;

/// The `usage` object of a chunk. Every field is optional and read leniently: a server that
/// sends `null` or a float must not fail the whole stream over a counter.
#[derive(Debug, Default, Deserialize)]
pub struct WireUsage {
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Debug, Default, Deserialize)]
struct PromptDetails {
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    cached_tokens: Option<u64>,
    /// OpenRouter reports prompt-cache writes here; they are part of `prompt_tokens` too.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    cache_write_tokens: Option<u64>,
}

impl WireUsage {
    /// pi's mapping with SPEC §4's fix: `input` = prompt − cached − cache writes,
    /// `cacheRead` = cached, `cacheWrite` = cache writes, `output` = `completion_tokens` alone
    /// (it already includes reasoning tokens, which pi 0.58 adds a second time), total = sum.
    /// The cost is computed from `prices`.
    pub fn to_usage(&self, prices: &ModelCost) -> Usage {
        let details = self.prompt_tokens_details.as_ref();
        let cache_read = details.and_then(|d| d.cached_tokens).unwrap_or(0);
        let cache_write = details.and_then(|d| d.cache_write_tokens).unwrap_or(0);
        let prompt = self.prompt_tokens.unwrap_or(0);
        let input = prompt
            .saturating_sub(cache_read)
            .saturating_sub(cache_write);
        let output = self.completion_tokens.unwrap_or(0);
        let mut usage = Usage {
            input,
            output,
            cache_read,
            cache_write,
            total_tokens: saturating_sum([input, output, cache_read, cache_write]),
            ..Usage::default()
        };
        usage.apply_cost(prices);
        usage
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_and_reasoning_tokens() {
        let wire: WireUsage = serde_json::from_str(
            r#"{"prompt_tokens":4020,"completion_tokens":40,"total_tokens":4060,
                "prompt_tokens_details":{"cached_tokens":4012,"cache_write_tokens":null},
                "completion_tokens_details":{"reasoning_tokens":30}}"#,
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
            (8, 40, 4012, 0, 4060)
        );
        assert!((usage.cost.total - (8.0 + 80.0 + 2006.0) / 1e6).abs() < 1e-12);
        let odd: WireUsage =
            serde_json::from_str(r#"{"prompt_tokens":null,"completion_tokens":3.0}"#).unwrap();
        assert_eq!(odd.to_usage(&ModelCost::default()).output, 3);
    }
}
