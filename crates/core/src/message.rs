//! The message model: content blocks, LLM messages and pi-coding-agent messages.
//!
//! Everything here reads and writes pi's JSON (reference pi-mono §1.1 and §3.2): camelCase keys,
//! optional fields omitted when absent, keys written in the order pi writes them, and fields
//! this version does not know kept in `extra` so a read-modify-write loses nothing. A content
//! block of an unknown `type` and a message of an unknown `role` are kept verbatim as well.
//!
//! Each struct writes its own tag (`type` for blocks, `role` for messages), so a struct
//! serialized on its own (a [`ToolResultMessage`] inside `turn_end`, say) is still pi's JSON.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::classify::FailoverSignal;
use crate::error_diagnostics::ErrorDiagnostics;
use crate::model::{Api, Model};
use crate::{StopReason, Usage};

/// A JSON object, as pi keeps unknown data.
pub type JsonObject = Map<String, Value>;

/// Removes the tag key from the fields collected in `extra`, checking its value.
///
/// Serde routes the tag into the flattened map when a tagged struct is read on its own; a
/// missing tag is accepted because the enclosing enum has already dispatched on it.
///
/// `shift_remove`, not `remove`: with `preserve_order` the latter swaps the last key into the
/// hole and reorders the unknown fields written back.
fn strip_tag<E: de::Error>(
    mut map: JsonObject,
    key: &str,
    expected: &str,
) -> Result<JsonObject, E> {
    match map.shift_remove(key) {
        None => Ok(map),
        Some(Value::String(found)) if found == expected => Ok(map),
        Some(other) => Err(E::custom(format!(
            "expected {key} {expected:?}, found {other}"
        ))),
    }
}

/// Defines a `deserialize_with` function for the `extra` map of one tagged struct.
macro_rules! extra_without_tag {
    ($name:ident, $key:literal, $value:literal) => {
        fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<JsonObject, D::Error> {
            strip_tag(JsonObject::deserialize(d)?, $key, $value)
        }
    };
}

extra_without_tag!(extra_text, "type", "text");
extra_without_tag!(extra_thinking, "type", "thinking");
extra_without_tag!(extra_image, "type", "image");
extra_without_tag!(extra_tool_call, "type", "toolCall");
extra_without_tag!(extra_user, "role", "user");
extra_without_tag!(extra_assistant, "role", "assistant");
extra_without_tag!(extra_tool_result, "role", "toolResult");
extra_without_tag!(extra_bash, "role", "bashExecution");
extra_without_tag!(extra_custom, "role", "custom");
extra_without_tag!(extra_branch_summary, "role", "branchSummary");
extra_without_tag!(extra_compaction_summary, "role", "compactionSummary");

/// Reads a present `details` as `Some`, even when it is `null`, so `"details":null` survives a
/// round trip (plain `Option` would turn it into an absent field).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

fn empty_object() -> Value {
    Value::Object(JsonObject::new())
}

// --- content blocks ---------------------------------------------------------------------------

/// A text block (`{"type":"text","text":…}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "text", rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Provider metadata of the text item (OpenAI Responses message id, Google signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_text")]
    pub extra: JsonObject,
}

/// A reasoning block (`{"type":"thinking","thinking":…}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "thinking", rename_all = "camelCase")]
pub struct ThinkingContent {
    /// The reasoning text (empty for redacted thinking).
    pub thinking: String,
    /// What the provider needs to replay this block (signature, encrypted item, field name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// Set when the provider redacted the reasoning; the signature then holds the opaque data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_thinking")]
    pub extra: JsonObject,
}

/// An image block: base64 data without a `data:` prefix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "image", rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_image")]
    pub extra: JsonObject,
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "toolCall", rename_all = "camelCase")]
pub struct ToolCall {
    /// Provider-assigned call id; the tool result refers to it.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Parsed arguments, a JSON object.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Google thought signature (OpenRouter: JSON of a `reasoning.encrypted` detail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Fields this version does not know (e.g. a stale `partialJson`), kept verbatim.
    #[serde(flatten, deserialize_with = "extra_tool_call")]
    pub extra: JsonObject,
}

impl ToolCall {
    /// The `extra` key of a call whose arguments the decoder refused to read (too large): its
    /// value is the reason, which becomes the call's error result; the call never runs.
    pub const ARGUMENTS_ERROR_KEY: &'static str = "argumentsError";

