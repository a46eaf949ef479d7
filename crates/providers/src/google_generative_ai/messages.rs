//! pi's message conversion for Gemini (`convertMessages` in `google-shared.ts`, pi-mono §1.8).

use clawloop_core::message::{ContentBlock, ImageContent, Message, UserContent};
use clawloop_core::{AssistantMessage, Context, Model, ToolResultMessage};
use serde_json::{Map, Value, json};

use crate::replay::transform_messages;

/// Signature Gemini 3 accepts on a function call that has no real thought signature (a call
/// replayed from another model), instead of rejecting the request.
pub const SKIP_THOUGHT_SIGNATURE: &str = "skip_thought_signature_validator";

/// Text leading the user content that carries a tool result's images for models before
/// Gemini 3, which cannot nest images in a function response.
pub const TOOL_RESULT_IMAGE: &str = "Tool result image:";

/// Function response of a tool result that holds only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Whether Google needs explicit call ids for `model_id` (Claude and gpt-oss served through
/// Google APIs); Gemini itself matches responses by name and order.
pub fn requires_tool_call_id(model_id: &str) -> bool {
    model_id.starts_with("claude-") || model_id.starts_with("gpt-oss-")
}

/// Tool-call ids as sent to `model_id`: unchanged unless ids are sent at all, then
/// `[^A-Za-z0-9_-]` → `_`, at most 64 characters.
pub fn normalize_tool_call_id(model_id: &str, id: &str) -> String {
    if !requires_tool_call_id(model_id) {
        return id.to_owned();
    }
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// Thought signatures are bytes in base64; anything else (another provider's signature, a
/// field name) would be rejected by Google.
pub fn is_valid_thought_signature(signature: &str) -> bool {
    if signature.is_empty() || !signature.len().is_multiple_of(4) {
        return false;
    }
    let body = signature.trim_end_matches('=');
    signature.len() - body.len() <= 2
        && !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// The `contents` array for `context` (the system prompt travels separately).
pub fn convert_messages(model: &Model, context: &Context) -> Vec<Value> {
    let messages = transform_messages(&context.messages, model, |id| {
        normalize_tool_call_id(&model.id, id)
    });
    let mut contents: Vec<Value> = Vec::with_capacity(messages.len());
    for message in &messages {
        match message {
            Message::User(user) => {
                if let Some(content) = convert_user(&user.content, model) {
                    contents.push(content);
                }
            }
            Message::Assistant(assistant) => {
                if let Some(content) = convert_assistant(assistant, model) {
                    contents.push(content);
                }
            }
            Message::ToolResult(result) => push_tool_result(&mut contents, result, model),
        }
    }
    contents
}

fn image_part(image: &ImageContent) -> Value {
    json!({"inlineData": {"mimeType": image.mime_type, "data": image.data}})
}

fn convert_user(content: &UserContent, model: &Model) -> Option<Value> {
    let parts: Vec<Value> = match content {
        UserContent::Text(text) => vec![json!({"text": text})],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(t) => Some(json!({"text": t.text})),
                ContentBlock::Image(image) if model.supports_images() => Some(image_part(image)),
                _ => None,
            })
            .collect(),
    };
    (!parts.is_empty()).then(|| json!({"role": "user", "parts": parts}))
}

