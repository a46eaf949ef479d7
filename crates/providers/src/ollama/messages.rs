//! The `messages` array of an Ollama `/api/chat` request.
//!
//! pi has no native Ollama API; this follows Ollama's documented chat format and OpenClaw's
//! `convertToOllamaMessages`, and treats the rest like `openai-completions` does: the same
//! cross-provider replay, images of tool results in one user message after the run of
//! results, same-model reasoning sent back (here in Ollama's `thinking` field).

use clawloop_core::message::{ContentBlock, Message, UserContent, join_text};
use clawloop_core::{AssistantMessage, Context, Model};
use serde_json::{Map, Value, json};

use crate::replay::transform_messages;

/// Text of the user message that carries the images of a run of tool results (the same text
/// as `openai-completions`).
pub const ATTACHED_IMAGES: &str = "Attached image(s) from tool result:";

/// Content of a tool result that holds only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// The `messages` array for `context`, system prompt first.
///
/// Ollama matches tool results by tool name (`tool_name`), not by id, so ids are never sent
/// and need no normalization.
pub fn convert_messages(model: &Model, context: &Context) -> Vec<Value> {
    let mut out = Vec::with_capacity(context.messages.len() + 1);
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        out.push(json!({"role": "system", "content": system}));
    }
    let messages = transform_messages(&context.messages, model, str::to_owned);
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(user) => {
                if let Some(m) = convert_user(&user.content, model) {
                    out.push(m);
                }
                i += 1;
            }
            Message::Assistant(assistant) => {
                if let Some(m) = convert_assistant(assistant) {
                    out.push(m);
                }
                i += 1;
            }
            Message::ToolResult(_) => {
                // A run of consecutive tool results: one `tool` message each, then their images.
                let mut images = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(i) {
                    let text = join_text(&result.content);
                    let has_images = result
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::Image(_)));
                    let content = if text.is_empty() && has_images {
                        SEE_ATTACHED_IMAGE.to_owned()
                    } else {
                        text
                    };
                    out.push(json!({
                        "role": "tool",
                        "content": content,
                        "tool_name": result.tool_name,
                    }));
                    if model.supports_images() {
                        images.extend(image_data(&result.content));
                    }
                    i += 1;
                }
                if !images.is_empty() {
                    out.push(json!({"role": "user", "content": ATTACHED_IMAGES, "images": images}));
                }
            }
        }
    }
    out
}

/// Ollama takes images as bare base64 strings in the message's `images`.
fn image_data(blocks: &[ContentBlock]) -> Vec<Value> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(image) => Some(Value::from(image.data.clone())),
            _ => None,
        })
        .collect()
}

fn convert_user(content: &UserContent, model: &Model) -> Option<Value> {
    match content {
        UserContent::Text(text) => Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => {
            let text = join_text(blocks);
            let images = if model.supports_images() {
                image_data(blocks)
            } else {
                Vec::new()
            };
            let has_text = blocks.iter().any(|b| matches!(b, ContentBlock::Text(_)));
            if !has_text && images.is_empty() {
                return None;
            }
            let mut m = Map::new();
            m.insert("role".into(), Value::from("user"));
            m.insert("content".into(), Value::from(text));
            if !images.is_empty() {
                m.insert("images".into(), Value::Array(images));
            }
            Some(Value::Object(m))
        }
    }
}

/// Text blocks joined with `""` (as `openai-completions` does), the thinking that survived
/// replay (same model) joined with `"\n"` in `thinking`, tool calls with object arguments.
fn convert_assistant(message: &AssistantMessage) -> Option<Value> {
    let mut text = String::new();
    let mut thinking: Vec<&str> = Vec::new();
    let mut tool_calls = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                thinking.push(&t.thinking);
            }
            ContentBlock::ToolCall(call) => {
                let arguments = match &call.arguments {
                    object @ Value::Object(_) => object.clone(),
                    _ => Value::Object(Map::new()),
                };
                tool_calls.push(json!({"function": {"name": call.name, "arguments": arguments}}));
            }
            _ => {}
        }
    }
    if text.is_empty() && thinking.is_empty() && tool_calls.is_empty() {
        return None;
    }
    let mut m = Map::new();
    m.insert("role".into(), Value::from("assistant"));
    m.insert("content".into(), Value::from(text));
    if !thinking.is_empty() {
        m.insert("thinking".into(), Value::from(thinking.join("\n")));
    }
    if !tool_calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(tool_calls));
    }
    Some(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::message::{ThinkingContent, ToolCall, ToolResultMessage, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(images: bool) -> Model {
        serde_json::from_value(json!({
            "id": "qwen3:8b", "api": "ollama", "provider": "ollama", "reasoning": true,
            "input": if images { json!(["text", "image"]) } else { json!(["text"]) },
            "contextWindow": 32768, "maxTokens": 8192
        }))
        .unwrap()
    }

    fn context(model: &Model) -> Context {
        let mut assistant = AssistantMessage::for_model(model, 2);
        assistant.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "plan".into(),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Reading."),
            ContentBlock::ToolCall(ToolCall::new("c1", "read", json!({"path": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("c2", "shot", json!({}))),
        ];
        assistant.stop_reason = StopReason::ToolUse;
        let mut shot = ToolResultMessage::text("c2", "shot", "", false, 4);
        shot.content = vec![ContentBlock::image("AAAA", "image/png")];
        let mut user = UserMessage::text("look", 5);
        user.content = UserContent::Blocks(vec![
            ContentBlock::text("look"),
            ContentBlock::image("BBBB", "image/jpeg"),
        ]);
        Context {
            system_prompt: Some("be brief".into()),
            messages: vec![
                Message::User(UserMessage::text("hi", 1)),
                Message::Assistant(assistant),
                Message::ToolResult(ToolResultMessage::text("c1", "read", "ok", false, 3)),
                Message::ToolResult(shot),
                Message::User(user),
            ],
            tools: Vec::new(),
        }
    }

    #[test]
    fn converts_a_whole_conversation() {
        let model = model(true);
        assert_eq!(
            Value::Array(convert_messages(&model, &context(&model))),
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Reading.", "thinking": "plan", "tool_calls": [
                    {"function": {"name": "read", "arguments": {"path": "a"}}},
                    {"function": {"name": "shot", "arguments": {}}}
                ]},
                {"role": "tool", "content": "ok", "tool_name": "read"},
                {"role": "tool", "content": SEE_ATTACHED_IMAGE, "tool_name": "shot"},
                {"role": "user", "content": ATTACHED_IMAGES, "images": ["AAAA"]},
                {"role": "user", "content": "look", "images": ["BBBB"]}
            ])
        );
    }

    #[test]
    fn text_only_models_get_no_images_and_foreign_thinking_becomes_text() {
        let model = model(false);
        let mut foreign = context(&model);
        if let Message::Assistant(a) = &mut foreign.messages[1] {
            a.provider = "anthropic".into();
        }
        let out = convert_messages(&model, &foreign);
        assert_eq!(out[2]["content"], "planReading.");
        assert_eq!(out[2].get("thinking"), None);
        assert_eq!(out[5], json!({"role": "user", "content": "look"}));
        assert_eq!(out.len(), 6);
    }
}
