//! Expansion of FORMAT.md's message shorthand into full pi v3 message JSON.
//!
//! Full messages (those with `content`, and the coding-agent roles) are returned as they are,
//! except that a text generator inside a text block is rendered. Input is assumed validated by
//! [`super::scenario::message`]; anything else is returned unchanged rather than rejected.

use serde_json::{Map, Value, json};

/// `api` of an assistant shorthand that names none.
pub const DEFAULT_API: &str = "openai-completions";
/// `provider` of an assistant shorthand that names none.
pub const DEFAULT_PROVIDER: &str = "openai";
/// `model` of an assistant shorthand that names none.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// Expands one message (shorthand or full) into a full pi v3 message.
pub fn expand_message(msg: &Value) -> Value {
    let Value::Object(map) = msg else {
        return msg.clone();
    };
    if map.contains_key("content") {
        return expand_full(map);
    }
    match map.get("role").and_then(Value::as_str) {
        Some("user") => user(map),
        Some("assistant") => assistant(map),
        Some("toolResult") => tool_result(map),
        _ => msg.clone(),
    }
}

/// Expands every message of a list.
pub fn expand_messages(msgs: &[Value]) -> Vec<Value> {
    msgs.iter().map(expand_message).collect()
}

/// Renders text or a `{"repeat","count","then"?}` generator; other values render as "".
pub fn expand_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(g) => {
            let unit = g.get("repeat").and_then(Value::as_str).unwrap_or("");
            let count = g
                .get("count")
                .and_then(Value::as_f64)
                .filter(|n| *n >= 0.0)
                .map_or(0, |n| n as usize);
            let mut out = unit.repeat(count);
            if let Some(then) = g.get("then").and_then(Value::as_str) {
                out.push_str(then);
            }
            out
        }
        _ => String::new(),
    }
}

fn text_block(text: &Value) -> Value {
    json!({"type": "text", "text": expand_text(text)})
}

fn timestamp(map: &Map<String, Value>) -> Value {
    map.get("timestamp").cloned().unwrap_or_else(|| json!(0))
}

fn str_or(map: &Map<String, Value>, key: &str, default: &str) -> Value {
    map.get(key)
        .cloned()
        .unwrap_or_else(|| Value::from(default))
}

fn expand_full(map: &Map<String, Value>) -> Value {
    let mut out = map.clone();
    if let Some(Value::Array(blocks)) = out.get_mut("content") {
        for block in blocks.iter_mut() {
            if block.get("type").and_then(Value::as_str) == Some("text")
                && let Some(text) = block.get_mut("text")
                && text.is_object()
            {
                *text = Value::from(expand_text(text));
            }
        }
    }
    Value::Object(out)
}

fn user(map: &Map<String, Value>) -> Value {
    let text = map.get("text").cloned().unwrap_or_default();
    json!({
        "role": "user",
        "content": [text_block(&text)],
        "timestamp": timestamp(map),
    })
}

fn assistant(map: &Map<String, Value>) -> Value {
    let mut content = Vec::new();
    if let Some(thinking) = map.get("thinking") {
        content.push(json!({"type": "thinking", "thinking": thinking}));
    }
    if let Some(text) = map.get("text") {
        content.push(text_block(text));
    }
    let calls = map.get("toolCalls").and_then(Value::as_array);
    for call in calls.into_iter().flatten() {
        content.push(json!({
            "type": "toolCall",
            "id": call.get("id").cloned().unwrap_or_default(),
            "name": call.get("name").cloned().unwrap_or_default(),
            "arguments": call.get("arguments").cloned().unwrap_or_else(|| json!({})),
        }));
    }
    let error = map.get("error");
    let stop_reason = if error.is_some() {
        "error"
    } else if calls.is_some_and(|c| !c.is_empty()) {
        "toolUse"
    } else {
        "stop"
    };
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    out.insert("content".into(), Value::Array(content));
    out.insert("api".into(), str_or(map, "api", DEFAULT_API));
    out.insert("provider".into(), str_or(map, "provider", DEFAULT_PROVIDER));
    out.insert("model".into(), str_or(map, "model", DEFAULT_MODEL));
    out.insert("usage".into(), usage(map.get("usage")));
    out.insert("stopReason".into(), json!(stop_reason));
    if let Some(e) = error {
        out.insert("errorMessage".into(), e.clone());
    }
    out.insert("timestamp".into(), timestamp(map));
    Value::Object(out)
}

