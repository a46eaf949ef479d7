//! Provider stream events (pi's `AssistantMessageEvent`, reference pi-mono §1.4) and the
//! accumulator that builds the assistant message from them.
//!
//! # Contract (SPEC §3)
//!
//! A provider stream is `start`, then content events, then exactly one terminal event: `done`
//! (with the final message) or `error` (reason `error` or `aborted`, with the message so far —
//! **partial content is kept** — and `errorMessage`). Once a stream is open, every failure
//! arrives as that final `error` event; nothing is thrown past it. A stream that ends without
//! its terminal event is an error with the message [`STREAM_ENDED_BEFORE_COMPLETION`], never a
//! success: see [`AssistantMessageBuilder::ended_without_terminal`] and
//! [`crate::provider::ensure_terminal`].
//!
//! # Why events carry no `partial`
//!
//! pi puts the whole message being built on every event. Copying it per delta would make each
//! delta cost as much as the message so far, so delta events here carry only the delta; a
//! consumer that needs the message applies the events to an [`AssistantMessageBuilder`].
//! `start` carries the initial message and the terminal events the final one. When pi's exact
//! JSON is wanted, [`PiEvent`] writes an event together with a caller-supplied `partial`.
//! Reading accepts pi's JSON: `partial` is ignored, except that a `toolcall_start` without `id`
//! and `toolName` takes them from it.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::StopReason;
use crate::message::{AssistantMessage, ContentBlock, TextContent, ThinkingContent, ToolCall};

/// `errorMessage` of a stream that ended without `done` or `error`.
pub const STREAM_ENDED_BEFORE_COMPLETION: &str = "stream ended before completion";

/// `errorMessage` when a provider finishes with a failure stop reason but no error (pi's text).
pub const UNKNOWN_ERROR: &str = "An unknown error occurred";

/// One event of a provider stream. `content_index` indexes the message's `content`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase",
    from = "WireEvent"
)]
pub enum AssistantMessageEvent {
    /// The request is open. Carries the initial (normally empty) message.
    Start {
        /// The message the stream starts from (api, provider, model, timestamp).
        #[serde(skip_serializing_if = "Option::is_none")]
        partial: Option<Box<AssistantMessage>>,
    },
    /// A text block begins.
    TextStart {
        /// Index of the new block.
        content_index: usize,
    },
    /// More text.
    TextDelta {
        /// Index of the block.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A text block is complete.
    TextEnd {
        /// Index of the block.
        content_index: usize,
        /// The block's full text.
        content: String,
        /// The block's `textSignature`, if the provider gave one (not in pi's JSON).
        #[serde(skip_serializing_if = "Option::is_none")]
        content_signature: Option<String>,
    },
    /// A thinking block begins.
    ThinkingStart {
        /// Index of the new block.
        content_index: usize,
    },
    /// More reasoning.
    ThinkingDelta {
        /// Index of the block.
        content_index: usize,
        /// The new reasoning text.
        delta: String,
    },
    /// A thinking block is complete.
    ThinkingEnd {
        /// Index of the block.
        content_index: usize,
        /// The block's full reasoning text.
        content: String,
        /// The block's `thinkingSignature`, if any (not in pi's JSON).
        #[serde(skip_serializing_if = "Option::is_none")]
        content_signature: Option<String>,
    },
    /// A tool call begins.
    ToolcallStart {
        /// Index of the new block.
        content_index: usize,
        /// The call id (pi's JSON has it only inside `partial`).
        id: String,
        /// The tool name (pi's JSON has it only inside `partial`).
        tool_name: String,
    },
    /// A raw fragment of the arguments JSON; fragments may split anywhere, even inside a token.
    ToolcallDelta {
        /// Index of the block.
        content_index: usize,
        /// The fragment.
        delta: String,
    },
    /// A tool call is complete.
    ToolcallEnd {
        /// Index of the block.
        content_index: usize,
        /// The final call; `None` means "parse the fragments received".
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_call: Option<ToolCall>,
    },
    /// Terminal: the message is complete.
    Done {
        /// `stop`, `length` or `toolUse`.
        reason: StopReason,
        /// The final message.
        message: Box<AssistantMessage>,
    },
    /// Terminal: the request failed or was aborted.
    Error {
        /// `error` or `aborted`.
        reason: StopReason,
        /// The message so far, with `stopReason` and `errorMessage` set.
        error: Box<AssistantMessage>,
    },
}

impl AssistantMessageEvent {
    /// The wire `type`, e.g. `"text_delta"`.
    pub fn type_name(&self) -> &'static str {
        match self {
            AssistantMessageEvent::Start { .. } => "start",
            AssistantMessageEvent::TextStart { .. } => "text_start",
            AssistantMessageEvent::TextDelta { .. } => "text_delta",
            AssistantMessageEvent::TextEnd { .. } => "text_end",
            AssistantMessageEvent::ThinkingStart { .. } => "thinking_start",
            AssistantMessageEvent::ThinkingDelta { .. } => "thinking_delta",
            AssistantMessageEvent::ThinkingEnd { .. } => "thinking_end",
            AssistantMessageEvent::ToolcallStart { .. } => "toolcall_start",
            AssistantMessageEvent::ToolcallDelta { .. } => "toolcall_delta",
            AssistantMessageEvent::ToolcallEnd { .. } => "toolcall_end",
            AssistantMessageEvent::Done { .. } => "done",
            AssistantMessageEvent::Error { .. } => "error",
        }
    }

