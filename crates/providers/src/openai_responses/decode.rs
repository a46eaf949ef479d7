//! Responses stream events → core's provider events (pi-mono §1.6 "Streaming").
//!
//! The decoder is pure (no I/O), so the same code serves the HTTP stream, recorded fixtures and
//! the scripted-encoder round trip. Every event it emits is applied to an
//! [`AssistantMessageBuilder`], which owns the message and produces the terminal event.
//!
//! Output items (`reasoning`, `message`, `function_call`) become thinking, text and tool-call
//! blocks. Deltas find their item by `item_id`, then `output_index`, then "the item streamed
//! last" (pi's only rule), so interleaved parallel items also land in the right block. Items pi
//! does not know (`web_search_call`, …) are skipped.

use clawloop_core::message::ContentBlock;
use clawloop_core::stream_event::{STREAM_ENDED_BEFORE_COMPLETION, parse_streaming_json};
use clawloop_core::{
    AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, ModelCost, StopReason,
};
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::stream_error::{error_event_message, error_frame_message, failed_response_message};
use super::text_signature::TextSignature;
use super::usage::WireUsage;
use crate::surrogates::HalfJoiner;
use crate::tool_arguments::ToolArguments;
use crate::transport::json_error_message;

type Event = AssistantMessageEvent;

/// Why a stream failed while decoding; the text is the `errorMessage`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// One `data:` payload. Only the fields the decoder reads; each is read leniently so that an
/// odd value in a field it does not need cannot fail the stream.
#[derive(Debug, Default, Deserialize)]
struct WireEvent {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    item: Option<Value>,
    #[serde(default)]
    item_id: Option<Value>,
    #[serde(default)]
    output_index: Option<Value>,
    #[serde(default)]
    delta: Option<Value>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    response: Option<WireResponse>,
}

/// The `response` object of the lifecycle events (and of a non-streaming answer).
#[derive(Debug, Default, Deserialize)]
struct WireResponse {
    #[serde(default)]
    status: Option<Value>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    service_tier: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    incomplete_details: Option<Value>,
}

/// A whole non-streaming response: its output items and the lifecycle fields (named, not
/// `#[serde(flatten)]`ed from [`WireResponse`]: flatten buffers every field as a value, which
/// parses the numbers the lenient usage reading exists to skip).
#[derive(Debug, Default, Deserialize)]
struct WireDocument {
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    status: Option<Value>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    service_tier: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    incomplete_details: Option<Value>,
}

/// Where a delta or item-done event points.
#[derive(Debug, Clone, Copy, Default)]
struct Target<'a> {
    item_id: Option<&'a str>,
    output_index: Option<u64>,
}

/// The kind of output item a block was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Reasoning,
    Message,
    FunctionCall,
}

impl Kind {
    fn of(item: &Value) -> Option<Kind> {
        match item.get("type").and_then(Value::as_str)? {
            "reasoning" => Some(Kind::Reasoning),
            "message" => Some(Kind::Message),
            "function_call" => Some(Kind::FunctionCall),
            _ => None,
        }
    }
}

/// An output item being streamed into the block at `content_index`.
#[derive(Debug)]
struct Slot {
    item_id: Option<String>,
    output_index: Option<u64>,
    content_index: usize,
    kind: Kind,
    open: bool,
    /// Reasoning: summary parts started (pi adds `"\n\n"` only after a started part).
    parts: usize,
    /// Function call: `call_id`, name and the arguments JSON received so far.
    call_id: String,
    name: String,
    arguments: ToolArguments,
}

/// How the response ended, once its terminal lifecycle event arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    status: Option<String>,
}

/// Turns Responses stream events into provider events. Feed every SSE frame to
/// [`ResponsesDecoder::on_data`] (or a whole non-streaming response to
/// [`ResponsesDecoder::on_response`]), then end with [`ResponsesDecoder::finish`] or
/// [`ResponsesDecoder::fail`].
#[derive(Debug)]
pub struct ResponsesDecoder {
    builder: AssistantMessageBuilder,
    prices: ModelCost,
    slots: Vec<Slot>,
    /// The latest slot with each item id, and with each output index: an event finds its item
    /// in O(1), where a search over all items per event made many items quadratic.
    slot_by_item_id: HashMap<String, usize>,
    slot_by_output_index: HashMap<u64, usize>,
    /// The slot opened last and not yet done (pi's "current item").
    current: Option<usize>,
    outcome: Option<Outcome>,
    /// UTF-16 halves split across deltas.
    halves: HalfJoiner,
}

