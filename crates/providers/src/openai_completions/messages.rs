//! pi's message conversion for Chat Completions (pi-mono §1.5 "Message conversion").

use clawloop_core::message::{ContentBlock, ImageContent, Message, UserContent};
use clawloop_core::{AssistantMessage, Context, Model};
use serde_json::{Map, Value, json};

use super::compat::OpenAiCompat;
use crate::replay::transform_messages;

/// Assistant text inserted where a server needs one after tool results (pi's text).
pub const PROCESSED_TOOL_RESULTS: &str = "I have processed the tool results.";

/// Text leading the user message that carries the images of a run of tool results.
pub const ATTACHED_IMAGES: &str = "Attached image(s) from tool result:";

/// Content of a tool result that holds only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Delta fields a thinking block may be replayed under (its `thinkingSignature` names one).
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// Chat Completions' tool-call id syntax: the part before a `|` (Responses-style
/// `call|item` ids), characters outside `[A-Za-z0-9_-]` replaced by `_`, at most 40 chars.
pub fn normalize_tool_call_id(id: &str) -> String {
    let head = id.split('|').next().unwrap_or(id);
    head.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect()
}

/// The `messages` array for `context`.
pub fn convert_messages(model: &Model, context: &Context, compat: &OpenAiCompat) -> Vec<Value> {
    let mut out = Vec::with_capacity(context.messages.len() + 1);
    if let Some(system) = &context.system_prompt {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": system}));
    }
    let messages = transform_messages(&context.messages, model, normalize_tool_call_id);
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(user) => {
                if compat.requires_assistant_after_tool_result
                    && i > 0
                    && matches!(messages[i - 1], Message::ToolResult(_))
                {
                    out.push(json!({"role": "assistant", "content": PROCESSED_TOOL_RESULTS}));
                }
                if let Some(m) = convert_user(&user.content, model) {
                    out.push(m);
                }
                i += 1;
            }
            Message::Assistant(assistant) => {
                if let Some(m) = convert_assistant(assistant, compat) {
                    out.push(m);
                }
                i += 1;
            }
            Message::ToolResult(_) => {
                // A run of consecutive tool results: one `tool` message each, then their images.
                let mut images = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(i) {
                    let text = clawloop_core::message::join_text(&result.content);
                    let has_images = result
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::Image(_)));
                    let content = if text.is_empty() && has_images {
                        SEE_ATTACHED_IMAGE.to_owned()
                    } else {
                        text
                    };
                    let mut m = json!({
                        "role": "tool",
                        "tool_call_id": result.tool_call_id,
                        "content": content,
                    });
                    if compat.requires_tool_result_name {
                        m["name"] = Value::from(result.tool_name.clone());
                    }
                    out.push(m);
                    if model.supports_images() {
                        images.extend(result.content.iter().filter_map(|b| match b {
                            ContentBlock::Image(image) => Some(image_part(image)),
                            _ => None,
                        }));
                    }
                    i += 1;
                }
                if !images.is_empty() {
                    if compat.requires_assistant_after_tool_result {
                        out.push(json!({"role": "assistant", "content": PROCESSED_TOOL_RESULTS}));
                    }
                    let mut parts = vec![json!({"type": "text", "text": ATTACHED_IMAGES})];
                    parts.extend(images);
                    out.push(json!({"role": "user", "content": parts}));
                }
            }
        }
    }
    out
}

fn image_part(image: &ImageContent) -> Value {
    json!({
        "type": "image_url",
        "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)},
    })
}

fn convert_user(content: &UserContent, model: &Model) -> Option<Value> {
    match content {
        UserContent::Text(text) => Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => {
            let parts: Vec<Value> = blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
                    ContentBlock::Image(image) if model.supports_images() => {
                        Some(image_part(image))
                    }
                    _ => None,
                })
                .collect();
            (!parts.is_empty()).then(|| json!({"role": "user", "content": parts}))
        }
    }
}

