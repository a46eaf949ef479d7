//! `streamGenerateContent` chunks → core's provider events (pi-mono §1.8 "Streaming").
//!
//! The decoder is pure (no I/O): the HTTP stream, recorded fixtures and tests feed it the same
//! way. Every event it emits is applied to an [`AssistantMessageBuilder`], which owns the
//! message and produces the terminal event.
//!
//! Gemini sends whole parts, not fragments of them: a text part continues the open text (or
//! thinking, when `thought: true`) block, and a `functionCall` part is a complete call, so it
//! becomes `toolcall_start`, one `toolcall_delta` with the whole arguments JSON and
//! `toolcall_end` at once.

use clawloop_core::message::ContentBlock;
use clawloop_core::stream_event::STREAM_ENDED_BEFORE_COMPLETION;
use clawloop_core::{
    AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, ModelCost, StopReason,
};
use std::collections::HashSet;

use serde::Deserialize;
use serde_json::Value;

use super::call_id::CallIdSource;
use super::finish_reason::{FinishOutcome, map_finish_reason};
use super::usage::UsageMetadata;
use crate::open_block::{OpenBlock, close_open, emit, push_text};
use crate::surrogates::HalfJoiner;
use crate::transport::json_error_message;
use crate::whole_tool_call::{object_arguments, unique_id, whole_tool_call_events};

type Event = AssistantMessageEvent;

/// One chunk of the stream (a `data:` payload, or one element of the JSON-array form).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk {
    #[serde(default)]
    candidates: Option<Vec<Candidate>>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default)]
    prompt_feedback: Option<PromptFeedback>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    finish_message: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Content {
    #[serde(default)]
    parts: Option<Vec<Part>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    #[serde(default)]
    text: Option<String>,
    /// `true` marks thinking; read as a value because only a literal `true` counts.
    #[serde(default)]
    thought: Option<Value>,
    #[serde(default)]
    thought_signature: Option<String>,
    #[serde(default)]
    function_call: Option<FunctionCall>,
}

#[derive(Debug, Deserialize)]
struct FunctionCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    /// An object; a string is accepted too (parsed leniently) for servers that send JSON text.
    #[serde(default)]
    args: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<String>,
    #[serde(default)]
    block_reason_message: Option<String>,
}

/// Why a stream failed while decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

/// Turns chunks into events. Feed every chunk's JSON to [`ChunkDecoder::on_data`], then end
/// with [`ChunkDecoder::finish`] or [`ChunkDecoder::fail`].
#[derive(Debug)]
pub struct ChunkDecoder {
    builder: AssistantMessageBuilder,
    prices: ModelCost,
    open: Option<OpenBlock>,
    finish_reason: Option<String>,
    finish_message: Option<String>,
    blocked: Option<String>,
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
            finish_reason: None,
            finish_message: None,
            blocked: None,
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

    /// Whether the stream may end now: a candidate carried a `finishReason`, or the prompt was
    /// blocked (Gemini has no end-of-stream event; the server closes after the last chunk).
    pub fn is_complete(&self) -> bool {
        self.finish_reason.is_some() || self.blocked.is_some()
    }

    /// Decodes one chunk; content events are pushed to `out`. An in-stream `error` object or a
    /// payload that is not a chunk is an error.
    pub fn on_data(&mut self, data: &str, out: &mut Vec<Event>) -> Result<(), DecodeError> {
        let data = data.trim();
        if data.is_empty() {
            return Ok(());
        }
        self.ids.absorb(data);
        let chunk: Chunk = self
            .halves
            .parse(data)
            .map_err(|e| DecodeError(format!("Invalid JSON in stream: {e}")))?;
        if let Some(error) = chunk.error.filter(|e| !e.is_null()) {
            return Err(DecodeError(in_stream_error_message(error)));
        }
        if let Some(feedback) = chunk.prompt_feedback
            && let Some(reason) = feedback.block_reason.filter(|r| !r.is_empty())
        {
            self.blocked = Some(match feedback.block_reason_message {
                Some(message) if !message.trim().is_empty() => {
                    format!(
                        "Prompt blocked by the provider: {reason}: {}",
                        message.trim()
                    )
                }
                _ => format!("Prompt blocked by the provider: {reason}"),
            });
        }
        // pi reads only the first candidate (no `candidateCount` is ever requested).
        if let Some(candidate) = chunk.candidates.and_then(|c| c.into_iter().next()) {
            for part in candidate.content.and_then(|c| c.parts).unwrap_or_default() {
                self.on_part(part, out);
            }
            if let Some(reason) = candidate.finish_reason.filter(|r| !r.is_empty()) {
                self.finish_reason = Some(reason);
                self.finish_message = candidate.finish_message;
            }
        }
        if let Some(usage) = chunk.usage_metadata {
            self.builder.message_mut().usage = usage.to_usage(&self.prices);
        }
        Ok(())
    }