    /// Whether this is `done` or `error`.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. }
        )
    }

    /// The content index of a content event.
    pub fn content_index(&self) -> Option<usize> {
        match self {
            AssistantMessageEvent::TextStart { content_index }
            | AssistantMessageEvent::TextDelta { content_index, .. }
            | AssistantMessageEvent::TextEnd { content_index, .. }
            | AssistantMessageEvent::ThinkingStart { content_index }
            | AssistantMessageEvent::ThinkingDelta { content_index, .. }
            | AssistantMessageEvent::ThinkingEnd { content_index, .. }
            | AssistantMessageEvent::ToolcallStart { content_index, .. }
            | AssistantMessageEvent::ToolcallDelta { content_index, .. }
            | AssistantMessageEvent::ToolcallEnd { content_index, .. } => Some(*content_index),
            AssistantMessageEvent::Start { .. }
            | AssistantMessageEvent::Done { .. }
            | AssistantMessageEvent::Error { .. } => None,
        }
    }

    /// The final message of a terminal event.
    pub fn final_message(&self) -> Option<&AssistantMessage> {
        match self {
            AssistantMessageEvent::Done { message, .. } => Some(message),
            AssistantMessageEvent::Error { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The JSON read for an event: pi's shape or ours, with every field but `type` optional where
/// FORMAT.md allows it.
#[derive(Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum WireEvent {
    Start {
        #[serde(default)]
        partial: Option<Box<AssistantMessage>>,
    },
    TextStart {
        #[serde(default)]
        content_index: usize,
    },
    TextDelta {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        delta: String,
    },
    TextEnd {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        content: String,
        #[serde(default)]
        content_signature: Option<String>,
    },
    ThinkingStart {
        #[serde(default)]
        content_index: usize,
    },
    ThinkingDelta {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        delta: String,
    },
    ThinkingEnd {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        content: String,
        #[serde(default)]
        content_signature: Option<String>,
    },
    ToolcallStart {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        tool_name: Option<String>,
        #[serde(default)]
        partial: Option<PartialContent>,
    },
    ToolcallDelta {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        delta: String,
    },
    ToolcallEnd {
        #[serde(default)]
        content_index: usize,
        #[serde(default)]
        tool_call: Option<ToolCall>,
    },
    Done {
        reason: StopReason,
        message: Box<AssistantMessage>,
    },
    Error {
        reason: StopReason,
        error: Box<AssistantMessage>,
    },
}

/// Only the content of pi's `partial`, which is all a `toolcall_start` needs from it.
#[derive(Deserialize)]
struct PartialContent {
    #[serde(default)]
    content: Vec<ContentBlock>,
}

impl From<WireEvent> for AssistantMessageEvent {
    fn from(w: WireEvent) -> Self {
        use AssistantMessageEvent as E;
        match w {
            WireEvent::Start { partial } => E::Start { partial },
            WireEvent::TextStart { content_index } => E::TextStart { content_index },
            WireEvent::TextDelta {
                content_index,
                delta,
            } => E::TextDelta {
                content_index,
                delta,
            },
            WireEvent::TextEnd {
                content_index,
                content,
                content_signature,
            } => E::TextEnd {
                content_index,
                content,
                content_signature,
            },
            WireEvent::ThinkingStart { content_index } => E::ThinkingStart { content_index },
            WireEvent::ThinkingDelta {
                content_index,
                delta,
            } => E::ThinkingDelta {
                content_index,
                delta,
            },
            WireEvent::ThinkingEnd {
                content_index,
                content,
                content_signature,
            } => E::ThinkingEnd {
                content_index,
                content,
                content_signature,
            },
            WireEvent::ToolcallStart {
                content_index,
                id,
                tool_name,
                partial,
            } => {
                let from_partial = partial
                    .as_ref()
                    .and_then(|p| p.content.get(content_index))
                    .and_then(ContentBlock::as_tool_call);
                E::ToolcallStart {
                    content_index,
                    id: id
                        .or_else(|| from_partial.map(|c| c.id.clone()))
                        .unwrap_or_default(),
                    tool_name: tool_name
                        .or_else(|| from_partial.map(|c| c.name.clone()))
                        .unwrap_or_default(),
                }
            }
            WireEvent::ToolcallDelta {
                content_index,
                delta,
            } => E::ToolcallDelta {
                content_index,
                delta,
            },
            WireEvent::ToolcallEnd {
                content_index,
                tool_call,
            } => E::ToolcallEnd {
                content_index,
                tool_call,
            },
            WireEvent::Done { reason, message } => E::Done { reason, message },
            WireEvent::Error { reason, error } => E::Error { reason, error },
        }
    }
}

/// An event written exactly as pi writes it: with `partial` (except on the terminal events,
/// which pi writes without), without our extra fields (`id`/`toolName` on `toolcall_start`,
/// `contentSignature`), keys in pi's order.
#[derive(Debug, Clone, Copy)]
pub struct PiEvent<'a> {
    /// The event.
    pub event: &'a AssistantMessageEvent,
    /// The message as built so far, including this event.
    pub partial: &'a AssistantMessage,
}

impl Serialize for PiEvent<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use AssistantMessageEvent as E;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("type", self.event.type_name())?;
        match self.event {
            E::Start { .. } => {}
            E::TextStart { content_index }
            | E::ThinkingStart { content_index }
            | E::ToolcallStart { content_index, .. } => {
                map.serialize_entry("contentIndex", content_index)?;
            }
            E::TextDelta {
                content_index,
                delta,
            }
            | E::ThinkingDelta {
                content_index,
                delta,
            }
            | E::ToolcallDelta {
                content_index,
                delta,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("delta", delta)?;
            }
            E::TextEnd {
                content_index,
                content,
                ..
            }
            | E::ThinkingEnd {
                content_index,
                content,
                ..
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                map.serialize_entry("content", content)?;
            }
            E::ToolcallEnd {
                content_index,
                tool_call,
            } => {
                map.serialize_entry("contentIndex", content_index)?;
                let call = tool_call.as_ref().or_else(|| {
                    self.partial
                        .content
                        .get(*content_index)
                        .and_then(ContentBlock::as_tool_call)
                });
                if let Some(call) = call {
                    map.serialize_entry("toolCall", call)?;
                }
            }
            E::Done { reason, message } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("message", message)?;
                return map.end();
            }
            E::Error { reason, error } => {
                map.serialize_entry("reason", reason)?;
                map.serialize_entry("error", error)?;
                return map.end();
            }
        }
        map.serialize_entry("partial", self.partial)?;
        map.end()
    }
}

