//! Anthropic `stop_reason` → pi's `StopReason` (pi's `mapStopReason`).

use clawloop_core::StopReason;

/// The stop reason for `reason`; an unknown value is an error with pi's text, since the API may
/// add reasons whose meaning cannot be guessed.
pub fn map_stop_reason(reason: &str) -> Result<StopReason, String> {
    match reason {
        "end_turn" | "stop_sequence" => Ok(StopReason::Stop),
        // The server paused a long turn; the answer so far is complete and can be resubmitted.
        "pause_turn" => Ok(StopReason::Stop),
        "max_tokens" => Ok(StopReason::Length),
        "tool_use" => Ok(StopReason::ToolUse),
        "refusal" | "sensitive" => Ok(StopReason::Error),
        other => Err(format!("Unhandled stop reason: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let cases = [
            ("end_turn", Ok(StopReason::Stop)),
            ("stop_sequence", Ok(StopReason::Stop)),
            ("pause_turn", Ok(StopReason::Stop)),
            ("max_tokens", Ok(StopReason::Length)),
            ("tool_use", Ok(StopReason::ToolUse)),
            ("refusal", Ok(StopReason::Error)),
            ("sensitive", Ok(StopReason::Error)),
            (
                "model_context_window_exceeded",
                Err("Unhandled stop reason: model_context_window_exceeded".to_owned()),
            ),
        ];
        for (wire, expected) in cases {
            assert_eq!(map_stop_reason(wire), expected, "{wire}");
        }
    }
}
