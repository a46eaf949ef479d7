//! The scripted provider server's side of `openai-responses`: a FORMAT.md scripted reply
//! encoded as the event stream OpenAI would send, and FORMAT.md's `roles` view of a recorded
//! request body.
//!
//! The encoding follows the recorded streams in `fixtures/real/openai-responses`: lifecycle
//! events, one output item per reasoning / message / function call with its part and delta
//! events, then `response.completed` (or `response.incomplete` for `length`) carrying the
//! usage, each as an `event:` + `data:` pair.

use serde_json::{Value, json};

use super::saturating_sum;
use crate::{ScriptedReply, ScriptedStopReason, ScriptedUsage};

/// `content-type` of an encoded reply.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// Id of the scripted response in its lifecycle events.
const RESPONSE_ID: &str = "resp_scripted";

/// Builds the SSE events of one response, numbering them like OpenAI's `sequence_number`.
struct Encoder {
    chunks: Vec<Vec<u8>>,
    /// Finished output items, repeated in the terminal event's `response.output`.
    output: Vec<Value>,
}

impl Encoder {
    fn push(&mut self, kind: &str, mut data: Value) {
        if let Some(map) = data.as_object_mut() {
            map.insert("type".into(), Value::from(kind));
            map.insert("sequence_number".into(), Value::from(self.chunks.len()));
        }
        self.chunks
            .push(format!("event: {kind}\ndata: {data}\n\n").into_bytes());
    }

    fn response(&self, model_id: &str, status: &str) -> Value {
        json!({
            "id": RESPONSE_ID, "object": "response", "created_at": 0, "status": status,
            "model": model_id, "output": self.output, "usage": null,
        })
    }

    /// A reasoning item whose one summary part is `thinking`.
    fn reasoning(&mut self, thinking: &str) {
        let index = self.output.len();
        let id = format!("rs_{index}");
        let at = json!({"item_id": id, "output_index": index, "summary_index": 0});
        let with = |extra: Value| merge(&at, extra);
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
        );
        self.push(
            "response.reasoning_summary_part.added",
            with(json!({"part": {"type": "summary_text", "text": ""}})),
        );
        self.push(
            "response.reasoning_summary_text.delta",
            with(json!({"delta": thinking})),
        );
        self.push(
            "response.reasoning_summary_text.done",
            with(json!({"text": thinking})),
        );
        self.push(
            "response.reasoning_summary_part.done",
            with(json!({"part": {"type": "summary_text", "text": thinking}})),
        );
        let item = json!({"id": id, "type": "reasoning",
                          "summary": [{"type": "summary_text", "text": thinking}]});
        self.done(index, item);
    }

    /// A message item streaming `deltas` as one `output_text` part.
    fn message(&mut self, deltas: &[&str]) {
        let index = self.output.len();
        let id = format!("msg_{index}");
        let text = deltas.concat();
        let at = json!({"item_id": id, "output_index": index, "content_index": 0});
        let with = |extra: Value| merge(&at, extra);
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": {"id": id, "type": "message",
                   "status": "in_progress", "content": [], "role": "assistant"}}),
        );
        self.push(
            "response.content_part.added",
            with(json!({"part": {"type": "output_text", "annotations": [], "text": ""}})),
        );
        for delta in deltas.iter().filter(|d| !d.is_empty()) {
            self.push(
                "response.output_text.delta",
                with(json!({"delta": delta, "logprobs": []})),
            );
        }
        self.push(
            "response.output_text.done",
            with(json!({"text": text, "logprobs": []})),
        );
        let part = json!({"type": "output_text", "annotations": [], "text": text});
        self.push(
            "response.content_part.done",
            with(json!({"part": part.clone()})),
        );
        let item = json!({"id": id, "type": "message", "status": "completed",
                          "content": [part], "role": "assistant"});
        self.done(index, item);
    }

    /// A function call item whose arguments stream as one delta, verbatim.
    fn function_call(&mut self, call_id: &str, item_id: &str, name: &str, arguments: &str) {
        let index = self.output.len();
        let item = |status: &str, arguments: &str| {
            json!({"id": item_id, "type": "function_call", "status": status,
                   "arguments": arguments, "call_id": call_id, "name": name})
        };
        self.push(
            "response.output_item.added",
            json!({"output_index": index, "item": item("in_progress", "")}),
        );
        let at = json!({"item_id": item_id, "output_index": index});
        if !arguments.is_empty() {
            self.push(
                "response.function_call_arguments.delta",
                merge(&at, json!({"delta": arguments})),
            );
        }
        self.push(
            "response.function_call_arguments.done",
            merge(&at, json!({"arguments": arguments})),
        );
        self.done(index, item("completed", arguments));
    }

    fn done(&mut self, index: usize, item: Value) {
        self.push(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        self.output.push(item);
    }
}