fn convert_assistant(message: &AssistantMessage, model: &Model) -> Option<Value> {
    // pi's google-shared compares provider and model id (not the api) here.
    let same = message.provider == model.provider && message.model == model.id;
    let signature =
        |s: Option<&String>| s.filter(|s| same && is_valid_thought_signature(s)).cloned();
    let gemini3 = model.id.to_ascii_lowercase().contains("gemini-3");
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            // Empty text parts upset some models (Claude through Google); pi skips them.
            ContentBlock::Text(t) if !t.text.trim().is_empty() => {
                let mut part = Map::new();
                part.insert("text".into(), Value::from(t.text.clone()));
                if let Some(s) = signature(t.text_signature.as_ref()) {
                    part.insert("thoughtSignature".into(), Value::from(s));
                }
                parts.push(Value::Object(part));
            }
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                let mut part = Map::new();
                if same {
                    part.insert("thought".into(), Value::Bool(true));
                }
                part.insert("text".into(), Value::from(t.thinking.clone()));
                if let Some(s) = signature(t.thinking_signature.as_ref()) {
                    part.insert("thoughtSignature".into(), Value::from(s));
                }
                parts.push(Value::Object(part));
            }
            ContentBlock::ToolCall(call) => {
                let mut function_call = Map::new();
                function_call.insert("name".into(), Value::from(call.name.clone()));
                let args = match &call.arguments {
                    Value::Null => Value::Object(Map::new()),
                    other => other.clone(),
                };
                function_call.insert("args".into(), args);
                if requires_tool_call_id(&model.id) {
                    function_call.insert("id".into(), Value::from(call.id.clone()));
                }
                let mut part = Map::new();
                part.insert("functionCall".into(), Value::Object(function_call));
                match signature(call.thought_signature.as_ref()) {
                    Some(s) => {
                        part.insert("thoughtSignature".into(), Value::from(s));
                    }
                    // Gemini 3 requires a signature on every call when thinking is on.
                    None if gemini3 => {
                        part.insert(
                            "thoughtSignature".into(),
                            Value::from(SKIP_THOUGHT_SIGNATURE),
                        );
                    }
                    None => {}
                }
                parts.push(Value::Object(part));
            }
            _ => {}
        }
    }
    (!parts.is_empty()).then(|| json!({"role": "model", "parts": parts}))
}

