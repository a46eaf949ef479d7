//! The knobs of a compaction (pi's `CompactionSettings`, OpenClaw's safety timeout).

use std::time::Duration;

/// pi's default `compaction.reserveTokens`: room left for the summary and the next reply.
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
/// pi's default `compaction.keepRecentTokens`: how much recent history stays verbatim.
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;
/// The seed's safety timeout of one whole compaction (SPEC §11: 300 s; OpenClaw 2026.4 uses
/// 900 s). Config: `agents.defaults.compaction.timeoutSeconds`.
pub const DEFAULT_COMPACTION_TIMEOUT: Duration = Duration::from_secs(300);

/// The longest safety timeout a config may ask for (OpenClaw caps at 2 147 000 000 ms, the
/// largest delay a JavaScript timer takes).
pub const MAX_COMPACTION_TIMEOUT: Duration = Duration::from_millis(2_147_000_000);

/// The safety timeout for `agents.defaults.compaction.timeoutSeconds`: whole seconds of a
/// positive finite value, at most [`MAX_COMPACTION_TIMEOUT`]; anything else (absent, zero,
/// negative, not a number) is [`DEFAULT_COMPACTION_TIMEOUT`].
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is positive and finite, and capped right after the conversion"
)]
pub fn compaction_timeout(timeout_seconds: Option<f64>) -> Duration {
    match timeout_seconds {
        Some(seconds) if seconds.is_finite() && seconds > 0.0 => {
            Duration::from_secs(seconds.floor() as u64).min(MAX_COMPACTION_TIMEOUT)
        }
        _ => DEFAULT_COMPACTION_TIMEOUT,
    }
}

/// pi's `CompactionSettings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Whether automatic compaction runs at all (a direct `/compact` ignores it).
    pub enabled: bool,
    /// Tokens kept free in the context window; the summary may use `floor(0.8 * reserve)`.
    pub reserve_tokens: u64,
    /// Estimated tokens of recent history kept verbatim after the summary.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            reserve_tokens: DEFAULT_RESERVE_TOKENS,
            keep_recent_tokens: DEFAULT_KEEP_RECENT_TOKENS,
        }
    }
}

impl CompactionSettings {
    /// `maxTokens` of the history summary: `floor(0.8 * reserveTokens)` (13 107 by default).
    pub fn history_max_tokens(&self) -> u64 {
        js_floor_share(0.8, self.reserve_tokens)
    }

    /// `maxTokens` of the split-turn prefix summary: `floor(0.5 * reserveTokens)` (8 192).
    pub fn turn_prefix_max_tokens(&self) -> u64 {
        js_floor_share(0.5, self.reserve_tokens)
    }
}

/// `Math.floor(share * n)` computed in doubles as pi does, so rounding matches it exactly.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    reason = "token counts are far below 2^53 and the product is non-negative"
)]
fn js_floor_share(share: f64, n: u64) -> u64 {
    (share * n as f64).floor() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_from_config_seconds() {
        let cases = [
            (None, DEFAULT_COMPACTION_TIMEOUT),
            (Some(0.0), DEFAULT_COMPACTION_TIMEOUT),
            (Some(-5.0), DEFAULT_COMPACTION_TIMEOUT),
            (Some(f64::NAN), DEFAULT_COMPACTION_TIMEOUT),
            (Some(f64::INFINITY), DEFAULT_COMPACTION_TIMEOUT),
            (Some(90.9), Duration::from_secs(90)),
            (Some(1e12), MAX_COMPACTION_TIMEOUT),
        ];
        for (seconds, expected) in cases {
            assert_eq!(compaction_timeout(seconds), expected, "{seconds:?}");
        }
    }

    #[test]
    fn budgets_follow_pi_defaults() {
        let settings = CompactionSettings::default();
        assert_eq!(settings.history_max_tokens(), 13_107);
        assert_eq!(settings.turn_prefix_max_tokens(), 8_192);
        let odd = CompactionSettings {
            reserve_tokens: 1_001,
            ..settings
        };
        assert_eq!(
            (odd.history_max_tokens(), odd.turn_prefix_max_tokens()),
            (800, 500)
        );
    }
}