    /// A tool call with the given id, name and arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
            thought_signature: None,
            extra: JsonObject::new(),
        }
    }

    /// A call whose arguments were refused for `reason`: empty arguments, and the reason
    /// kept under [`ARGUMENTS_ERROR_KEY`](Self::ARGUMENTS_ERROR_KEY) (so the transcript says
    /// why the call failed).
    pub fn refused(id: impl Into<String>, name: impl Into<String>, reason: String) -> Self {
        let mut call = ToolCall::new(id, name, Value::Object(Map::new()));
        call.extra
            .insert(Self::ARGUMENTS_ERROR_KEY.to_owned(), Value::String(reason));
        call
    }

    /// Why the arguments were refused, if they were.
    pub fn arguments_error(&self) -> Option<&str> {
        self.extra.get(Self::ARGUMENTS_ERROR_KEY)?.as_str()
    }
}

/// One content block, discriminated by `type`.
///
/// A block of a type this version does not know is kept verbatim in [`ContentBlock::Other`]
/// instead of failing the whole message.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    /// `type: "text"`.
    Text(TextContent),
    /// `type: "thinking"`.
    Thinking(ThinkingContent),
    /// `type: "image"`.
    Image(ImageContent),
    /// `type: "toolCall"`.
    ToolCall(ToolCall),
    /// Any other block (or one without a `type`), unchanged.
    Other(JsonObject),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            ..TextContent::default()
        })
    }

    /// An image block.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            extra: JsonObject::new(),
        })
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The tool call of a tool-call block.
    pub fn as_tool_call(&self) -> Option<&ToolCall> {
        match self {
            ContentBlock::ToolCall(c) => Some(c),
            _ => None,
        }
    }

    /// The wire `type` (`None` for an unknown block without a string `type`).
    pub fn type_name(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(_) => Some("text"),
            ContentBlock::Thinking(_) => Some("thinking"),
            ContentBlock::Image(_) => Some("image"),
            ContentBlock::ToolCall(_) => Some("toolCall"),
            ContentBlock::Other(map) => map.get("type").and_then(Value::as_str),
        }
    }

    fn from_object(map: JsonObject) -> Result<Self, serde_json::Error> {
        enum Kind {
            Text,
            Thinking,
            Image,
            ToolCall,
        }
        let kind = match map.get("type").and_then(Value::as_str) {
            Some("text") => Kind::Text,
            Some("thinking") => Kind::Thinking,
            Some("image") => Kind::Image,
            Some("toolCall") => Kind::ToolCall,
            _ => return Ok(ContentBlock::Other(map)),
        };
        let value = Value::Object(map);
        Ok(match kind {
            Kind::Text => ContentBlock::Text(TextContent::deserialize(value)?),
            Kind::Thinking => ContentBlock::Thinking(ThinkingContent::deserialize(value)?),
            Kind::Image => ContentBlock::Image(ImageContent::deserialize(value)?),
            Kind::ToolCall => ContentBlock::ToolCall(ToolCall::deserialize(value)?),
        })
    }
}

impl From<TextContent> for ContentBlock {
    fn from(b: TextContent) -> Self {
        ContentBlock::Text(b)
    }
}

