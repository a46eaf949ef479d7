//! Ollama `/api/chat` NDJSON lines → core's provider events.
//!
//! Each line is one JSON object: `message.thinking` and `message.content` carry deltas,
//! `message.tool_calls` whole calls (arguments as an object), and the last line has
//! `done: true` with `done_reason` and the token counts. An `{"error": "…"}` line ends the
//! stream with that error. The decoder is pure (no I/O); every event it emits is applied to an
//! [`AssistantMessageBuilder`], which owns the message and produces the terminal event.

use clawloop_core::stream_event::STREAM_ENDED_BEFORE_COMPLETION;
use clawloop_core::{
    AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, ModelCost, StopReason,
};
use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;

use super::call_id::CallIdSource;
use super::done_reason::map_done_reason;
use super::usage::OllamaCounts;
use crate::open_block::{OpenBlock, close_open, emit, push_text};
use crate::surrogates::HalfJoiner;
use crate::transport::json_error_message;
use crate::whole_tool_call::{object_arguments, unique_id, whole_tool_call_events};

type Event = AssistantMessageEvent;

/// One NDJSON line.
#[derive(Debug, Deserialize)]
struct Line {
    #[serde(default)]
    message: Option<LineMessage>,
    #[serde(default)]
    done: Option<bool>,
    #[serde(default)]
    done_reason: Option<String>,
    // Named rather than `#[serde(flatten)]`ed in: flatten buffers every other field as a value,
    // parsing numbers serde_json refuses (`"eval_duration": 1e999`) instead of skipping them.
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    prompt_eval_count: Option<u64>,
    #[serde(default, deserialize_with = "crate::usage_count::count")]
    eval_count: Option<u64>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct LineMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    /// Some OpenAI-minded proxies of the native API name the field `reasoning` (OpenClaw reads
    /// both).
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Debug, Deserialize)]
struct WireToolCall {
    /// Newer Ollama versions send an id; older ones none.
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<WireFunction>,
}

#[derive(Debug, Deserialize)]
struct WireFunction {
    #[serde(default)]
    name: Option<String>,
    /// An object; a JSON string is accepted too and parsed leniently.
    #[serde(default)]
    arguments: Option<Value>,
}

/// Why a stream failed while decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Turns NDJSON lines into events. Feed every line to [`ChunkDecoder::on_line`], then end with
/// [`ChunkDecoder::finish`] or [`ChunkDecoder::fail`].
#[derive(Debug)]
pub struct ChunkDecoder {
    builder: AssistantMessageBuilder,
    prices: ModelCost,
    open: Option<OpenBlock>,
    done: bool,
    done_reason: Option<String>,
    /// Ids for calls that come without one.
    ids: CallIdSource,
    /// The ids of the calls so far.
    taken_ids: HashSet<String>,
    /// UTF-16 halves split across parts.
    halves: HalfJoiner,
}