    fn on_part(&mut self, part: Part, out: &mut Vec<Event>) {
        let signature = part.thought_signature.filter(|s| !s.is_empty());
        if let Some(text) = part.text {
            let thinking = part.thought == Some(Value::Bool(true));
            self.on_text(thinking, text, signature.clone(), out);
        }
        if let Some(call) = part.function_call {
            self.on_function_call(call, signature, out);
        }
    }

    /// Text continues the open block of its kind or starts a new one (pi keeps an empty text
    /// part as an empty block). A signature is kept on the block as soon as it arrives, so a
    /// stream that fails later still has it; later parts without one do not erase it.
    fn on_text(
        &mut self,
        thinking: bool,
        text: String,
        signature: Option<String>,
        out: &mut Vec<Event>,
    ) {
        let index = push_text(
            &mut self.builder,
            &mut self.open,
            &mut self.halves,
            thinking,
            text,
            out,
        );
        if let (Some(signature), Some(open)) = (signature, self.open.as_mut()) {
            open.signature = Some(signature.clone());
            match self.builder.message_mut().content.get_mut(index) {
                Some(ContentBlock::Text(block)) => block.text_signature = Some(signature),
                Some(ContentBlock::Thinking(block)) => block.thinking_signature = Some(signature),
                _ => {}
            }
        }
    }

    /// A whole call: start, the arguments JSON as one delta, end. A missing or duplicate id is
    /// replaced by `<name>_<hash>_<counter>` (pi: `<name>_<ms>_<counter>`; see `call_id`).
    fn on_function_call(
        &mut self,
        call: FunctionCall,
        signature: Option<String>,
        out: &mut Vec<Event>,
    ) {
        close_open(&mut self.builder, &mut self.open, &mut self.halves, out);
        let mut name = call.name.unwrap_or_default();
        self.halves.clean(&mut name);
        let mut args = call.args;
        if let Some(args) = &mut args {
            self.halves.clean_value(args);
        }
        let id = unique_id(&mut self.taken_ids, call.id, || self.ids.next_id(&name));
        let arguments = object_arguments(args);
        let content_index = self.builder.message().content.len();
        for event in whole_tool_call_events(content_index, id, name, arguments, signature) {
            emit(&mut self.builder, event, out);
        }
    }