impl From<ThinkingContent> for ContentBlock {
    fn from(b: ThinkingContent) -> Self {
        ContentBlock::Thinking(b)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(b: ImageContent) -> Self {
        ContentBlock::Image(b)
    }
}

impl From<ToolCall> for ContentBlock {
    fn from(b: ToolCall) -> Self {
        ContentBlock::ToolCall(b)
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ContentBlock::Text(b) => b.serialize(s),
            ContentBlock::Thinking(b) => b.serialize(s),
            ContentBlock::Image(b) => b.serialize(s),
            ContentBlock::ToolCall(b) => b.serialize(s),
            ContentBlock::Other(map) => map.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        ContentBlock::from_object(JsonObject::deserialize(d)?).map_err(de::Error::custom)
    }
}

/// The text blocks of `blocks`, joined with `"\n"` (pi's way of flattening content to text).
pub fn join_text(blocks: &[ContentBlock]) -> String {
    let mut out = String::new();
    for (i, text) in blocks.iter().filter_map(ContentBlock::as_text).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// Content that pi allows to be a plain string or a list of blocks (user and custom messages).
#[derive(Debug, Clone, PartialEq)]
pub enum UserContent {
    /// `"content": "…"`.
    Text(String),
    /// `"content": [ … ]`.
    Blocks(Vec<ContentBlock>),
}

impl UserContent {
    /// The text: the string itself, or the text blocks joined with `"\n"`.
    pub fn text(&self) -> String {
        match self {
            UserContent::Text(s) => s.clone(),
            UserContent::Blocks(blocks) => join_text(blocks),
        }
    }

    /// The content as blocks (a string becomes one text block), as sent to a model.
    pub fn to_blocks(&self) -> Vec<ContentBlock> {
        match self {
            UserContent::Text(s) => vec![ContentBlock::text(s.clone())],
            UserContent::Blocks(blocks) => blocks.clone(),
        }
    }
}

impl Default for UserContent {
    fn default() -> Self {
        UserContent::Blocks(Vec::new())
    }
}

impl From<String> for UserContent {
    fn from(s: String) -> Self {
        UserContent::Text(s)
    }
}

impl From<&str> for UserContent {
    fn from(s: &str) -> Self {
        UserContent::Text(s.to_owned())
    }
}

impl From<Vec<ContentBlock>> for UserContent {
    fn from(blocks: Vec<ContentBlock>) -> Self {
        UserContent::Blocks(blocks)
    }
}

impl Serialize for UserContent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            UserContent::Text(text) => s.serialize_str(text),
            UserContent::Blocks(blocks) => blocks.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for UserContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor;

        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = UserContent;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of content blocks")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<UserContent, E> {
                Ok(UserContent::Text(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<UserContent, E> {
                Ok(UserContent::Text(v))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UserContent, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(block) = seq.next_element::<ContentBlock>()? {
                    blocks.push(block);
                }
                Ok(UserContent::Blocks(blocks))
            }
        }

        d.deserialize_any(ContentVisitor)
    }
}

// --- LLM messages -----------------------------------------------------------------------------

/// A user message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "user", rename_all = "camelCase")]
pub struct UserMessage {
    /// A string or text and image blocks.
    pub content: UserContent,
    /// Unix time in ms.
    pub timestamp: u64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_user")]
    pub extra: JsonObject,
}

impl UserMessage {
    /// A user message with one text block, as pi's `prompt(text)` builds it.
    pub fn text(text: impl Into<String>, timestamp: u64) -> Self {
        UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text(text)]),
            timestamp,
            extra: JsonObject::new(),
        }
    }
}

/// An assistant message: the model's answer, or what was streamed before a failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "assistant", rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks.
    pub content: Vec<ContentBlock>,
    /// The wire API that produced the message.
    pub api: Api,
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Token counts and cost.
    pub usage: Usage,
    /// Why the message ended.
    pub stop_reason: StopReason,
    /// Unix time in ms, taken when the request started.
    pub timestamp: u64,
    /// Why the request failed (set with `stopReason` `error` or `aborted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Fields this version does not know (`responseId`, `diagnostics`, …), kept verbatim.
    #[serde(flatten, deserialize_with = "extra_assistant")]
    pub extra: JsonObject,
    /// The failure as data (HTTP status, `retry-after`, request id, provider error code), set
    /// by providers on the message of a failed call. Never written or read: pi's JSON has no
    /// such field, so a transcript line is the same with or without it.
    #[serde(skip)]
    pub error_diagnostics: Option<Box<ErrorDiagnostics>>,
}

impl AssistantMessage {
    /// The message a provider starts from: no content, zero usage, `stopReason: "stop"`.
    pub fn empty(
        api: impl Into<Api>,
        provider: impl Into<String>,
        model: impl Into<String>,
        timestamp: u64,
    ) -> Self {
        AssistantMessage {
            content: Vec::new(),
            api: api.into(),
            provider: provider.into(),
            model: model.into(),
            usage: Usage::default(),
            stop_reason: StopReason::Stop,
            timestamp,
            error_message: None,
            extra: JsonObject::new(),
            error_diagnostics: None,
        }
    }

    /// [`AssistantMessage::empty`] for `model`.
    pub fn for_model(model: &Model, timestamp: u64) -> Self {
        AssistantMessage::empty(
            model.api.clone(),
            model.provider.clone(),
            model.id.clone(),
            timestamp,
        )
    }

    /// The text blocks joined with `"\n"`.
    pub fn text(&self) -> String {
        join_text(&self.content)
    }

    /// The tool calls, in content order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(ContentBlock::as_tool_call)
    }

    /// What classification reads of this message's failure: its `errorMessage` (empty when
    /// none), its provider, and the status and error code of
    /// [`error_diagnostics`](Self::error_diagnostics) when the provider reported them.
    pub fn failover_signal(&self) -> FailoverSignal<'_> {
        let message = self.error_message.as_deref().unwrap_or_default();
        let provider = Some(self.provider.as_str());
        match self.error_diagnostics.as_deref() {
            Some(diagnostics) => diagnostics.failover_signal(message, provider),
            None => FailoverSignal {
                message,
                provider,
                ..FailoverSignal::default()
            },
        }
    }
}

