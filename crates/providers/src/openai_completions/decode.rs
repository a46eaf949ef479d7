//! Chat Completions chunks → core's provider events (pi-mono §1.5 "Streaming").
//!
//! The decoder is pure (no I/O) so the same code serves the HTTP stream, recorded fixtures and
//! benchmarks. Every event it emits is applied to an [`AssistantMessageBuilder`], which owns
//! the message and produces the terminal event.

use clawloop_core::stream_event::{STREAM_ENDED_BEFORE_COMPLETION, parse_streaming_json};
use clawloop_core::{
    AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, ModelCost, StopReason,
};
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::usage::WireUsage;
use crate::surrogates::HalfJoiner;
use crate::tool_arguments::ToolArguments;
use crate::transport::json_error_message;

type Event = AssistantMessageEvent;

/// Reasoning delta fields, in pi's order of preference.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// One `data:` payload (or a whole non-streaming response).
#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Option<Vec<Choice>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
    /// A non-streaming response (a server that ignored `stream: true`) has `message`.
    #[serde(default)]
    message: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
    /// Moonshot puts usage on the choice.
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    reasoning_content: Option<Value>,
    #[serde(default)]
    reasoning: Option<Value>,
    #[serde(default)]
    reasoning_text: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
    #[serde(default)]
    reasoning_details: Option<Vec<Value>>,
}

