//! Anthropic stream events → core's provider events (pi-mono §1.7 "Streaming").
//!
//! The decoder is pure (no I/O): the HTTP stream, recorded fixtures, the scripted encoder's
//! round-trip tests and benchmarks all feed it SSE events. Every event it emits is applied to
//! an [`AssistantMessageBuilder`], which owns the message and produces the terminal event.
//!
//! Content blocks are addressed by the wire `index`; blocks pi does not model (server tool
//! calls and their results, e.g. `server_tool_use`, `web_search_tool_result`) are skipped
//! together with their deltas, as pi 0.58.3 does.

use clawloop_core::message::{ContentBlock, ToolCall};
use clawloop_core::stream_event::{STREAM_ENDED_BEFORE_COMPLETION, parse_streaming_json};
use clawloop_core::{
    AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, ModelCost, StopReason,
};
use std::collections::HashMap;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::claude_code::from_claude_code_name;
use super::error::stream_error_message;
use super::stop_reason::map_stop_reason;
use super::usage::WireUsage;
use crate::surrogates::HalfJoiner;
use crate::tool_arguments::{ToolArguments, refusal, too_large};

type Event = AssistantMessageEvent;

/// The thinking text pi shows for a `redacted_thinking` block.
pub const REDACTED_THINKING: &str = "[Reasoning redacted]";

/// The SSE event names that carry message events; any other named event (`ping`, future
/// additions) is skipped unread, as the SDK does.
const MESSAGE_EVENTS: [&str; 6] = [
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
];

/// One `data:` payload.
#[derive(Debug, Deserialize)]
struct WireEvent {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default, deserialize_with = "lenient_index")]
    index: Option<u64>,
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    content_block: Option<WireBlock>,
    #[serde(default)]
    delta: Option<WireDelta>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

/// A whole (non-streaming) Messages response.
#[derive(Debug, Deserialize)]
struct WireDocument {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    stop_reason: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct WireMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

/// `content_block` of `content_block_start`.
#[derive(Debug, Deserialize)]
struct WireBlock {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    /// The opaque payload of `redacted_thinking`.
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<Value>,
}

/// `delta` of `content_block_delta` (by `type`) or of `message_delta` (`stop_reason`).
#[derive(Debug, Deserialize)]
struct WireDelta {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    partial_json: Option<String>,
    #[serde(default)]
    signature: Option<String>,
    #[serde(default)]
    stop_reason: Option<String>,
}

/// An index that is not a non-negative integer counts as absent rather than failing the
/// stream.
fn lenient_index<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64())
}

/// What a wire block became.
#[derive(Debug)]
enum SlotKind {
    Text,
    Thinking {
        signature: String,
    },
    Redacted {
        data: Option<String>,
    },
    Tool {
        id: String,
        name: String,
        json: ToolArguments,
        /// `input` of the start event, used when no fragment follows (proxies that send the
        /// whole input up front).
        start_input: Option<Value>,
    },
    /// A block pi does not model; its deltas and stop are swallowed.
    Skipped,
}

/// A wire block and where it lives in the message.
#[derive(Debug)]
struct Slot {
    wire_index: Option<u64>,
    content_index: usize,
    kind: SlotKind,
    open: bool,
}

/// Why a stream failed while decoding: the `errorMessage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Turns Anthropic SSE events into provider events. Feed every event to
/// [`EventDecoder::on_event`], then end with [`EventDecoder::finish`] or
/// [`EventDecoder::fail`].
#[derive(Debug)]
pub struct EventDecoder {
    builder: AssistantMessageBuilder,
    prices: ModelCost,
    slots: Vec<Slot>,
    /// The open slot of each wire index (a second start for an index closes the first, so
    /// there is at most one), and the open slots in the order they started (closed ones are
    /// dropped from the top lazily): an event finds its block in O(1) amortized, where a search
    /// over all blocks per event made many blocks quadratic.
    open_by_index: HashMap<u64, usize>,
    open_order: Vec<usize>,
    /// UTF-16 halves split across deltas.
    halves: HalfJoiner,
    stop_reason: Option<StopReason>,
    saw_message_stop: bool,
    /// The caller's tool names, when tool names come back in Claude Code casing (OAuth).
    tool_names: Option<Vec<String>>,
}

