//! Usage at run level (reference §20): what every attempt of a run consumed, and what the
//! latest model call says about the context size.
//!
//! The sums are what the run is billed for. The latest call's input and cache figures are the
//! context size now; summing them over attempts and tool round-trips would inflate it (OpenClaw
//! issue #13698), so `lastCallUsage` and `promptTokens` come from the latest call only.

use super::usage::{NormalizedUsage, derive_prompt_tokens};
use crate::attempt::AttemptResult;

/// A run's usage, fed one attempt at a time with [`RunUsage::record_attempt`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunUsage {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    total: u64,
    /// The latest usage merged into the sums (OpenClaw's accumulator `last*`).
    last_merged: Option<NormalizedUsage>,
    /// The latest attempt's last assistant usage, when it counted something.
    last_assistant: Option<NormalizedUsage>,
    /// The latest attempt's prompt usage (OpenClaw `lastRunPromptUsage`).
    last_prompt: Option<NormalizedUsage>,
    /// The latest attempt's API total (OpenClaw `lastTurnTotal`).
    last_turn_total: Option<u64>,
}

impl RunUsage {
    /// A run with no attempt yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one attempt (reference §4.2 step 5).
    ///
    /// The sums take the attempt's totals, or its last assistant's usage when the subscription
    /// counted nothing; all-zero usage adds nothing, and a merged usage without a total adds the
    /// sum of its parts. The latest call is the last assistant's usage when it counted
    /// something, else the subscription's last call, else the attempt's totals; an attempt
    /// replaces the previous one's latest call even when it has none (the context it saw is
    /// the one that matters now). Counts come from servers: every sum saturates.
    pub fn record_attempt(&mut self, attempt: &AttemptResult) {
        let totals = attempt
            .subscription
            .usage_totals
            .as_ref()
            .map(NormalizedUsage::from_totals)
            .filter(NormalizedUsage::is_nonzero);
        let assistant = attempt
            .last_assistant
            .as_ref()
            .map(|a| NormalizedUsage::from_call(&a.usage))
            .filter(NormalizedUsage::is_nonzero);
        if let Some(merged) = totals.or(assistant) {
            self.merge(&merged);
        }
        let last_call = attempt
            .subscription
            .last_call_usage
            .as_ref()
            .map(NormalizedUsage::from_call)
            .filter(NormalizedUsage::is_nonzero);
        self.last_assistant = assistant;
        self.last_prompt = assistant.or(last_call).or(totals);
        self.last_turn_total = assistant
            .or(last_call)
            .and_then(|u| u.total)
            .filter(|t| *t > 0)
            .or_else(|| totals.and_then(|u| u.total));
    }

    fn merge(&mut self, usage: &NormalizedUsage) {
        let add = |sum: &mut u64, n: Option<u64>| *sum = sum.saturating_add(n.unwrap_or(0));
        add(&mut self.input, usage.input);
        add(&mut self.output, usage.output);
        add(&mut self.cache_read, usage.cache_read);
        add(&mut self.cache_write, usage.cache_write);
        let total = usage
            .total
            .filter(|t| *t > 0)
            .unwrap_or_else(|| usage.parts_sum());
        self.total = self.total.saturating_add(total);
        self.last_merged = Some(*usage);
    }

    /// `agentMeta.usage`: the sums (zero fields absent) with `total` replaced by the latest
    /// call's API total when there is one; `None` before any attempt counted something.
    pub fn usage(&self) -> Option<NormalizedUsage> {
        let nonzero = |n: u64| (n > 0).then_some(n);
        let sums = NormalizedUsage {
            input: nonzero(self.input),
            output: nonzero(self.output),
            cache_read: nonzero(self.cache_read),
            cache_write: nonzero(self.cache_write),
            total: nonzero(self.total),
        };
        if !sums.is_nonzero() {
            return None;
        }
        Some(NormalizedUsage {
            total: self.last_turn_total.or(sums.total),
            ..sums
        })
    }

    /// `agentMeta.lastCallUsage`: the latest attempt's last assistant usage, else its prompt
    /// usage, else the latest usage merged into the sums.
    pub fn last_call_usage(&self) -> Option<NormalizedUsage> {
        self.last_assistant
            .or(self.last_prompt)
            .or(self.last_merged)
    }

    /// The latest attempt's prompt usage (OpenClaw `lastRunPromptUsage`), which the run loop's
    /// timeout compaction compares to the context window.
    pub fn prompt_usage(&self) -> Option<NormalizedUsage> {
        self.last_prompt
    }

    /// `agentMeta.promptTokens`: input + cache-read + cache-write of the latest call.
    pub fn prompt_tokens(&self) -> Option<u64> {
        self.last_prompt.as_ref().and_then(derive_prompt_tokens)
    }
}
