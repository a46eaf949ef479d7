//! Why a lane refused work (reference §2: `CommandLaneClearedError`, `GatewayDrainingError`).

/// Work a lane did not run. Both mean "the runtime is restarting or was told to drop queued
/// work"; the turn maps both to the restart text (reference §21).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaneError {
    /// The work was still queued when its lane was cleared (OpenClaw's
    /// `CommandLaneClearedError`).
    #[error("Command lane \"{lane}\" cleared")]
    Cleared {
        /// The lane that was cleared.
        lane: String,
    },
    /// The runtime is draining for shutdown and accepts no new work (OpenClaw's
    /// `GatewayDrainingError`).
    #[error("Gateway is draining for restart; new tasks are not accepted")]
    Draining,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn messages_match_openclaw() {
        assert_eq!(
            LaneError::Cleared {
                lane: "session:a".into()
            }
            .to_string(),
            "Command lane \"session:a\" cleared"
        );
        assert_eq!(
            LaneError::Draining.to_string(),
            "Gateway is draining for restart; new tasks are not accepted"
        );
    }
}