/// `base` with the fields of `extra` added.
fn merge(base: &Value, extra: Value) -> Value {
    let mut out = base.clone();
    if let (Some(out), Value::Object(extra)) = (out.as_object_mut(), extra) {
        out.extend(extra);
    }
    out
}

/// Usage in the API's terms: `input_tokens` counts cached reads and cache writes too.
fn wire_usage(usage: ScriptedUsage) -> Value {
    let input = saturating_sum([usage.input, usage.cache_read, usage.cache_write]);
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": usage.cache_read, "cache_write_tokens": usage.cache_write},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input.saturating_add(usage.output),
    })
}

/// The body for `reply` as Responses SSE events, one event per chunk: lifecycle events,
/// then reasoning (`thinking`), the message (`text` / `textChunks`) and function calls
/// (`toolCalls`, `argumentsRaw` verbatim), then `response.completed` with `usage`
/// (`response.incomplete` for `stopReason: "length"`). With `streamError`, the stream ends
/// with an `error` event carrying that message instead.
///
/// A scripted tool-call id `call|item` is split into `call_id` and item id; a plain id is
/// the `call_id` and the item id is `fc_<n>`, so the client sees pi's `<id>|fc_<n>`.
pub fn encode_reply(reply: &ScriptedReply, model_id: &str) -> Vec<Vec<u8>> {
    let mut encoder = Encoder {
        chunks: Vec::new(),
        output: Vec::new(),
    };
    let created = json!({"response": encoder.response(model_id, "in_progress")});
    encoder.push("response.created", created.clone());
    encoder.push("response.in_progress", created);
    if let Some(thinking) = reply.thinking.as_deref().filter(|t| !t.is_empty()) {
        encoder.reasoning(thinking);
    }
    let deltas = reply.text_deltas();
    if deltas.iter().any(|d| !d.is_empty()) {
        encoder.message(&deltas);
    }
    for (n, (id, call)) in reply.tool_calls_with_ids().into_iter().enumerate() {
        let (call_id, item_id) = match id.split_once('|') {
            Some((call, item)) => (call.to_owned(), item.to_owned()),
            None => (id.clone(), format!("fc_{}", n + 1)),
        };
        encoder.function_call(&call_id, &item_id, &call.name, &call.arguments_text());
    }
    if let Some(message) = &reply.stream_error {
        encoder.push(
            "error",
            json!({"code": null, "message": message, "param": null}),
        );
        return encoder.chunks;
    }
    let (kind, status) = match reply.effective_stop_reason() {
        ScriptedStopReason::Length => ("response.incomplete", "incomplete"),
        ScriptedStopReason::Stop | ScriptedStopReason::ToolUse => {
            ("response.completed", "completed")
        }
    };
    let mut response = encoder.response(model_id, status);
    response["usage"] = wire_usage(reply.usage.unwrap_or_default());
    if status == "incomplete" {
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    encoder.push(kind, json!({"response": response}));
    encoder.chunks
}

/// FORMAT.md's `roles` for a recorded Responses request body: one entry per `input` item —
/// a message by its role (`developer` counts as `system`), `function_call` as `assistant`,
/// `function_call_output` as `tool`, `reasoning` skipped — with consecutive `assistant`
/// entries merged into one. The system prompt (a leading `system`/`developer` message) is
/// left out.
pub fn wire_roles(request_body: &Value) -> Vec<String> {
    let items = match request_body.get("input") {
        Some(Value::Array(items)) => items.as_slice(),
        // The API also takes a bare string: one user message.
        Some(Value::String(_)) => return vec!["user".to_owned()],
        _ => return Vec::new(),
    };
    let mut roles: Vec<String> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let role = match item.get("type").and_then(Value::as_str) {
            Some("function_call") => "assistant",
            Some("function_call_output") => "tool",
            Some("message") | None => match item.get("role").and_then(Value::as_str) {
                Some("developer" | "system") if index == 0 => continue,
                Some("developer" | "system") => "system",
                Some(role) => role,
                None => continue,
            },
            Some(_) => continue,
        };
        if role == "assistant" && roles.last().is_some_and(|r| r == "assistant") {
            continue;
        }
        roles.push(role.to_owned());
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{ContentBlock, TextContent, ToolCall};
    use clawloop_core::{AssistantMessage, AssistantMessageEvent, ModelCost, StopReason};
    use clawloop_providers::openai_responses::ResponsesDecoder;
    use pretty_assertions::assert_eq;

    /// The events after `start` (these tests pin what the body itself produces).
    fn decode(chunks: &[Vec<u8>]) -> Vec<AssistantMessageEvent> {
        let initial = AssistantMessage::empty("openai-responses", "openai", "gpt-5", 0);
        let mut events =
            super::super::decoded(ResponsesDecoder::new(initial, ModelCost::default()), chunks);
        events.remove(0);
        events
    }

    fn reply(json: Value) -> ScriptedReply {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn round_trip_of_a_full_reply() {
        let chunks = encode_reply(
            &reply(json!({
                "thinking": "Let me look.",
                "textChunks": ["Hel", "lo ", "🦞"],
                "toolCalls": [
                    {"id": "c1", "name": "read", "arguments": {"path": "a"}},
                    {"id": "call_2|fc_x", "name": "ls", "argumentsRaw": "{\"dir\": \"."},
                    {"name": "noop"}
                ],
                "usage": {"input": 10, "output": 5, "cacheRead": 30, "cacheWrite": 2}
            })),
            "gpt-5",
        );
        assert!(
            chunks
                .iter()
                .all(|c| c.starts_with(b"event: ") && c.ends_with(b"\n\n"))
        );
        let events = decode(&chunks);
        let message = events.last().and_then(|e| e.final_message()).unwrap();
        let ContentBlock::Thinking(thinking) = &message.content[0] else {
            panic!("{message:?}")
        };
        assert_eq!(thinking.thinking, "Let me look.");
        assert!(thinking.thinking_signature.is_some());
        assert_eq!(
            message.content[1..],
            [
                ContentBlock::Text(TextContent {
                    text: "Hello 🦞".into(),
                    text_signature: Some(r#"{"v":1,"id":"msg_1"}"#.into()),
                    ..TextContent::default()
                }),
                ContentBlock::ToolCall(ToolCall::new("c1|fc_1", "read", json!({"path": "a"}))),
                ContentBlock::ToolCall(ToolCall::new("call_2|fc_x", "ls", json!({"dir": "."}))),
                ContentBlock::ToolCall(ToolCall::new("call_3|fc_3", "noop", json!({}))),
            ]
        );
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        let u = &message.usage;
        assert_eq!(
            (
                u.input,
                u.output,
                u.cache_read,
                u.cache_write,
                u.total_tokens
            ),
            (10, 5, 30, 2, 47)
        );
        let text_deltas: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                AssistantMessageEvent::TextDelta { delta, .. } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text_deltas, ["Hel", "lo ", "🦞"]);
    }

    #[test]
    fn length_and_stream_error() {
        let events = decode(&encode_reply(
            &reply(json!({"text": "cut", "stopReason": "length"})),
            "m",
        ));
        let message = events.last().and_then(|e| e.final_message()).unwrap();
        assert_eq!(
            (message.stop_reason, message.text()),
            (StopReason::Length, "cut".to_owned())
        );
        let events = decode(&encode_reply(
            &reply(json!({"text": "partial", "streamError": "Upstream overloaded"})),
            "m",
        ));
        let message = events.last().and_then(|e| e.final_message()).unwrap();
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(
            message.error_message.as_deref(),
            Some("Upstream overloaded")
        );
        assert_eq!(message.text(), "partial");
        let empty = decode(&encode_reply(&ScriptedReply::default(), "m"));
        let message = empty.last().and_then(|e| e.final_message()).unwrap();
        assert_eq!(
            (message.stop_reason, message.content.len()),
            (StopReason::Stop, 0)
        );
        assert_eq!(
            empty.first().map(AssistantMessageEvent::type_name),
            Some("done")
        );
    }

    #[test]
    fn roles_of_a_request() {
        let body = json!({"input": [
            {"role": "developer", "content": "sys"},
            {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "role": "assistant", "content": [], "id": "msg_1"},
            {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "ls", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"},
            {"type": "function_call_output", "call_id": "c2", "output": "y"},
            {"role": "user", "content": [{"type": "input_text", "text": "more"}]},
            {"role": "developer", "content": [{"type": "input_text", "text": "# Juice: 0 !important"}]}
        ]});
        assert_eq!(
            wire_roles(&body),
            ["user", "assistant", "tool", "tool", "user", "system"]
        );
        assert_eq!(wire_roles(&json!({"input": "hi"})), ["user"]);
        assert!(wire_roles(&json!({})).is_empty());
    }
}
