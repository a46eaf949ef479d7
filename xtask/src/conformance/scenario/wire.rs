//! `wire` kind: provider stream decoding from a served body.

use std::collections::BTreeMap;

use clawloop_core::{FailoverReason, StopReason};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::decode::{DecodeError, decode, nested, tag};
use super::values::{
    Check, Checked, HttpStatus, NonEmptyString, NonEmptyVec, Nullable, Object, PosCount,
};
use super::vocab::{Api, Modality, StreamEventType};

/// Input of a `wire` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireInput {
    /// Wire API.
    pub api: Api,
    /// HTTP status (default 200).
    pub status: Option<HttpStatus>,
    /// Body text.
    pub body: Option<String>,
    /// Body file, relative to the scenario file.
    pub body_file: Option<NonEmptyString>,
    /// Response headers.
    pub headers: Option<BTreeMap<String, String>>,
    /// The model the request is made for.
    pub model: Option<Checked<WireModel>>,
}

/// The model a `wire` request is made for.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireModel {
    /// Model id.
    pub id: Option<NonEmptyString>,
    /// Reasoning model.
    pub reasoning: Option<bool>,
    /// Input modalities.
    pub input: Option<NonEmptyVec<Modality>>,
    /// Context window.
    pub context_window: Option<PosCount>,
    /// Max output tokens.
    pub max_tokens: Option<PosCount>,
    /// Compat flags, free-form.
    pub compat: Option<Object>,
}

impl Check for WireModel {
    fn check(&self) -> Result<(), String> {
        let empty = self.id.is_none()
            && self.reasoning.is_none()
            && self.input.is_none()
            && self.context_window.is_none()
            && self.max_tokens.is_none()
            && self.compat.is_none();
        if empty {
            Err("empty model description (omit 'model' for the default model)".to_owned())
        } else {
            Ok(())
        }
    }
}

impl Check for WireInput {
    fn check(&self) -> Result<(), String> {
        if self.body.is_some() && self.body_file.is_some() {
            return Err("give 'body' or 'bodyFile', not both".to_owned());
        }
        Ok(())
    }
}

/// Expect of a `wire` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireExpect {
    /// The final message.
    pub message: Option<WireMessageExpect>,
    /// Subsequence of event types.
    pub events: Option<Vec<StreamEventType>>,
    /// Error classification.
    pub error: Option<WireErrorExpect>,
}

/// The final message of a `wire` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireMessageExpect {
    /// Content blocks in summary form.
    pub content: Option<Vec<BlockSummary>>,
    /// Stop reason.
    pub stop_reason: Option<StopReason>,
    /// Substring of `errorMessage`.
    pub error_message_contains: Option<String>,
    /// Decoded usage.
    pub usage: Option<UsageExpect>,
}

/// Expected usage, pi's field names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UsageExpect {
    /// Input tokens.
    pub input: Option<f64>,
    /// Output tokens.
    pub output: Option<f64>,
    /// Cache-read tokens.
    pub cache_read: Option<f64>,
    /// Cache-write tokens.
    pub cache_write: Option<f64>,
    /// Total tokens.
    pub total_tokens: Option<f64>,
    /// Cost (partial).
    pub cost: Option<CostExpect>,
}

/// Expected cost.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CostExpect {
    /// Input cost.
    pub input: Option<f64>,
    /// Output cost.
    pub output: Option<f64>,
    /// Cache-read cost.
    pub cache_read: Option<f64>,
    /// Cache-write cost.
    pub cache_write: Option<f64>,
    /// Total.
    pub total: Option<f64>,
}

/// The error part of a `wire` expect.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireErrorExpect {
    /// Classified reason.
    pub reason: Option<FailoverReason>,
    /// pi's overflow check.
    pub context_overflow: Option<bool>,
    /// From `retry-after` / `retry-after-ms`.
    pub retry_after_ms: Option<f64>,
}

/// A content block in summary form.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockSummary {
    /// Text block.
    Text {
        /// Text (required, may be null).
        text: Nullable<String>,
        /// Signature present.
        has_signature: Option<bool>,
    },
    /// Thinking block.
    Thinking {
        /// Thinking text.
        thinking: Option<String>,
        /// Signature present.
        has_signature: Option<bool>,
        /// Redacted.
        redacted: Option<bool>,
    },
    /// Tool call block.
    ToolCall {
        /// Call id.
        id: Option<String>,
        /// Tool name (required, may be null).
        name: Nullable<String>,
        /// Parsed arguments (required).
        arguments: Value,
        /// Signature present.
        has_signature: Option<bool>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TextBlock {
    #[allow(dead_code)]
    #[serde(rename = "type")]
    kind: String,
    text: Nullable<String>,
    has_signature: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ThinkingBlock {
    #[allow(dead_code)]
    #[serde(rename = "type")]
    kind: String,
    thinking: Option<String>,
    has_signature: Option<bool>,
    redacted: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ToolCallBlock {
    #[allow(dead_code)]
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
    name: Nullable<String>,
    arguments: Value,
    has_signature: Option<bool>,
}

impl BlockSummary {
    fn decode(v: &Value) -> Result<Self, DecodeError> {
        Ok(match tag(v, "type", &["text", "thinking", "toolCall"])? {
            "text" => {
                let b: TextBlock = decode(v)?;
                BlockSummary::Text {
                    text: b.text,
                    has_signature: b.has_signature,
                }
            }
            "thinking" => {
                let b: ThinkingBlock = decode(v)?;
                BlockSummary::Thinking {
                    thinking: b.thinking,
                    has_signature: b.has_signature,
                    redacted: b.redacted,
                }
            }
            _ => {
                let b: ToolCallBlock = decode(v)?;
                BlockSummary::ToolCall {
                    id: b.id,
                    name: b.name,
                    arguments: b.arguments,
                    has_signature: b.has_signature,
                }
            }
        })
    }
}

impl<'de> Deserialize<'de> for BlockSummary {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        BlockSummary::decode(&v).map_err(nested)
    }
}
