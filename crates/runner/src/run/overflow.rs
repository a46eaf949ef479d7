//! The context-overflow recovery chain of the run loop (reference §4.4, seed 002, SPEC §8.4):
//! up to three compactions (an attempt that already compacted counts as one), then one
//! tool-result truncation per run — which, as the seed says, resets the compaction counter —
//! then the overflow payload. A pure function over plain data.

use clawloop_core::classify::{
    extract_observed_overflow_token_count, is_compaction_failure_error,
    is_likely_context_overflow_error,
};

/// At most this many overflow recoveries by compaction per run.
pub const MAX_OVERFLOW_COMPACTION_ATTEMPTS: u32 = 3;

use crate::payloads::RunErrorKind;

/// The overflow chain's facts for one iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OverflowState {
    /// Compaction recoveries so far this run (reset once by a successful truncation).
    pub compaction_attempts: u32,
    /// Compactions the attempt made itself.
    pub attempt_compaction_count: u32,
    /// Whether tool-result truncation was tried this run.
    pub truncation_attempted: bool,
    /// Whether the session probably holds tool results a truncation would shorten.
    pub has_oversized_tool_results: bool,
    /// Whether an explicit compaction was just tried this iteration and did not compact.
    pub compaction_did_not_compact: bool,
}

/// What to do about an overflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OverflowAction {
    /// The attempt compacted already: count it and run again.
    RetryAfterAttemptCompaction,
    /// Compact the session now, with the token count the provider reported if any.
    Compact {
        /// Tokens the provider said the prompt had.
        observed_tokens: Option<u64>,
    },
    /// Shorten oversized tool results in the session, then run again.
    TruncateToolResults,
    /// Give up: the overflow payload.
    GiveUp {
        /// `meta.error.kind`.
        kind: RunErrorKind,
        /// The overflow text, for `meta.error.message`.
        message: String,
    },
}

/// The overflow text of an attempt, if it overflowed (reference §4.4): a prompt error decides
/// alone (an older assistant error in the history does not count then); otherwise the last
/// reply's error. Never for an aborted attempt.
pub fn overflow_text(
    prompt_error: Option<&str>,
    last_assistant_error: Option<&str>,
    aborted: bool,
) -> Option<String> {
    if aborted {
        return None;
    }
    if let Some(error) = prompt_error {
        return is_likely_context_overflow_error(error).then(|| error.to_owned());
    }
    last_assistant_error
        .map(str::trim)
        .filter(|error| is_likely_context_overflow_error(error))
        .map(str::to_owned)
}

/// The next step of the chain for `text`.
pub fn overflow_action(text: &str, state: &OverflowState) -> OverflowAction {
    let compaction_failure = is_compaction_failure_error(text);
    let can_compact =
        !compaction_failure && state.compaction_attempts < MAX_OVERFLOW_COMPACTION_ATTEMPTS;
    if can_compact && state.attempt_compaction_count > 0 {
        return OverflowAction::RetryAfterAttemptCompaction;
    }
    if can_compact && !state.compaction_did_not_compact {
        return OverflowAction::Compact {
            observed_tokens: extract_observed_overflow_token_count(text),
        };
    }
    if !state.truncation_attempted && state.has_oversized_tool_results {
        return OverflowAction::TruncateToolResults;
    }
    OverflowAction::GiveUp {
        kind: if compaction_failure {
            RunErrorKind::CompactionFailure
        } else {
            RunErrorKind::ContextOverflow
        },
        message: text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const OVERFLOW: &str = "400 prompt is too long: 250000 tokens > 200000 maximum";

    fn state() -> OverflowState {
        OverflowState::default()
    }

    #[test]
    fn the_chain_in_order() {
        let rows: Vec<(&str, &str, OverflowState, OverflowAction)> = vec![
            (
                "first overflow compacts with the observed count",
                OVERFLOW,
                state(),
                OverflowAction::Compact {
                    observed_tokens: Some(250_000),
                },
            ),
            (
                "an attempt that compacted counts as a recovery",
                OVERFLOW,
                OverflowState {
                    attempt_compaction_count: 1,
                    ..state()
                },
                OverflowAction::RetryAfterAttemptCompaction,
            ),
            (
                "third compaction still allowed",
                OVERFLOW,
                OverflowState {
                    compaction_attempts: 2,
                    ..state()
                },
                OverflowAction::Compact {
                    observed_tokens: Some(250_000),
                },
            ),
            (
                "after three, truncation",
                OVERFLOW,
                OverflowState {
                    compaction_attempts: 3,
                    has_oversized_tool_results: true,
                    ..state()
                },
                OverflowAction::TruncateToolResults,
            ),
            (
                "a compaction that did not compact goes on to truncation",
                OVERFLOW,
                OverflowState {
                    compaction_did_not_compact: true,
                    has_oversized_tool_results: true,
                    ..state()
                },
                OverflowAction::TruncateToolResults,
            ),
            (
                "truncation once per run",
                OVERFLOW,
                OverflowState {
                    compaction_attempts: 3,
                    has_oversized_tool_results: true,
                    truncation_attempted: true,
                    ..state()
                },
                OverflowAction::GiveUp {
                    kind: RunErrorKind::ContextOverflow,
                    message: OVERFLOW.to_owned(),
                },
            ),
            (
                "nothing to truncate gives up",
                OVERFLOW,
                OverflowState {
                    compaction_attempts: 3,
                    ..state()
                },
                OverflowAction::GiveUp {
                    kind: RunErrorKind::ContextOverflow,
                    message: OVERFLOW.to_owned(),
                },
            ),
            (
                "a compaction failure never compacts",
                "Compaction failed: prompt is too long",
                state(),
                OverflowAction::GiveUp {
                    kind: RunErrorKind::CompactionFailure,
                    message: "Compaction failed: prompt is too long".to_owned(),
                },
            ),
        ];
        for (name, text, state, expected) in rows {
            assert_eq!(overflow_action(text, &state), expected, "{name}");
        }
    }

    #[test]
    fn the_overflow_text_comes_from_the_prompt_error_alone_when_there_is_one() {
        assert_eq!(
            overflow_text(Some(OVERFLOW), None, false).as_deref(),
            Some(OVERFLOW)
        );
        assert_eq!(
            overflow_text(Some("401 unauthorized"), Some(OVERFLOW), false),
            None
        );
        assert_eq!(
            overflow_text(None, Some(" prompt is too long "), false).as_deref(),
            Some("prompt is too long")
        );
        assert_eq!(overflow_text(None, Some(OVERFLOW), true), None);
        assert_eq!(overflow_text(None, Some("rate limit reached"), false), None);
    }
}