impl Delta {
    fn reasoning(&mut self, field: usize) -> Option<Value> {
        match field {
            0 => self.reasoning_content.take(),
            1 => self.reasoning.take(),
            _ => self.reasoning_text.take(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    /// A string fragment normally; `null` for no-argument calls (OpenRouter); some servers send
    /// a whole object.
    #[serde(default)]
    arguments: Option<Value>,
}

/// Text of a content/reasoning value: a string, or the `text` of an array of parts.
fn text_of(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

/// The block being streamed.
#[derive(Debug, Clone, Copy)]
enum Open {
    Text(usize),
    Thinking { index: usize, field: usize },
    Tool(usize),
}

/// A tool call being assembled.
#[derive(Debug)]
struct ToolSlot {
    content_index: usize,
    id: String,
    name: String,
    arguments: ToolArguments,
    closed: bool,
}

/// Why a stream failed while decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Turns chunks into events. Feed every `data:` payload to [`ChunkDecoder::on_data`], then end
/// with [`ChunkDecoder::finish`] or [`ChunkDecoder::fail`].
#[derive(Debug)]
pub struct ChunkDecoder {
    builder: AssistantMessageBuilder,
    prices: ModelCost,
    open: Option<Open>,
    tools: Vec<ToolSlot>,
    /// The latest slot with each id, and with each wire `index`: a fragment finds its call in
    /// O(1), where a search over all calls per fragment made many calls quadratic.
    slot_by_id: HashMap<String, usize>,
    slot_by_wire_index: HashMap<u64, usize>,
    /// Encrypted reasoning details by tool-call id (OpenRouter; the last one for an id wins),
    /// attached at the end.
    details: HashMap<String, String>,
    finish_reason: Option<String>,
    saw_done: bool,
    /// UTF-16 halves split across deltas.
    halves: HalfJoiner,
}

impl ChunkDecoder {
    /// A decoder building on `initial`; usage costs are computed from `prices`.
    pub fn new(initial: AssistantMessage, prices: ModelCost) -> Self {
        ChunkDecoder {
            builder: AssistantMessageBuilder::new(initial),
            prices,
            open: None,
            tools: Vec::new(),
            slot_by_id: HashMap::new(),
            slot_by_wire_index: HashMap::new(),
            details: HashMap::new(),
            finish_reason: None,
            saw_done: false,
            halves: HalfJoiner::default(),
        }
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

    /// Whether the stream may end now: `[DONE]` or a finish reason was seen.
    pub fn is_complete(&self) -> bool {
        self.saw_done || self.finish_reason.is_some()
    }

    /// Whether `[DONE]` was seen (nothing more needs to be read).
    pub fn saw_done(&self) -> bool {
        self.saw_done
    }

    /// Decodes one `data:` payload; content events are pushed to `out`. An in-stream error
    /// object or a payload that is not a chunk is an error.
    pub fn on_data(&mut self, data: &str, out: &mut Vec<Event>) -> Result<(), DecodeError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.saw_done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk = self
            .halves
            .parse(data)
            .map_err(|e| DecodeError(format!("Invalid JSON in stream: {e}")))?;
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(DecodeError(in_stream_error_message(error)));
        }
        let mut choices = chunk.choices.unwrap_or_default();
        let mut choice = if choices.is_empty() {
            None
        } else {
            Some(choices.swap_remove(0))
        };
        if let Some(usage) = chunk
            .usage
            .as_ref()
            .or_else(|| choice.as_ref().and_then(|c| c.usage.as_ref()))
        {
            self.builder.message_mut().usage = usage.to_usage(&self.prices);
        }
        let Some(choice) = choice.as_mut() else {
            return Ok(());
        };
        if let Some(reason) = choice.finish_reason.take() {
            self.finish_reason = Some(reason);
        }
        let Some(mut delta) = choice.delta.take().or_else(|| choice.message.take()) else {
            return Ok(());
        };
        if let Some(text) = delta.content.take().and_then(text_of) {
            self.on_text(text, out);
        }
        if let Some((field, text)) = (0..REASONING_FIELDS.len())
            .find_map(|f| delta.reasoning(f).and_then(text_of).map(|t| (f, t)))
        {
            self.on_thinking(field, text, out);
        }
        for call in delta.tool_calls.take().unwrap_or_default() {
            self.on_tool_call(call, out);
        }
        for detail in delta.reasoning_details.take().unwrap_or_default() {
            if detail.get("type").and_then(Value::as_str) == Some("reasoning.encrypted")
                && let Some(id) = detail.get("id").and_then(Value::as_str)
            {
                self.details.insert(id.to_owned(), detail.to_string());
            }
        }
        Ok(())
    }

    fn emit(&mut self, event: Event, out: &mut Vec<Event>) {
        self.builder.apply(&event);
        out.push(event);
    }

    fn next_index(&self) -> usize {
        self.builder.message().content.len()
    }

    fn on_text(&mut self, text: String, out: &mut Vec<Event>) {
        let index = match self.open {
            Some(Open::Text(index)) => index,
            _ => {
                self.close_open(out);
                let index = self.next_index();
                self.emit(
                    Event::TextStart {
                        content_index: index,
                    },
                    out,
                );
                self.open = Some(Open::Text(index));
                index
            }
        };
        let text = self.halves.text(index, text);
        if text.is_empty() {
            return;
        }
        self.emit(
            Event::TextDelta {
                content_index: index,
                delta: text,
            },
            out,
        );
    }

    fn on_thinking(&mut self, field: usize, text: String, out: &mut Vec<Event>) {
        let index = match self.open {
            Some(Open::Thinking { index, .. }) => index,
            _ => {
                self.close_open(out);
                let index = self.next_index();
                self.emit(
                    Event::ThinkingStart {
                        content_index: index,
                    },
                    out,
                );
                self.open = Some(Open::Thinking { index, field });
                index
            }
        };
        let text = self.halves.text(index, text);
        if text.is_empty() {
            return;
        }
        self.emit(
            Event::ThinkingDelta {
                content_index: index,
                delta: text,
            },
            out,
        );
    }

    /// pi starts a new call when the current block is not a call or the fragment carries a
    /// different id; parallel calls are also told apart by `index`, so a fragment without id
    /// goes to the call with its index.
    fn on_tool_call(&mut self, call: ToolCallDelta, out: &mut Vec<Event>) {
        let mut id = call.id.filter(|id| !id.is_empty());
        let (mut name, arguments) = match call.function {
            Some(f) => (f.name.filter(|n| !n.is_empty()), f.arguments),
            None => (None, None),
        };
        for field in [&mut id, &mut name].into_iter().flatten() {
            self.halves.clean(field);
        }
        let current = match self.open {
            Some(Open::Tool(slot)) => Some(slot),
            _ => None,
        };
        let target = match &id {
            Some(id) => self.slot_by_id.get(id).copied(),
            None => match call.index {
                Some(index) => self.slot_by_wire_index.get(&index).copied(),
                None => current,
            },
        };
        let slot = match target {
            Some(slot) => slot,
            None => {
                self.close_open(out);
                let content_index = self.next_index();
                let slot = self.tools.len();
                let id = id.clone().unwrap_or_else(|| format!("call_{slot}"));
                let name = name.clone().unwrap_or_default();
                self.emit(
                    Event::ToolcallStart {
                        content_index,
                        id: id.clone(),
                        tool_name: name.clone(),
                    },
                    out,
                );
                self.slot_by_id.insert(id.clone(), slot);
                if let Some(index) = call.index {
                    self.slot_by_wire_index.insert(index, slot);
                }
                self.tools.push(ToolSlot {
                    content_index,
                    id,
                    name,
                    arguments: ToolArguments::default(),
                    closed: false,
                });
                self.open = Some(Open::Tool(slot));
                slot
            }
        };
        if self.tools[slot].closed {
            // A fragment for a call that was already completed (interleaved streaming, which
            // no known server does): its end event is out, so it is ignored.
            return;
        }
        if target.is_some() && current != Some(slot) {
            self.close_open(out);
            self.open = Some(Open::Tool(slot));
        }
        let content_index = self.tools[slot].content_index;
        if let Some(name) = name {
            self.tools[slot].name = name;
        }
        let fragment = match arguments {
            Some(Value::String(s)) => s,
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let fragment = self.halves.text(content_index, fragment);
        if !fragment.is_empty() && self.tools[slot].arguments.push(&fragment) {
            self.emit(
                Event::ToolcallDelta {
                    content_index,
                    delta: fragment,
                },
                out,
            );
        }
    }

    /// Emits the end event of the open block (after a last U+FFFD delta for a UTF-16 half
    /// that never got its pair).
    fn close_open(&mut self, out: &mut Vec<Event>) {
        let open = self.open.take();
        if let Some(open) = open {
            self.end_halves(open, out);
        }
        match open {
            None => {}
            Some(Open::Text(index)) => {
                let content = self
                    .builder
                    .message()
                    .content
                    .get(index)
                    .and_then(|b| b.as_text())
                    .unwrap_or_default()
                    .to_owned();
                self.emit(
                    Event::TextEnd {
                        content_index: index,
                        content,
                        content_signature: None,
                    },
                    out,
                );
            }
            Some(Open::Thinking { index, field }) => {
                let content = match self.builder.message().content.get(index) {
                    Some(clawloop_core::ContentBlock::Thinking(t)) => t.thinking.clone(),
                    _ => String::new(),
                };
                self.emit(
                    Event::ThinkingEnd {
                        content_index: index,
                        content,
                        content_signature: Some(REASONING_FIELDS[field].to_owned()),
                    },
                    out,
                );
            }
            Some(Open::Tool(slot)) => {
                let tool = &mut self.tools[slot];
                tool.closed = true;
                let call = tool
                    .arguments
                    .call(tool.id.clone(), tool.name.clone(), parse_arguments);
                let content_index = tool.content_index;
                self.emit(
                    Event::ToolcallEnd {
                        content_index,
                        tool_call: Some(call),
                    },
                    out,
                );
            }
        }
    }

    /// A half held back for the block of `open` becomes a U+FFFD delta.
    fn end_halves(&mut self, open: Open, out: &mut Vec<Event>) {
        let (content_index, tool) = match open {
            Open::Text(index) | Open::Thinking { index, .. } => (index, None),
            Open::Tool(slot) => (self.tools[slot].content_index, Some(slot)),
        };
        let Some(replacement) = self.halves.end(content_index) else {
            return;
        };
        let delta = replacement.to_owned();
        let event = match open {
            Open::Text(_) => Event::TextDelta {
                content_index,
                delta,
            },
            Open::Thinking { .. } => Event::ThinkingDelta {
                content_index,
                delta,
            },
            Open::Tool(_) => Event::ToolcallDelta {
                content_index,
                delta,
            },
        };
        if let Some(slot) = tool
            && !self.tools[slot].arguments.push(replacement)
        {
            return;
        }
        self.emit(event, out);
    }

    /// Ends a stream that reached its end: the open block is closed and the terminal event
    /// pushed. Without `[DONE]` or a finish reason the stream was cut: an error
    /// ([`STREAM_ENDED_BEFORE_COMPLETION`]) with the content so far.
    pub fn finish(mut self, out: &mut Vec<Event>) {
        if !self.is_complete() {
            self.fail(StopReason::Error, STREAM_ENDED_BEFORE_COMPLETION, out);
            return;
        }
        self.close_open(out);
        self.attach_details();
        let event = match self.finish_reason.as_deref() {
            None | Some("stop" | "end") => self.builder.finish(StopReason::Stop),
            Some("length") => self.builder.finish(StopReason::Length),
            Some("tool_calls" | "function_call") => self.builder.finish(StopReason::ToolUse),
            Some("content_filter") => self
                .builder
                .fail(StopReason::Error, "Provider finish_reason: content_filter"),
            Some(other) => self
                .builder
                .fail(StopReason::Error, format!("Unhandled stop reason: {other}")),
        };
        out.push(event);
    }

    /// Ends the stream with an `error` event (`reason` `aborted` or `error`), keeping the
    /// content so far; no block end events are emitted (as in pi).
    pub fn fail(mut self, reason: StopReason, message: impl Into<String>, out: &mut Vec<Event>) {
        self.halves.fail(self.builder.message_mut());
        self.attach_details();
        out.push(self.builder.fail(reason, message));
    }

    fn attach_details(&mut self) {
        let details = std::mem::take(&mut self.details);
        for block in &mut self.builder.message_mut().content {
            if let clawloop_core::ContentBlock::ToolCall(call) = block
                && let Some(detail) = details.get(&call.id)
            {
                call.thought_signature = Some(detail.clone());
            }
        }
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

/// `errorMessage` of an in-stream `{"error": …}` (the OpenAI SDK throws `error.message`).
fn in_stream_error_message(error: Value) -> String {
    let wrapped = serde_json::json!({ "error": error });
    json_error_message(&wrapped).unwrap_or_else(|| wrapped["error"].to_string())
}

/// Decodes a server-sent `event: error` whose data is the error object itself or wrapped.
pub fn error_event_message(data: &str) -> String {
    match serde_json::from_str::<Value>(data) {
        Ok(json) => json_error_message(&json).unwrap_or_else(|| data.to_owned()),
        Err(_) if data.trim().is_empty() => "Provider sent an error event".to_owned(),
        Err(_) => data.trim().to_owned(),
    }
}