/// pi's JSON for `event` with `partial` (see [`PiEvent`]).
pub fn to_pi_json(
    event: &AssistantMessageEvent,
    partial: &AssistantMessage,
) -> Result<String, serde_json::Error> {
    serde_json::to_string(&PiEvent { event, partial })
}

/// The arguments JSON received so far for each tool-call block still streaming, kept at the
/// block's content index. Indexed, not searched: a Responses stream may keep thousands of calls
/// open at once (every item added before any is done), and a search of the open calls per
/// delta and per end made such a stream quadratic (issue 22 item 6).
#[derive(Debug, Clone, Default)]
struct PendingArguments {
    /// `Some` at the index of each call still streaming. It only grows, to at most the
    /// message's content length, so opening a call costs O(1) amortized (shrinking it after each
    /// call would refill the gap on the next one, O(blocks) per call).
    by_block: Vec<Option<String>>,
}

impl PendingArguments {
    fn get(&self, content_index: usize) -> Option<&String> {
        self.by_block.get(content_index)?.as_ref()
    }

    fn get_mut(&mut self, content_index: usize) -> Option<&mut String> {
        self.by_block.get_mut(content_index)?.as_mut()
    }

    /// Starts the arguments of the call at `content_index` over, empty.
    fn open(&mut self, content_index: usize) {
        if self.by_block.len() <= content_index {
            self.by_block.resize(content_index + 1, None);
        }
        if let Some(slot) = self.by_block.get_mut(content_index) {
            *slot = Some(String::new());
        }
    }

    /// Removes and returns the arguments of the call at `content_index`.
    fn take(&mut self, content_index: usize) -> Option<String> {
        self.by_block.get_mut(content_index)?.take()
    }

    fn clear(&mut self) {
        self.by_block.clear();
    }

    /// Every call still streaming, as `(content_index, json)`; the store is left empty.
    fn drain(&mut self) -> impl Iterator<Item = (usize, String)> {
        std::mem::take(&mut self.by_block)
            .into_iter()
            .enumerate()
            .filter_map(|(index, json)| Some((index, json?)))
    }

    fn open_calls(&self) -> impl Iterator<Item = (usize, &str)> {
        self.by_block
            .iter()
            .enumerate()
            .filter_map(|(index, json)| Some((index, json.as_deref()?)))
    }
}

/// Equal when the same calls are open with the same text, however far the store has grown.
impl PartialEq for PendingArguments {
    fn eq(&self, other: &Self) -> bool {
        self.open_calls().eq(other.open_calls())
    }
}

/// Builds the assistant message from stream events, in place: text is appended to its block,
/// tool-call argument fragments are collected as a string and parsed once, leniently, when the
/// call ends (or when the stream fails).
///
/// Providers use it to produce their terminal events ([`finish`](Self::finish),
/// [`fail`](Self::fail)); consumers use it to follow a stream. Events that do not fit the
/// message (a delta for a missing or different block) are ignored rather than trusted.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantMessageBuilder {
    message: AssistantMessage,
    pending: PendingArguments,
}

impl AssistantMessageBuilder {
    /// Starts from `initial` (normally [`AssistantMessage::empty`]).
    pub fn new(initial: AssistantMessage) -> Self {
        AssistantMessageBuilder {
            message: initial,
            pending: PendingArguments::default(),
        }
    }

    /// The message so far. Tool calls still streaming have `{}` arguments; see
    /// [`snapshot`](Self::snapshot) and [`pending_arguments`](Self::pending_arguments).
    pub fn message(&self) -> &AssistantMessage {
        &self.message
    }

    /// Mutable access, for what providers learn outside content events (usage, signatures,
    /// response ids).
    pub fn message_mut(&mut self) -> &mut AssistantMessage {
        &mut self.message
    }

