//! The scripted provider server's Gemini side: a [`ScriptedReply`] encoded as the exact
//! `streamGenerateContent?alt=sse` body, and FORMAT.md's `roles` normalization of a recorded
//! request.

use serde_json::{Map, Value, json};

use super::saturating_sum;
use crate::{ScriptedReply, ScriptedStopReason};

/// The `content-type` of an encoded stream.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// The body of `reply` as data chunks, each one SSE event framed like Google's (`data: …` and
/// `\r\n\r\n`): the thinking as one thought part, each text delta as a text part, all tool calls
/// as parallel `functionCall` parts of one chunk, and `finishReason` with `usageMetadata` on the
/// last chunk. With `streamError`, the content chunks are followed by Google's in-stream
/// `{"error": {...}}` chunk instead of a finish.
///
/// Usage is written in Gemini's terms: `promptTokenCount` = input + cacheRead,
/// `cachedContentTokenCount` = cacheRead, `candidatesTokenCount` = output. Gemini has no
/// cache-write counter, so `cacheWrite` cannot be expressed. A tool call's id is sent only when
/// the script gives one (Gemini calls carry none; the client then makes one up), and
/// `argumentsRaw` that is not JSON is sent as a string, the only way `args` can carry it.
pub fn encode_reply(reply: &ScriptedReply, model_id: &str) -> Vec<Vec<u8>> {
    let mut chunks: Vec<Vec<Value>> = Vec::new();
    if let Some(thinking) = reply.thinking.as_deref().filter(|t| !t.is_empty()) {
        chunks.push(vec![json!({"text": thinking, "thought": true})]);
    }
    for delta in reply.text_deltas() {
        chunks.push(vec![json!({"text": delta})]);
    }
    let calls: Vec<Value> = reply
        .tool_calls
        .iter()
        .flatten()
        .map(|call| {
            let raw = call.arguments_text();
            let args = match serde_json::from_str::<Value>(&raw) {
                Ok(value) => value,
                Err(_) => Value::String(raw),
            };
            let mut function_call = Map::new();
            if let Some(id) = &call.id {
                function_call.insert("id".into(), Value::from(id.clone()));
            }
            function_call.insert("name".into(), Value::from(call.name.clone()));
            function_call.insert("args".into(), args);
            json!({"functionCall": function_call})
        })
        .collect();
    if !calls.is_empty() {
        chunks.push(calls);
    }
    let mut events: Vec<Value> = chunks
        .into_iter()
        .map(|parts| {
            json!({
                "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
                "modelVersion": model_id,
            })
        })
        .collect();
    if let Some(message) = &reply.stream_error {
        events.push(json!({"error": {"code": 500, "message": message, "status": "INTERNAL"}}));
        return events.iter().map(sse_event).collect();
    }
    if events.is_empty() {
        events.push(json!({
            "candidates": [{"content": {"parts": [], "role": "model"}, "index": 0}],
            "modelVersion": model_id,
        }));
    }
    let finish = match reply.effective_stop_reason() {
        ScriptedStopReason::Length => "MAX_TOKENS",
        ScriptedStopReason::Stop | ScriptedStopReason::ToolUse => "STOP",
    };
    let usage = reply.usage.unwrap_or_default();
    let mut metadata = Map::new();
    metadata.insert(
        "promptTokenCount".into(),
        Value::from(usage.input.saturating_add(usage.cache_read)),
    );
    metadata.insert("candidatesTokenCount".into(), Value::from(usage.output));
    metadata.insert(
        "totalTokenCount".into(),
        Value::from(saturating_sum([
            usage.input,
            usage.cache_read,
            usage.output,
        ])),
    );
    if usage.cache_read > 0 {
        metadata.insert(
            "cachedContentTokenCount".into(),
            Value::from(usage.cache_read),
        );
    }
    if let Some(last) = events.last_mut() {
        last["candidates"][0]["finishReason"] = Value::from(finish);
        last["usageMetadata"] = Value::Object(metadata);
    }
    events.iter().map(sse_event).collect()
}

