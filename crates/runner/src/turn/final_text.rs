//! The text a user sees when a turn ends in an error that escaped the model fallback
//! (reference §21 step 3, SPEC §9): billing copy, a rate-limit countdown, the overflow and
//! role-ordering texts, or "Agent failed before reply".

use clawloop_core::FailoverReason;
use clawloop_core::classify::{
    is_billing_error_message, is_context_overflow_error, is_likely_context_overflow_error,
    is_rate_limit_error_message, is_role_ordering_error_for_copy,
};
use clawloop_core::error_text::{
    BILLING_TEXT, TURN_CONTEXT_OVERFLOW_TEXT, TURN_ROLE_ORDERING_TEXT,
    agent_failed_before_reply_text, rate_limit_countdown_text,
};

/// What the turn knows about the error that ended it.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnFailure<'a> {
    /// The error's message.
    pub message: &'a str,
    /// Its failover reason, when it has one.
    pub reason: Option<FailoverReason>,
    /// Every model failed, and every failure was a rate limit or an overload.
    pub all_rate_limited: bool,
    /// When the soonest resting profile is usable again, ms since the epoch.
    pub soonest_cooldown_expiry: Option<u64>,
    /// Now, ms since the epoch.
    pub now_ms: u64,
}

/// The final text for `failure`, in reference §21's order.
pub fn turn_failure_text(failure: &TurnFailure<'_>) -> String {
    let message = failure.message;
    if failure.reason == Some(FailoverReason::Billing) || is_billing_error_message(message) {
        return BILLING_TEXT.to_owned();
    }
    if failure.all_rate_limited {
        return rate_limit_countdown_text(failure.soonest_cooldown_expiry, failure.now_ms);
    }
    if failure.reason == Some(FailoverReason::RateLimit) || is_rate_limit_error_message(message) {
        return rate_limit_countdown_text(None, failure.now_ms);
    }
    if is_context_overflow_error(message) || is_likely_context_overflow_error(message) {
        return TURN_CONTEXT_OVERFLOW_TEXT.to_owned();
    }
    if is_role_ordering_error_for_copy(message) {
        return TURN_ROLE_ORDERING_TEXT.to_owned();
    }
    agent_failed_before_reply_text(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const NOW: u64 = 1_700_000_000_000;

    fn failure(message: &str) -> TurnFailure<'_> {
        TurnFailure {
            message,
            reason: None,
            all_rate_limited: false,
            soonest_cooldown_expiry: None,
            now_ms: NOW,
        }
    }

    #[test]
    fn texts_in_reference_order() {
        let rows: Vec<(TurnFailure<'_>, &str)> = vec![
            (
                TurnFailure {
                    reason: Some(FailoverReason::Billing),
                    ..failure("402 payment required")
                },
                BILLING_TEXT,
            ),
            (
                TurnFailure {
                    all_rate_limited: true,
                    soonest_cooldown_expiry: Some(NOW + 30_000),
                    ..failure("All models failed (2): …")
                },
                "⚠️ Rate-limited — ready in ~30s. Please wait a moment.",
            ),
            (
                TurnFailure {
                    all_rate_limited: true,
                    ..failure("All models failed (2): …")
                },
                "⚠️ All models are temporarily rate-limited. Please try again in a few minutes.",
            ),
            (
                TurnFailure {
                    reason: Some(FailoverReason::RateLimit),
                    ..failure("429 Too Many Requests")
                },
                "⚠️ All models are temporarily rate-limited. Please try again in a few minutes.",
            ),
            (
                failure("Context overflow: prompt too large for the model."),
                TURN_CONTEXT_OVERFLOW_TEXT,
            ),
            (
                failure("400 roles must alternate between user and assistant"),
                TURN_ROLE_ORDERING_TEXT,
            ),
            (
                failure("No API key resolved for provider \"acme\" (auth mode: api_key)."),
                "⚠️ Agent failed before reply: No API key resolved for provider \"acme\" (auth mode: api_key).\nLogs: clawloop logs --follow",
            ),
        ];
        for (failure, expected) in rows {
            assert_eq!(turn_failure_text(&failure), expected, "{}", failure.message);
        }
    }
}