    /// The raw arguments JSON received so far for the tool call at `content_index`.
    pub fn pending_arguments(&self, content_index: usize) -> Option<&str> {
        self.pending.get(content_index).map(String::as_str)
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &AssistantMessageEvent) {
        use AssistantMessageEvent as E;
        match event {
            E::Start { partial } => {
                if let Some(partial) = partial {
                    self.message = (**partial).clone();
                    self.pending.clear();
                }
            }
            E::TextStart { content_index } => {
                self.put_block(*content_index, ContentBlock::Text(TextContent::default()));
            }
            E::TextDelta {
                content_index,
                delta,
            } => {
                if let Some(ContentBlock::Text(b)) = self.message.content.get_mut(*content_index) {
                    b.text.push_str(delta);
                }
            }
            E::TextEnd {
                content_index,
                content,
                content_signature,
            } => {
                if let Some(ContentBlock::Text(b)) = self.message.content.get_mut(*content_index) {
                    // Lenient input may omit `content`; then the streamed text stands.
                    if !content.is_empty() && b.text != *content {
                        b.text.clone_from(content);
                    }
                    if content_signature.is_some() {
                        b.text_signature.clone_from(content_signature);
                    }
                }
            }
            E::ThinkingStart { content_index } => {
                self.put_block(
                    *content_index,
                    ContentBlock::Thinking(ThinkingContent::default()),
                );
            }
            E::ThinkingDelta {
                content_index,
                delta,
            } => {
                if let Some(ContentBlock::Thinking(b)) =
                    self.message.content.get_mut(*content_index)
                {
                    b.thinking.push_str(delta);
                }
            }
            E::ThinkingEnd {
                content_index,
                content,
                content_signature,
            } => {
                if let Some(ContentBlock::Thinking(b)) =
                    self.message.content.get_mut(*content_index)
                {
                    if !content.is_empty() && b.thinking != *content {
                        b.thinking.clone_from(content);
                    }
                    if content_signature.is_some() {
                        b.thinking_signature.clone_from(content_signature);
                    }
                }
            }
            E::ToolcallStart {
                content_index,
                id,
                tool_name,
            } => {
                let call = ToolCall::new(id.clone(), tool_name.clone(), Value::Object(Map::new()));
                let index = self.put_block(*content_index, ContentBlock::ToolCall(call));
                self.pending.open(index);
            }
            E::ToolcallDelta {
                content_index,
                delta,
            } => {
                if let Some(json) = self.pending.get_mut(*content_index) {
                    json.push_str(delta);
                }
            }
            E::ToolcallEnd {
                content_index,
                tool_call,
            } => match tool_call {
                Some(call) => {
                    self.pending.take(*content_index);
                    if let Some(slot @ ContentBlock::ToolCall(_)) =
                        self.message.content.get_mut(*content_index)
                    {
                        *slot = ContentBlock::ToolCall(call.clone());
                    }
                }
                None => self.settle_arguments(*content_index),
            },
            E::Done { message, .. } => {
                self.message = (**message).clone();
                self.pending.clear();
            }
            E::Error { error, .. } => {
                self.message = (**error).clone();
                self.pending.clear();
            }
        }
    }

    /// A copy of the message with the arguments of still-streaming tool calls parsed leniently
    /// (what pi shows as `partial` during `toolcall_delta`).
    pub fn snapshot(&self) -> AssistantMessage {
        let mut copy = self.clone();
        copy.settle_all();
        copy.message
    }

    /// The message, with pending tool-call arguments parsed leniently.
    pub fn into_message(mut self) -> AssistantMessage {
        self.settle_all();
        self.message
    }

    /// The `done` event. A failure `reason` becomes an `error` event with [`UNKNOWN_ERROR`]
    /// (as in pi). A message with tool calls ends with `toolUse` even when the server said
    /// `stop` (SPEC §4's fix over pi).
    pub fn finish(self, reason: StopReason) -> AssistantMessageEvent {
        if reason.is_failure() {
            return self.fail(reason, UNKNOWN_ERROR);
        }
        let mut message = self.into_message();
        let reason = if reason == StopReason::Stop && message.tool_calls().next().is_some() {
            StopReason::ToolUse
        } else {
            reason
        };
        message.stop_reason = reason;
        AssistantMessageEvent::Done {
            reason,
            message: Box::new(message),
        }
    }

    /// The `error` event: content so far kept, `stopReason` = `reason` (`aborted`, else
    /// `error`), `errorMessage` set.
    pub fn fail(
        self,
        reason: StopReason,
        error_message: impl Into<String>,
    ) -> AssistantMessageEvent {
        let reason = if reason == StopReason::Aborted {
            StopReason::Aborted
        } else {
            StopReason::Error
        };
        let mut message = self.into_message();
        message.stop_reason = reason;
        message.error_message = Some(error_message.into());
        AssistantMessageEvent::Error {
            reason,
            error: Box::new(message),
        }
    }

    /// The `error` event for a stream that ended without `done` or `error`:
    /// [`STREAM_ENDED_BEFORE_COMPLETION`], partial content kept.
    pub fn ended_without_terminal(self) -> AssistantMessageEvent {
        self.fail(StopReason::Error, STREAM_ENDED_BEFORE_COMPLETION)
    }

    /// Puts `block` at `index` (replacing what is there, or appending when `index` is past the
    /// end) and returns where it landed.
    fn put_block(&mut self, index: usize, block: ContentBlock) -> usize {
        match self.message.content.get_mut(index) {
            Some(slot) => {
                *slot = block;
                index
            }
            None => {
                self.message.content.push(block);
                self.message.content.len() - 1
            }
        }
    }

    fn settle_arguments(&mut self, content_index: usize) {
        let Some(json) = self.pending.take(content_index) else {
            return;
        };
        if let Some(ContentBlock::ToolCall(call)) = self.message.content.get_mut(content_index) {
            call.arguments = parse_arguments(&json);
        }
    }