impl ResponsesDecoder {
    /// A decoder building on `initial`; usage costs are computed from `prices`.
    pub fn new(initial: AssistantMessage, prices: ModelCost) -> Self {
        ResponsesDecoder {
            builder: AssistantMessageBuilder::new(initial),
            prices,
            slots: Vec::new(),
            slot_by_item_id: HashMap::new(),
            slot_by_output_index: HashMap::new(),
            current: None,
            outcome: None,
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

    /// Whether the response's terminal event (`response.completed`, `response.incomplete` or
    /// `response.done`) was seen: nothing more needs to be read.
    pub fn is_complete(&self) -> bool {
        self.outcome.is_some()
    }

    /// Decodes one SSE frame: `event` is its `event:` name (used when the payload has no
    /// `type`), `data` its payload. Content events are pushed to `out`. An `error` event,
    /// `response.failed` or a payload that is not JSON is an error.
    pub fn on_data(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<Event>,
    ) -> Result<(), DecodeError> {
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let mut wire: WireEvent = match self.halves.parse(data) {
            Ok(wire) => wire,
            Err(_) if event == "error" => return Err(DecodeError(error_frame_message(data))),
            Err(e) => return Err(DecodeError(format!("Invalid JSON in stream: {e}"))),
        };
        if let Some(item) = &mut wire.item {
            self.halves.clean_value(item);
        }
        let kind = wire.kind.as_deref().unwrap_or(event);
        let target = Target {
            item_id: wire.item_id.as_ref().and_then(Value::as_str),
            output_index: wire.output_index.as_ref().and_then(Value::as_u64),
        };
        let delta = wire.delta.as_ref().and_then(Value::as_str).unwrap_or("");
        match kind {
            "response.output_item.added" => {
                if let Some(item) = &wire.item {
                    self.open_item(item, target.output_index, out);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = &wire.item {
                    self.item_done(item, target.output_index, out);
                }
            }
            "response.reasoning_summary_part.added" => {
                if let Some(slot) = self.find(target, Kind::Reasoning) {
                    self.slots[slot].parts += 1;
                }
            }
            // `reasoning_text` deltas come from compatible servers that stream the raw
            // reasoning (gpt-oss on vLLM/Ollama); OpenAI itself streams summaries.
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(slot) = self.find(target, Kind::Reasoning) {
                    let slot = &mut self.slots[slot];
                    slot.parts = slot.parts.max(1);
                    let index = slot.content_index;
                    self.thinking_delta(index, delta, out);
                }
            }
            "response.reasoning_summary_part.done" => {
                if let Some(slot) = self.find(target, Kind::Reasoning)
                    && self.slots[slot].parts > 0
                {
                    let index = self.slots[slot].content_index;
                    self.thinking_delta(index, "\n\n", out);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(slot) = self.find(target, Kind::Message)
                    && !delta.is_empty()
                {
                    let content_index = self.slots[slot].content_index;
                    let delta = self.halves.text(content_index, delta.to_owned());
                    if !delta.is_empty() {
                        self.emit(
                            Event::TextDelta {
                                content_index,
                                delta,
                            },
                            out,
                        );
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(slot) = self.find(target, Kind::FunctionCall)
                    && !delta.is_empty()
                {
                    let content_index = self.slots[slot].content_index;
                    let delta = self.halves.text(content_index, delta.to_owned());
                    if !delta.is_empty() && self.slots[slot].arguments.push(&delta) {
                        self.emit(
                            Event::ToolcallDelta {
                                content_index,
                                delta,
                            },
                            out,
                        );
                    }
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(slot) = self.find(target, Kind::FunctionCall)
                    && let Some(Value::String(mut arguments)) = wire.arguments
                {
                    self.halves.clean(&mut arguments);
                    self.slots[slot].arguments.set(arguments);
                }
            }
            "response.completed" | "response.incomplete" | "response.done" => {
                self.complete(wire.response.unwrap_or_default());
            }
            "response.failed" => {
                let response = wire.response.unwrap_or_default();
                return Err(DecodeError(failed_response_message(
                    response.error.as_ref(),
                    response.incomplete_details.as_ref(),
                )));
            }
            "error" => {
                let json = serde_json::from_str::<Value>(data).unwrap_or(Value::Null);
                return Err(DecodeError(error_event_message(&json)));
            }
            _ => {}
        }
        Ok(())
    }

    /// Decodes a whole non-streaming response (a server that ignored `stream: true`): every
    /// output item becomes a block, then the response completes.
    pub fn on_response(&mut self, body: &str, out: &mut Vec<Event>) -> Result<(), DecodeError> {
        // Typed rather than a `Value`: usage counters are read leniently, so one serde_json
        // refuses (`1e999`) does not lose the answer.
        let mut document: WireDocument = self
            .halves
            .parse(body.trim())
            .map_err(|e| DecodeError(format!("Invalid JSON response: {e}")))?;
        if let Some(output) = &mut document.output {
            self.halves.clean_value(output);
        }
        let output = document.output.as_ref().and_then(Value::as_array);
        if output.is_none() {
            if let Some(message) = document
                .error
                .as_ref()
                .filter(|e| !e.is_null())
                .and_then(|error| json_error_message(&serde_json::json!({ "error": error })))
            {
                return Err(DecodeError(message));
            }
            if document.status.is_none() {
                return Err(DecodeError(
                    "Unexpected JSON response: no output or status".to_owned(),
                ));
            }
        }
        for (index, item) in output.into_iter().flatten().enumerate() {
            self.item_done(item, u64::try_from(index).ok(), out);
        }
        let response = WireResponse {
            status: document.status,
            usage: document.usage,
            service_tier: document.service_tier,
            error: document.error,
            incomplete_details: document.incomplete_details,
        };
        if response.status.as_ref().and_then(Value::as_str) == Some("failed") {
            return Err(DecodeError(failed_response_message(
                response.error.as_ref(),
                response.incomplete_details.as_ref(),
            )));
        }
        self.complete(response);
        Ok(())
    }

    fn emit(&mut self, event: Event, out: &mut Vec<Event>) {
        self.builder.apply(&event);
        out.push(event);
    }

    fn thinking_delta(&mut self, content_index: usize, delta: &str, out: &mut Vec<Event>) {
        if delta.is_empty() {
            return;
        }
        let delta = self.halves.text(content_index, delta.to_owned());
        if !delta.is_empty() {
            self.emit(
                Event::ThinkingDelta {
                    content_index,
                    delta,
                },
                out,
            );
        }
    }

    /// A UTF-16 half held back for the slot's block that never got its pair becomes its last
    /// delta, U+FFFD.
    fn end_halves(&mut self, slot: usize, out: &mut Vec<Event>) {
        let content_index = self.slots[slot].content_index;
        let Some(replacement) = self.halves.end(content_index) else {
            return;
        };
        let delta = replacement.to_owned();
        let event = match self.slots[slot].kind {
            Kind::Reasoning => Event::ThinkingDelta {
                content_index,
                delta,
            },
            Kind::Message => Event::TextDelta {
                content_index,
                delta,
            },
            Kind::FunctionCall => {
                if !self.slots[slot].arguments.push(replacement) {
                    return;
                }
                Event::ToolcallDelta {
                    content_index,
                    delta,
                }
            }
        };
        self.emit(event, out);
    }

    /// The open slot of `kind` an event points at: by item id, then output index, then the
    /// current item.
    fn find(&self, target: Target<'_>, kind: Kind) -> Option<usize> {
        let open = |i: &usize| self.slots[*i].open && self.slots[*i].kind == kind;
        // Deltas almost always go to the current item: no hashing for them.
        if let (Some(current), Some(id)) = (self.current, target.item_id)
            && self.slots[current].item_id.as_deref() == Some(id)
            && open(&current)
        {
            return Some(current);
        }
        let by_id = target
            .item_id
            .and_then(|id| self.slot_by_item_id.get(id).copied());
        let by_index = target
            .output_index
            .and_then(|index| self.slot_by_output_index.get(&index).copied());
        by_id
            .filter(open)
            .or_else(|| by_index.filter(open))
            .or_else(|| self.current.filter(open))
    }

    /// Opens the block for an `output_item.added` item; other item types are skipped.
    fn open_item(
        &mut self,
        item: &Value,
        output_index: Option<u64>,
        out: &mut Vec<Event>,
    ) -> Option<usize> {
        let kind = Kind::of(item)?;
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default();
        let content_index = self.builder.message().content.len();
        let item_id = item.get("id").and_then(Value::as_str).map(str::to_owned);
        let mut slot = Slot {
            item_id,
            output_index,
            content_index,
            kind,
            open: true,
            parts: 0,
            call_id: String::new(),
            name: String::new(),
            arguments: ToolArguments::default(),
        };
        let event = match kind {
            Kind::Reasoning => Event::ThinkingStart { content_index },
            Kind::Message => Event::TextStart { content_index },
            Kind::FunctionCall => {
                text("call_id").clone_into(&mut slot.call_id);
                text("name").clone_into(&mut slot.name);
                // Some servers send the whole arguments with the added item.
                let whole = text("arguments");
                if !whole.is_empty() {
                    slot.arguments.set(whole.to_owned());
                }
                Event::ToolcallStart {
                    content_index,
                    id: call_block_id(&slot.call_id, slot.item_id.as_deref()),
                    tool_name: slot.name.clone(),
                }
            }
        };
        self.emit(event, out);
        let position = self.slots.len();
        if let Some(id) = &slot.item_id {
            self.slot_by_item_id.insert(id.clone(), position);
        }
        if let Some(index) = slot.output_index {
            self.slot_by_output_index.insert(index, position);
        }
        self.slots.push(slot);
        self.current = Some(position);
        self.current
    }

    /// Closes the block of an `output_item.done` item with the item's final content (opening
    /// it first if the stream never announced it).
    fn item_done(&mut self, item: &Value, output_index: Option<u64>, out: &mut Vec<Event>) {
        let Some(kind) = Kind::of(item) else {
            return;
        };
        let target = Target {
            item_id: item.get("id").and_then(Value::as_str),
            output_index,
        };
        let Some(slot) = self
            .find(target, kind)
            .or_else(|| self.open_item(item, output_index, out))
        else {
            return;
        };
        self.end_halves(slot, out);
        self.slots[slot].open = false;
        if self.current == Some(slot) {
            self.current = None;
        }
        let content_index = self.slots[slot].content_index;
        let event = match kind {
            Kind::Reasoning => {
                let thinking = reasoning_text(item).unwrap_or_else(|| self.block_text(slot));
                self.set_block_text(content_index, &thinking);
                Event::ThinkingEnd {
                    content_index,
                    content: thinking,
                    // The whole item (encrypted content included) is what replay sends back.
                    content_signature: Some(item.to_string()),
                }
            }
            Kind::Message => {
                let text = message_text(item).unwrap_or_else(|| self.block_text(slot));
                self.set_block_text(content_index, &text);
                let signature = item.get("id").and_then(Value::as_str).map(|id| {
                    TextSignature {
                        id: id.to_owned(),
                        phase: item.get("phase").and_then(Value::as_str).map(str::to_owned),
                    }
                    .encode()
                });
                Event::TextEnd {
                    content_index,
                    content: text,
                    content_signature: signature,
                }
            }
            Kind::FunctionCall => {
                let field = |key: &str| item.get(key).and_then(Value::as_str);
                let s = &mut self.slots[slot];
                if s.arguments.is_empty()
                    && let Some(whole) = field("arguments")
                {
                    s.arguments.set(whole.to_owned());
                }
                let call = s.arguments.call(
                    call_block_id(
                        field("call_id").unwrap_or(&s.call_id),
                        field("id").or(s.item_id.as_deref()),
                    ),
                    field("name").unwrap_or(&s.name),
                    parse_arguments,
                );
                Event::ToolcallEnd {
                    content_index,
                    tool_call: Some(call),
                }
            }
        };
        self.emit(event, out);
    }

    fn block_text(&self, slot: usize) -> String {
        match self
            .builder
            .message()
            .content
            .get(self.slots[slot].content_index)
        {
            Some(ContentBlock::Text(t)) => t.text.clone(),
            Some(ContentBlock::Thinking(t)) => t.thinking.clone(),
            _ => String::new(),
        }
    }

    /// Sets a block's final text directly: the builder keeps streamed text when an end event
    /// carries an empty one, but pi's final text wins even when it is empty.
    fn set_block_text(&mut self, content_index: usize, text: &str) {
        match self.builder.message_mut().content.get_mut(content_index) {
            Some(ContentBlock::Text(t)) => text.clone_into(&mut t.text),
            Some(ContentBlock::Thinking(t)) => text.clone_into(&mut t.thinking),
            _ => {}
        }
    }

    fn complete(&mut self, response: WireResponse) {
        let tier = response.service_tier.as_ref().and_then(Value::as_str);
        if let Some(usage) = &response.usage {
            self.builder.message_mut().usage = usage.to_usage(&self.prices, tier);
        }
        self.outcome = Some(Outcome {
            status: response
                .status
                .as_ref()
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }

    /// Emits the end events of blocks whose items never finished, with what was streamed.
    fn close_open(&mut self, out: &mut Vec<Event>) {
        for slot in 0..self.slots.len() {
            if !self.slots[slot].open {
                continue;
            }
            self.end_halves(slot, out);
            self.slots[slot].open = false;
            let content_index = self.slots[slot].content_index;
            let event = match self.slots[slot].kind {
                Kind::Reasoning => Event::ThinkingEnd {
                    content_index,
                    content: self.block_text(slot),
                    content_signature: None,
                },
                Kind::Message => Event::TextEnd {
                    content_index,
                    content: self.block_text(slot),
                    content_signature: None,
                },
                Kind::FunctionCall => {
                    let s = &self.slots[slot];
                    Event::ToolcallEnd {
                        content_index,
                        tool_call: Some(s.arguments.call(
                            call_block_id(&s.call_id, s.item_id.as_deref()),
                            s.name.clone(),
                            parse_arguments,
                        )),
                    }
                }
            };
            self.emit(event, out);
        }
        self.current = None;
    }

    /// Ends a stream that reached its end. Without a terminal lifecycle event the stream was
    /// cut: an error ([`STREAM_ENDED_BEFORE_COMPLETION`]) with the content so far. Otherwise
    /// the status maps to the stop reason (pi's `mapStopReason`); a `stop` with tool calls
    /// becomes `toolUse` in the builder.
    pub fn finish(mut self, out: &mut Vec<Event>) {
        let Some(outcome) = self.outcome.take() else {
            self.fail(StopReason::Error, STREAM_ENDED_BEFORE_COMPLETION, out);
            return;
        };
        self.close_open(out);
        let event = match outcome.status.as_deref() {
            None | Some("completed" | "in_progress" | "queued") => {
                self.builder.finish(StopReason::Stop)
            }
            Some("incomplete") => self.builder.finish(StopReason::Length),
            Some("failed" | "cancelled") => self.builder.finish(StopReason::Error),
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
        out.push(self.builder.fail(reason, message));
    }
}

/// pi's tool-call id: `<call_id>|<item id>` (the call id alone when the item has no id).
fn call_block_id(call_id: &str, item_id: Option<&str>) -> String {
    match item_id {
        Some(item) => format!("{call_id}|{item}"),
        None => call_id.to_owned(),
    }
}

/// The thinking text of a finished reasoning item: its summaries joined with `"\n\n"` (pi);
/// without summaries, the raw `reasoning_text` parts some compatible servers send; `None`
/// when the item has neither, so the streamed text stands (empty for OpenAI, which streams
/// nothing for an item without summaries, so this matches pi's `""`).
fn reasoning_text(item: &Value) -> Option<String> {
    let texts = |key: &str| -> Vec<&str> {
        item.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect()
    };
    let summary = texts("summary");
    if !summary.is_empty() {
        return Some(summary.join("\n\n"));
    }
    let content = texts("content");
    if !content.is_empty() {
        return Some(content.concat());
    }
    None
}

/// The text of a finished message item: its `output_text` and `refusal` parts concatenated;
/// `None` when the item carries no content list.
fn message_text(item: &Value) -> Option<String> {
    let parts = item.get("content")?.as_array()?;
    Some(
        parts
            .iter()
            .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                Some("refusal") => part.get("refusal").and_then(Value::as_str),
                _ => part.get("text").and_then(Value::as_str),
            })
            .collect(),
    )
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
    use clawloop_core::message::{TextContent, ThinkingContent, ToolCall};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn decoder() -> ResponsesDecoder {
        ResponsesDecoder::new(
            AssistantMessage::empty("openai-responses", "openai", "gpt-5", 0),
            ModelCost::default(),
        )
    }

    fn feed(events: &[Value]) -> (Vec<Event>, Result<(), DecodeError>, ResponsesDecoder) {
        let mut decoder = decoder();
        let mut out = Vec::new();
        for event in events {
            if let Err(e) = decoder.on_data("", &event.to_string(), &mut out) {
                return (out, Err(e), decoder);
            }
        }
        (out, Ok(()), decoder)
    }

    fn finished(events: &[Value]) -> AssistantMessage {
        let (mut out, result, decoder) = feed(events);
        result.unwrap();
        decoder.finish(&mut out);
        out.last().and_then(Event::final_message).unwrap().clone()
    }

    #[test]
    fn summaries_text_and_interleaved_calls() {
        let reasoning = json!({"id": "rs_1", "type": "reasoning", "summary": [
            {"type": "summary_text", "text": "Plan A"}, {"type": "summary_text", "text": "Plan B"}
        ], "encrypted_content": "enc"});
        let call = |id: &str, call_id: &str, name: &str, args: &str| json!({"id": id, "type": "function_call", "call_id": call_id, "name": name, "arguments": args});
        let message = finished(&[
            json!({"type": "response.output_item.added", "output_index": 0,
                   "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
            json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1"}),
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "Plan A"}),
            json!({"type": "response.reasoning_summary_part.done", "item_id": "rs_1"}),
            json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1"}),
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "Plan B"}),
            json!({"type": "response.reasoning_summary_part.done", "item_id": "rs_1"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning}),
            json!({"type": "response.output_item.added", "output_index": 1,
                   "item": {"id": "msg_1", "type": "message", "content": [], "phase": "final_answer"}}),
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": "I can"}),
            json!({"type": "response.refusal.delta", "item_id": "msg_1", "delta": "'t."}),
            json!({"type": "response.output_item.done", "output_index": 1, "item": {
                "id": "msg_1", "type": "message", "phase": "final_answer",
                "content": [{"type": "output_text", "text": "I can"}, {"type": "refusal", "refusal": "'t."}]}}),
            json!({"type": "response.output_item.added", "output_index": 2, "item": call("fc_a", "call_a", "read", "")}),
            json!({"type": "response.output_item.added", "output_index": 3, "item": call("fc_b", "call_b", "ls", "")}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_a", "delta": "{\"path\":"}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_b", "delta": "{\"dir\":\".\"}"}),
            json!({"type": "response.function_call_arguments.delta", "output_index": 2, "delta": "\"a\"}"}),
            json!({"type": "response.output_item.done", "output_index": 3, "item": call("fc_b", "call_b", "ls", "{\"dir\":\".\"}")}),
            json!({"type": "response.output_item.done", "output_index": 2, "item": call("fc_a", "call_a", "read", "{\"path\":\"a\"}")}),
            json!({"type": "response.completed", "response": {"status": "completed",
                   "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}}),
        ]);
        assert_eq!(
            message.content,
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "Plan A\n\nPlan B".into(),
                    thinking_signature: Some(reasoning.to_string()),
                    ..ThinkingContent::default()
                }),
                ContentBlock::Text(TextContent {
                    text: "I can't.".into(),
                    text_signature: Some(r#"{"v":1,"id":"msg_1","phase":"final_answer"}"#.into()),
                    ..TextContent::default()
                }),
                ContentBlock::ToolCall(ToolCall::new("call_a|fc_a", "read", json!({"path": "a"}))),
                ContentBlock::ToolCall(ToolCall::new("call_b|fc_b", "ls", json!({"dir": "."}))),
            ]
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!((message.usage.input, message.usage.total_tokens), (10, 15));
    }

    #[test]
    fn statuses_and_truncation() {
        let incomplete = finished(&[
            json!({"type": "response.output_item.added", "item": {"id": "m", "type": "message"}}),
            json!({"type": "response.output_text.delta", "delta": "cut"}),
            json!({"type": "response.incomplete", "response": {"status": "incomplete",
                   "incomplete_details": {"reason": "max_output_tokens"}}}),
        ]);
        assert_eq!(incomplete.stop_reason, StopReason::Length);
        assert_eq!(incomplete.content, vec![ContentBlock::text("cut")]);
        let cancelled =
            finished(&[json!({"type": "response.completed", "response": {"status": "cancelled"}})]);
        assert_eq!(
            cancelled.error_message.as_deref(),
            Some("An unknown error occurred")
        );
        let odd = finished(&[json!({"type": "response.done", "response": {"status": "weird"}})]);
        assert_eq!(
            odd.error_message.as_deref(),
            Some("Unhandled stop reason: weird")
        );
        let (mut out, result, decoder) = feed(&[json!({"type": "response.output_item.added",
                                                        "item": {"id": "m", "type": "message"}})]);
        result.unwrap();
        decoder.finish(&mut out);
        assert_eq!(
            out.last()
                .and_then(Event::final_message)
                .and_then(|m| m.error_message.as_deref()),
            Some(STREAM_ENDED_BEFORE_COMPLETION)
        );
    }

    #[test]
    fn in_stream_failures() {
        let (_, result, _) = feed(&[
            json!({"type": "response.failed", "response": {"status": "failed",
                   "error": {"code": "server_error", "message": "boom"}}}),
        ]);
        assert_eq!(result, Err(DecodeError("server_error: boom".into())));
        let (_, result, _) =
            feed(&[json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow"})]);
        assert_eq!(
            result,
            Err(DecodeError("Error Code rate_limit_exceeded: slow".into()))
        );
        let mut out = Vec::new();
        assert_eq!(
            decoder().on_data("error", "gateway gone", &mut out),
            Err(DecodeError("gateway gone".into()))
        );
        assert!(
            decoder()
                .on_data("", "{\"type\":", &mut out)
                .unwrap_err()
                .0
                .starts_with("Invalid JSON in stream")
        );
    }

    #[test]
    fn non_streaming_response() {
        let mut decoder = decoder();
        let mut out = Vec::new();
        decoder
            .on_response(
                &json!({"object": "response", "status": "completed", "output": [
                    {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "Hi"}]},
                    {"id": "fc_1", "type": "function_call", "call_id": "c", "name": "ls", "arguments": "{}"}
                ], "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}})
                .to_string(),
                &mut out,
            )
            .unwrap();
        decoder.finish(&mut out);
        let types: Vec<&str> = out.iter().map(Event::type_name).collect();
        assert_eq!(
            types,
            [
                "text_start",
                "text_end",
                "toolcall_start",
                "toolcall_end",
                "done"
            ]
        );
        let message = out.last().and_then(Event::final_message).unwrap();
        assert_eq!(message.text(), "Hi");
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(
            ResponsesDecoder::new(message.clone(), ModelCost::default())
                .on_response(r#"{"error":{"message":"nope"}}"#, &mut out),
            Err(DecodeError("nope".into()))
        );
    }
}