impl EventDecoder {
    /// A decoder building on `initial`; usage costs are computed from `prices`.
    pub fn new(initial: AssistantMessage, prices: ModelCost) -> Self {
        EventDecoder {
            builder: AssistantMessageBuilder::new(initial),
            prices,
            slots: Vec::new(),
            open_by_index: HashMap::new(),
            open_order: Vec::new(),
            halves: HalfJoiner::default(),
            stop_reason: None,
            saw_message_stop: false,
            tool_names: None,
        }
    }

    /// Maps tool names back to the spelling of `tools` (case-insensitive), for OAuth requests
    /// whose tool names were sent in Claude Code casing.
    pub fn with_tool_names(mut self, tools: Vec<String>) -> Self {
        self.tool_names = Some(tools);
        self
    }

    /// The `start` event.
    pub fn start(&self) -> Event {
        Event::Start {
            partial: Some(Box::new(self.builder.message().clone())),
        }
    }

    /// The message so far.
    pub fn message(&self) -> &AssistantMessage {
        self.builder.message()
    }

    /// Whether the stream may end now: `message_stop`, or a `message_delta` with its stop
    /// reason (the answer is complete once that arrived, even if a proxy drops the last event).
    pub fn is_complete(&self) -> bool {
        self.saw_message_stop || self.stop_reason.is_some()
    }

    /// Whether `message_stop` was seen (nothing more needs to be read).
    pub fn saw_message_stop(&self) -> bool {
        self.saw_message_stop
    }

