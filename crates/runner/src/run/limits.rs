//! The run loop's counters (reference §4.1 item 10).

/// `MAX_RUN_LOOP_ITERATIONS = min(160, max(32, 24 + 8 · max(1, profiles)))`.
pub fn max_run_loop_iterations(profile_candidates: usize) -> u32 {
    let profiles = u32::try_from(profile_candidates.max(1)).unwrap_or(u32::MAX);
    profiles.saturating_mul(8).saturating_add(24).clamp(32, 160)
}

/// Timeout-triggered compactions per run.
pub const MAX_TIMEOUT_COMPACTION_ATTEMPTS: u32 = 2;

/// Same-model retries after an idle timeout.
pub const MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES: u32 = 1;

/// A timed-out attempt whose prompt used more than this share of the window compacts.
pub const TIMEOUT_COMPACTION_PROMPT_RATIO: f64 = 0.65;

/// The error payload of a turn whose model kept calling tools past the limit: what happened,
/// and the two ways to raise it.
pub fn tool_round_limit_text(limit: u32) -> String {
    format!(
        "The turn stopped after {limit} tool rounds: the model kept calling tools without giving an answer. Raise the limit with `--max-turns` or `agents.defaults.maxToolRounds` in your config (0 = no limit)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn iterations_grow_with_profiles_between_32_and_160() {
        let rows = [
            (0, 32),
            (1, 32),
            (2, 40),
            (3, 48),
            (4, 56),
            (16, 152),
            (17, 160),
            (1000, 160),
        ];
        for (profiles, expected) in rows {
            assert_eq!(max_run_loop_iterations(profiles), expected, "{profiles}");
        }
    }
}
