//! Anthropic usage → pi's `Usage`.

use clawloop_core::{ModelCost, Usage};

use crate::usage_count::saturating_sum;
use serde::Deserialize;

/// A `usage` object of `message_start` or `message_delta`. Every field is optional and read
/// leniently: a proxy that sends `null` or a float must not fail the stream over a counter.
#[derive(Debug, Default, Deserialize)]
pub struct WireUsage {
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    cache_read_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    cache_creation_input_tokens: Option<u64>,
}

impl WireUsage {
    /// `message_start`: every counter is taken, a missing one as 0. Anthropic's
    /// `input_tokens` already excludes cached tokens, so it is pi's `input` as is.
    pub fn start(&self, usage: &mut Usage, prices: &ModelCost) {
        usage.input = self.input_tokens.unwrap_or(0);
        usage.output = self.output_tokens.unwrap_or(0);
        usage.cache_read = self.cache_read_input_tokens.unwrap_or(0);
        usage.cache_write = self.cache_creation_input_tokens.unwrap_or(0);
        settle(usage, prices);
    }

    /// `message_delta`: only the counters present overwrite, so a proxy that omits
    /// `input_tokens` here keeps the one from `message_start`.
    pub fn update(&self, usage: &mut Usage, prices: &ModelCost) {
        let fields = [
            (self.input_tokens, &mut usage.input),
            (self.output_tokens, &mut usage.output),
            (self.cache_read_input_tokens, &mut usage.cache_read),
            (self.cache_creation_input_tokens, &mut usage.cache_write),
        ];
        for (value, slot) in fields {
            if let Some(value) = value {
                *slot = value;
            }
        }
        settle(usage, prices);
    }
}

/// Anthropic sends no total: it is the sum of the four counters (saturating: the counters
/// come from the network); the cost follows.
fn settle(usage: &mut Usage, prices: &ModelCost) {
    usage.total_tokens = saturating_sum([
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
    ]);
    usage.apply_cost(prices);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_then_partial_update() {
        let prices = ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        };
        let mut usage = Usage::default();
        let start: WireUsage = serde_json::from_str(
            r#"{"input_tokens":5,"cache_creation_input_tokens":2048,"cache_read_input_tokens":null,
                "output_tokens":1,"cache_creation":{"ephemeral_5m_input_tokens":2048}}"#,
        )
        .unwrap();
        start.start(&mut usage, &prices);
        let delta: WireUsage = serde_json::from_str(r#"{"output_tokens":16.0}"#).unwrap();
        delta.update(&mut usage, &prices);
        assert_eq!(
            (
                usage.input,
                usage.output,
                usage.cache_read,
                usage.cache_write,
                usage.total_tokens
            ),
            (5, 16, 0, 2048, 2069)
        );
        let expected = (5.0 * 3.0 + 16.0 * 15.0 + 2048.0 * 3.75) / 1e6;
        assert!((usage.cost.total - expected).abs() < 1e-12);
    }
}
