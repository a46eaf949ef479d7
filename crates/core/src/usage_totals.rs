//! A run's token usage across its attempts (reference §20): every attempt's sums added up, and
//! the latest model call kept on its own.
//!
//! The sums are what a run is billed for; the latest call is what describes the context size
//! now (its input and cache figures), which summing over attempts and tool round-trips would
//! inflate (OpenClaw issue #13698). Counts come from servers, so every sum saturates.

use crate::Usage;

/// Token sums over several calls, OpenClaw's `getUsageTotals()` shape: a field that sums to
/// zero is `None`. The same fields as the subscription's per-attempt totals.
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
    /// Reported totals summed (a call or attempt without a total counts the sum of its parts).
    pub total: Option<u64>,
}

impl UsageTotals {
    /// The sum of the four parts (0 when all are absent).
    fn parts_sum(&self) -> u64 {
        [self.input, self.output, self.cache_read, self.cache_write]
            .into_iter()
            .flatten()
            .fold(0, u64::saturating_add)
    }
}

/// A run's usage: the sums over every attempt and the latest model call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunUsage {
    /// Every attempt's totals added up; all `None` until an attempt reported usage.
    pub totals: UsageTotals,
    /// The latest model call that reported usage, as reported.
    pub last_call: Option<Usage>,
}

impl RunUsage {
    /// An empty run.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one attempt: its `totals` (the subscription's sums; `None` when it counted
    /// nothing) and its latest call's usage.
    ///
    /// Each part is added to the run's (absent stays absent, a zero sum is absent); the
    /// attempt's total, or the sum of its parts when it has none, is added to the run's total.
    /// The last call is replaced only by a call that counted something: an attempt that
    /// failed before its first answer leaves the previous attempt's call in place.
    pub fn merge_attempt(&mut self, totals: Option<&UsageTotals>, last_call: Option<&Usage>) {
        if let Some(attempt) = totals {
            let run = &mut self.totals;
            let add = |run: Option<u64>, attempt: Option<u64>| {
                let sum = match (run, attempt) {
                    (None, None) => return None,
                    (a, b) => a.unwrap_or(0).saturating_add(b.unwrap_or(0)),
                };
                (sum > 0).then_some(sum)
            };
            let attempt_total = attempt.total.or_else(|| {
                let parts = attempt.parts_sum();
                (parts > 0).then_some(parts)
            });
            run.input = add(run.input, attempt.input);
            run.output = add(run.output, attempt.output);
            run.cache_read = add(run.cache_read, attempt.cache_read);
            run.cache_write = add(run.cache_write, attempt.cache_write);
            run.total = add(run.total, attempt_total);
        }
        if let Some(call) = last_call.filter(|u| counted(u)) {
            self.last_call = Some(call.clone());
        }
    }
}

/// Whether a call's usage counted anything (providers report all zeros when they did not).
fn counted(usage: &Usage) -> bool {
    [
        usage.input,
        usage.output,
        usage.cache_read,
        usage.cache_write,
        usage.total_tokens,
    ]
    .iter()
    .any(|n| *n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn usage(input: u64, output: u64, cache_read: u64, total: u64) -> Usage {
        Usage {
            input,
            output,
            cache_read,
            total_tokens: total,
            ..Usage::default()
        }
    }

    fn totals(input: u64, output: u64, cache_read: u64, total: Option<u64>) -> UsageTotals {
        let some = |n: u64| (n > 0).then_some(n);
        UsageTotals {
            input: some(input),
            output: some(output),
            cache_read: some(cache_read),
            cache_write: None,
            total,
        }
    }

    #[test]
    fn attempts_are_summed_and_the_latest_call_kept() {
        let mut run = RunUsage::new();
        // Attempt 1: two calls, then a rate limit.
        run.merge_attempt(
            Some(&totals(300, 40, 160_000, Some(160_340))),
            Some(&usage(150, 20, 80_000, 80_170)),
        );
        // Attempt 2 failed before any answer: nothing counted, the last call stays.
        run.merge_attempt(None, Some(&Usage::default()));
        // Attempt 3: one call without a reported total.
        run.merge_attempt(Some(&totals(100, 10, 0, None)), Some(&usage(100, 10, 0, 0)));
        assert_eq!(
            run,
            RunUsage {
                totals: UsageTotals {
                    input: Some(400),
                    output: Some(50),
                    cache_read: Some(160_000),
                    cache_write: None,
                    total: Some(160_450),
                },
                last_call: Some(usage(100, 10, 0, 0)),
            }
        );
    }

    #[test]
    fn sums_saturate_and_zero_stays_absent() {
        let mut run = RunUsage::new();
        run.merge_attempt(Some(&UsageTotals::default()), None);
        assert_eq!(run, RunUsage::new());
        run.merge_attempt(Some(&totals(u64::MAX, 1, 0, Some(u64::MAX))), None);
        run.merge_attempt(Some(&totals(5, 1, 0, None)), None);
        assert_eq!(
            run.totals,
            UsageTotals {
                input: Some(u64::MAX),
                output: Some(2),
                cache_read: None,
                cache_write: None,
                total: Some(u64::MAX),
            }
        );
        assert_eq!(run.last_call, None);
    }
}
