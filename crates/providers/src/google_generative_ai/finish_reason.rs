//! Gemini `finishReason` → pi's stop reason (pi-mono §1.8, `mapStopReasonString`).

use clawloop_core::StopReason;

/// What a finish reason means for the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishOutcome {
    /// The message ended normally with this stop reason (`stop` or `length`).
    Done(StopReason),
    /// The provider stopped for a reason pi treats as an error (safety, recitation, a
    /// malformed function call, …); the text is the `errorMessage`.
    Failed(String),
}

/// Maps `reason` (with the candidate's optional `finishMessage`): `STOP` → stop,
/// `MAX_TOKENS` → length, anything else → error. pi reports those errors as "An unknown error
/// occurred"; naming the reason (and Google's explanation) tells the user what happened.
///
/// Tool calls override all of this (any tool call ends the message with `toolUse`); the
/// decoder applies that rule, not this function.
pub fn map_finish_reason(reason: &str, finish_message: Option<&str>) -> FinishOutcome {
    match reason {
        "STOP" => FinishOutcome::Done(StopReason::Stop),
        "MAX_TOKENS" => FinishOutcome::Done(StopReason::Length),
        other => FinishOutcome::Failed(match finish_message.filter(|m| !m.trim().is_empty()) {
            Some(message) => format!("Provider finish_reason: {other}: {}", message.trim()),
            None => format!("Provider finish_reason: {other}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn maps_like_pi() {
        assert_eq!(
            map_finish_reason("STOP", Some("Model generated function call(s).")),
            FinishOutcome::Done(StopReason::Stop)
        );
        assert_eq!(
            map_finish_reason("MAX_TOKENS", None),
            FinishOutcome::Done(StopReason::Length)
        );
        assert_eq!(
            map_finish_reason("SAFETY", None),
            FinishOutcome::Failed("Provider finish_reason: SAFETY".into())
        );
        assert_eq!(
            map_finish_reason(
                "MALFORMED_FUNCTION_CALL",
                Some("Malformed function call: x")
            ),
            FinishOutcome::Failed(
                "Provider finish_reason: MALFORMED_FUNCTION_CALL: Malformed function call: x"
                    .into()
            )
        );
    }
}