    /// Decodes one SSE event (`event` is its name, empty when it had none); content events are
    /// pushed to `out`. An `error` event, a payload that is not JSON or an unknown stop reason
    /// is an error.
    pub fn on_event(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<Event>,
    ) -> Result<(), DecodeError> {
        if event == "error" {
            return Err(DecodeError(stream_error_message(data)));
        }
        // `message` is SSE's default name, which some proxies spell out.
        if !event.is_empty() && event != "message" && !MESSAGE_EVENTS.contains(&event) {
            return Ok(());
        }
        let data = data.trim();
        // Some OpenAI-minded gateways end every stream with `[DONE]`; it carries nothing.
        if data.is_empty() || data == "[DONE]" || self.saw_message_stop {
            return Ok(());
        }
        let wire: WireEvent = self
            .halves
            .parse(data)
            .map_err(|e| DecodeError(format!("Invalid JSON in stream: {e}")))?;
        // The payload's `type` decides; the event name stands in for a payload without one.
        let kind = wire.kind.as_deref().unwrap_or(event);
        match kind {
            "message_start" => {
                if let Some(usage) = wire.message.and_then(|m| m.usage) {
                    usage.start(&mut self.builder.message_mut().usage, &self.prices);
                }
            }
            "content_block_start" => {
                if let Some(block) = wire.content_block {
                    self.on_block_start(wire.index, block, out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = wire.delta {
                    self.on_block_delta(wire.index, delta, out);
                }
            }
            "content_block_stop" => {
                if let Some(slot) = self.find_open(wire.index) {
                    self.close(slot, out);
                }
            }
            "message_delta" => {
                if let Some(reason) = wire.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(map_stop_reason(&reason).map_err(DecodeError)?);
                }
                if let Some(usage) = wire.usage {
                    usage.update(&mut self.builder.message_mut().usage, &self.prices);
                }
            }
            "message_stop" => self.saw_message_stop = true,
            "error" => return Err(DecodeError(stream_error_message(data))),
            _ => {}
        }
        Ok(())
    }

    /// Decodes a whole (non-streaming) Messages response, from a proxy that ignored
    /// `stream: true`, by replaying it as the events a stream would have sent: each block
    /// starts with its full content and stops at once.
    pub fn on_message(&mut self, body: &str, out: &mut Vec<Event>) -> Result<(), DecodeError> {
        let mut message: WireDocument = self
            .halves
            .parse(body.trim())
            .map_err(|e| DecodeError(format!("Invalid JSON response: {e}")))?;
        // Whole blocks: their lone UTF-16 halves pair with nothing.
        if let Some(content) = &mut message.content {
            self.halves.clean_value(content);
        }
        if message.kind.as_deref() == Some("error") {
            return Err(DecodeError(stream_error_message(body)));
        }
        let Some(blocks) = message.content.as_ref().and_then(Value::as_array) else {
            return Err(DecodeError(
                "Unexpected JSON response: no content or stop reason".to_owned(),
            ));
        };
        // Taken here rather than replayed as JSON: the usage was read leniently already, and
        // writing it back out could not carry a counter serde_json refuses.
        if let Some(usage) = message.usage {
            usage.start(&mut self.builder.message_mut().usage, &self.prices);
        }
        let mut events = Vec::new();
        for (index, block) in blocks.iter().enumerate() {
            events.push(serde_json::json!({"type": "content_block_start", "index": index, "content_block": block}));
            events.push(serde_json::json!({"type": "content_block_stop", "index": index}));
        }
        events.push(serde_json::json!({"type": "message_delta", "delta": {"stop_reason": message.stop_reason}}));
        events.push(serde_json::json!({"type": "message_stop"}));
        for event in events {
            self.on_event("", &event.to_string(), out)?;
        }
        Ok(())
    }

    fn emit(&mut self, event: Event, out: &mut Vec<Event>) {
        self.builder.apply(&event);
        out.push(event);
    }

    /// The open slot for `index` (pi's `findIndex`), or the latest open one when the event
    /// carries no index.
    #[inline]
    fn find_open(&mut self, index: Option<u64>) -> Option<usize> {
        match index {
            // Deltas almost always go to the block started last: no hashing for them.
            Some(index) => match self.open_order.last() {
                Some(&last)
                    if self.slots[last].open && self.slots[last].wire_index == Some(index) =>
                {
                    Some(last)
                }
                _ => self.open_by_index.get(&index).copied(),
            },
            None => {
                while let Some(&last) = self.open_order.last() {
                    if self.slots[last].open {
                        return Some(last);
                    }
                    self.open_order.pop();
                }
                None
            }
        }
    }

    fn on_block_start(&mut self, index: Option<u64>, mut block: WireBlock, out: &mut Vec<Event>) {
        for field in [&mut block.id, &mut block.name].into_iter().flatten() {
            self.halves.clean(field);
        }
        if let Some(input) = &mut block.input {
            self.halves.clean_value(input);
        }
        // A second start for an index still open: the first block is over.
        if index.is_some()
            && let Some(previous) = self.find_open(index)
        {
            self.close(previous, out);
        }
        let content_index = self.builder.message().content.len();
        let kind = match block.kind.as_deref() {
            Some("text") => {
                self.emit(Event::TextStart { content_index }, out);
                // Anthropic starts text empty; a proxy that sends text up front keeps it.
                if let Some(text) = block
                    .text
                    .map(|t| self.halves.text(content_index, t))
                    .filter(|t| !t.is_empty())
                {
                    self.emit(
                        Event::TextDelta {
                            content_index,
                            delta: text,
                        },
                        out,
                    );
                }
                SlotKind::Text
            }
            Some("thinking") => {
                self.emit(Event::ThinkingStart { content_index }, out);
                if let Some(thinking) = block
                    .thinking
                    .map(|t| self.halves.text(content_index, t))
                    .filter(|t| !t.is_empty())
                {
                    self.emit(
                        Event::ThinkingDelta {
                            content_index,
                            delta: thinking,
                        },
                        out,
                    );
                }
                SlotKind::Thinking {
                    signature: block.signature.unwrap_or_default(),
                }
            }
            Some("redacted_thinking") => {
                self.emit(Event::ThinkingStart { content_index }, out);
                if let Some(ContentBlock::Thinking(thinking)) =
                    self.builder.message_mut().content.get_mut(content_index)
                {
                    REDACTED_THINKING.clone_into(&mut thinking.thinking);
                    thinking.thinking_signature.clone_from(&block.data);
                    thinking.redacted = Some(true);
                }
                SlotKind::Redacted { data: block.data }
            }
            Some("tool_use") => {
                let id = block.id.unwrap_or_default();
                let wire_name = block.name.unwrap_or_default();
                let name = match &self.tool_names {
                    Some(tools) => {
                        from_claude_code_name(&wire_name, tools.iter().map(String::as_str))
                    }
                    None => wire_name,
                };
                self.emit(
                    Event::ToolcallStart {
                        content_index,
                        id: id.clone(),
                        tool_name: name.clone(),
                    },
                    out,
                );
                SlotKind::Tool {
                    id,
                    name,
                    json: ToolArguments::default(),
                    start_input: block.input,
                }
            }
            _ => SlotKind::Skipped,
        };
        let position = self.slots.len();
        if let Some(index) = index {
            self.open_by_index.insert(index, position);
        }
        self.open_order.push(position);
        self.slots.push(Slot {
            wire_index: index,
            content_index,
            kind,
            open: true,
        });
    }

    fn on_block_delta(&mut self, index: Option<u64>, delta: WireDelta, out: &mut Vec<Event>) {
        let Some(position) = self.find_open(index) else {
            return;
        };
        let content_index = self.slots[position].content_index;
        let fragment = match (delta.kind.as_deref(), &mut self.slots[position].kind) {
            (Some("text_delta"), SlotKind::Text) => delta.text,
            (Some("thinking_delta"), SlotKind::Thinking { .. }) => delta.thinking,
            (Some("input_json_delta"), SlotKind::Tool { .. }) => delta.partial_json,
            // Signatures arrive whole at the end of a thinking block; pi emits no event.
            (Some("signature_delta"), SlotKind::Thinking { signature }) => {
                if let Some(part) = delta.signature {
                    signature.push_str(&part);
                }
                None
            }
            _ => None,
        };
        let Some(fragment) = fragment.filter(|t| !t.is_empty()) else {
            return;
        };
        let fragment = self.halves.text(content_index, fragment);
        if !fragment.is_empty() {
            self.emit_delta(position, fragment, out);
        }
    }

    /// Emits a delta of the slot at `position` (its kind decides which), keeping a tool call's
    /// arguments JSON.
    #[inline]
    fn emit_delta(&mut self, position: usize, delta: String, out: &mut Vec<Event>) {
        let content_index = self.slots[position].content_index;
        let event = match &mut self.slots[position].kind {
            SlotKind::Text => Event::TextDelta {
                content_index,
                delta,
            },
            SlotKind::Thinking { .. } => Event::ThinkingDelta {
                content_index,
                delta,
            },
            SlotKind::Tool { json, .. } => {
                if !json.push(&delta) {
                    return;
                }
                Event::ToolcallDelta {
                    content_index,
                    delta,
                }
            }
            SlotKind::Redacted { .. } | SlotKind::Skipped => return,
        };
        self.emit(event, out);
    }

    /// Emits the end event of the slot at `position`.
    fn close(&mut self, position: usize, out: &mut Vec<Event>) {
        // A UTF-16 half that never got its pair is the block's last delta, U+FFFD.
        if let Some(replacement) = self.halves.end(self.slots[position].content_index) {
            self.emit_delta(position, replacement.to_owned(), out);
        }
        let slot = &mut self.slots[position];
        slot.open = false;
        if let Some(index) = slot.wire_index
            && self.open_by_index.get(&index) == Some(&position)
        {
            self.open_by_index.remove(&index);
        }
        let content_index = slot.content_index;
        let event = match std::mem::replace(&mut slot.kind, SlotKind::Skipped) {
            SlotKind::Skipped => return,
            SlotKind::Text => {
                let content = self
                    .builder
                    .message()
                    .content
                    .get(content_index)
                    .and_then(ContentBlock::as_text)
                    .unwrap_or_default()
                    .to_owned();
                Event::TextEnd {
                    content_index,
                    content,
                    content_signature: None,
                }
            }
            SlotKind::Thinking { signature } => {
                let content = match self.builder.message().content.get(content_index) {
                    Some(ContentBlock::Thinking(t)) => t.thinking.clone(),
                    _ => String::new(),
                };
                // No signature (a proxy that strips them) stays absent rather than pi's "":
                // replay treats both alike, and an absent one is honest in the transcript.
                Event::ThinkingEnd {
                    content_index,
                    content,
                    content_signature: (!signature.is_empty()).then_some(signature),
                }
            }
            SlotKind::Redacted { data } => Event::ThinkingEnd {
                content_index,
                content: REDACTED_THINKING.to_owned(),
                content_signature: data,
            },
            SlotKind::Tool {
                id,
                name,
                json,
                start_input,
            } => {
                let call = match start_input {
                    // The whole input on the start block (normally `{}`) has the same bound.
                    Some(input @ Value::Object(_)) if json.as_str().trim().is_empty() => {
                        let size = input.to_string().len();
                        if too_large(size) {
                            ToolCall::refused(id, name, refusal(size))
                        } else {
                            json.call(id, name, |_| input)
                        }
                    }
                    _ => json.call(id, name, parse_arguments),
                };
                Event::ToolcallEnd {
                    content_index,
                    tool_call: Some(call),
                }
            }
        };
        self.emit(event, out);
    }

    /// Ends a stream that reached its end: open blocks are closed and the terminal event
    /// pushed. Without `message_stop` or a stop reason the stream was cut: an error
    /// ([`STREAM_ENDED_BEFORE_COMPLETION`]) with the content so far.
    pub fn finish(mut self, out: &mut Vec<Event>) {
        if !self.is_complete() {
            self.fail(StopReason::Error, STREAM_ENDED_BEFORE_COMPLETION, out);
            return;
        }
        for position in 0..self.slots.len() {
            if self.slots[position].open {
                self.close(position, out);
            }
        }
        // `refusal`/`sensitive` end as an error with pi's "An unknown error occurred"; a
        // message with tool calls ends as `toolUse` (SPEC §4), both done by the builder.
        let reason = self.stop_reason.unwrap_or(StopReason::Stop);
        out.push(self.builder.finish(reason));
    }

    /// Ends the stream with an `error` event (`reason` `aborted` or `error`), keeping the
    /// content so far; no block end events are emitted (as in pi).
    pub fn fail(mut self, reason: StopReason, message: impl Into<String>, out: &mut Vec<Event>) {
        self.halves.fail(self.builder.message_mut());
        out.push(self.builder.fail(reason, message));
    }
}

/// Final arguments: strict JSON, else pi's lenient parse; `{}` unless an object.
fn parse_arguments(text: &str) -> Value {
    let value = serde_json::from_str(text).unwrap_or_else(|_| parse_streaming_json(text));
    match value {
        v @ Value::Object(_) => v,
        _ => Value::Object(Map::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::ThinkingContent;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn decode(events: &[(&str, Value)]) -> Vec<Event> {
        let mut decoder = EventDecoder::new(
            AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 0),
            ModelCost::default(),
        );
        let mut out = Vec::new();
        for (name, data) in events {
            if let Err(e) = decoder.on_event(name, &data.to_string(), &mut out) {
                decoder.fail(StopReason::Error, e.0, &mut out);
                return out;
            }
        }
        decoder.finish(&mut out);
        out
    }

    fn last(events: &[Event]) -> &AssistantMessage {
        events.last().and_then(Event::final_message).unwrap()
    }

    fn start(index: u64, block: Value) -> (&'static str, Value) {
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        )
    }

    fn delta(index: u64, delta: Value) -> (&'static str, Value) {
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    }

    fn stop(index: u64) -> (&'static str, Value) {
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )
    }

