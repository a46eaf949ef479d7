//! `subscribe` kind: agent event stream to replies.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::decode::{DecodeError, decode, nested};
use super::message::InputMessage;
use super::values::{Nullable, Object};
use super::vocab::{BlockReplyBreak, BreakPreference, ReasoningLevel, StreamEventType};

/// Input of a `subscribe` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubscribeInput {
    /// Subscription options.
    pub options: SubscribeOptions,
    /// Agent events, in order.
    pub events: Vec<AgentEvent>,
}

/// Subscription options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SubscribeOptions {
    /// When block replies are cut.
    pub block_reply_break: BlockReplyBreak,
    /// Block chunking.
    pub chunking: Option<Chunking>,
    /// Only `<final>` text is visible.
    pub enforce_final_tag: Option<bool>,
    /// Reasoning delivery.
    pub reasoning_level: Option<ReasoningLevel>,
    /// Block replies enabled (default true).
    pub block_replies: Option<bool>,
}

/// Block chunking options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Chunking {
    /// Minimum chunk size.
    pub min_chars: f64,
    /// Maximum chunk size.
    pub max_chars: f64,
    /// Preferred break.
    pub break_preference: BreakPreference,
    /// Flush at paragraphs.
    pub flush_on_paragraph: Option<bool>,
}

/// An agent event (pi-mono §2.2 shapes plus compaction/retry events), validated per type and
/// kept as JSON for the subscriber.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentEvent(pub Value);

/// The assistant message event inside `message_update`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AssistantEvent {
    /// Event type.
    #[serde(rename = "type")]
    pub kind: StreamEventType,
    /// Block index.
    pub content_index: Option<f64>,
    /// Delta text.
    pub delta: Option<String>,
    /// Full block text.
    pub content: Option<String>,
    /// Partial message, free-form.
    pub partial: Option<Value>,
    /// Tool call, free-form.
    pub tool_call: Option<Object>,
    /// Done/error reason.
    pub reason: Option<String>,
    /// Final message.
    pub message: Option<InputMessage>,
    /// Error message.
    pub error: Option<InputMessage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bare {
    #[allow(dead_code)]
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AgentEnd {
    #[serde(rename = "type")]
    kind: String,
    messages: Option<Vec<InputMessage>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct TurnEnd {
    #[serde(rename = "type")]
    kind: String,
    message: Option<InputMessage>,
    tool_results: Option<Vec<InputMessage>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct WithMessage {
    #[serde(rename = "type")]
    kind: String,
    message: InputMessage,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct MessageUpdate {
    #[serde(rename = "type")]
    kind: String,
    assistant_message_event: AssistantEvent,
    message: Option<InputMessage>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolStart {
    #[serde(rename = "type")]
    kind: String,
    tool_call_id: String,
    tool_name: String,
    args: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolUpdate {
    #[serde(rename = "type")]
    kind: String,
    tool_call_id: String,
    tool_name: String,
    args: Option<Value>,
    partial_result: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolEnd {
    #[serde(rename = "type")]
    kind: String,
    tool_call_id: String,
    tool_name: String,
    result: Option<Value>,
    is_error: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct CompactionStart {
    #[serde(rename = "type")]
    kind: String,
    reason: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct CompactionEnd {
    #[serde(rename = "type")]
    kind: String,
    will_retry: bool,
    aborted: Option<bool>,
    result: Option<Value>,
    error_message: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct RetryStart {
    #[serde(rename = "type")]
    kind: String,
    attempt: Option<f64>,
    max_attempts: Option<f64>,
    delay_ms: Option<f64>,
    error_message: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct RetryEnd {
    #[serde(rename = "type")]
    kind: String,
    success: Option<bool>,
    attempt: Option<f64>,
    final_error: Option<String>,
}

const TYPES: [&str; 14] = [
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "auto_compaction_start",
    "auto_compaction_end",
    "auto_retry_start",
    "auto_retry_end",
];

impl AgentEvent {
    fn validate(v: &Value) -> Result<(), DecodeError> {
        let ty = super::decode::tag(v, "type", &TYPES).map_err(|e| {
            DecodeError::new(e.path, format!("unknown agent event type: {}", e.message))
        })?;
        match ty {
            "agent_start" | "turn_start" => decode::<Bare>(v).map(drop),
            "agent_end" => decode::<AgentEnd>(v).map(drop),
            "turn_end" => decode::<TurnEnd>(v).map(drop),
            "message_start" | "message_end" => decode::<WithMessage>(v).map(drop),
            "message_update" => decode::<MessageUpdate>(v).map(drop),
            "tool_execution_start" => decode::<ToolStart>(v).map(drop),
            "tool_execution_update" => decode::<ToolUpdate>(v).map(drop),
            "tool_execution_end" => decode::<ToolEnd>(v).map(drop),
            "auto_compaction_start" => decode::<CompactionStart>(v).map(drop),
            "auto_compaction_end" => decode::<CompactionEnd>(v).map(drop),
            "auto_retry_start" => decode::<RetryStart>(v).map(drop),
            _ => decode::<RetryEnd>(v).map(drop),
        }
    }
}

impl<'de> Deserialize<'de> for AgentEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        AgentEvent::validate(&v).map_err(nested)?;
        Ok(AgentEvent(v))
    }
}

/// Expect of a `subscribe` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SubscribeExpect {
    /// Texts through the block-reply callback.
    pub block_replies: Option<Vec<String>>,
    /// Final assistant texts.
    pub assistant_texts: Option<Vec<String>>,
    /// Partial replies.
    pub partial_replies: Option<Vec<String>>,
    /// Tool metas.
    pub tool_metas: Option<Vec<ToolMeta>>,
    /// Last tool error.
    pub last_tool_error: Option<LastToolError>,
    /// Texts sent by messaging tools.
    pub messaging_tool_sent_texts: Option<Vec<String>>,
    /// Accumulated usage.
    pub usage: Option<SubscribeUsage>,
    /// Compactions seen.
    pub compaction_count: Option<f64>,
    /// The compaction wait resolved.
    pub compaction_wait_resolved: Option<bool>,
}

/// `{"toolName","meta"?}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolMeta {
    /// Tool name (required, may be null).
    pub tool_name: Nullable<String>,
    /// Meta text.
    pub meta: Option<String>,
}

/// `{"toolName","error"?}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LastToolError {
    /// Tool name.
    pub tool_name: Option<String>,
    /// Error text.
    pub error: Option<String>,
}

/// Accumulated usage (OpenClaw names).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SubscribeUsage {
    /// Input tokens.
    pub input: Option<f64>,
    /// Output tokens.
    pub output: Option<f64>,
    /// Cache-read tokens.
    pub cache_read: Option<f64>,
    /// Cache-write tokens.
    pub cache_write: Option<f64>,
    /// Total.
    pub total: Option<f64>,
}