    /// Ends a stream that reached its end: the open block is closed and the terminal event
    /// pushed. Any tool call makes it `toolUse` (pi); without a finish reason the stream was
    /// cut, an error ([`STREAM_ENDED_BEFORE_COMPLETION`]) with the content so far.
    pub fn finish(mut self, out: &mut Vec<Event>) {
        if let Some(blocked) = self.blocked.take() {
            self.fail(StopReason::Error, blocked, out);
            return;
        }
        let Some(reason) = self.finish_reason.take() else {
            self.fail(StopReason::Error, STREAM_ENDED_BEFORE_COMPLETION, out);
            return;
        };
        close_open(&mut self.builder, &mut self.open, &mut self.halves, out);
        if self.builder.message().tool_calls().next().is_some() {
            out.push(self.builder.finish(StopReason::ToolUse));
            return;
        }
        let event = match map_finish_reason(&reason, self.finish_message.as_deref()) {
            FinishOutcome::Done(stop) => self.builder.finish(stop),
            FinishOutcome::Failed(message) => self.builder.fail(StopReason::Error, message),
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

/// `errorMessage` of an in-stream `{"error": {"code", "message", "status"}}`: Google's message.
fn in_stream_error_message(error: Value) -> String {
    let wrapped = serde_json::json!({ "error": error });
    json_error_message(&wrapped).unwrap_or_else(|| wrapped["error"].to_string())
}

/// Decodes a server-sent `event: error` whose data is the error object itself or wrapped.
pub fn error_event_message(data: &str) -> String {
    match serde_json::from_str::<Value>(data) {
        Ok(json) => json_error_message(&json).unwrap_or_else(|| data.trim().to_owned()),
        Err(_) if data.trim().is_empty() => "Provider sent an error event".to_owned(),
        Err(_) => data.trim().to_owned(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clawloop_core::message::{TextContent, ThinkingContent, ToolCall};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn decode(chunks: &[Value]) -> (Vec<Event>, AssistantMessage) {
        let initial =
            AssistantMessage::empty("google-generative-ai", "google", "gemini-2.5-flash", 7);
        let mut decoder = ChunkDecoder::new(initial, ModelCost::default());
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.on_data(&chunk.to_string(), &mut out).unwrap();
        }
        decoder.finish(&mut out);
        let message = out.last().and_then(Event::final_message).unwrap().clone();
        (out, message)
    }

    /// Generated ids (`<name>_<hash>_<n>`) with the hash replaced by `#`.
    pub(crate) fn mask_generated_ids(mut message: AssistantMessage) -> AssistantMessage {
        for block in &mut message.content {
            if let ContentBlock::ToolCall(call) = block {
                let pieces: Vec<&str> = call.id.rsplitn(3, '_').collect();
                if let [n, hash, name] = pieces[..]
                    && name == call.name
                    && hash
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
                {
                    call.id = format!("{name}_#_{n}");
                }
            }
        }
        message
    }

    fn parts(parts: Value) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": parts}}]})
    }

    #[test]
    fn thinking_text_and_signatures() {
        let (events, message) = decode(&[
            parts(json!([{"text": "Plan", "thought": true, "thoughtSignature": "c2ln"}])),
            parts(json!([{"text": " more", "thought": true}])),
            parts(json!([{"text": "Answer", "thoughtSignature": "dGV4dA=="}])),
            json!({"candidates": [{"content": {"parts": [{"text": "."}]}, "finishReason": "STOP"}],
                   "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2, "thoughtsTokenCount": 3, "totalTokenCount": 10}}),
        ]);
        assert_eq!(
            message.content,
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "Plan more".into(),
                    thinking_signature: Some("c2ln".into()),
                    ..ThinkingContent::default()
                }),
                ContentBlock::Text(TextContent {
                    text: "Answer.".into(),
                    text_signature: Some("dGV4dA==".into()),
                    ..TextContent::default()
                }),
            ]
        );
        assert_eq!(message.stop_reason, StopReason::Stop);
        assert_eq!((message.usage.input, message.usage.output), (5, 5));
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
                "text_delta",
                "text_end",
                "done"
            ]
        );
    }

    #[test]
    fn parallel_calls_get_ids_and_force_tool_use() {
        let (events, message) = decode(&[json!({"candidates": [{"content": {"parts": [
            {"text": "Checking."},
            {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "c2ln"},
            {"functionCall": {"name": "ls"}},
            {"functionCall": {"id": "given", "name": "ls", "args": "{\"dir\": \".\""}}
        ]}, "finishReason": "STOP"}]})]);
        let (events, message) = (events, mask_generated_ids(message));
        let mut read = ToolCall::new("read_#_1", "read", json!({"path": "a"}));
        read.thought_signature = Some("c2ln".into());
        assert_eq!(
            message.content,
            vec![
                ContentBlock::text("Checking."),
                ContentBlock::ToolCall(read),
                ContentBlock::ToolCall(ToolCall::new("ls_#_2", "ls", json!({}))),
                ContentBlock::ToolCall(ToolCall::new("given", "ls", json!({"dir": "."}))),
            ]
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        let deltas: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolcallDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, [r#"{"path":"a"}"#, "{}", r#"{"dir":"."}"#]);
    }

    #[test]
    fn failures() {
        let (_, m) = decode(&[
            json!({"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "SAFETY"}]}),
        ]);
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(
            m.error_message.as_deref(),
            Some("Provider finish_reason: SAFETY")
        );
        assert_eq!(m.content, vec![ContentBlock::text("x")]);

        let (_, m) = decode(&[parts(json!([{"text": "cut"}]))]);
        assert_eq!(
            m.error_message.as_deref(),
            Some(STREAM_ENDED_BEFORE_COMPLETION)
        );
        assert_eq!(m.content, vec![ContentBlock::text("cut")]);

        let (_, m) = decode(&[json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})]);
        assert_eq!(
            m.error_message.as_deref(),
            Some("Prompt blocked by the provider: PROHIBITED_CONTENT")
        );

        let initial = AssistantMessage::empty("google-generative-ai", "google", "g", 0);
        let mut decoder = ChunkDecoder::new(initial, ModelCost::default());
        let error = decoder
            .on_data(
                r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
                &mut Vec::new(),
            )
            .unwrap_err();
        assert_eq!(error, DecodeError("The model is overloaded.".into()));
        let error = decoder
            .on_data("{\"candidates\": [", &mut Vec::new())
            .unwrap_err();
        assert!(error.0.starts_with("Invalid JSON in stream"), "{error:?}");
        assert_eq!(error_event_message("{\"message\":\"boom\"}"), "boom");
    }
}