fn sse_event(chunk: &Value) -> Vec<u8> {
    format!("data: {chunk}\r\n\r\n").into_bytes()
}

/// FORMAT.md's `roles` for a recorded Gemini request body: `contents[].role`, `model` →
/// `assistant`, and a user content holding only `functionResponse` parts → `tool` (the system
/// instruction is not part of `contents`). A content without a role is a user's (Google's
/// default).
pub fn wire_roles(request_body: &Value) -> Vec<String> {
    request_body["contents"]
        .as_array()
        .map(|contents| {
            contents
                .iter()
                .map(|content| {
                    let role = content["role"].as_str().unwrap_or("user");
                    let only_responses = content["parts"].as_array().is_some_and(|parts| {
                        !parts.is_empty()
                            && parts.iter().all(|p| p.get("functionResponse").is_some())
                    });
                    match role {
                        "model" => "assistant".to_owned(),
                        "user" if only_responses => "tool".to_owned(),
                        other => other.to_owned(),
                    }
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall};
    use clawloop_core::{AssistantMessage, ModelCost, StopReason};
    use clawloop_providers::google_generative_ai::ChunkDecoder;
    use pretty_assertions::assert_eq;

    fn round_trip(reply: serde_json::Value) -> AssistantMessage {
        let reply: ScriptedReply = serde_json::from_value(reply).unwrap();
        let initial =
            AssistantMessage::empty("google-generative-ai", "google", "gemini-2.5-flash", 9);
        let decoder = ChunkDecoder::new(initial, ModelCost::default());
        let events = super::super::decoded(decoder, &encode_reply(&reply, "gemini-2.5-flash"));
        let message = super::super::final_message(&events);
        mask_generated_ids(message)
    }

    /// The client makes up `<name>_<hash>_<n>` ids for calls without one; the hash is not
    /// part of what a script pins.
    fn mask_generated_ids(mut message: AssistantMessage) -> AssistantMessage {
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

    #[test]
    fn encoded_replies_decode_to_the_script() {
        let m = round_trip(json!({
            "thinking": "Let me see.", "textChunks": ["Hel", "lo"],
            "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "a"}},
                          {"name": "ls", "argumentsRaw": "{\"dir\": \".\""}],
            "usage": {"input": 10, "output": 5, "cacheRead": 90}
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
                ContentBlock::ToolCall(ToolCall::new("ls_#_1", "ls", json!({"dir": "."}))),
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
            (10, 5, 90, 105)
        );

        let m = round_trip(json!({"text": "cut", "stopReason": "length"}));
        assert_eq!(
            (m.text(), m.stop_reason),
            ("cut".to_owned(), StopReason::Length)
        );

        let m = round_trip(json!({}));
        assert_eq!((m.content.len(), m.stop_reason), (0, StopReason::Stop));

        let m =
            round_trip(json!({"text": "partial", "streamError": "Internal error encountered."}));
        assert_eq!(m.stop_reason, StopReason::Error);
        assert_eq!(m.text(), "partial");
        assert_eq!(
            m.error_message.as_deref(),
            Some("Internal error encountered.")
        );
    }

    #[test]
    fn chunks_are_sse_events() {
        let reply: ScriptedReply =
            serde_json::from_value(json!({"textChunks": ["a", "b"]})).unwrap();
        let chunks = encode_reply(&reply, "gemini-2.0-flash");
        assert_eq!(chunks.len(), 2);
        for chunk in &chunks {
            assert!(chunk.starts_with(b"data: {") && chunk.ends_with(b"}\r\n\r\n"));
        }
    }

    #[test]
    fn roles_are_normalized() {
        let body = json!({
            "systemInstruction": {"role": "user", "parts": [{"text": "sys"}]},
            "contents": [
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {}}}]},
                {"role": "user", "parts": [{"text": "Tool result image:"}, {"inlineData": {}}]},
                {"parts": [{"text": "no role"}]}
            ]
        });
        assert_eq!(
            wire_roles(&body),
            vec!["user", "assistant", "tool", "user", "user"]
        );
        assert_eq!(wire_roles(&json!({})), Vec::<String>::new());
    }
}
