//! The scripted provider server's view of `openai-completions`: a [`ScriptedReply`] encoded
//! as a Chat Completions event stream, and the wire roles of a request body (FORMAT.md `run`).
//!
//! Every data chunk carries content where possible (the role rides on the first one), so the
//! script's per-chunk knobs (`dropAfterChunks: 1`, `stallAfterChunks: 1`) cut after the first
//! piece of text, as scenario authors expect.

use serde_json::{Map, Value, json};

use crate::{ScriptedReply, ScriptedStopReason, ScriptedUsage};

/// The `content-type` of an encoded reply.
pub const CONTENT_TYPE: &str = "text/event-stream";

/// The id every scripted chunk carries (real servers repeat one id per completion).
const COMPLETION_ID: &str = "chatcmpl-scripted";

/// Encodes `reply` as Chat Completions SSE: one `data:` event per element, in order —
/// thinking (`reasoning_content`), each text delta, one chunk per tool call, then either the
/// in-stream `{"error":…}` chunk (`streamError`, and nothing after it) or the finish chunk,
/// the usage chunk (`choices: []`) and `[DONE]`.
pub fn encode_reply(reply: &ScriptedReply, model_id: &str) -> Vec<Vec<u8>> {
    let mut out = Chunks {
        model_id,
        role_sent: false,
        chunks: Vec::new(),
    };
    if let Some(thinking) = reply.thinking.as_deref().filter(|t| !t.is_empty()) {
        out.delta(json!({"reasoning_content": thinking}), Value::Null);
    }
    for text in reply.text_deltas() {
        out.delta(json!({"content": text}), Value::Null);
    }
    for (index, (id, call)) in reply.tool_calls_with_ids().into_iter().enumerate() {
        let tool_call = json!({
            "index": index,
            "id": id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_text()},
        });
        out.delta(json!({"tool_calls": [tool_call]}), Value::Null);
    }
    if let Some(message) = &reply.stream_error {
        // The stream ends right after the error, as OpenAI's does: no finish reason, no
        // `[DONE]`.
        let error = json!({"error": {"message": message, "type": "server_error", "code": null}});
        out.chunks.push(data(&error));
        return out.chunks;
    }
    let finish = match reply.effective_stop_reason() {
        ScriptedStopReason::Stop => "stop",
        ScriptedStopReason::Length => "length",
        ScriptedStopReason::ToolUse => "tool_calls",
    };
    out.delta(json!({}), Value::from(finish));
    let usage = usage_json(&reply.usage.unwrap_or_default());
    out.chunks.push(data(&json!({
        "id": COMPLETION_ID,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model_id,
        "choices": [],
        "usage": usage,
    })));
    out.chunks.push(b"data: [DONE]\n\n".to_vec());
    out.chunks
}

/// The chunks built so far and whether the assistant role was announced yet.
struct Chunks<'a> {
    model_id: &'a str,
    role_sent: bool,
    chunks: Vec<Vec<u8>>,
}

impl Chunks<'_> {
    /// Appends a one-choice chunk; the first one also carries `role: assistant`.
    fn delta(&mut self, mut delta: Value, finish_reason: Value) {
        if !self.role_sent {
            self.role_sent = true;
            delta["role"] = Value::from("assistant");
        }
        self.chunks.push(data(&json!({
            "id": COMPLETION_ID,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model_id,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        })));
    }
}

/// FORMAT.md's mapping: `prompt_tokens` = input + cacheRead (+ cacheWrite, reported as
/// OpenRouter's `cache_write_tokens` so the cache write survives the round trip),
/// `cached_tokens` = cacheRead, `completion_tokens` = output.
fn usage_json(usage: &ScriptedUsage) -> Value {
    let prompt = usage
        .input
        .saturating_add(usage.cache_read)
        .saturating_add(usage.cache_write);
    let mut details = Map::new();
    details.insert("cached_tokens".into(), Value::from(usage.cache_read));
    if usage.cache_write > 0 {
        details.insert("cache_write_tokens".into(), Value::from(usage.cache_write));
    }
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": usage.output,
        "total_tokens": prompt.saturating_add(usage.output),
        "prompt_tokens_details": details,
    })
}

/// One SSE event `data: <json>\n\n`.
fn data(json: &Value) -> Vec<u8> {
    format!("data: {json}\n\n").into_bytes()
}

