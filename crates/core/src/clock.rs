//! Wall-clock time as a seam, so cooldowns, expiries and timestamps can be tested.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The current time. Every cooldown, expiry and timestamp decision reads it instead of the
/// system clock, so tests can move time by hand.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        // A clock set before 1970 reads as 0 rather than failing.
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

/// A clock that moves only when told. Clones share the same time, so a test keeps one handle
/// and gives another to the code under test.
#[derive(Debug, Clone, Default)]
pub struct ManualClock {
    now: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock reading `now_ms`.
    pub fn new(now_ms: u64) -> Self {
        ManualClock {
            now: Arc::new(AtomicU64::new(now_ms)),
        }
    }

    /// Sets the time.
    pub fn set(&self, now_ms: u64) {
        self.now.store(now_ms, Ordering::SeqCst);
    }

    /// Moves the time forward by `ms` (saturating) and returns the new time.
    pub fn advance(&self, ms: u64) -> u64 {
        let previous = self
            .now
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(ms))
            })
            .unwrap_or_else(|t| t);
        previous.saturating_add(ms)
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.now.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_is_shared_between_clones() {
        let clock = ManualClock::new(1_000);
        let seen_by_code: Arc<dyn Clock> = Arc::new(clock.clone());
        assert_eq!(seen_by_code.now_ms(), 1_000);
        assert_eq!(clock.advance(250), 1_250);
        assert_eq!(seen_by_code.now_ms(), 1_250);
        clock.set(5);
        assert_eq!(seen_by_code.now_ms(), 5);
        clock.set(u64::MAX - 1);
        assert_eq!(clock.advance(10), u64::MAX);
        assert_eq!(ManualClock::default().now_ms(), 0);
    }

    #[test]
    fn system_clock_is_after_2020() {
        assert!(SystemClock.now_ms() > 1_577_836_800_000);
    }
}
