//! `truncate` kind: tool result size control, one input shape per `op`.

use serde::Deserialize;
use serde_json::Value;

use super::decode::{DecodeError, decode, tag};
use super::message::InputMessage;
use super::values::TextOrGen;

const OPS: [&str; 3] = ["maxToolResultChars", "truncateText", "sessionHasOversized"];

/// Input of a `truncate` case.
#[derive(Debug, Clone, PartialEq)]
pub enum TruncateInput {
    /// The char budget for one tool result.
    MaxToolResultChars {
        /// Model context window in tokens.
        context_window: f64,
    },
    /// Truncate one text.
    TruncateText {
        /// The text (or generator).
        text: TextOrGen,
        /// Budget.
        max_chars: f64,
        /// Minimum kept.
        min_keep_chars: Option<f64>,
    },
    /// Whether a transcript holds an oversized tool result.
    SessionHasOversized {
        /// Transcript.
        messages: Vec<InputMessage>,
        /// Model context window in tokens.
        context_window: f64,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MaxChars {
    #[allow(dead_code)]
    op: String,
    context_window: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TruncateText {
    #[allow(dead_code)]
    op: String,
    text: TextOrGen,
    max_chars: f64,
    min_keep_chars: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Oversized {
    #[allow(dead_code)]
    op: String,
    messages: Vec<InputMessage>,
    context_window: f64,
}

/// Expect of a `truncate` case; its shape follows the op.
#[derive(Debug, Clone, PartialEq)]
pub enum TruncateExpect {
    /// `{"value": number}`.
    Number(NumberValueExpect),
    /// Text checks.
    Text(TextExpect),
    /// `{"value": bool}`.
    Bool(BoolValueExpect),
}

/// `{"value": number}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NumberValueExpect {
    /// The number.
    pub value: Option<f64>,
}

/// `{"value": bool}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoolValueExpect {
    /// The flag.
    pub value: Option<bool>,
}

/// Checks on a truncated text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TextExpect {
    /// Exact text.
    pub text: Option<String>,
    /// Exact length in chars.
    pub length: Option<f64>,
    /// Maximum length in chars.
    pub length_max: Option<f64>,
    /// Starts with.
    pub text_prefix: Option<String>,
    /// Contains each.
    pub text_contains: Option<Vec<String>>,
    /// Contains none.
    pub text_not_contains: Option<Vec<String>>,
    /// Ends with.
    pub text_suffix: Option<String>,
}

impl TruncateInput {
    /// Decodes the input after dispatching on its `op`.
    pub fn decode(v: &Value) -> Result<Self, DecodeError> {
        Ok(match tag(v, "op", &OPS)? {
            "maxToolResultChars" => TruncateInput::MaxToolResultChars {
                context_window: decode::<MaxChars>(v)?.context_window,
            },
            "truncateText" => {
                let x: TruncateText = decode(v)?;
                TruncateInput::TruncateText {
                    text: x.text,
                    max_chars: x.max_chars,
                    min_keep_chars: x.min_keep_chars,
                }
            }
            _ => {
                let x: Oversized = decode(v)?;
                TruncateInput::SessionHasOversized {
                    messages: x.messages,
                    context_window: x.context_window,
                }
            }
        })
    }

    /// Decodes the expect that goes with this input's op.
    pub fn decode_expect(&self, v: &Value) -> Result<TruncateExpect, DecodeError> {
        match self {
            TruncateInput::MaxToolResultChars { .. } => decode(v).map(TruncateExpect::Number),
            TruncateInput::TruncateText { .. } => decode(v).map(TruncateExpect::Text),
            TruncateInput::SessionHasOversized { .. } => decode(v).map(TruncateExpect::Bool),
        }
    }
}
