//! Token counts as OpenClaw reports them in `agentMeta` (`NormalizedUsage`): every field
//! optional, camelCase.

use clawloop_core::Usage;
use clawloop_subscribe::UsageTotals;
use serde::{Deserialize, Serialize};

/// OpenClaw's `NormalizedUsage` (`{input, output, cacheRead, cacheWrite, total}`); an absent
/// field is left out of the JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NormalizedUsage {
    /// Non-cached input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    /// Output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    /// Cache-read tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<u64>,
    /// Cache-write tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<u64>,
    /// Total tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

impl NormalizedUsage {
    /// One call's usage as reported (OpenClaw `normalizeUsage` of pi's `Usage`): every field
    /// present, zeros included.
    pub fn from_call(usage: &Usage) -> Self {
        NormalizedUsage {
            input: Some(usage.input),
            output: Some(usage.output),
            cache_read: Some(usage.cache_read),
            cache_write: Some(usage.cache_write),
            total: Some(usage.total_tokens),
        }
    }

    /// An attempt's sums (zero fields already absent).
    pub fn from_totals(totals: &UsageTotals) -> Self {
        NormalizedUsage {
            input: totals.input,
            output: totals.output,
            cache_read: totals.cache_read,
            cache_write: totals.cache_write,
            total: totals.total,
        }
    }

    /// OpenClaw `hasNonzeroUsage`: some field counted something.
    pub fn is_nonzero(&self) -> bool {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total,
        ]
        .into_iter()
        .flatten()
        .any(|n| n > 0)
    }

    /// The four parts summed (absent parts count 0), saturating.
    pub(super) fn parts_sum(&self) -> u64 {
        [self.input, self.output, self.cache_read, self.cache_write]
            .into_iter()
            .flatten()
            .fold(0, u64::saturating_add)
    }
}

/// OpenClaw `derivePromptTokens`: the tokens the prompt put in the context window,
/// `input + cacheRead + cacheWrite` (output excluded); `None` when that is 0.
pub fn derive_prompt_tokens(usage: &NormalizedUsage) -> Option<u64> {
    let sum = [usage.input, usage.cache_read, usage.cache_write]
        .into_iter()
        .flatten()
        .fold(0, u64::saturating_add);
    (sum > 0).then_some(sum)
}