/// The result of one tool call, sent back to the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "toolResult", rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The called tool's name.
    pub tool_name: String,
    /// Text and image blocks.
    pub content: Vec<ContentBlock>,
    /// Tool-specific data for the UI; never sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Whether the tool failed.
    pub is_error: bool,
    /// Unix time in ms.
    pub timestamp: u64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_tool_result")]
    pub extra: JsonObject,
}

impl ToolResultMessage {
    /// A result with one text block.
    pub fn text(
        tool_call_id: impl Into<String>,
        tool_name: impl Into<String>,
        text: impl Into<String>,
        is_error: bool,
        timestamp: u64,
    ) -> Self {
        ToolResultMessage {
            tool_call_id: tool_call_id.into(),
            tool_name: tool_name.into(),
            content: vec![ContentBlock::text(text)],
            details: None,
            is_error,
            timestamp,
            extra: JsonObject::new(),
        }
    }

    /// The text blocks joined with `"\n"`.
    pub fn text_content(&self) -> String {
        join_text(&self.content)
    }
}

/// A message as sent to a model (pi-ai's `Message`), tagged by `role`.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "about half of a conversation is assistant messages, so boxing them would cost an allocation per message and change every match across the crates"
)]
pub enum Message {
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
}

impl Message {
    /// The wire role.
    pub fn role(&self) -> &'static str {
        match self {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::ToolResult(_) => "toolResult",
        }
    }

    /// Unix time in ms.
    pub fn timestamp(&self) -> u64 {
        match self {
            Message::User(m) => m.timestamp,
            Message::Assistant(m) => m.timestamp,
            Message::ToolResult(m) => m.timestamp,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Message::User(m) => m.serialize(s),
            Message::Assistant(m) => m.serialize(s),
            Message::ToolResult(m) => m.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match AgentMessage::from_object(JsonObject::deserialize(d)?).map_err(de::Error::custom)? {
            AgentMessage::User(m) => Ok(Message::User(m)),
            AgentMessage::Assistant(m) => Ok(Message::Assistant(m)),
            AgentMessage::ToolResult(m) => Ok(Message::ToolResult(m)),
            other => Err(de::Error::custom(format!(
                "unknown message role {:?} (expected user, assistant or toolResult)",
                other.role()
            ))),
        }
    }
}

impl From<UserMessage> for Message {
    fn from(m: UserMessage) -> Self {
        Message::User(m)
    }
}

impl From<AssistantMessage> for Message {
    fn from(m: AssistantMessage) -> Self {
        Message::Assistant(m)
    }
}

impl From<ToolResultMessage> for Message {
    fn from(m: ToolResultMessage) -> Self {
        Message::ToolResult(m)
    }
}

// --- pi-coding-agent messages -------------------------------------------------------------------

/// A shell command the user ran (`!cmd`), kept in the conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "bashExecution", rename_all = "camelCase")]
pub struct BashExecutionMessage {
    /// The command line.
    pub command: String,
    /// Its (possibly truncated) output.
    pub output: String,
    /// Exit code; absent when the process did not exit normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Whether the user cancelled it.
    pub cancelled: bool,
    /// Whether `output` was truncated.
    pub truncated: bool,
    /// Where the full output was saved when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// Unix time in ms.
    pub timestamp: u64,
    /// `!!cmd`: shown to the user but never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_bash")]
    pub extra: JsonObject,
}

/// A message injected by an extension (`custom_message` entries in a session).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "custom", rename_all = "camelCase")]
pub struct CustomMessage {
    /// The extension's message type.
    pub custom_type: String,
    /// Sent to the model as a user message.
    pub content: UserContent,
    /// Whether the UI shows it.
    pub display: bool,
    /// Extension data; never sent to the model.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Unix time in ms.
    pub timestamp: u64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_custom")]
    pub extra: JsonObject,
}

/// The summary of a branch the conversation came back from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "branchSummary", rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// The entry the summarized branch left from.
    pub from_id: String,
    /// Unix time in ms.
    pub timestamp: u64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_branch_summary")]
    pub extra: JsonObject,
}

/// The summary that replaces compacted history.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "compactionSummary", rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Context tokens before the compaction.
    pub tokens_before: u64,
    /// Unix time in ms.
    pub timestamp: u64,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten, deserialize_with = "extra_compaction_summary")]
    pub extra: JsonObject,
}

