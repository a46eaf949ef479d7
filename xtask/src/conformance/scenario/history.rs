//! `history` kind: transcript transforms, one input shape per `op`.

use serde::Deserialize;
use serde_json::Value;

use super::decode::{DecodeError, decode, tag};
use super::message::{InputMessage, MessageSummary};
use super::values::Object;

const OPS: [&str; 5] = [
    "limitHistoryTurns",
    "repairToolPairing",
    "validateAnthropicTurns",
    "validateGeminiTurns",
    "historyLimitFromSessionKey",
];

/// Input of a `history` case.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryInput {
    /// Keep the last `limit` user turns.
    LimitHistoryTurns {
        /// Transcript.
        messages: Vec<InputMessage>,
        /// Turn limit.
        limit: Option<f64>,
    },
    /// Pair tool calls with results (errored-assistant policy `drop`).
    RepairToolPairing {
        /// Transcript.
        messages: Vec<InputMessage>,
    },
    /// Anthropic turn validation.
    ValidateAnthropicTurns {
        /// Transcript.
        messages: Vec<InputMessage>,
    },
    /// Gemini turn validation.
    ValidateGeminiTurns {
        /// Transcript.
        messages: Vec<InputMessage>,
    },
    /// History limit configured for a session key.
    HistoryLimitFromSessionKey {
        /// The session key.
        session_key: String,
        /// The `channels` config subset.
        channels: Option<Object>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitTurns {
    #[allow(dead_code)]
    op: String,
    messages: Vec<InputMessage>,
    limit: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessagesOnly {
    #[allow(dead_code)]
    op: String,
    messages: Vec<InputMessage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FromSessionKey {
    #[allow(dead_code)]
    op: String,
    session_key: String,
    channels: Option<Object>,
}

/// Expect of a `history` case; its shape follows the op.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryExpect {
    /// For transcript ops.
    Messages(MessagesExpect),
    /// For `historyLimitFromSessionKey`.
    Limit(LimitExpect),
}

/// `{"messages": [summary...]}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessagesExpect {
    /// The resulting transcript in summary form.
    pub messages: Option<Vec<MessageSummary>>,
}

/// `{"limit": number|null}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitExpect {
    /// The limit, or null.
    pub limit: Option<f64>,
}

impl HistoryInput {
    /// Decodes the input after dispatching on its `op`.
    pub fn decode(v: &Value) -> Result<Self, DecodeError> {
        Ok(match tag(v, "op", &OPS)? {
            "limitHistoryTurns" => {
                let x: LimitTurns = decode(v)?;
                HistoryInput::LimitHistoryTurns {
                    messages: x.messages,
                    limit: x.limit,
                }
            }
            "repairToolPairing" => HistoryInput::RepairToolPairing {
                messages: decode::<MessagesOnly>(v)?.messages,
            },
            "validateAnthropicTurns" => HistoryInput::ValidateAnthropicTurns {
                messages: decode::<MessagesOnly>(v)?.messages,
            },
            "validateGeminiTurns" => HistoryInput::ValidateGeminiTurns {
                messages: decode::<MessagesOnly>(v)?.messages,
            },
            _ => {
                let x: FromSessionKey = decode(v)?;
                HistoryInput::HistoryLimitFromSessionKey {
                    session_key: x.session_key,
                    channels: x.channels,
                }
            }
        })
    }

    /// Decodes the expect that goes with this input's op.
    pub fn decode_expect(&self, v: &Value) -> Result<HistoryExpect, DecodeError> {
        match self {
            HistoryInput::HistoryLimitFromSessionKey { .. } => decode(v).map(HistoryExpect::Limit),
            _ => decode(v).map(HistoryExpect::Messages),
        }
    }
}
