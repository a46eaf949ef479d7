//! The scripted provider server's Ollama side: a [`ScriptedReply`] encoded as the exact
//! `/api/chat` NDJSON body, and FORMAT.md's `roles` normalization of a recorded request.

use serde_json::{Map, Value, json};

use crate::{ScriptedReply, ScriptedStopReason};

/// The `content-type` of an encoded stream.
pub const CONTENT_TYPE: &str = "application/x-ndjson";

/// A fixed `created_at`: scripted streams must be byte-for-byte reproducible.
const CREATED_AT: &str = "2025-01-01T00:00:00.000000Z";

/// The body of `reply` as data chunks, each one NDJSON line as Ollama writes it: the thinking
/// as one `message.thinking` line, each text delta as a `message.content` line, all tool calls
/// in one `message.tool_calls` line, then the `done: true` line with `done_reason` and the
/// counts. With `streamError`, the content lines are followed by Ollama's `{"error": "…"}`
/// line instead.
///
/// Usage is written in Ollama's terms: `prompt_eval_count` = input, `eval_count` = output;
/// Ollama has no cache counters, so `cacheRead` / `cacheWrite` cannot be expressed. A tool
/// call's `id` is sent only when the script gives one (older Ollama versions send none; the
/// client then makes one up), and `argumentsRaw` that is not JSON is sent as a string.
pub fn encode_reply(reply: &ScriptedReply, model_id: &str) -> Vec<Vec<u8>> {
    let line = |message: Value| json!({"model": model_id, "created_at": CREATED_AT, "message": message, "done": false});
    let mut lines = Vec::new();
    if let Some(thinking) = reply.thinking.as_deref().filter(|t| !t.is_empty()) {
        lines.push(line(
            json!({"role": "assistant", "content": "", "thinking": thinking}),
        ));
    }
    for delta in reply.text_deltas() {
        lines.push(line(json!({"role": "assistant", "content": delta})));
    }
    let calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .flatten()
        .enumerate()
        .map(|(index, call)| {
            let raw = call.arguments_text();
            let arguments = match serde_json::from_str::<Value>(&raw) {
                Ok(value) => value,
                Err(_) => Value::String(raw),
            };
            let mut wire = Map::new();
            if let Some(id) = &call.id {
                wire.insert("id".into(), Value::from(id.clone()));
            }
            wire.insert(
                "function".into(),
                json!({"index": index, "name": call.name, "arguments": arguments}),
            );
            Value::Object(wire)
        })
        .collect();
    if !calls.is_empty() {
        lines.push(line(
            json!({"role": "assistant", "content": "", "tool_calls": calls}),
        ));
    }
    if let Some(message) = &reply.stream_error {
        lines.push(json!({"error": message}));
        return lines.iter().map(ndjson_line).collect();
    }
    let done_reason = match reply.effective_stop_reason() {
        ScriptedStopReason::Length => "length",
        ScriptedStopReason::Stop | ScriptedStopReason::ToolUse => "stop",
    };
    let usage = reply.usage.unwrap_or_default();
    lines.push(json!({
        "model": model_id,
        "created_at": CREATED_AT,
        "message": {"role": "assistant", "content": ""},
        "done": true,
        "done_reason": done_reason,
        "total_duration": 1_000_000,
        "load_duration": 1_000,
        "prompt_eval_count": usage.input,
        "prompt_eval_duration": 100_000,
        "eval_count": usage.output,
        "eval_duration": 800_000,
    }));
    lines.iter().map(ndjson_line).collect()
}

fn ndjson_line(line: &Value) -> Vec<u8> {
    format!("{line}\n").into_bytes()
}

/// FORMAT.md's `roles` for a recorded Ollama request body: each message's `role`, without the
/// system prompt (the leading `system` message).
pub fn wire_roles(request_body: &Value) -> Vec<String> {
    let Some(messages) = request_body["messages"].as_array() else {
        return Vec::new();
    };
    let skip = usize::from(messages.first().is_some_and(|m| m["role"] == "system"));
    messages
        .iter()
        .skip(skip)
        .map(|m| m["role"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall};
    use clawloop_core::{AssistantMessage, ModelCost, StopReason};
    use clawloop_providers::ollama::ChunkDecoder;
    use pretty_assertions::assert_eq;

    fn round_trip(reply: Value) -> AssistantMessage {
        let reply: ScriptedReply = serde_json::from_value(reply).unwrap();
        let initial = AssistantMessage::empty("ollama", "ollama", "qwen3:8b", 3);
        let decoder = ChunkDecoder::new(initial, ModelCost::default());
        let events = super::super::decoded(decoder, &encode_reply(&reply, "qwen3:8b"));
        let message = super::super::final_message(&events);
        mask_generated_ids(message)
    }

    /// The client makes up `ollama_call_<hash>_<n>` ids for calls without one; the hash is
    /// not part of what a script pins.
    fn mask_generated_ids(mut message: AssistantMessage) -> AssistantMessage {
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

    #[test]
    fn encoded_replies_decode_to_the_script() {
        let m = round_trip(json!({
            "thinking": "Let me see.", "textChunks": ["Hel", "lo"],
            "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "a"}},
                          {"name": "ls", "argumentsRaw": "{\"dir\": \".\""}],
            "usage": {"input": 10, "output": 5}
        }));
        assert_eq!(
            m.content,
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "Let me see.".into(),
                    ..ThinkingContent::default()
                }),
                ContentBlock::text("Hello"),
                ContentBlock::ToolCall(ToolCall::new("c1", "read", json!({"path": "a"}))),
                ContentBlock::ToolCall(ToolCall::new("ollama_call_#_1", "ls", json!({"dir": "."}))),
            ]
        );
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(
            (m.usage.input, m.usage.output, m.usage.total_tokens),
            (10, 5, 15)
        );

        let m = round_trip(json!({"text": "cut", "stopReason": "length"}));
        assert_eq!(
            (m.text(), m.stop_reason),
            ("cut".to_owned(), StopReason::Length)
        );

        let m = round_trip(json!({"text": "partial", "streamError": "model runner crashed"}));
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.text(), "partial");
        assert_eq!(m.error_message.as_deref(), Some("model runner crashed"));
    }

    #[test]
    fn chunks_are_lines() {
        let reply: ScriptedReply =
            serde_json::from_value(json!({"textChunks": ["a", "b"]})).unwrap();
        let chunks = encode_reply(&reply, "m");
        assert_eq!(chunks.len(), 3);
        for chunk in &chunks {
            assert!(chunk.starts_with(b"{") && chunk.ends_with(b"}\n"));
            assert_eq!(chunk.iter().filter(|b| **b == b'\n').count(), 1);
        }
    }

    #[test]
    fn roles_skip_the_system_prompt() {
        let body = json!({"messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": []},
            {"role": "tool", "content": "ok", "tool_name": "ls"}
        ]});
        assert_eq!(wire_roles(&body), vec!["user", "assistant", "tool"]);
        assert_eq!(wire_roles(&json!({"messages": []})), Vec::<String>::new());
    }
}
