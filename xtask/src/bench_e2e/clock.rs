//! One clock for the bench process and its measuring children: CLOCK_MONOTONIC in
//! nanoseconds, which `std::time::Instant` also reads on Linux.

use std::time::Instant;

pub use super::reaper::monotonic_ns;

/// Translates this process's `Instant`s to [`monotonic_ns`] values, so timestamps the
/// scripted server took compare with the ones a measuring child reported.
#[derive(Debug, Clone, Copy)]
pub struct Anchor {
    instant: Instant,
    ns: u64,
}

impl Anchor {
    /// Reads both clocks at (nearly) the same moment.
    pub fn now() -> Anchor {
        let instant = Instant::now();
        let ns = monotonic_ns();
        Anchor { instant, ns }
    }

    /// `at` on the CLOCK_MONOTONIC nanosecond scale.
    pub fn ns(&self, at: Instant) -> u64 {
        match at.checked_duration_since(self.instant) {
            Some(after) => self.ns.saturating_add(nanos(after)),
            None => self.ns.saturating_sub(nanos(self.instant - at)),
        }
    }
}

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn anchor_agrees_with_the_monotonic_clock() {
        let anchor = Anchor::now();
        let before = monotonic_ns();
        let at = Instant::now();
        let after = monotonic_ns();
        let ns = anchor.ns(at);
        // Both clocks are CLOCK_MONOTONIC: the translated instant falls between two direct
        // readings, give or take the anchor's own two-read skew.
        let slack = 1_000_000;
        assert!(
            before.saturating_sub(slack) <= ns && ns <= after + slack,
            "{before} {ns} {after}"
        );
        let earlier = anchor.ns(at - Duration::from_millis(1));
        assert_eq!(ns - earlier, 1_000_000);
    }
}