/// A tool result becomes a `functionResponse` part in a user content, merged into the previous
/// user content when that already holds function responses (all responses to one turn travel
/// together). Images go inside the response for Gemini 3 and into a separate user content
/// otherwise.
fn push_tool_result(contents: &mut Vec<Value>, result: &ToolResultMessage, model: &Model) {
    let text = clawloop_core::message::join_text(&result.content);
    let images: Vec<Value> = if model.supports_images() {
        result
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Image(image) => Some(image_part(image)),
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    let multimodal = model.id.contains("gemini-3");
    let value = if !text.is_empty() {
        text
    } else if !images.is_empty() {
        SEE_ATTACHED_IMAGE.to_owned()
    } else {
        String::new()
    };
    let response = if result.is_error {
        json!({"error": value})
    } else {
        json!({"output": value})
    };
    let mut function_response = Map::new();
    function_response.insert("name".into(), Value::from(result.tool_name.clone()));
    function_response.insert("response".into(), response);
    if !images.is_empty() && multimodal {
        function_response.insert("parts".into(), Value::Array(images.clone()));
    }
    if requires_tool_call_id(&model.id) {
        function_response.insert("id".into(), Value::from(result.tool_call_id.clone()));
    }
    let part = json!({"functionResponse": function_response});
    let merged = contents.last_mut().is_some_and(|last| {
        let holds_responses = last["role"] == "user"
            && last["parts"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p.get("functionResponse").is_some()));
        if holds_responses && let Some(parts) = last["parts"].as_array_mut() {
            parts.push(part.clone());
            true
        } else {
            false
        }
    });
    if !merged {
        contents.push(json!({"role": "user", "parts": [part]}));
    }
    if !images.is_empty() && !multimodal {
        let mut parts = vec![json!({"text": TOOL_RESULT_IMAGE})];
        parts.extend(images);
        contents.push(json!({"role": "user", "parts": parts}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::message::{TextContent, ThinkingContent, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(id: &str) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "google-generative-ai", "provider": "google", "reasoning": true,
            "input": ["text", "image"], "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    fn conversation(model: &Model, from: &Model) -> Context {
        let mut assistant = AssistantMessage::for_model(from, 2);
        let mut call = ToolCall::new("read_1_1", "read", json!({"path": "a"}));
        call.thought_signature = Some("Y2FsbA==".into());
        assistant.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "plan".into(),
                thinking_signature: Some("dGhpbms=".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::Text(TextContent {
                text: "Reading.".into(),
                text_signature: Some("not base64!".into()),
                ..TextContent::default()
            }),
            ContentBlock::text("  "),
            ContentBlock::ToolCall(call),
            ContentBlock::ToolCall(ToolCall::new("ls_1_2", "ls", json!({}))),
        ];
        assistant.stop_reason = StopReason::ToolUse;
        let mut image_result = ToolResultMessage::text("ls_1_2", "ls", "", true, 4);
        image_result.content = vec![ContentBlock::image("AAAA", "image/png")];
        let _ = model;
        Context {
            system_prompt: Some("be brief".into()),
            messages: vec![
                Message::User(UserMessage::text("hi", 1)),
                Message::Assistant(assistant),
                Message::ToolResult(ToolResultMessage::text("read_1_1", "read", "ok", false, 3)),
                Message::ToolResult(image_result),
            ],
            tools: Vec::new(),
        }
    }

    #[test]
    fn same_model_keeps_thoughts_and_valid_signatures() {
        let model = model("gemini-2.5-flash");
        let contents = convert_messages(&model, &conversation(&model, &model));
        assert_eq!(
            Value::Array(contents),
            json!([
                {"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [
                    {"thought": true, "text": "plan", "thoughtSignature": "dGhpbms="},
                    {"text": "Reading."},
                    {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "Y2FsbA=="},
                    {"functionCall": {"name": "ls", "args": {}}}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read", "response": {"output": "ok"}}},
                    {"functionResponse": {"name": "ls", "response": {"error": SEE_ATTACHED_IMAGE}}}
                ]},
                {"role": "user", "parts": [
                    {"text": TOOL_RESULT_IMAGE},
                    {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}
                ]}
            ])
        );
    }

    #[test]
    fn foreign_messages_on_gemini3_get_sentinel_and_nested_images() {
        let target = model("gemini-3-pro-preview");
        let mut foreign = model("claude-sonnet-4-5");
        foreign.provider = "anthropic".into();
        foreign.api = "anthropic-messages".into();
        let contents = convert_messages(&target, &conversation(&target, &foreign));
        assert_eq!(
            contents[1],
            json!({"role": "model", "parts": [
                {"text": "plan"},
                {"text": "Reading."},
                {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": SKIP_THOUGHT_SIGNATURE},
                {"functionCall": {"name": "ls", "args": {}}, "thoughtSignature": SKIP_THOUGHT_SIGNATURE}
            ]})
        );
        assert_eq!(
            contents[2]["parts"][1],
            json!({"functionResponse": {"name": "ls", "response": {"error": SEE_ATTACHED_IMAGE},
                   "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}})
        );
        assert_eq!(contents.len(), 3);
    }

    #[test]
    fn ids_only_for_models_that_need_them() {
        let model = model("claude-sonnet-4-5");
        assert_eq!(
            normalize_tool_call_id(&model.id, "toolu:01|x"),
            "toolu_01_x"
        );
        assert_eq!(normalize_tool_call_id("gemini-2.5-pro", "a:b"), "a:b");
        let contents = convert_messages(&model, &conversation(&model, &model));
        assert_eq!(contents[1]["parts"][2]["functionCall"]["id"], "read_1_1");
        assert_eq!(
            contents[2]["parts"][0]["functionResponse"]["id"],
            "read_1_1"
        );
    }

    #[test]
    fn signatures_must_be_base64() {
        assert!(is_valid_thought_signature("Y2FsbA=="));
        assert!(is_valid_thought_signature("abcd+/12"));
        assert!(!is_valid_thought_signature("abc"));
        assert!(!is_valid_thought_signature("ab=c"));
        assert!(!is_valid_thought_signature("a==="));
        assert!(!is_valid_thought_signature("===="));
        assert!(!is_valid_thought_signature("reasoning_content"));
    }
}