/// Any message of the agent's conversation (pi-agent-core's `AgentMessage` with the
/// pi-coding-agent roles), tagged by `role`.
///
/// A message with a role this version does not know is kept verbatim in
/// [`AgentMessage::Other`]; [`convert_to_llm`] drops it.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "about half of a conversation is assistant messages, so boxing them would cost an allocation per message and change every match across the crates"
)]
pub enum AgentMessage {
    /// `role: "user"`.
    User(UserMessage),
    /// `role: "assistant"`.
    Assistant(AssistantMessage),
    /// `role: "toolResult"`.
    ToolResult(ToolResultMessage),
    /// `role: "bashExecution"`.
    BashExecution(BashExecutionMessage),
    /// `role: "custom"`.
    Custom(CustomMessage),
    /// `role: "branchSummary"`.
    BranchSummary(BranchSummaryMessage),
    /// `role: "compactionSummary"`.
    CompactionSummary(CompactionSummaryMessage),
    /// Any other role, unchanged.
    Other(JsonObject),
}

impl AgentMessage {
    /// The wire role (`""` for an unknown message whose role is not a string).
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::User(_) => "user",
            AgentMessage::Assistant(_) => "assistant",
            AgentMessage::ToolResult(_) => "toolResult",
            AgentMessage::BashExecution(_) => "bashExecution",
            AgentMessage::Custom(_) => "custom",
            AgentMessage::BranchSummary(_) => "branchSummary",
            AgentMessage::CompactionSummary(_) => "compactionSummary",
            AgentMessage::Other(map) => map.get("role").and_then(Value::as_str).unwrap_or(""),
        }
    }

    /// Unix time in ms (`None` for an unknown message without a numeric `timestamp`).
    pub fn timestamp(&self) -> Option<u64> {
        match self {
            AgentMessage::User(m) => Some(m.timestamp),
            AgentMessage::Assistant(m) => Some(m.timestamp),
            AgentMessage::ToolResult(m) => Some(m.timestamp),
            AgentMessage::BashExecution(m) => Some(m.timestamp),
            AgentMessage::Custom(m) => Some(m.timestamp),
            AgentMessage::BranchSummary(m) => Some(m.timestamp),
            AgentMessage::CompactionSummary(m) => Some(m.timestamp),
            AgentMessage::Other(map) => map.get("timestamp").and_then(Value::as_u64),
        }
    }

    /// The message's own text: content text blocks joined with `"\n"` (a string content as
    /// is), a summary's text, a shell command's output; `""` for unknown roles.
    pub fn text(&self) -> String {
        match self {
            AgentMessage::User(m) => m.content.text(),
            AgentMessage::Assistant(m) => m.text(),
            AgentMessage::ToolResult(m) => m.text_content(),
            AgentMessage::BashExecution(m) => m.output.clone(),
            AgentMessage::Custom(m) => m.content.text(),
            AgentMessage::BranchSummary(m) => m.summary.clone(),
            AgentMessage::CompactionSummary(m) => m.summary.clone(),
            AgentMessage::Other(_) => String::new(),
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            AgentMessage::Assistant(m) => Some(m),
            _ => None,
        }
    }

    /// The message the model sees for this one (pi-coding-agent's `convertToLlm` for a single
    /// message); `None` when it is not sent (excluded shell commands, unknown roles).
    pub fn to_llm(&self) -> Option<Message> {
        let user = |content: Vec<ContentBlock>, timestamp: u64| {
            Some(Message::User(UserMessage {
                content: UserContent::Blocks(content),
                timestamp,
                extra: JsonObject::new(),
            }))
        };
        match self {
            AgentMessage::User(m) => Some(Message::User(m.clone())),
            AgentMessage::Assistant(m) => Some(Message::Assistant(m.clone())),
            AgentMessage::ToolResult(m) => Some(Message::ToolResult(m.clone())),
            AgentMessage::BashExecution(m) => {
                if m.exclude_from_context == Some(true) {
                    None
                } else {
                    user(
                        vec![ContentBlock::text(bash_execution_to_text(m))],
                        m.timestamp,
                    )
                }
            }
            AgentMessage::Custom(m) => user(m.content.to_blocks(), m.timestamp),
            AgentMessage::BranchSummary(m) => user(
                vec![ContentBlock::text(format!(
                    "{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}",
                    m.summary
                ))],
                m.timestamp,
            ),
            AgentMessage::CompactionSummary(m) => user(
                vec![ContentBlock::text(format!(
                    "{COMPACTION_SUMMARY_PREFIX}{}{COMPACTION_SUMMARY_SUFFIX}",
                    m.summary
                ))],
                m.timestamp,
            ),
            AgentMessage::Other(_) => None,
        }
    }

    fn from_object(map: JsonObject) -> Result<Self, serde_json::Error> {
        enum Role {
            User,
            Assistant,
            ToolResult,
            BashExecution,
            Custom,
            BranchSummary,
            CompactionSummary,
        }
        let role = match map.get("role") {
            None => return Err(de::Error::missing_field("role")),
            Some(Value::String(role)) => match role.as_str() {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "toolResult" => Role::ToolResult,
                "bashExecution" => Role::BashExecution,
                "custom" => Role::Custom,
                "branchSummary" => Role::BranchSummary,
                "compactionSummary" => Role::CompactionSummary,
                _ => return Ok(AgentMessage::Other(map)),
            },
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "message role must be a string, found {other}"
                )));
            }
        };
        let value = Value::Object(map);
        Ok(match role {
            Role::User => AgentMessage::User(UserMessage::deserialize(value)?),
            Role::Assistant => AgentMessage::Assistant(AssistantMessage::deserialize(value)?),
            Role::ToolResult => AgentMessage::ToolResult(ToolResultMessage::deserialize(value)?),
            Role::BashExecution => {
                AgentMessage::BashExecution(BashExecutionMessage::deserialize(value)?)
            }
            Role::Custom => AgentMessage::Custom(CustomMessage::deserialize(value)?),
            Role::BranchSummary => {
                AgentMessage::BranchSummary(BranchSummaryMessage::deserialize(value)?)
            }
            Role::CompactionSummary => {
                AgentMessage::CompactionSummary(CompactionSummaryMessage::deserialize(value)?)
            }
        })
    }
}

