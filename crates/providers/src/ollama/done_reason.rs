//! Ollama's `done_reason` → pi's stop reason.

use clawloop_core::StopReason;

/// `length` → length; `stop`, a missing reason and anything else → stop. Ollama's other values
/// (`load`, `unload`) answer requests without messages, and an unknown future value should not
/// fail an answer that streamed fine (OpenClaw ignores the field altogether). Tool calls turn
/// `stop` into `toolUse` later (SPEC §4).
pub fn map_done_reason(reason: Option<&str>) -> StopReason {
    match reason {
        Some("length") => StopReason::Length,
        _ => StopReason::Stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps() {
        assert_eq!(map_done_reason(Some("length")), StopReason::Length);
        assert_eq!(map_done_reason(Some("stop")), StopReason::Stop);
        assert_eq!(map_done_reason(Some("unload")), StopReason::Stop);
        assert_eq!(map_done_reason(None), StopReason::Stop);
    }
}