    fn settle_all(&mut self) {
        for (content_index, json) in self.pending.drain() {
            if let Some(ContentBlock::ToolCall(call)) = self.message.content.get_mut(content_index)
            {
                call.arguments = parse_arguments(&json);
            }
        }
    }
}

/// Tool-call arguments from streamed JSON: [`parse_streaming_json`], and `{}` unless that is
/// an object (arguments are always an object).
fn parse_arguments(json: &str) -> Value {
    match parse_streaming_json(json) {
        v @ Value::Object(_) => v,
        _ => Value::Object(Map::new()),
    }
}

/// Parses JSON that may be cut off anywhere (pi's `parseStreamingJson`): strict JSON first;
/// else the prefix is repaired by closing open strings, arrays and objects (a dangling key, a
/// lone `-` or an unfinished escape is dropped; a partial literal such as `tru` counts as the
/// literal); else `{}`. Empty input is `{}`.
pub fn parse_streaming_json(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    if let Ok(value) = serde_json::from_str(text) {
        return value;
    }
    Lenient {
        src: text,
        pos: 0,
        depth: 0,
    }
    .value()
    .unwrap_or_else(|_| Value::Object(Map::new()))
}

/// Why the lenient parser stopped.
enum Stop {
    /// The input ended inside the value.
    Eof,
    /// The input is not a JSON prefix.
    Invalid,
}

/// Nesting deeper than this is treated as invalid rather than risking the stack.
const MAX_DEPTH: usize = 128;

/// A recursive-descent JSON parser that accepts any prefix of a valid document.
struct Lenient<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
}

impl Lenient<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Value, Stop> {
        self.skip_ws();
        match self.peek() {
            None => Err(Stop::Eof),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => self.string().map(|(s, _)| Value::String(s)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(Stop::Invalid),
        }
    }

    fn nested(&mut self, parse: fn(&mut Self) -> Result<Value, Stop>) -> Result<Value, Stop> {
        if self.depth >= MAX_DEPTH {
            return Err(Stop::Invalid);
        }
        self.depth += 1;
        let result = parse(self);
        self.depth -= 1;
        result
    }

