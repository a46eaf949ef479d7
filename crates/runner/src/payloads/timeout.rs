//! The reply of a run that timed out without producing anything (reference §4.7 step 3).

use clawloop_core::error_text::{
    IDLE_TIMEOUT_PARTIAL_TEXT, IDLE_TIMEOUT_TEXT, RUN_TIMEOUT_PARTIAL_TEXT, RUN_TIMEOUT_TEXT,
};

use super::reply_payload::ReplyPayload;
use crate::attempt::AttemptResult;

/// The error payload for a timeout that left the run with no payload: the LLM idle-timeout
/// text when the model went silent, else the overall run-timeout text. `None` when the attempt
/// did not time out, when it timed out while compacting (the run loop handles that), or when
/// it produced payloads (`payload_count` from [`build_run_payloads`](super::build_run_payloads)).
pub fn timeout_payload(attempt: &AttemptResult, payload_count: usize) -> Option<ReplyPayload> {
    if !attempt.timed_out || attempt.timed_out_during_compaction || payload_count > 0 {
        return None;
    }
    let text = if attempt.idle_timed_out {
        IDLE_TIMEOUT_TEXT
    } else {
        RUN_TIMEOUT_TEXT
    };
    Some(ReplyPayload::error(text))
}

/// The error payload that follows the partial reply of a run a timeout cut short (clawloop, not
/// OpenClaw, which delivers the partial text as the answer): the text so far is no answer, and
/// the turn fails. `None` when the attempt did not time out, timed out while compacting, or
/// produced nothing (then [`timeout_payload`] speaks).
pub fn partial_timeout_payload(
    attempt: &AttemptResult,
    payload_count: usize,
) -> Option<ReplyPayload> {
    if !attempt.timed_out || attempt.timed_out_during_compaction || payload_count == 0 {
        return None;
    }
    let text = if attempt.idle_timed_out {
        IDLE_TIMEOUT_PARTIAL_TEXT
    } else {
        RUN_TIMEOUT_PARTIAL_TEXT
    };
    Some(ReplyPayload::error(text))
}
