//! The turn's three one-shot guards (seed 001, SPEC §8.6): a session reset after an unrecoverable
//! overflow or compaction failure, one whole-turn retry after a transient HTTP error, and the
//! run context registered for the run id. Each may fire once per turn.

use clawloop_core::classify::is_transient_http_error;

/// The guards' state for one turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnGuards {
    /// The session was reset after a compaction failure or overflow.
    pub did_reset_after_compaction_failure: bool,
    /// The turn already ran a second time after a transient HTTP error.
    pub did_retry_transient_http_error: bool,
}

impl TurnGuards {
    /// Whether `message` earns the one transient retry (statuses 499, 500, 502, 503, 504, 521–524,
    /// 529); marks it used when it does.
    pub fn take_transient_retry(&mut self, message: &str) -> bool {
        if !self.transient_retry_left(message) {
            return false;
        }
        self.did_retry_transient_http_error = true;
        true
    }

    /// Whether `message` would earn the transient retry now, without using it.
    pub fn transient_retry_left(&self, message: &str) -> bool {
        !self.did_retry_transient_http_error && is_transient_http_error(message)
    }

    /// Whether the session may be reset now; marks it used when it may.
    pub fn take_reset(&mut self) -> bool {
        !std::mem::replace(&mut self.did_reset_after_compaction_failure, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_guard_fires_once() {
        let mut guards = TurnGuards::default();
        assert!(!guards.take_transient_retry("401 unauthorized"));
        assert!(guards.take_transient_retry("503 Service Unavailable"));
        assert!(!guards.take_transient_retry("503 Service Unavailable"));
        assert!(guards.take_reset());
        assert!(!guards.take_reset());
    }

    #[test]
    fn transient_statuses_are_the_seeds() {
        for status in [499, 500, 502, 503, 504, 521, 522, 523, 524, 529] {
            assert!(
                TurnGuards::default().take_transient_retry(&format!("{status} upstream trouble")),
                "{status}"
            );
        }
        for status in [400, 401, 404, 429, 501] {
            assert!(
                !TurnGuards::default().take_transient_retry(&format!("{status} nope")),
                "{status}"
            );
        }
    }
}