impl Serialize for AgentMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentMessage::User(m) => m.serialize(s),
            AgentMessage::Assistant(m) => m.serialize(s),
            AgentMessage::ToolResult(m) => m.serialize(s),
            AgentMessage::BashExecution(m) => m.serialize(s),
            AgentMessage::Custom(m) => m.serialize(s),
            AgentMessage::BranchSummary(m) => m.serialize(s),
            AgentMessage::CompactionSummary(m) => m.serialize(s),
            AgentMessage::Other(map) => map.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for AgentMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        AgentMessage::from_object(JsonObject::deserialize(d)?).map_err(de::Error::custom)
    }
}

impl From<Message> for AgentMessage {
    fn from(m: Message) -> Self {
        match m {
            Message::User(m) => AgentMessage::User(m),
            Message::Assistant(m) => AgentMessage::Assistant(m),
            Message::ToolResult(m) => AgentMessage::ToolResult(m),
        }
    }
}

impl From<UserMessage> for AgentMessage {
    fn from(m: UserMessage) -> Self {
        AgentMessage::User(m)
    }
}

impl From<AssistantMessage> for AgentMessage {
    fn from(m: AssistantMessage) -> Self {
        AgentMessage::Assistant(m)
    }
}

impl From<ToolResultMessage> for AgentMessage {
    fn from(m: ToolResultMessage) -> Self {
        AgentMessage::ToolResult(m)
    }
}

// --- convertToLlm -----------------------------------------------------------------------------

/// Text before a branch summary sent to the model.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// Text after a branch summary sent to the model (pi has no newline before the tag here).
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";
/// Text before a compaction summary sent to the model.
pub const COMPACTION_SUMMARY_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// Text after a compaction summary sent to the model.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";