fn convert_assistant(message: &AssistantMessage, compat: &OpenAiCompat) -> Option<Value> {
    let mut text = String::new();
    let mut thinking_parts: Vec<&str> = Vec::new();
    let mut thinking_field: Option<&str> = None;
    let mut tool_calls = Vec::new();
    let mut reasoning_details = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                if thinking_field.is_none() && thinking_parts.is_empty() {
                    thinking_field = t
                        .thinking_signature
                        .as_deref()
                        .filter(|s| REASONING_FIELDS.contains(s));
                }
                thinking_parts.push(&t.thinking);
            }
            ContentBlock::ToolCall(call) => {
                tool_calls.push(json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments.to_string()},
                }));
                if let Some(detail) = call
                    .thought_signature
                    .as_deref()
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                {
                    reasoning_details.push(detail);
                }
            }
            _ => {}
        }
    }
    let thinking = thinking_parts.join("\n");
    let mut m = Map::new();
    m.insert("role".into(), Value::from("assistant"));
    if compat.requires_thinking_as_text && !thinking.is_empty() {
        // pi prepends the thinking as a text part (and, in 0.58.3, breaks when text exists);
        // one string with thinking first keeps the intent and stays valid.
        text = if text.is_empty() {
            thinking
        } else {
            format!("{thinking}\n\n{text}")
        };
    } else if let Some(field) = thinking_field.filter(|_| !thinking.is_empty()) {
        m.insert(field.to_owned(), Value::from(thinking));
    }
    let content = if !text.is_empty() {
        Value::from(text)
    } else if compat.requires_assistant_after_tool_result {
        Value::from("")
    } else {
        Value::Null
    };
    let has_text = content.as_str().is_some_and(|s| !s.is_empty());
    if !has_text && tool_calls.is_empty() {
        return None;
    }
    m.insert("content".into(), content);
    if !tool_calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(tool_calls));
    }
    if !reasoning_details.is_empty() {
        m.insert("reasoning_details".into(), Value::Array(reasoning_details));
    }
    Some(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::message::{ThinkingContent, ToolCall, ToolResultMessage, UserMessage};

    fn model(reasoning: bool, images: bool) -> Model {
        serde_json::from_value(json!({
            "id": "gpt", "api": "openai-completions", "provider": "openai", "reasoning": reasoning,
            "input": if images { json!(["text", "image"]) } else { json!(["text"]) },
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    #[test]
    fn ids_are_normalized() {
        assert_eq!(normalize_tool_call_id("call_1|fc_2"), "call_1");
        assert_eq!(normalize_tool_call_id("toolu:01 x"), "toolu_01_x");
        assert_eq!(normalize_tool_call_id(&"a".repeat(50)).len(), 40);
    }

    #[test]
    fn converts_a_whole_conversation() {
        let model = model(true, true);
        let compat = OpenAiCompat::for_model(&model);
        let mut assistant = AssistantMessage::for_model(&model, 2);
        assistant.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "plan".into(),
                thinking_signature: Some("reasoning_content".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Reading."),
            ContentBlock::ToolCall(ToolCall::new("c1", "read", json!({"path": "a"}))),
        ];
        assistant.stop_reason = StopReason::ToolUse;
        let mut result = ToolResultMessage::text("c1", "read", "", false, 3);
        result.content = vec![ContentBlock::image("AAAA", "image/png")];
        let context = Context {
            system_prompt: Some("be brief".into()),
            messages: vec![
                Message::User(UserMessage::text("hi", 1)),
                Message::Assistant(assistant),
                Message::ToolResult(result),
            ],
            tools: Vec::new(),
        };
        let out = convert_messages(&model, &context, &compat);
        assert_eq!(
            Value::Array(out),
            json!([
                {"role": "developer", "content": "be brief"},
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "reasoning_content": "plan", "content": "Reading.",
                 "tool_calls": [{"id": "c1", "type": "function",
                                 "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": SEE_ATTACHED_IMAGE},
                {"role": "user", "content": [
                    {"type": "text", "text": ATTACHED_IMAGES},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
                ]}
            ])
        );
    }
}
