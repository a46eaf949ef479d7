//! API-neutral facts read from a request body for `expectRequest`: the system prompt, the
//! last user text and the offered tool names.
//!
//! The five APIs put these in few enough places that one lenient reader covers them all
//! (`messages`, Responses `input`, Gemini `contents`; `system`, `instructions`,
//! `systemInstruction`; `tools[].function.name`, `tools[].name`,
//! `tools[].functionDeclarations[].name`), so scripts work the same whatever the endpoint.

use serde_json::Value;

/// Top-level fields that hold the conversation, per API.
const MESSAGE_LISTS: [&str; 3] = ["messages", "input", "contents"];

/// The system prompt as sent: Anthropic's `system`, Responses' `instructions`, Gemini's
/// `systemInstruction`, and every `system`/`developer` message, joined with `\n`.
pub fn system_text(body: &Value) -> String {
    let mut parts = Vec::new();
    for key in [
        "system",
        "instructions",
        "systemInstruction",
        "system_instruction",
    ] {
        if let Some(value) = body.get(key) {
            parts.extend(texts(value));
        }
    }
    for message in messages(body) {
        if matches!(role(message), Some("system" | "developer")) {
            parts.extend(message_texts(message));
        }
    }
    parts.join("\n")
}

/// The text of the last user message that has any (tool results sent as user messages,
/// such as Anthropic's `tool_result` or Gemini's `functionResponse`, carry none), joined
/// with `\n`.
pub fn last_user_text(body: &Value) -> Option<String> {
    messages(body)
        .filter(|m| role(m) == Some("user"))
        .map(|m| message_texts(m).join("\n"))
        .rfind(|text| !text.is_empty())
}

/// The names of the offered tools, sorted.
pub fn tool_names(body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let direct = tool
            .get("function")
            .and_then(|f| f.get("name"))
            .or_else(|| tool.get("name"))
            .and_then(Value::as_str);
        names.extend(direct.map(str::to_owned));
        for key in ["functionDeclarations", "function_declarations"] {
            let declarations = tool.get(key).and_then(Value::as_array);
            names.extend(
                declarations
                    .into_iter()
                    .flatten()
                    .filter_map(|d| d.get("name").and_then(Value::as_str))
                    .map(str::to_owned),
            );
        }
    }
    names.sort();
    names
}

fn messages(body: &Value) -> impl DoubleEndedIterator<Item = &Value> {
    MESSAGE_LISTS
        .iter()
        .filter_map(|key| body.get(*key).and_then(Value::as_array))
        .flatten()
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// The texts of a message: its `content` (string or parts) or Gemini's `parts`.
fn message_texts(message: &Value) -> Vec<&str> {
    ["content", "parts"]
        .iter()
        .filter_map(|key| message.get(*key))
        .flat_map(texts)
        .collect()
}

/// A string, or the `text` of each part of an array / `{parts: […]}` object.
fn texts(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                _ => p.get("text").and_then(Value::as_str),
            })
            .collect(),
        Value::Object(_) => value.get("parts").map(texts).unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn openai_completions_and_ollama() {
        let body = json!({
            "messages": [
                {"role": "developer", "content": "You are terse."},
                {"role": "user", "content": [{"type": "text", "text": "first"}]},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "second"},
                {"role": "tool", "content": "result"},
            ],
            "tools": [{"type": "function", "function": {"name": "write"}},
                      {"type": "function", "function": {"name": "bash"}}]
        });
        assert_eq!(system_text(&body), "You are terse.");
        assert_eq!(last_user_text(&body).as_deref(), Some("second"));
        assert_eq!(tool_names(&body), vec!["bash", "write"]);
    }

    #[test]
    fn anthropic() {
        let body = json!({
            "system": [{"type": "text", "text": "Be kind."}, {"type": "text", "text": "Be brief."}],
            "messages": [
                {"role": "user", "content": "plan the deployment plan"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "read", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]},
            ],
            "tools": [{"name": "read", "input_schema": {}}]
        });
        assert_eq!(system_text(&body), "Be kind.\nBe brief.");
        assert_eq!(
            last_user_text(&body).as_deref(),
            Some("plan the deployment plan")
        );
        assert_eq!(tool_names(&body), vec!["read"]);
    }

    #[test]
    fn openai_responses() {
        let body = json!({
            "instructions": "sys",
            "input": [
                {"role": "developer", "content": "dev"},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hello"}]},
                {"type": "function_call_output", "call_id": "c", "output": "r"},
            ],
            "tools": [{"type": "function", "name": "ls"}]
        });
        assert_eq!(system_text(&body), "sys\ndev");
        assert_eq!(last_user_text(&body).as_deref(), Some("hello"));
        assert_eq!(tool_names(&body), vec!["ls"]);
    }

    #[test]
    fn gemini() {
        let body = json!({
            "systemInstruction": {"parts": [{"text": "gem sys"}]},
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
            ],
            "tools": [{"functionDeclarations": [{"name": "f"}, {"name": "e"}]}]
        });
        assert_eq!(system_text(&body), "gem sys");
        assert_eq!(last_user_text(&body).as_deref(), Some("q"));
        assert_eq!(tool_names(&body), vec!["e", "f"]);
    }

    #[test]
    fn odd_bodies_give_empty_facts() {
        for body in [
            json!(null),
            json!([]),
            json!({"messages": 3, "tools": {"a": 1}}),
        ] {
            assert_eq!(system_text(&body), "");
            assert_eq!(last_user_text(&body), None);
            assert!(tool_names(&body).is_empty());
        }
    }
}
