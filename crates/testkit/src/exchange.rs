//! One scripted HTTP exchange of a turn (FORMAT.md `run`, `responses[]`): the reply, what the
//! request must look like, and whether it may go unused.

use serde::Deserialize;

use super::{ExpectRequest, ScriptedReply};

/// One scripted response of a turn.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScriptedExchange {
    /// Whether the turn may end without this response being used.
    #[serde(default)]
    pub optional: bool,
    /// Checks on the request that takes it; requests prefer responses whose checks hold.
    pub expect_request: Option<ExpectRequest>,
    /// The reply.
    pub reply: ScriptedReply,
}

impl ScriptedExchange {
    /// A required exchange answering any request with `reply`.
    pub fn reply(reply: ScriptedReply) -> Self {
        ScriptedExchange {
            reply,
            ..ScriptedExchange::default()
        }
    }

    /// Sets the request checks.
    pub fn expecting(mut self, expect: ExpectRequest) -> Self {
        self.expect_request = Some(expect);
        self
    }

    /// Marks it optional.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }
}
