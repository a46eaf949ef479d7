//! The summary form of an actual message, which expected messages are compared against:
//! `{"role","text","toolCalls","toolCallId","isError","stopReason"}` (FORMAT.md).

use serde_json::{Map, Value};

/// Summarizes one actual pi message (or coding-agent message).
///
/// `text` joins the text blocks with `"\n"` (or is the content when it is a string); summaries
/// carry their `summary`; a migrated `hookMessage` counts as `custom`.
pub fn summarize(msg: &Value) -> Value {
    let mut out = Map::new();
    let role = msg.get("role").and_then(Value::as_str).unwrap_or("");
    let role = if role == "hookMessage" {
        "custom"
    } else {
        role
    };
    out.insert("role".into(), Value::from(role));
    match role {
        "compactionSummary" | "branchSummary" => {
            let summary = msg.get("summary").and_then(Value::as_str).unwrap_or("");
            out.insert("text".into(), Value::from(summary));
        }
        "bashExecution" => {
            if let Some(output) = msg.get("output") {
                out.insert("text".into(), output.clone());
            }
        }
        _ => {
            out.insert("text".into(), Value::from(content_text(msg.get("content"))));
        }
    }
    if role == "assistant" {
        out.insert(
            "toolCalls".into(),
            Value::Array(tool_call_ids(msg.get("content"))),
        );
        if let Some(sr) = msg.get("stopReason") {
            out.insert("stopReason".into(), sr.clone());
        }
    }
    if role == "toolResult" {
        for key in ["toolCallId", "isError"] {
            if let Some(v) = msg.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
    }
    Value::Object(out)
}

/// Summarizes a list of messages.
pub fn summarize_all(msgs: &[Value]) -> Value {
    Value::Array(msgs.iter().map(summarize).collect())
}

/// The text of a content field: the string itself, or the text blocks joined with `\n`.
pub fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn tool_call_ids(content: Option<&Value>) -> Vec<Value> {
    let Some(Value::Array(blocks)) = content else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
        .filter_map(|b| b.get("id").cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn assistant_summary() {
        let m = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "t"}, {"type": "text", "text": "a"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}, {"type": "text", "text": "b"}],
            "stopReason": "toolUse", "api": "x"});
        assert_eq!(
            summarize(&m),
            json!({"role": "assistant", "text": "a\nb", "toolCalls": ["c1"], "stopReason": "toolUse"})
        );
    }

    #[test]
    fn user_string_content_and_tool_result() {
        assert_eq!(
            summarize(&json!({"role": "user", "content": "hi", "timestamp": 0})),
            json!({"role": "user", "text": "hi"})
        );
        assert_eq!(
            summarize(
                &json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                "content": [{"type": "text", "text": "out"}], "isError": true})
            ),
            json!({"role": "toolResult", "text": "out", "toolCallId": "c1", "isError": true})
        );
    }

    #[test]
    fn coding_agent_roles() {
        assert_eq!(
            summarize(&json!({"role": "compactionSummary", "summary": "S", "tokensBefore": 1})),
            json!({"role": "compactionSummary", "text": "S"})
        );
        assert_eq!(
            summarize(&json!({"role": "branchSummary", "summary": "B", "fromId": "x"})),
            json!({"role": "branchSummary", "text": "B"})
        );
        assert_eq!(
            summarize(&json!({"role": "hookMessage", "customType": "t", "content": "c"})),
            json!({"role": "custom", "text": "c"})
        );
    }

    #[test]
    fn errored_assistant_has_empty_text() {
        let s = summarize(
            &json!({"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "x"}),
        );
        assert_eq!(
            s,
            json!({"role": "assistant", "text": "", "toolCalls": [], "stopReason": "error"})
        );
    }
}
