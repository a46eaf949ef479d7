//! Why an assistant message ended.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why an assistant message ended (pi's `StopReason`).
///
/// Serialized as pi writes it: `stop`, `length`, `toolUse`, `error`, `aborted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// The model finished its answer.
    Stop,
    /// The output token limit was reached.
    Length,
    /// The model asked for one or more tool calls.
    ToolUse,
    /// The request or the stream failed; `errorMessage` says why.
    Error,
    /// The request was aborted by the caller.
    Aborted,
}

impl StopReason {
    /// Every stop reason, in declaration order.
    pub const ALL: [StopReason; 5] = [
        StopReason::Stop,
        StopReason::Length,
        StopReason::ToolUse,
        StopReason::Error,
        StopReason::Aborted,
    ];

    /// The wire name (`"toolUse"` for [`StopReason::ToolUse`]).
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::ToolUse => "toolUse",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
        }
    }

    /// True for the two failure outcomes, `error` and `aborted`.
    pub fn is_failure(self) -> bool {
        matches!(self, StopReason::Error | StopReason::Aborted)
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text given to [`StopReason::from_str`] is not a stop reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown stop reason {0:?} (expected stop, length, toolUse, error or aborted)")]
pub struct UnknownStopReason(pub String);

impl FromStr for StopReason {
    type Err = UnknownStopReason;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StopReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownStopReason(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip() {
        for reason in StopReason::ALL {
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{}\"", reason.as_str()));
            assert_eq!(serde_json::from_str::<StopReason>(&json).unwrap(), reason);
            assert_eq!(reason.as_str().parse::<StopReason>().unwrap(), reason);
        }
        assert_eq!(
            "tool_use".parse::<StopReason>(),
            Err(UnknownStopReason("tool_use".into()))
        );
    }
}
