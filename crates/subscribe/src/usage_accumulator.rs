//! Usage accumulation over a run's assistant messages (reference §18.7 and §20).
//!
//! Every assistant `message_end` with non-zero usage adds its input, output, cache-read and
//! cache-write tokens, and its total (or the sum of the parts when the message has no total).
//! The latest call is kept separately: its figures describe the current context size, which
//! summing over tool round-trips would inflate (OpenClaw issue #13698).

use clawloop_core::Usage;

/// Token sums, OpenClaw's `getUsageTotals()` shape: a zero field is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageTotals {
    /// Non-cached input tokens.
    pub input: Option<u64>,
    /// Output tokens.
    pub output: Option<u64>,
    /// Cache-read tokens.
    pub cache_read: Option<u64>,
    /// Cache-write tokens.
    pub cache_write: Option<u64>,
    /// Reported totals summed (each call's `totalTokens`, or its parts when that is 0).
    pub total: Option<u64>,
}

/// Sums usage over a run and remembers the latest call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageAccumulator {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    total: u64,
    last: Option<Usage>,
}

impl UsageAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one call's usage. Returns `false` (and changes nothing) for all-zero usage, which
    /// providers report when they did not count.
    pub fn record(&mut self, usage: &Usage) -> bool {
        let parts = [
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write,
        ];
        if parts.iter().all(|n| *n == 0) && usage.total_tokens == 0 {
            return false;
        }
        self.input = self.input.saturating_add(usage.input);
        self.output = self.output.saturating_add(usage.output);
        self.cache_read = self.cache_read.saturating_add(usage.cache_read);
        self.cache_write = self.cache_write.saturating_add(usage.cache_write);
        // `Usage` cannot tell an absent total from 0; a zero total with non-zero parts is the
        // "total missing" case, where OpenClaw falls back to the sum of the parts.
        let call_total = if usage.total_tokens > 0 {
            usage.total_tokens
        } else {
            parts.iter().fold(0u64, |acc, n| acc.saturating_add(*n))
        };
        self.total = self.total.saturating_add(call_total);
        self.last = Some(usage.clone());
        true
    }

    /// The sums, or `None` when nothing non-zero was recorded.
    pub fn totals(&self) -> Option<UsageTotals> {
        let nonzero = |n: u64| (n > 0).then_some(n);
        let derived = self
            .input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write);
        let totals = UsageTotals {
            input: nonzero(self.input),
            output: nonzero(self.output),
            cache_read: nonzero(self.cache_read),
            cache_write: nonzero(self.cache_write),
            total: nonzero(self.total).or(nonzero(derived)),
        };
        (totals != UsageTotals::default()).then_some(totals)
    }

    /// The latest recorded call, as reported.
    pub fn last_call(&self) -> Option<&Usage> {
        self.last.as_ref()
    }

    /// Forgets everything.
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64, total: u64) -> Usage {
        Usage {
            input,
            output,
            cache_read,
            cache_write,
            total_tokens: total,
            ..Usage::default()
        }
    }

    #[test]
    fn sums_three_calls_and_keeps_the_last() {
        let mut acc = UsageAccumulator::new();
        assert!(acc.record(&usage(100, 50, 80_000, 5_000, 85_150)));
        assert!(acc.record(&usage(120, 30, 82_000, 0, 82_150)));
        assert!(acc.record(&usage(150, 40, 84_000, 0, 84_190)));
        assert_eq!(
            acc.totals(),
            Some(UsageTotals {
                input: Some(370),
                output: Some(120),
                cache_read: Some(246_000),
                cache_write: Some(5_000),
                total: Some(251_490),
            })
        );
        assert_eq!(acc.last_call(), Some(&usage(150, 40, 84_000, 0, 84_190)));
    }

    #[test]
    fn missing_total_uses_the_parts_and_zero_usage_is_ignored() {
        let mut acc = UsageAccumulator::new();
        assert!(!acc.record(&Usage::default()));
        assert_eq!(acc.totals(), None);
        assert!(acc.record(&usage(120, 15, 0, 0, 0)));
        assert!(acc.record(&usage(160, 9, 0, 0, 0)));
        assert_eq!(
            acc.totals(),
            Some(UsageTotals {
                input: Some(280),
                output: Some(24),
                cache_read: None,
                cache_write: None,
                total: Some(304),
            })
        );
        acc.reset();
        assert_eq!(acc, UsageAccumulator::new());
    }
}