    fn message_delta(reason: &str, output: u64) -> (&'static str, Value) {
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": output}}),
        )
    }

    fn message_stop() -> (&'static str, Value) {
        ("message_stop", json!({"type": "message_stop"}))
    }

    #[test]
    fn thinking_signature_redacted_and_parallel_tools() {
        let events = decode(&[
            (
                "message_start",
                json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "output_tokens": 1}}}),
            ),
            start(
                0,
                json!({"type": "thinking", "thinking": "", "signature": ""}),
            ),
            delta(0, json!({"type": "thinking_delta", "thinking": "Hmm"})),
            delta(0, json!({"type": "signature_delta", "signature": "sig"})),
            stop(0),
            start(1, json!({"type": "redacted_thinking", "data": "opaque"})),
            stop(1),
            start(
                2,
                json!({"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}),
            ),
            delta(
                2,
                json!({"type": "input_json_delta", "partial_json": "{\"q\":1}"}),
            ),
            stop(2),
            start(
                3,
                json!({"type": "tool_use", "id": "t1", "name": "read", "input": {}}),
            ),
            start(
                4,
                json!({"type": "tool_use", "id": "t2", "name": "ls", "input": {"dir": "."}}),
            ),
            delta(
                3,
                json!({"type": "input_json_delta", "partial_json": "{\"path\":"}),
            ),
            delta(
                3,
                json!({"type": "input_json_delta", "partial_json": "\"a\"}"}),
            ),
            stop(4),
            stop(3),
            ("ping", json!({"type": "ping"})),
            message_delta("tool_use", 42),
            message_stop(),
        ]);
        let m = last(&events);
        assert_eq!(
            m.content,
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "Hmm".into(),
                    thinking_signature: Some("sig".into()),
                    ..ThinkingContent::default()
                }),
                ContentBlock::Thinking(ThinkingContent {
                    thinking: REDACTED_THINKING.into(),
                    thinking_signature: Some("opaque".into()),
                    redacted: Some(true),
                    ..ThinkingContent::default()
                }),
                ContentBlock::ToolCall(ToolCall::new("t1", "read", json!({"path": "a"}))),
                ContentBlock::ToolCall(ToolCall::new("t2", "ls", json!({"dir": "."}))),
            ]
        );
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(
            (
                m.usage.input,
                m.usage.output,
                m.usage.cache_read,
                m.usage.total_tokens
            ),
            (10, 42, 5, 57)
        );
        let types: Vec<&str> = events.iter().map(Event::type_name).collect();
        assert_eq!(
            types,
            [
                "thinking_start",
                "thinking_delta",
                "thinking_end",
                "thinking_start",
                "thinking_end",
                "toolcall_start",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_delta",
                "toolcall_end",
                "toolcall_end",
                "done"
            ]
        );
    }

    #[test]
    fn stop_reasons_and_errors() {
        let text = [
            start(0, json!({"type": "text", "text": ""})),
            delta(0, json!({"type": "text_delta", "text": "Hi"})),
        ];
        let run = |tail: &[(&'static str, Value)]| {
            let mut all = text.to_vec();
            all.extend_from_slice(tail);
            last(&decode(&all)).clone()
        };
        let m = run(&[stop(0), message_delta("max_tokens", 3), message_stop()]);
        assert_eq!((m.stop_reason, m.text()), (StopReason::Length, "Hi".into()));
        let m = run(&[stop(0), message_delta("refusal", 3), message_stop()]);
        assert_eq!(
            m.error_message.as_deref(),
            Some("An unknown error occurred")
        );
        let m = run(&[message_delta("new_reason", 3)]);
        assert_eq!(
            m.error_message.as_deref(),
            Some("Unhandled stop reason: new_reason")
        );
        // No message_stop and no stop reason: cut off, partial text kept.
        let m = run(&[]);
        assert_eq!(
            (m.stop_reason, m.text(), m.error_message.as_deref()),
            (
                StopReason::Error,
                "Hi".into(),
                Some(STREAM_ENDED_BEFORE_COMPLETION)
            )
        );
        // A stop reason without message_stop is complete; the open block is closed.
        let m = run(&[message_delta("end_turn", 3)]);
        assert_eq!((m.stop_reason, m.text()), (StopReason::Stop, "Hi".into()));
        let m = run(&[(
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        )]);
        assert_eq!(
            m.error_message.as_deref(),
            Some(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
        );
        assert_eq!(m.text(), "Hi");
    }

    #[test]
    fn unnamed_events_garbage_and_oauth_names() {
        let mut decoder = EventDecoder::new(
            AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 0),
            ModelCost::default(),
        )
        .with_tool_names(vec!["read".into()]);
        let mut out = Vec::new();
        // Without `event:` lines the payload's type decides.
        for data in [
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "Read", "input": {}}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_stop"}),
        ] {
            decoder.on_event("", &data.to_string(), &mut out).unwrap();
        }
        assert!(decoder.saw_message_stop());
        decoder.finish(&mut out);
        assert_eq!(last(&out).tool_calls().next().unwrap().name, "read");

        let mut decoder = EventDecoder::new(
            AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 0),
            ModelCost::default(),
        );
        assert!(decoder.on_event("ping", "not json", &mut out).is_ok());
        assert!(decoder.on_event("", "[DONE]", &mut out).is_ok());
        let err = decoder
            .on_event("content_block_delta", "{\"type\":", &mut out)
            .unwrap_err();
        assert!(err.0.starts_with("Invalid JSON in stream"), "{err:?}");
    }
}