/// The user text that stands for a shell command in the model's context (pi's
/// `bashExecutionToText`).
pub fn bash_execution_to_text(m: &BashExecutionMessage) -> String {
    let mut text = format!("Ran `{}`\n", m.command);
    if m.output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str("```\n");
        text.push_str(&m.output);
        text.push_str("\n```");
    }
    if m.cancelled {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = m.exit_code.filter(|&c| c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if m.truncated
        && let Some(path) = &m.full_output_path
    {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

/// The messages sent to the model for a conversation (pi-coding-agent's `convertToLlm`):
/// user, assistant and tool results as they are; shell commands, custom messages and summaries
/// as user messages; excluded shell commands and unknown roles dropped.
pub fn convert_to_llm(messages: &[AgentMessage]) -> Vec<Message> {
    messages.iter().filter_map(AgentMessage::to_llm).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// The message payloads of the real pi 0.58.3 session in pi-mono §3.3.9.
    const PI_USER: &str = r#"{"role":"user","content":[{"type":"text","text":"list files"}],"timestamp":1700000000000}"#;
    const PI_ASSISTANT_TOOL: &str = r#"{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"ls","arguments":{}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1700000001000}"#;
    const PI_TOOL_RESULT: &str = r#"{"role":"toolResult","toolCallId":"toolu_1","toolName":"ls","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":1700000002000}"#;
    const PI_ASSISTANT_TEXT: &str = r#"{"role":"assistant","content":[{"type":"text","text":"a.txt"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1700000003000}"#;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(raw: &str) -> String {
        let parsed: T = serde_json::from_str(raw).unwrap();
        serde_json::to_string(&parsed).unwrap()
    }

    #[test]
    fn pi_session_payloads_round_trip_byte_for_byte() {
        for raw in [
            PI_USER,
            PI_ASSISTANT_TOOL,
            PI_TOOL_RESULT,
            PI_ASSISTANT_TEXT,
        ] {
            assert_eq!(round_trip::<AgentMessage>(raw), raw);
            assert_eq!(round_trip::<Message>(raw), raw);
        }
        assert_eq!(round_trip::<UserMessage>(PI_USER), PI_USER);
        assert_eq!(
            round_trip::<AssistantMessage>(PI_ASSISTANT_TOOL),
            PI_ASSISTANT_TOOL
        );
        assert_eq!(
            round_trip::<ToolResultMessage>(PI_TOOL_RESULT),
            PI_TOOL_RESULT
        );
    }

    #[test]
    fn pi_payloads_parse_to_the_expected_values() {
        let AgentMessage::Assistant(m) = serde_json::from_str(PI_ASSISTANT_TOOL).unwrap() else {
            panic!("not an assistant message");
        };
        let mut expected = AssistantMessage::empty(
            Api::AnthropicMessages,
            "anthropic",
            "claude-sonnet-4-5",
            1_700_000_001_000,
        );
        expected.content = vec![ContentBlock::ToolCall(ToolCall::new(
            "toolu_1",
            "ls",
            json!({}),
        ))];
        expected.usage = Usage {
            input: 10,
            output: 5,
            total_tokens: 15,
            ..Usage::default()
        };
        expected.stop_reason = StopReason::ToolUse;
        assert_eq!(m, expected);
        assert_eq!(
            m.tool_calls().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["toolu_1"]
        );

        let user: UserMessage = serde_json::from_str(PI_USER).unwrap();
        assert_eq!(user, UserMessage::text("list files", 1_700_000_000_000));
    }

    #[test]
    fn error_message_follows_timestamp() {
        let mut m = AssistantMessage::empty("openai-completions", "openai", "gpt", 5);
        m.stop_reason = StopReason::Error;
        m.error_message = Some("boom".into());
        let json = serde_json::to_string(&m).unwrap();
        assert!(
            json.ends_with(r#""stopReason":"error","timestamp":5,"errorMessage":"boom"}"#),
            "{json}"
        );
        assert!(
            json.starts_with(r#"{"role":"assistant","content":[],"api":"openai-completions","#),
            "{json}"
        );
    }

    #[test]
    fn unknown_fields_and_block_types_survive() {
        let raw = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig","redacted":false,"future":1},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a"},"partialJson":"{\"path\":\"a\"}"},{"type":"audio","data":"AAA","format":"wav"},{"text":"no type"}],"api":"my-api","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"aborted","timestamp":1,"errorMessage":"x","responseId":"resp_1","diagnostics":{"a":[1,2]}}"#;
        let m: AgentMessage = serde_json::from_str(raw).unwrap();
        assert_eq!(serde_json::to_string(&m).unwrap(), raw);
        let AgentMessage::Assistant(a) = &m else {
            panic!("not assistant")
        };
        assert_eq!(a.api, Api::Other("my-api".into()));
        assert_eq!(a.extra.get("responseId"), Some(&json!("resp_1")));
        assert_eq!(a.content[2].type_name(), Some("audio"));
        assert_eq!(a.content[3].type_name(), None);
        let ContentBlock::ToolCall(call) = &a.content[1] else {
            panic!("not a tool call")
        };
        assert_eq!(
            call.extra.get("partialJson"),
            Some(&json!("{\"path\":\"a\"}"))
        );
    }

    #[test]
    fn unknown_role_is_kept_and_dropped_for_the_llm() {
        let raw = r#"{"role":"signal","payload":{"x":1},"timestamp":9}"#;
        let m: AgentMessage = serde_json::from_str(raw).unwrap();
        assert_eq!(m.role(), "signal");
        assert_eq!(m.timestamp(), Some(9));
        assert_eq!(serde_json::to_string(&m).unwrap(), raw);
        assert_eq!(m.to_llm(), None);
        let err = serde_json::from_str::<Message>(raw)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown message role \"signal\""), "{err}");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        for raw in [
            r#"{"content":"x","timestamp":1}"#,
            r#"{"role":7}"#,
            r#"{"role":"user","content":5,"timestamp":1}"#,
            r#"{"role":"user","content":[{"type":"text"}],"timestamp":1}"#,
            r#"{"role":"assistant"}"#,
            r#"[1,2]"#,
            r#""#,
        ] {
            assert!(serde_json::from_str::<AgentMessage>(raw).is_err(), "{raw}");
        }
        let wrong_tag = r#"{"role":"assistant","content":"x","timestamp":1}"#;
        assert!(serde_json::from_str::<UserMessage>(wrong_tag).is_err());
    }

    #[test]
    fn string_user_content_round_trips() {
        let raw = r#"{"role":"user","content":"hello","timestamp":3}"#;
        let m: UserMessage = serde_json::from_str(raw).unwrap();
        assert_eq!(m.content, UserContent::Text("hello".into()));
        assert_eq!(serde_json::to_string(&m).unwrap(), raw);
    }

    #[test]
    fn coding_agent_roles_round_trip() {
        for raw in [
            r#"{"role":"bashExecution","command":"ls","output":"a","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1}"#,
            r#"{"role":"bashExecution","command":"ls","output":"","cancelled":true,"truncated":true,"fullOutputPath":"/tmp/o","timestamp":1,"excludeFromContext":true}"#,
            r#"{"role":"custom","customType":"my-ext","content":"injected","display":true,"timestamp":2}"#,
            r#"{"role":"custom","customType":"my-ext","content":[{"type":"text","text":"a"}],"display":false,"details":{"n":1},"timestamp":2}"#,
            r#"{"role":"branchSummary","summary":"B","fromId":"7e59a477","timestamp":3}"#,
            r#"{"role":"compactionSummary","summary":"S","tokensBefore":1234,"timestamp":4}"#,
        ] {
            assert_eq!(round_trip::<AgentMessage>(raw), raw);
        }
    }

    #[test]
    fn convert_to_llm_follows_pi() {
        let bash = |output: &str, exit_code, cancelled, truncated| BashExecutionMessage {
            command: "make".into(),
            output: output.into(),
            exit_code,
            cancelled,
            truncated,
            full_output_path: Some("/tmp/full.log".into()),
            timestamp: 1,
            ..BashExecutionMessage::default()
        };
        assert_eq!(
            bash_execution_to_text(&bash("ok", Some(0), false, false)),
            "Ran `make`\n```\nok\n```"
        );
        assert_eq!(
            bash_execution_to_text(&bash("", Some(2), false, true)),
            "Ran `make`\n(no output)\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/full.log]"
        );
        assert_eq!(
            bash_execution_to_text(&bash("x", Some(2), true, false)),
            "Ran `make`\n```\nx\n```\n\n(command cancelled)"
        );

        let excluded = BashExecutionMessage {
            exclude_from_context: Some(true),
            ..bash("x", None, false, false)
        };
        let messages = vec![
            AgentMessage::User(UserMessage::text("hi", 1)),
            AgentMessage::BashExecution(excluded),
            AgentMessage::BashExecution(bash("ok", None, false, false)),
            AgentMessage::Custom(CustomMessage {
                custom_type: "t".into(),
                content: "note".into(),
                display: true,
                timestamp: 2,
                ..CustomMessage::default()
            }),
            AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: "B".into(),
                from_id: "x".into(),
                timestamp: 3,
                ..BranchSummaryMessage::default()
            }),
            AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: "S".into(),
                tokens_before: 9,
                timestamp: 4,
                ..CompactionSummaryMessage::default()
            }),
            AgentMessage::Other(JsonObject::new()),
        ];
        let texts: Vec<(String, u64)> = convert_to_llm(&messages)
            .into_iter()
            .map(|m| match m {
                Message::User(u) => (u.content.text(), u.timestamp),
                other => panic!("unexpected {other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            vec![
                ("hi".to_owned(), 1),
                ("Ran `make`\n```\nok\n```".to_owned(), 1),
                ("note".to_owned(), 2),
                ("The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>".to_owned(), 3),
                ("The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>".to_owned(), 4),
            ]
        );
    }

    #[test]
    fn text_accessors_join_with_newline() {
        let mut m = AssistantMessage::empty("ollama", "ollama", "m", 0);
        m.content = vec![
            ContentBlock::text("a"),
            ContentBlock::Thinking(ThinkingContent {
                thinking: "t".into(),
                ..ThinkingContent::default()
            }),
            ContentBlock::ToolCall(ToolCall::new("1", "x", json!({}))),
            ContentBlock::text("b"),
        ];
        assert_eq!(m.text(), "a\nb");
        assert_eq!(AgentMessage::from(m).text(), "a\nb");
        assert_eq!(
            UserContent::Blocks(vec![ContentBlock::image("AA", "image/png")]).text(),
            ""
        );
    }
}