    fn object(&mut self) -> Result<Value, Stop> {
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(Value::Object(map)),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                Some(b'"') => {}
                Some(_) => return Err(Stop::Invalid),
            }
            let (key, complete) = self.string()?;
            self.skip_ws();
            if !complete || self.peek().is_none() {
                return Ok(Value::Object(map));
            }
            if self.peek() != Some(b':') {
                return Err(Stop::Invalid);
            }
            self.pos += 1;
            match self.value() {
                Ok(v) => {
                    map.insert(key, v);
                }
                Err(Stop::Eof) => return Ok(Value::Object(map)),
                Err(Stop::Invalid) => return Err(Stop::Invalid),
            }
            self.skip_ws();
            match self.peek() {
                None => return Ok(Value::Object(map)),
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                Some(_) => return Err(Stop::Invalid),
            }
        }
    }

    fn array(&mut self) -> Result<Value, Stop> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(Value::Array(items)),
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(_) => {}
            }
            match self.value() {
                Ok(v) => items.push(v),
                Err(Stop::Eof) => return Ok(Value::Array(items)),
                Err(Stop::Invalid) => return Err(Stop::Invalid),
            }
            self.skip_ws();
            match self.peek() {
                None => return Ok(Value::Array(items)),
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(_) => return Err(Stop::Invalid),
            }
        }
    }

    /// A string starting at the opening quote; `false` when the input ended inside it.
    fn string(&mut self) -> Result<(String, bool), Stop> {
        self.pos += 1;
        let bytes = self.src.as_bytes();
        let mut out = String::new();
        loop {
            let Some(offset) = bytes[self.pos..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\')
            else {
                out.push_str(&self.src[self.pos..]);
                self.pos = bytes.len();
                return Ok((out, false));
            };
            let at = self.pos + offset;
            out.push_str(&self.src[self.pos..at]);
            if bytes[at] == b'"' {
                self.pos = at + 1;
                return Ok((out, true));
            }
            let Some(&escape) = bytes.get(at + 1) else {
                self.pos = bytes.len();
                return Ok((out, false));
            };
            self.pos = at + 2;
            match escape {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => match self.unicode_escape()? {
                    Some(c) => out.push(c),
                    None => {
                        self.pos = bytes.len();
                        return Ok((out, false));
                    }
                },
                _ => return Err(Stop::Invalid),
            }
        }
    }

    /// The character of a `\u` escape whose `XXXX` starts at `pos` (a surrogate pair takes the
    /// following `\uXXXX` too); `None` when the input ends inside it.
    fn unicode_escape(&mut self) -> Result<Option<char>, Stop> {
        let Some(high) = self.hex4(self.pos)? else {
            return Ok(None);
        };
        self.pos += 4;
        if !(0xD800..0xDC00).contains(&high) {
            return Ok(Some(
                char::from_u32(high).unwrap_or(char::REPLACEMENT_CHARACTER),
            ));
        }
        let bytes = self.src.as_bytes();
        match (bytes.get(self.pos), bytes.get(self.pos + 1)) {
            (None, _) | (Some(b'\\'), None) => return Ok(None),
            (Some(b'\\'), Some(b'u')) => {}
            _ => return Ok(Some(char::REPLACEMENT_CHARACTER)),
        }
        let Some(low) = self.hex4(self.pos + 2)? else {
            return Ok(None);
        };
        if !(0xDC00..0xE000).contains(&low) {
            return Ok(Some(char::REPLACEMENT_CHARACTER));
        }
        self.pos += 6;
        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        Ok(Some(
            char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER),
        ))
    }

    /// Four hex digits at `at`; `None` when the input ends first.
    fn hex4(&self, at: usize) -> Result<Option<u32>, Stop> {
        let bytes = self.src.as_bytes();
        let mut code = 0;
        for i in 0..4 {
            let Some(&b) = bytes.get(at + i) else {
                return Ok(None);
            };
            let digit = char::from(b).to_digit(16).ok_or(Stop::Invalid)?;
            code = code * 16 + digit;
        }
        Ok(Some(code))
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, Stop> {
        let rest = &self.src[self.pos..];
        if rest.starts_with(word) {
            self.pos += word.len();
            Ok(value)
        } else if word.starts_with(rest) {
            self.pos = self.src.len();
            Ok(value)
        } else {
            Err(Stop::Invalid)
        }
    }

    fn number(&mut self) -> Result<Value, Stop> {
        let start = self.pos;
        while matches!(
            self.peek(),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        ) {
            self.pos += 1;
        }
        let text = &self.src[start..self.pos];
        if let Ok(v @ Value::Number(_)) = serde_json::from_str(text) {
            return Ok(v);
        }
        if self.peek().is_some() {
            return Err(Stop::Invalid);
        }
        // Cut off mid-number (`1.`, `2e`, `-`): keep the digits that form a number.
        let trimmed = text.trim_end_matches(['.', 'e', 'E', '+', '-']);
        match serde_json::from_str(trimmed) {
            Ok(v @ Value::Number(_)) => Ok(v),
            _ => Err(Stop::Eof),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Usage;
    use crate::model::Api;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn empty() -> AssistantMessage {
        AssistantMessage::empty(Api::AnthropicMessages, "anthropic", "claude", 42)
    }

    fn delta(kind: &str, content_index: usize, delta: &str) -> AssistantMessageEvent {
        let delta = delta.to_owned();
        match kind {
            "text" => AssistantMessageEvent::TextDelta {
                content_index,
                delta,
            },
            "thinking" => AssistantMessageEvent::ThinkingDelta {
                content_index,
                delta,
            },
            _ => AssistantMessageEvent::ToolcallDelta {
                content_index,
                delta,
            },
        }
    }

    /// thinking, text, then a tool call whose arguments arrive split inside tokens.
    fn scripted() -> Vec<AssistantMessageEvent> {
        use AssistantMessageEvent as E;
        vec![
            E::Start {
                partial: Some(Box::new(empty())),
            },
            E::ThinkingStart { content_index: 0 },
            delta("thinking", 0, "let me "),
            delta("thinking", 0, "look"),
            E::ThinkingEnd {
                content_index: 0,
                content: "let me look".into(),
                content_signature: Some("sig".into()),
            },
            E::TextStart { content_index: 1 },
            delta("text", 1, "Reading"),
            delta("text", 1, " it."),
            E::TextEnd {
                content_index: 1,
                content: "Reading it.".into(),
                content_signature: None,
            },
            E::ToolcallStart {
                content_index: 2,
                id: "toolu_1".into(),
                tool_name: "read".into(),
            },
            delta("toolcall", 2, "{\"pa"),
            delta("toolcall", 2, "th\": \"src/ma"),
            delta("toolcall", 2, "in.rs\", \"lim"),
            delta("toolcall", 2, "it\": 1"),
            delta("toolcall", 2, "0, \"esc\": \"\\u00"),
            delta("toolcall", 2, "e9\\n\"}"),
            E::ToolcallEnd {
                content_index: 2,
                tool_call: None,
            },
        ]
    }

    fn expected_content() -> Vec<ContentBlock> {
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "let me look".into(),
                thinking_signature: Some("sig".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Reading it."),
            ContentBlock::ToolCall(ToolCall::new(
                "toolu_1",
                "read",
                json!({"path": "src/main.rs", "limit": 10, "esc": "é\n"}),
            )),
        ]
    }

    #[test]
    fn builder_builds_the_message_from_a_scripted_stream() {
        let mut builder = AssistantMessageBuilder::new(AssistantMessage::empty("x", "x", "x", 0));
        for event in scripted() {
            builder.apply(&event);
        }
        builder.message_mut().usage = Usage {
            input: 3,
            output: 4,
            total_tokens: 7,
            ..Usage::default()
        };
        let AssistantMessageEvent::Done { reason, message } = builder.finish(StopReason::Stop)
        else {
            panic!("not done");
        };
        let mut expected = empty();
        expected.content = expected_content();
        expected.usage = Usage {
            input: 3,
            output: 4,
            total_tokens: 7,
            ..Usage::default()
        };
        expected.stop_reason = StopReason::ToolUse;
        assert_eq!(reason, StopReason::ToolUse);
        assert_eq!(*message, expected);
    }

    /// Many calls open at once (a Responses stream adds every item before any is done): each
    /// delta and end reaches its own call, and the store is the index it claims to be — one
    /// slot per block, never longer than the content, no call open once every call ended — so
    /// no event searches the other open calls.
    #[test]
    fn builder_keeps_many_open_calls_apart_by_index() {
        use AssistantMessageEvent as E;
        const CALLS: usize = 500;
        let mut builder = AssistantMessageBuilder::new(empty());
        let apply = |builder: &mut AssistantMessageBuilder, event: E| {
            builder.apply(&event);
            assert!(builder.pending.by_block.len() <= builder.message.content.len());
        };
        for i in 0..CALLS {
            let (id, tool_name) = (format!("c{i}"), "read".to_owned());
            apply(
                &mut builder,
                E::ToolcallStart {
                    content_index: i,
                    id,
                    tool_name,
                },
            );
        }
        assert_eq!(builder.pending.by_block.len(), CALLS);
        for i in (0..CALLS).rev() {
            apply(&mut builder, delta("toolcall", i, "{\"path\":"));
        }
        for i in 0..CALLS {
            apply(&mut builder, delta("toolcall", i, &format!("\"f{i}\"}}")));
        }
        assert_eq!(builder.pending_arguments(7), Some("{\"path\":\"f7\"}"));
        // A delta for a block past the end is ignored, and grows nothing.
        apply(&mut builder, delta("toolcall", usize::MAX, "x"));
        // Ends from both sides toward the middle, half settled by the builder, half whole.
        for step in 0..CALLS {
            let i = if step % 2 == 0 {
                step / 2
            } else {
                CALLS - 1 - step / 2
            };
            let tool_call = (i % 2 == 0)
                .then(|| ToolCall::new(format!("c{i}"), "read", json!({"path": format!("f{i}")})));
            apply(
                &mut builder,
                E::ToolcallEnd {
                    content_index: i,
                    tool_call,
                },
            );
        }
        assert_eq!(builder.pending, PendingArguments::default());
        for (i, block) in builder.message().content.iter().enumerate() {
            let expected = ToolCall::new(format!("c{i}"), "read", json!({"path": format!("f{i}")}));
            assert_eq!(block, &ContentBlock::ToolCall(expected));
        }
    }

    #[test]
    fn builder_shows_partial_arguments_on_demand() {
        let mut builder = AssistantMessageBuilder::new(empty());
        for event in &scripted()[..13] {
            builder.apply(event);
        }
        assert_eq!(
            builder.pending_arguments(2),
            Some("{\"path\": \"src/main.rs\", \"lim")
        );
        let ContentBlock::ToolCall(call) = &builder.message().content[2] else {
            panic!()
        };
        assert_eq!(call.arguments, json!({}));
        let ContentBlock::ToolCall(call) = &builder.snapshot().content[2] else {
            panic!()
        };
        assert_eq!(call.arguments, json!({"path": "src/main.rs"}));
    }

    #[test]
    fn stream_ended_without_terminal_is_an_error_keeping_partial_content() {
        let mut builder = AssistantMessageBuilder::new(empty());
        for event in &scripted()[..12] {
            builder.apply(event);
        }
        let event = builder.ended_without_terminal();
        let mut expected = empty();
        expected.content = expected_content();
        expected.content[2] =
            ContentBlock::ToolCall(ToolCall::new("toolu_1", "read", json!({"path": "src/ma"})));
        expected.stop_reason = StopReason::Error;
        expected.error_message = Some("stream ended before completion".into());
        assert_eq!(
            event,
            AssistantMessageEvent::Error {
                reason: StopReason::Error,
                error: Box::new(expected)
            }
        );
    }

    #[test]
    fn finish_and_fail_normalize_reasons() {
        let done = AssistantMessageBuilder::new(empty()).finish(StopReason::Length);
        assert!(matches!(
            done,
            AssistantMessageEvent::Done {
                reason: StopReason::Length,
                ..
            }
        ));
        let failed = AssistantMessageBuilder::new(empty()).finish(StopReason::Error);
        assert_eq!(
            failed
                .final_message()
                .and_then(|m| m.error_message.as_deref()),
            Some(UNKNOWN_ERROR)
        );
        let aborted =
            AssistantMessageBuilder::new(empty()).fail(StopReason::Aborted, "Request was aborted");
        assert!(matches!(
            aborted,
            AssistantMessageEvent::Error {
                reason: StopReason::Aborted,
                ..
            }
        ));
        let coerced = AssistantMessageBuilder::new(empty()).fail(StopReason::Stop, "x");
        assert_eq!(
            coerced.final_message().map(|m| m.stop_reason),
            Some(StopReason::Error)
        );
    }

    #[test]
    fn toolcall_end_with_a_call_replaces_the_block_and_mismatches_are_ignored() {
        use AssistantMessageEvent as E;
        let mut builder = AssistantMessageBuilder::new(empty());
        for event in [
            E::ToolcallStart {
                content_index: 0,
                id: "c".into(),
                tool_name: "ls".into(),
            },
            delta("toolcall", 0, "{\"broken"),
            E::ToolcallEnd {
                content_index: 0,
                tool_call: Some(ToolCall::new("c", "ls", json!({"a": 1}))),
            },
            delta("text", 0, "ignored: block 0 is a tool call"),
            delta("text", 7, "ignored: no block 7"),
            E::TextEnd {
                content_index: 3,
                content: "ignored".into(),
                content_signature: None,
            },
        ] {
            builder.apply(&event);
        }
        assert_eq!(
            builder.message().content,
            vec![ContentBlock::ToolCall(ToolCall::new(
                "c",
                "ls",
                json!({"a": 1})
            ))]
        );
        assert_eq!(builder.pending_arguments(0), None);
    }

    #[test]
    fn events_serialize_without_partial() {
        let cases = [
            (
                delta("text", 0, "hi"),
                r#"{"type":"text_delta","contentIndex":0,"delta":"hi"}"#,
            ),
            (
                AssistantMessageEvent::ToolcallStart {
                    content_index: 1,
                    id: "c".into(),
                    tool_name: "ls".into(),
                },
                r#"{"type":"toolcall_start","contentIndex":1,"id":"c","toolName":"ls"}"#,
            ),
            (
                AssistantMessageEvent::TextEnd {
                    content_index: 0,
                    content: "hi".into(),
                    content_signature: None,
                },
                r#"{"type":"text_end","contentIndex":0,"content":"hi"}"#,
            ),
        ];
        for (event, json) in cases {
            assert_eq!(serde_json::to_string(&event).unwrap(), json);
            assert_eq!(
                serde_json::from_str::<AssistantMessageEvent>(json).unwrap(),
                event
            );
        }
    }

    #[test]
    fn pi_json_has_partial_in_pi_key_order() {
        let mut partial = empty();
        partial.content = vec![ContentBlock::text("hi")];
        let partial_json = serde_json::to_string(&partial).unwrap();
        let event = delta("text", 0, "hi");
        assert_eq!(
            to_pi_json(&event, &partial).unwrap(),
            format!(
                r#"{{"type":"text_delta","contentIndex":0,"delta":"hi","partial":{partial_json}}}"#
            )
        );
        let start = AssistantMessageEvent::ToolcallStart {
            content_index: 0,
            id: "c".into(),
            tool_name: "ls".into(),
        };
        assert_eq!(
            to_pi_json(&start, &partial).unwrap(),
            format!(r#"{{"type":"toolcall_start","contentIndex":0,"partial":{partial_json}}}"#)
        );
        let done = AssistantMessageEvent::Done {
            reason: StopReason::Stop,
            message: Box::new(partial.clone()),
        };
        assert_eq!(
            to_pi_json(&done, &partial).unwrap(),
            format!(r#"{{"type":"done","reason":"stop","message":{partial_json}}}"#)
        );
    }

    #[test]
    fn reads_pi_json_and_lenient_subsets() {
        let mut partial = empty();
        partial.content = vec![ContentBlock::ToolCall(ToolCall::new(
            "toolu_9",
            "bash",
            json!({}),
        ))];
        let pi = to_pi_json(
            &AssistantMessageEvent::ToolcallStart {
                content_index: 0,
                id: String::new(),
                tool_name: String::new(),
            },
            &partial,
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<AssistantMessageEvent>(&pi).unwrap(),
            AssistantMessageEvent::ToolcallStart {
                content_index: 0,
                id: "toolu_9".into(),
                tool_name: "bash".into()
            }
        );
        let with_partial = format!(
            r#"{{"type":"text_delta","contentIndex":0,"delta":"x","partial":{}}}"#,
            serde_json::to_string(&partial).unwrap()
        );
        assert_eq!(
            serde_json::from_str::<AssistantMessageEvent>(&with_partial).unwrap(),
            delta("text", 0, "x")
        );
        assert_eq!(
            serde_json::from_str::<AssistantMessageEvent>(r#"{"type":"text_end"}"#).unwrap(),
            AssistantMessageEvent::TextEnd {
                content_index: 0,
                content: String::new(),
                content_signature: None
            }
        );
        assert_eq!(
            serde_json::from_str::<AssistantMessageEvent>(r#"{"type":"toolcall_end"}"#).unwrap(),
            AssistantMessageEvent::ToolcallEnd {
                content_index: 0,
                tool_call: None
            }
        );
        assert!(serde_json::from_str::<AssistantMessageEvent>(r#"{"type":"nope"}"#).is_err());
        assert!(serde_json::from_str::<AssistantMessageEvent>(r#"{"type":"done"}"#).is_err());
    }

    #[test]
    fn streaming_json_vectors() {
        let cases = [
            ("", json!({})),
            ("   ", json!({})),
            ("{}", json!({})),
            (r#"{"a":1}"#, json!({"a": 1})),
            (r#"{"a":"hel"#, json!({"a": "hel"})),
            (r#"{"a":[1,2"#, json!({"a": [1, 2]})),
            (r#"{"a":[1,2,"#, json!({"a": [1, 2]})),
            (r#"{"a":tru"#, json!({"a": true})),
            (r#"{"a":nu"#, json!({"a": null})),
            (r#"{"a":1."#, json!({"a": 1})),
            (r#"{"a":-"#, json!({})),
            (r#"{"a":"#, json!({})),
            (r#"{"a""#, json!({})),
            (r#"{"ke"#, json!({})),
            (r#"{"a":1,"#, json!({"a": 1})),
            (r#"{"a":"x\"#, json!({"a": "x"})),
            (r#"{"a":"\u00e"#, json!({"a": ""})),
            (r#"{"a":"\ud83d\ude00 ok"#, json!({"a": "😀 ok"})),
            (r#"{"a":"\ud83d"#, json!({"a": ""})),
            (r#"{"a":{"b":{"c":"d"#, json!({"a": {"b": {"c": "d"}}})),
            (r#"{"a":1}}"#, json!({"a": 1})),
            ("[1, 2", json!([1, 2])),
            ("garbage", json!({})),
            (r#"{"a" 1}"#, json!({})),
            (r#"{"a":1.}"#, json!({})),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_streaming_json(input), expected, "input {input:?}");
        }
        let deep = "[".repeat(100_000);
        assert_eq!(parse_streaming_json(&deep), json!({}));
        assert_eq!(parse_arguments("[1]"), json!({}));
    }
}
