//! The scripted server's side of this API: a FORMAT.md scripted reply encoded as the exact
//! event stream Anthropic sends, and the `roles` normalization of a recorded request body.

use serde_json::{Value, json};

use crate::{ScriptedReply, ScriptedStopReason};

/// The `content-type` of a streamed Messages response.
pub const CONTENT_TYPE: &str = "text/event-stream; charset=utf-8";

/// The signature given to scripted thinking, so a replay sends it back as a signed thinking
/// block as it would with a real one.
pub const SCRIPTED_SIGNATURE: &str = "c2NyaXB0ZWQtdGhpbmtpbmc=";

/// One SSE event: `event: <name>` and its JSON `data:` line.
fn sse(name: &str, data: &Value) -> Vec<u8> {
    format!("event: {name}\ndata: {data}\n\n").into_bytes()
}

fn block_start(index: usize, block: Value) -> Vec<u8> {
    sse(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn block_delta(index: usize, delta: Value) -> Vec<u8> {
    sse(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn block_stop(index: usize) -> Vec<u8> {
    sse(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
    )
}

/// Anthropic's error type for a scripted message, so the event reads like the real thing.
fn error_type(message: &str) -> &'static str {
    let lower = message.to_lowercase();
    if lower.contains("overloaded") {
        "overloaded_error"
    } else if lower.contains("rate limit") {
        "rate_limit_error"
    } else {
        "api_error"
    }
}

/// The body of a 2xx streamed response for `reply`, one SSE event per chunk:
/// `message_start` (input, cache read and cache write usage), then a thinking block (with a
/// signature), a text block (one delta per text chunk) and one `tool_use` block per call
/// (arguments in one `input_json_delta`, `argumentsRaw` verbatim), then either
/// `message_delta` (stop reason and output usage) and `message_stop`, or, for `streamError`,
/// an `error` event and nothing more.
pub fn encode_reply(reply: &ScriptedReply, model_id: &str) -> Vec<Vec<u8>> {
    let usage = reply.usage.unwrap_or_default();
    let mut chunks = vec![sse(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": "msg_scripted", "type": "message", "role": "assistant", "model": model_id,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": usage.input, "cache_creation_input_tokens": usage.cache_write,
                      "cache_read_input_tokens": usage.cache_read, "output_tokens": 0}}}),
    )];
    let mut index = 0;
    if let Some(thinking) = &reply.thinking {
        chunks.push(block_start(
            index,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
        ));
        if !thinking.is_empty() {
            chunks.push(block_delta(
                index,
                json!({"type": "thinking_delta", "thinking": thinking}),
            ));
        }
        chunks.push(block_delta(
            index,
            json!({"type": "signature_delta", "signature": SCRIPTED_SIGNATURE}),
        ));
        chunks.push(block_stop(index));
        index += 1;
    }
    let deltas = reply.text_deltas();
    if !deltas.is_empty() {
        chunks.push(block_start(index, json!({"type": "text", "text": ""})));
        for text in deltas.into_iter().filter(|t| !t.is_empty()) {
            chunks.push(block_delta(
                index,
                json!({"type": "text_delta", "text": text}),
            ));
        }
        chunks.push(block_stop(index));
        index += 1;
    }
    for (id, call) in reply.tool_calls_with_ids() {
        chunks.push(block_start(
            index,
            json!({"type": "tool_use", "id": id, "name": call.name, "input": {}}),
        ));
        chunks.push(block_delta(
            index,
            json!({"type": "input_json_delta", "partial_json": call.arguments_text()}),
        ));
        chunks.push(block_stop(index));
        index += 1;
    }
    if let Some(message) = &reply.stream_error {
        chunks.push(sse(
            "error",
            &json!({"type": "error", "error": {"type": error_type(message), "message": message}}),
        ));
        return chunks;
    }
    let stop_reason = match reply.effective_stop_reason() {
        ScriptedStopReason::Stop => "end_turn",
        ScriptedStopReason::Length => "max_tokens",
        ScriptedStopReason::ToolUse => "tool_use",
    };
    chunks.push(sse(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
                "usage": {"input_tokens": usage.input, "cache_creation_input_tokens": usage.cache_write,
                          "cache_read_input_tokens": usage.cache_read, "output_tokens": usage.output}}),
    ));
    chunks.push(sse("message_stop", &json!({"type": "message_stop"})));
    chunks
}