impl ChunkDecoder {
    /// A decoder building on `initial`; usage costs are computed from `prices`.
    pub fn new(initial: AssistantMessage, prices: ModelCost) -> Self {
        ChunkDecoder {
            builder: AssistantMessageBuilder::new(initial),
            prices,
            open: None,
            done: false,
            done_reason: None,
            ids: CallIdSource::default(),
            taken_ids: HashSet::new(),
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

    /// Whether the `done: true` line was seen (nothing more needs to be read).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Decodes one line; content events are pushed to `out`. An `error` line or a line that
    /// is not a JSON object is an error.
    pub fn on_line(&mut self, line: &str, out: &mut Vec<Event>) -> Result<(), DecodeError> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        self.ids.absorb(line);
        let parsed: Line = self
            .halves
            .parse(line)
            .map_err(|e| DecodeError(format!("Invalid JSON in stream: {e}")))?;
        if let Some(error) = parsed.error.filter(|e| !e.is_null()) {
            return Err(DecodeError(error_message(error)));
        }
        if let Some(message) = parsed.message {
            let thinking = message.thinking.or(message.reasoning);
            if let Some(text) = thinking.filter(|t| !t.is_empty()) {
                self.on_text(true, text, out);
            }
            if let Some(text) = message.content.filter(|t| !t.is_empty()) {
                self.on_text(false, text, out);
            }
            for call in message.tool_calls.unwrap_or_default() {
                self.on_tool_call(call, out);
            }
        }
        if parsed.done == Some(true) {
            self.done = true;
            self.done_reason = parsed.done_reason;
            let counts = OllamaCounts {
                prompt_eval_count: parsed.prompt_eval_count,
                eval_count: parsed.eval_count,
            };
            self.builder.message_mut().usage = counts.to_usage(&self.prices);
        }
        Ok(())
    }

    fn on_text(&mut self, thinking: bool, text: String, out: &mut Vec<Event>) {
        push_text(
            &mut self.builder,
            &mut self.open,
            &mut self.halves,
            thinking,
            text,
            out,
        );
    }

    /// A whole call: start, the arguments JSON as one delta, end. Without an id from the
    /// server (or with a repeated one) the id is `ollama_call_<hash>_<n>` (see `call_id`).
    fn on_tool_call(&mut self, call: WireToolCall, out: &mut Vec<Event>) {
        close_open(&mut self.builder, &mut self.open, &mut self.halves, out);
        let (mut name, mut arguments) = match call.function {
            Some(f) => (f.name.unwrap_or_default(), f.arguments),
            None => (String::new(), None),
        };
        self.halves.clean(&mut name);
        if let Some(arguments) = &mut arguments {
            self.halves.clean_value(arguments);
        }
        let id = unique_id(&mut self.taken_ids, call.id, || self.ids.next_id());
        let arguments = object_arguments(arguments);
        let content_index = self.builder.message().content.len();
        for event in whole_tool_call_events(content_index, id, name, arguments, None) {
            emit(&mut self.builder, event, out);
        }
    }

    /// Ends a stream that reached its end: the open block is closed and the terminal event
    /// pushed. Without the `done: true` line the stream was cut: an error
    /// ([`STREAM_ENDED_BEFORE_COMPLETION`]) with the content so far.
    pub fn finish(mut self, out: &mut Vec<Event>) {
        if !self.done {
            self.fail(StopReason::Error, STREAM_ENDED_BEFORE_COMPLETION, out);
            return;
        }
        close_open(&mut self.builder, &mut self.open, &mut self.halves, out);
        let reason = map_done_reason(self.done_reason.as_deref());
        out.push(self.builder.finish(reason));
    }

    /// Ends the stream with an `error` event (`reason` `aborted` or `error`), keeping the
    /// content so far; no block end events are emitted (as in pi).
    pub fn fail(mut self, reason: StopReason, message: impl Into<String>, out: &mut Vec<Event>) {
        self.halves.fail(self.builder.message_mut());
        out.push(self.builder.fail(reason, message));
    }
}

/// `errorMessage` of an `error` line: Ollama sends a string; an object's `message` is taken
/// for proxies that wrap it.
fn error_message(error: Value) -> String {
    let wrapped = serde_json::json!({ "error": error });
    json_error_message(&wrapped).unwrap_or_else(|| wrapped["error"].to_string())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn decode(lines: &[Value]) -> (Vec<Event>, AssistantMessage) {
        let initial = AssistantMessage::empty("ollama", "ollama", "qwen3:8b", 5);
        let mut decoder = ChunkDecoder::new(initial, ModelCost::default());
        let mut out = Vec::new();
        for line in lines {
            decoder.on_line(&line.to_string(), &mut out).unwrap();
        }
        decoder.finish(&mut out);
        let message = out.last().and_then(Event::final_message).unwrap().clone();
        (out, message)
    }

    /// Generated ids (`ollama_call_<hash>_<n>`) with the hash replaced by `#`.
    pub(crate) fn mask_generated_ids(mut message: AssistantMessage) -> AssistantMessage {
        for block in &mut message.content {
            if let ContentBlock::ToolCall(call) = block
                && let Some(rest) = call.id.strip_prefix("ollama_call_")
                && let Some((hash, n)) = rest.split_once('_')
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
            {
                call.id = format!("ollama_call_#_{n}");
            }
        }
        message
    }

    fn message(m: Value) -> Value {
        json!({"model": "qwen3:8b", "created_at": "2025-06-01T10:00:00Z", "message": m, "done": false})
    }

    #[test]
    fn thinking_text_and_parallel_calls() {
        let (events, m) = decode(&[
            message(json!({"role": "assistant", "content": "", "thinking": "Hmm"})),
            message(json!({"role": "assistant", "content": "", "thinking": "."})),
            message(json!({"role": "assistant", "content": "Checking."})),
            message(json!({"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "read", "arguments": {"path": "a"}}},
                {"id": "call_x", "function": {"index": 1, "name": "ls", "arguments": "{\"dir\": \"."}}
            ]})),
            json!({"message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
                   "prompt_eval_count": 10, "eval_count": 4}),
        ]);
        let m = mask_generated_ids(m);
        assert_eq!(
            m.content,
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "Hmm.".into(),
                    ..ThinkingContent::default()
                }),
                ContentBlock::text("Checking."),
                ContentBlock::ToolCall(ToolCall::new(
                    "ollama_call_#_1",
                    "read",
                    json!({"path": "a"})
                )),
                ContentBlock::ToolCall(ToolCall::new("call_x", "ls", json!({"dir": "."}))),
            ]
        );
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(
            (m.usage.input, m.usage.output, m.usage.total_tokens),
            (10, 4, 14)
        );
        let types: Vec<_> = events.iter().map(Event::type_name).collect();
        assert_eq!(
            types,
            [
                "thinking_start",
                "thinking_delta",
                "thinking_delta",
                "thinking_end",
                "text_start",
                "text_delta",
                "text_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_end",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_end",
                "done"
            ]
        );
    }

    #[test]
    fn length_cut_and_errors() {
        let (_, m) = decode(&[
            message(json!({"content": "abc"})),
            json!({"done": true, "done_reason": "length", "eval_count": 3}),
        ]);
        assert_eq!(
            (m.text(), m.stop_reason),
            ("abc".to_owned(), StopReason::Length)
        );

        let (_, m) = decode(&[message(json!({"content": "abc"}))]);
        assert_eq!(
            m.error_message.as_deref(),
            Some(STREAM_ENDED_BEFORE_COMPLETION)
        );
        assert_eq!(m.text(), "abc");

        let initial = AssistantMessage::empty("ollama", "ollama", "m", 0);
        let mut decoder = ChunkDecoder::new(initial, ModelCost::default());
        let error = decoder
            .on_line(r#"{"error":"model 'x' not found"}"#, &mut Vec::new())
            .unwrap_err();
        assert_eq!(error, DecodeError("model 'x' not found".into()));
        let error = decoder
            .on_line("{\"message\": ", &mut Vec::new())
            .unwrap_err();
        assert!(error.0.starts_with("Invalid JSON in stream"), "{error:?}");
    }
}