fn tool_result(map: &Map<String, Value>) -> Value {
    let text = map.get("text").cloned().unwrap_or_default();
    json!({
        "role": "toolResult",
        "toolCallId": map.get("toolCallId").cloned().unwrap_or_default(),
        "toolName": map.get("toolName").cloned().unwrap_or_default(),
        "content": [text_block(&text)],
        "isError": map.get("isError").cloned().unwrap_or(Value::Bool(false)),
        "timestamp": timestamp(map),
    })
}

/// A full pi `Usage` from a partial one; missing fields are 0.
pub fn usage(partial: Option<&Value>) -> Value {
    let get = |obj: Option<&Value>, key: &str| {
        obj.and_then(|o| o.get(key))
            .filter(|v| v.is_number())
            .cloned()
            .unwrap_or_else(|| json!(0))
    };
    let cost = partial.and_then(|p| p.get("cost"));
    json!({
        "input": get(partial, "input"),
        "output": get(partial, "output"),
        "cacheRead": get(partial, "cacheRead"),
        "cacheWrite": get(partial, "cacheWrite"),
        "totalTokens": get(partial, "totalTokens"),
        "cost": {
            "input": get(cost, "input"),
            "output": get(cost, "output"),
            "cacheRead": get(cost, "cacheRead"),
            "cacheWrite": get(cost, "cacheWrite"),
            "total": get(cost, "total"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn user_text() {
        assert_eq!(
            expand_message(&json!({"role": "user", "text": "hi"})),
            json!({"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 0})
        );
    }

    #[test]
    fn assistant_text_defaults() {
        let m = expand_message(&json!({"role": "assistant", "text": "ok"}));
        assert_eq!(m["content"], json!([{"type": "text", "text": "ok"}]));
        assert_eq!(m["stopReason"], "stop");
        assert_eq!(m["api"], DEFAULT_API);
        assert_eq!(m["provider"], DEFAULT_PROVIDER);
        assert_eq!(m["model"], DEFAULT_MODEL);
        assert_eq!(m["timestamp"], 0);
        assert_eq!(m["usage"]["totalTokens"], 0);
        assert_eq!(m["usage"]["cost"]["total"], 0);
        assert!(m.get("errorMessage").is_none());
    }

    #[test]
    fn assistant_tool_calls_with_extras() {
        let m = expand_message(&json!({
            "role": "assistant", "text": "let me look", "thinking": "hmm",
            "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "a"}}, {"id": "c2", "name": "ls"}],
            "usage": {"input": 10, "cacheRead": 5}, "provider": "anthropic", "model": "m", "api": "anthropic-messages",
            "timestamp": 42
        }));
        assert_eq!(
            m,
            json!({
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "text", "text": "let me look"},
                    {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}},
                    {"type": "toolCall", "id": "c2", "name": "ls", "arguments": {}}
                ],
                "api": "anthropic-messages", "provider": "anthropic", "model": "m",
                "usage": {"input": 10, "output": 0, "cacheRead": 5, "cacheWrite": 0, "totalTokens": 0,
                          "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "toolUse",
                "timestamp": 42
            })
        );
    }

    #[test]
    fn assistant_error() {
        let m = expand_message(&json!({"role": "assistant", "error": "boom"}));
        assert_eq!(m["content"], json!([]));
        assert_eq!(m["stopReason"], "error");
        assert_eq!(m["errorMessage"], "boom");
    }

    #[test]
    fn tool_result_and_generator() {
        let m = expand_message(
            &json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
            "text": {"repeat": "ab", "count": 2, "then": "."}, "isError": true}),
        );
        assert_eq!(
            m,
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                   "content": [{"type": "text", "text": "abab."}], "isError": true, "timestamp": 0})
        );
        let m = expand_message(
            &json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "text": "x"}),
        );
        assert_eq!(m["isError"], false);
    }

    #[test]
    fn full_messages_untouched_except_generators() {
        let full = json!({"role": "user", "content": "plain", "timestamp": 7, "extra": 1});
        assert_eq!(expand_message(&full), full);
        let generated = json!({"role": "user", "content": [{"type": "text", "text": {"repeat": "z", "count": 3}}], "timestamp": 0});
        assert_eq!(expand_message(&generated)["content"][0]["text"], "zzz");
        let summary =
            json!({"role": "compactionSummary", "summary": "s", "tokensBefore": 5, "timestamp": 1});
        assert_eq!(expand_message(&summary), summary);
    }
}