/// The roles of `messages` as sent, normalized (FORMAT.md `roles`): the system prompt (the
/// leading `system`/`developer` messages) is left out, a later `developer` counts as
/// `system`, and every other role is kept as written.
pub fn wire_roles(request_body: &Value) -> Vec<String> {
    let Some(messages) = request_body.get("messages").and_then(Value::as_array) else {
        return Vec::new();
    };
    fn role(message: &Value) -> &str {
        message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
    let is_system = |r: &str| r == "system" || r == "developer";
    messages
        .iter()
        .skip_while(|m| is_system(role(m)))
        .map(|m| match role(m) {
            "developer" => "system".to_owned(),
            other => other.to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::{AssistantMessage, AssistantMessageEvent, ModelCost, StopReason};
    use clawloop_providers::openai_completions::ChunkDecoder;
    use pretty_assertions::assert_eq;

    fn decode(chunks: &[Vec<u8>]) -> (Vec<&'static str>, AssistantMessage) {
        let initial = AssistantMessage::empty("openai-completions", "openai", "m", 0);
        let events =
            super::super::decoded(ChunkDecoder::new(initial, ModelCost::default()), chunks);
        let types = events
            .iter()
            .map(AssistantMessageEvent::type_name)
            .collect();
        (types, super::super::final_message(&events))
    }

    fn reply(json: Value) -> ScriptedReply {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn text_thinking_tools_and_usage_round_trip_through_the_decoder() {
        let r = reply(json!({
            "thinking": "hmm", "textChunks": ["Hel", "lo"],
            "toolCalls": [{"name": "read", "arguments": {"path": "a"}}, {"id": "c9", "name": "ls"}],
            "usage": {"input": 10, "output": 5, "cacheRead": 300, "cacheWrite": 7}
        }));
        let chunks = encode_reply(&r, "m1");
        // thinking, 2 texts, 2 tools, finish, usage, [DONE]
        assert_eq!(chunks.len(), 8);
        let first: Value = serde_json::from_slice(&chunks[0][6..]).unwrap();
        assert_eq!(first["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(first["model"], "m1");
        let (_, m) = decode(&chunks);
        assert_eq!(m.stop_reason, StopReason::ToolUse);
        assert_eq!(m.text(), "Hello");
        let summary = serde_json::to_value(&m.content).unwrap();
        assert_eq!(summary[0]["thinking"], "hmm");
        assert_eq!(summary[2]["id"], "call_1");
        assert_eq!(summary[2]["arguments"], json!({"path": "a"}));
        assert_eq!(summary[3]["id"], "c9");
        assert_eq!(summary[3]["arguments"], json!({}));
        assert_eq!(
            (
                m.usage.input,
                m.usage.output,
                m.usage.cache_read,
                m.usage.cache_write
            ),
            (10, 5, 300, 7)
        );
    }

    #[test]
    fn first_data_chunk_holds_the_first_text() {
        let chunks = encode_reply(&reply(json!({"textChunks": ["A", "B"]})), "m");
        let (_, m) = decode(&chunks[..1]);
        assert_eq!(m.text(), "A");
        let usage: Value = serde_json::from_slice(&chunks[3][6..]).unwrap();
        assert_eq!(
            usage["usage"],
            json!({"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
                   "prompt_tokens_details": {"cached_tokens": 0}})
        );
    }

    #[test]
    fn stop_reasons_and_empty_reply() {
        let (types, m) = decode(&encode_reply(&reply(json!({"stopReason": "length"})), "m"));
        assert_eq!(m.stop_reason, StopReason::Length);
        assert_eq!(types, vec!["start", "done"]);
        let (_, m) = decode(&encode_reply(&reply(json!({"text": "x"})), "m"));
        assert_eq!(m.stop_reason, StopReason::Stop);
    }

    #[test]
    fn stream_error_is_an_in_stream_error_chunk() {
        let chunks = encode_reply(
            &reply(json!({"text": "part", "streamError": "Overloaded, try later"})),
            "m",
        );
        assert_eq!(chunks.len(), 2);
        let (types, m) = decode(&chunks);
        assert_eq!(types.last(), Some(&"error"));
        assert_eq!(m.text(), "part");
        assert!(
            m.error_message
                .as_deref()
                .unwrap_or_default()
                .contains("Overloaded, try later"),
            "{m:?}"
        );
    }

    #[test]
    fn malformed_arguments_are_sent_verbatim() {
        let chunks = encode_reply(
            &reply(json!({"toolCalls": [{"name": "x", "argumentsRaw": "{\"a\":"}]})),
            "m",
        );
        let text = String::from_utf8(chunks[0].clone()).unwrap();
        assert!(text.contains(r#""arguments":"{\"a\":""#), "{text}");
    }

    #[test]
    fn roles_leave_out_the_system_prompt() {
        let body = json!({"messages": [
            {"role": "developer", "content": "sys"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "content": "r"},
            {"role": "developer", "content": "late"},
            {"role": "system", "content": "later"},
        ]});
        assert_eq!(
            wire_roles(&body),
            vec!["user", "assistant", "tool", "system", "system"]
        );
        assert!(wire_roles(&json!({})).is_empty());
        assert!(wire_roles(&json!({"messages": [1, {"role": 3}]})).len() == 2);
    }
}