/// FORMAT.md's `roles` of a Messages request body: each message's role, except that a user
/// message holding only `tool_result` blocks counts as `tool` (`developer` would count as
/// `system`; the system prompt is a separate field and not listed).
pub fn wire_roles(request_body: &Value) -> Vec<String> {
    let Some(messages) = request_body.get("messages").and_then(Value::as_array) else {
        return Vec::new();
    };
    messages
        .iter()
        .map(|message| {
            let role = message.get("role").and_then(Value::as_str).unwrap_or("");
            let only_tool_results = message
                .get("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| {
                    !blocks.is_empty()
                        && blocks
                            .iter()
                            .all(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                });
            match role {
                "user" if only_tool_results => "tool",
                "developer" => "system",
                other => other,
            }
            .to_owned()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ScriptedToolCall, ScriptedUsage};
    use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall};
    use clawloop_core::{AssistantMessage, ModelCost, StopReason, Usage};
    use clawloop_providers::anthropic_messages::EventDecoder;
    use clawloop_providers::transport::SseFramer;
    use pretty_assertions::assert_eq;

    /// Frames and decodes `chunks` as the client would.
    fn decode(chunks: &[Vec<u8>]) -> AssistantMessage {
        for chunk in chunks {
            let mut frames = Vec::new();
            SseFramer::new(1 << 20).feed(chunk, &mut frames).unwrap();
            assert_eq!(frames.len(), 1, "one SSE event per chunk");
        }
        let initial = AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 0);
        let events =
            super::super::decoded(EventDecoder::new(initial, ModelCost::default()), chunks);
        super::super::final_message(&events)
    }

    #[test]
    fn round_trip_of_a_full_reply() {
        let reply = ScriptedReply {
            thinking: Some("Let me see.".into()),
            text_chunks: Some(vec!["Hel".into(), "lo ü".into()]),
            tool_calls: Some(vec![
                ScriptedToolCall {
                    id: Some("toolu_1".into()),
                    name: "read".into(),
                    arguments: Some(json!({"path": "a.txt"})),
                    arguments_raw: None,
                },
                ScriptedToolCall {
                    name: "ls".into(),
                    arguments_raw: Some("{\"dir\": \"sr".into()),
                    ..ScriptedToolCall::default()
                },
            ]),
            usage: Some(ScriptedUsage {
                input: 40,
                output: 6,
                cache_read: 1800,
                cache_write: 60,
            }),
            ..ScriptedReply::default()
        };
        let message = decode(&encode_reply(&reply, "claude-x"));
        let mut expected = AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 0);
        expected.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "Let me see.".into(),
                thinking_signature: Some(SCRIPTED_SIGNATURE.into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Hello ü"),
            ContentBlock::ToolCall(ToolCall::new("toolu_1", "read", json!({"path": "a.txt"}))),
            // Malformed on purpose: the lenient parse keeps what it can.
            ContentBlock::ToolCall(ToolCall::new("call_2", "ls", json!({"dir": "sr"}))),
        ];
        expected.stop_reason = StopReason::ToolUse;
        expected.usage = Usage {
            input: 40,
            output: 6,
            cache_read: 1800,
            cache_write: 60,
            total_tokens: 1906,
            ..Usage::default()
        };
        assert_eq!(message, expected);
    }

    #[test]
    fn stop_reasons_and_stream_errors() {
        let length = ScriptedReply {
            text: Some("cut".into()),
            stop_reason: Some(ScriptedStopReason::Length),
            ..ScriptedReply::default()
        };
        let message = decode(&encode_reply(&length, "m"));
        assert_eq!(
            (message.text(), message.stop_reason),
            ("cut".into(), StopReason::Length)
        );

        let failing = ScriptedReply {
            text: Some("Partial".into()),
            stream_error: Some("Overloaded".into()),
            ..ScriptedReply::default()
        };
        let chunks = encode_reply(&failing, "m");
        let last = String::from_utf8(chunks.last().unwrap().clone()).unwrap();
        assert_eq!(
            last,
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
        );
        let message = decode(&chunks);
        assert_eq!(message.text(), "Partial");
        assert_eq!(message.stop_reason, StopReason::Error);
        assert!(message.error_message.unwrap().contains("Overloaded"));
    }

    #[test]
    fn roles() {
        let body = json!({"system": [{"type": "text", "text": "s"}], "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"},
                                         {"type": "text", "text": "and"}]},
            {"role": "user", "content": []}
        ]});
        assert_eq!(
            wire_roles(&body),
            ["user", "assistant", "tool", "user", "user"]
        );
        assert_eq!(wire_roles(&json!({})), Vec::<String>::new());
    }
}
