//! Incomplete-turn detection (reference §4.7 step 4, OpenClaw
//! `resolveIncompleteTurnPayloadText`): a turn that ended without an answer and without a reason
//! the user already knows about.

use clawloop_core::StopReason;
use clawloop_core::error_text::{INCOMPLETE_TURN_SIDE_EFFECTS_TEXT, INCOMPLETE_TURN_TEXT};

use super::reply_payload::ReplyPayload;
use crate::attempt::AttemptResult;

/// How the run ended, beyond the attempt's own flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TerminalSignals {
    /// The run was aborted (by the caller or a timeout).
    pub aborted: bool,
    /// The run timed out.
    pub timed_out: bool,
    /// The agent yielded the turn on purpose (`sessions_yield`).
    pub yield_detected: bool,
    /// A deterministic approval prompt was sent instead of an answer.
    pub did_send_deterministic_approval_prompt: bool,
}

impl TerminalSignals {
    /// The attempt's own abort and timeout flags; no yield, no approval prompt.
    pub fn from_attempt(attempt: &AttemptResult) -> Self {
        TerminalSignals {
            aborted: attempt.aborted,
            timed_out: attempt.timed_out,
            ..TerminalSignals::default()
        }
    }
}

/// The incomplete-turn text, or `None` when the turn is complete or explained.
///
/// It applies only with no payload, not aborted or timed out, no client tool call, no yield,
/// no approval prompt and no tool error, and when the last assistant message stopped for tool
/// use (nothing answered after the tools) or errored. When tools with side effects ran, the
/// text warns that some actions may already have happened.
pub fn incomplete_turn_text(
    attempt: &AttemptResult,
    payload_count: usize,
    signals: &TerminalSignals,
) -> Option<&'static str> {
    if payload_count > 0
        || signals.aborted
        || signals.timed_out
        || attempt.client_tool_called()
        || signals.yield_detected
        || signals.did_send_deterministic_approval_prompt
        || attempt.subscription.last_tool_error.is_some()
    {
        return None;
    }
    let stop = attempt.last_assistant.as_ref().map(|a| a.stop_reason);
    if !matches!(stop, Some(StopReason::ToolUse | StopReason::Error)) {
        return None;
    }
    Some(if attempt.subscription.had_potential_side_effects {
        INCOMPLETE_TURN_SIDE_EFFECTS_TEXT
    } else {
        INCOMPLETE_TURN_TEXT
    })
}

/// [`incomplete_turn_text`] as the run's error payload.
pub fn incomplete_turn_payload(
    attempt: &AttemptResult,
    payload_count: usize,
    signals: &TerminalSignals,
) -> Option<ReplyPayload> {
    incomplete_turn_text(attempt, payload_count, signals).map(ReplyPayload::error)
}
