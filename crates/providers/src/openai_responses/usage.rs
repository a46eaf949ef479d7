//! Responses usage → pi's `Usage`, with the service-tier price multiplier.

use clawloop_core::{ModelCost, Usage};

use crate::usage_count::saturating_sum;
use serde::Deserialize;

/// The `usage` object of a finished response. Every counter is optional and read leniently:
/// a compatible server that sends `null` or a float must not fail the stream over a counter.
#[derive(Debug, Default, Clone, Deserialize)]
pub struct WireUsage {
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    total_tokens: Option<u64>,
    #[serde(default)]
    input_tokens_details: Option<InputDetails>,
}

#[derive(Debug, Default, Clone, Deserialize)]
struct InputDetails {
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    cached_tokens: Option<u64>,
    /// Prompt-cache writes (newer responses); part of `input_tokens` like cached tokens.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    cache_write_tokens: Option<u64>,
}

impl WireUsage {
    /// pi's mapping: `input` = `input_tokens` − cached − cache writes (OpenAI counts both inside
    /// `input_tokens`), `output` = `output_tokens` (reasoning already included, never added
    /// again), `cacheRead` = cached, `cacheWrite` = cache writes, `totalTokens` = `total_tokens`
    /// (the sum when absent). Costs from `prices`, then scaled for the service tier.
    pub fn to_usage(&self, prices: &ModelCost, service_tier: Option<&str>) -> Usage {
        let details = self.input_tokens_details.as_ref();
        let cache_read = details.and_then(|d| d.cached_tokens).unwrap_or(0);
        let cache_write = details.and_then(|d| d.cache_write_tokens).unwrap_or(0);
        let input = self
            .input_tokens
            .unwrap_or(0)
            .saturating_sub(cache_read)
            .saturating_sub(cache_write);
        let output = self.output_tokens.unwrap_or(0);
        let mut usage = Usage {
            input,
            output,
            cache_read,
            cache_write,
            total_tokens: self
                .total_tokens
                .unwrap_or_else(|| saturating_sum([input, output, cache_read, cache_write])),
            ..Usage::default()
        };
        usage.apply_cost(prices);
        apply_service_tier(&mut usage, service_tier);
        usage
    }
}

/// pi's `applyServiceTierPricing`: `flex` costs half, `priority` double.
pub fn apply_service_tier(usage: &mut Usage, service_tier: Option<&str>) {
    let factor = match service_tier {
        Some("flex") => 0.5,
        Some("priority") => 2.0,
        _ => return,
    };
    let cost = &mut usage.cost;
    cost.input *= factor;
    cost.output *= factor;
    cost.cache_read *= factor;
    cost.cache_write *= factor;
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const PRICES: ModelCost = ModelCost {
        input: 1.0,
        output: 2.0,
        cache_read: 0.5,
        cache_write: 0.0,
    };

    #[test]
    fn cached_tokens_leave_input_and_tiers_scale_cost() {
        let wire: WireUsage = serde_json::from_str(
            r#"{"input_tokens":9463,"input_tokens_details":{"cached_tokens":8320},
                "output_tokens":582,"output_tokens_details":{"reasoning_tokens":512},"total_tokens":10045}"#,
        )
        .unwrap();
        let usage = wire.to_usage(&PRICES, None);
        assert_eq!(
            (
                usage.input,
                usage.output,
                usage.cache_read,
                usage.cache_write,
                usage.total_tokens
            ),
            (1143, 582, 8320, 0, 10045)
        );
        let total = (1143.0 + 1164.0 + 4160.0) / 1e6;
        assert!((usage.cost.total - total).abs() < 1e-12);
        let flex = wire.to_usage(&PRICES, Some("flex"));
        assert!((flex.cost.total - total / 2.0).abs() < 1e-12);
        let priority = wire.to_usage(&PRICES, Some("priority"));
        assert!((priority.cost.total - total * 2.0).abs() < 1e-12);
    }

    #[test]
    fn odd_counters_and_cache_writes() {
        let wire: WireUsage = serde_json::from_str(
            r#"{"input_tokens":10.0,"input_tokens_details":{"cached_tokens":null,"cache_write_tokens":4},
                "output_tokens":"x"}"#,
        )
        .unwrap();
        let usage = wire.to_usage(&ModelCost::default(), None);
        assert_eq!(
            (
                usage.input,
                usage.output,
                usage.cache_write,
                usage.total_tokens
            ),
            (6, 0, 4, 10)
        );
    }
}
