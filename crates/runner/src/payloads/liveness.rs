//! The run's liveness and replay safety as recorded in its result (reference §4.7 step 7,
//! OpenClaw `resolveRunLivenessState` and `resolveReplayInvalidFlag`).

use clawloop_core::StopReason;
use clawloop_subscribe::LivenessState;

use super::incomplete_turn::TerminalSignals;
use crate::attempt::{AttemptResult, PromptErrorSource};

/// The run's liveness, first match wins: an incomplete turn → `abandoned`; a compaction abort
/// or a timeout during compaction → `paused`; aborted or timed out with no payload →
/// `blocked`; the last assistant message errored → `blocked`; otherwise `working`.
pub fn resolve_liveness(
    attempt: &AttemptResult,
    payload_count: usize,
    signals: &TerminalSignals,
    incomplete_turn: bool,
) -> LivenessState {
    let errored = attempt
        .last_assistant
        .as_ref()
        .is_some_and(|a| a.stop_reason == StopReason::Error);
    if incomplete_turn {
        LivenessState::Abandoned
    } else if compaction_interrupted(attempt) {
        LivenessState::Paused
    } else if ((signals.aborted || signals.timed_out) && payload_count == 0) || errored {
        LivenessState::Blocked
    } else {
        LivenessState::Working
    }
}

/// Whether replaying the run would be unsafe: tools with side effects ran (mutating tools,
/// messaging sends), a compaction was interrupted, or the turn is incomplete.
pub fn resolve_replay_invalid(attempt: &AttemptResult, incomplete_turn: bool) -> bool {
    attempt.subscription.replay_invalid
        || attempt.subscription.had_potential_side_effects
        || compaction_interrupted(attempt)
        || incomplete_turn
}

/// OpenClaw's wire name of a liveness state (`meta.livenessState`).
pub fn liveness_state_name(state: LivenessState) -> &'static str {
    match state {
        LivenessState::Working => "working",
        LivenessState::Paused => "paused",
        LivenessState::Blocked => "blocked",
        LivenessState::Abandoned => "abandoned",
    }
}

fn compaction_interrupted(attempt: &AttemptResult) -> bool {
    attempt.timed_out_during_compaction
        || attempt
            .prompt_error
            .as_ref()
            .is_some_and(|e| e.source == PromptErrorSource::Compaction)
}
