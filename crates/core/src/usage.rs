//! Token usage and its cost.

use serde::{Deserialize, Serialize};

/// Token counts of one model call, and their cost (pi's `Usage`).
///
/// `input` is the **non-cached** input: providers that count cached tokens inside the prompt
/// count have them subtracted. Unknown fields survive a read-modify-write in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Non-cached input tokens.
    #[serde(default)]
    pub input: u64,
    /// Output tokens (reasoning included).
    #[serde(default)]
    pub output: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write: u64,
    /// Total tokens as reported (or computed) for the call.
    #[serde(default)]
    pub total_tokens: u64,
    /// Cost in USD.
    #[serde(default)]
    pub cost: Cost,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Cost of a call in USD, per token kind (pi's `Usage.cost`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Cost of the non-cached input.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub input: f64,
    /// Cost of the output.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub output: f64,
    /// Cost of the cache reads.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub cache_read: f64,
    /// Cost of the cache writes.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub cache_write: f64,
    /// Sum of the four.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub total: f64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// Prices of a model in USD per million tokens (pi's `Model.cost`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Price per million non-cached input tokens.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub input: f64,
    /// Price per million output tokens.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub output: f64,
    /// Price per million cache-read tokens.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub cache_read: f64,
    /// Price per million cache-write tokens.
    #[serde(default, serialize_with = "crate::js_number::serialize")]
    pub cache_write: f64,
}

impl Usage {
    /// The tokens this call put in the context window: `totalTokens`, or when that is zero the
    /// sum `input + output + cacheRead + cacheWrite` (pi's `calculateContextTokens`). The
    /// counts come from servers, so the sum saturates at `u64::MAX` rather than overflowing.
    pub fn context_tokens(&self) -> u64 {
        if self.total_tokens > 0 {
            self.total_tokens
        } else {
            [self.output, self.cache_read, self.cache_write]
                .into_iter()
                .fold(self.input, u64::saturating_add)
        }
    }

    /// Fills `cost` from the model's prices (pi's `calculateCost`): `price / 1e6 * tokens` per
    /// kind, `total` their sum.
    pub fn apply_cost(&mut self, prices: &ModelCost) {
        // Real token counts stay far below 2^53, so the conversion is exact; a server's absurd
        // count (up to u64::MAX) only rounds, and the product stays finite.
        #[allow(clippy::cast_precision_loss)]
        let per = |price: f64, tokens: u64| price / 1_000_000.0 * tokens as f64;
        self.cost.input = per(prices.input, self.input);
        self.cost.output = per(prices.output, self.output);
        self.cost.cache_read = per(prices.cache_read, self.cache_read);
        self.cost.cache_write = per(prices.cache_write, self.cache_write);
        self.cost.total =
            self.cost.input + self.cost.output + self.cost.cache_read + self.cost.cache_write;
    }

    /// Adds another call's counts and costs to these (used to accumulate a run's usage). Token
    /// counts saturate at `u64::MAX`: they come from servers, and a run's total must not panic
    /// or wrap because one of them sent a huge number.
    pub fn add(&mut self, other: &Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
        self.cost.input += other.cost.input;
        self.cost.output += other.cost.output;
        self.cost.cache_read += other.cost.cache_read;
        self.cost.cache_write += other.cost.cache_write;
        self.cost.total += other.cost.total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn empty_usage_serializes_like_pi() {
        let json = serde_json::to_string(&Usage::default()).unwrap();
        assert_eq!(
            json,
            r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#
        );
    }

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let raw = r#"{"input":3,"output":4,"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"input":0.5,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5,"currency":"usd"},"reasoning":2}"#;
        let usage: Usage = serde_json::from_str(raw).unwrap();
        assert_eq!(usage.extra.get("reasoning"), Some(&serde_json::json!(2)));
        assert_eq!(serde_json::to_string(&usage).unwrap(), raw);
    }

    #[test]
    fn context_tokens_prefers_total() {
        let mut usage = Usage {
            input: 10,
            output: 5,
            cache_read: 100,
            ..Usage::default()
        };
        assert_eq!(usage.context_tokens(), 115);
        usage.total_tokens = 200;
        assert_eq!(usage.context_tokens(), 200);
    }

    #[test]
    fn server_counts_near_the_limit_saturate() {
        let huge = Usage {
            input: u64::MAX,
            output: u64::MAX - 1,
            cache_read: 7,
            cache_write: 7,
            ..Usage::default()
        };
        assert_eq!(huge.context_tokens(), u64::MAX);
        let mut run = huge.clone();
        run.total_tokens = u64::MAX;
        run.add(&huge);
        run.add(&Usage {
            total_tokens: 5,
            ..Usage::default()
        });
        assert_eq!(
            (
                run.input,
                run.output,
                run.cache_read,
                run.cache_write,
                run.total_tokens
            ),
            (u64::MAX, u64::MAX, 14, 14, u64::MAX)
        );
        let mut priced = huge;
        priced.apply_cost(&ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        });
        assert!(priced.cost.total.is_finite());
    }

    #[test]
    fn cost_is_price_per_million() {
        let mut usage = Usage {
            input: 1_000_000,
            output: 500_000,
            ..Usage::default()
        };
        usage.apply_cost(&ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        });
        assert_eq!(usage.cost.input, 3.0);
        assert_eq!(usage.cost.output, 7.5);
        assert_eq!(usage.cost.total, 10.5);
    }
}
