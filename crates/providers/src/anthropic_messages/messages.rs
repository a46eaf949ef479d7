//! pi's message conversion for Anthropic Messages (pi-mono §1.7 "Message conversion").

use clawloop_core::message::{ContentBlock, ImageContent, Message, UserContent};
use clawloop_core::{AssistantMessage, Context, Model};
use serde_json::{Value, json};

use super::claude_code::to_claude_code_name;
use crate::replay::transform_messages;

/// Text block placed before the images of a tool result that has no text (pi's text).
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Longest tool-call id Anthropic accepts.
const MAX_TOOL_CALL_ID_CHARS: usize = 64;

/// Anthropic's tool-call id syntax: characters outside `[A-Za-z0-9_-]` replaced by `_`, at
/// most 64 characters.
pub fn normalize_tool_call_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_TOOL_CALL_ID_CHARS)
        .collect()
}

/// The `messages` array for `context`: replayed for `model` (pi-mono §1.9), empty messages
/// dropped, consecutive tool results merged into one user message, and `cache_control` (when
/// given) on the last block of the last message if that message is the user's.
pub fn convert_messages(
    model: &Model,
    context: &Context,
    oauth: bool,
    cache_control: Option<&Value>,
) -> Vec<Value> {
    let messages = transform_messages(&context.messages, model, normalize_tool_call_id);
    let mut out = Vec::with_capacity(messages.len());
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(user) => {
                out.extend(convert_user(&user.content, model));
                i += 1;
            }
            Message::Assistant(assistant) => {
                out.extend(convert_assistant(assistant, oauth));
                i += 1;
            }
            Message::ToolResult(_) => {
                // Some Anthropic-compatible servers (z.ai) need every result of a turn in one
                // user message, so the whole run of results goes together.
                let mut results = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(i) {
                    results.push(json!({
                        "type": "tool_result",
                        "tool_use_id": result.tool_call_id,
                        "content": tool_result_content(&result.content),
                        "is_error": result.is_error,
                    }));
                    i += 1;
                }
                out.push(json!({"role": "user", "content": results}));
            }
        }
    }
    if let Some(cache_control) = cache_control {
        mark_last_user_message(&mut out, cache_control);
    }
    out
}

fn image_block(image: &ImageContent) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    })
}

fn convert_user(content: &UserContent, model: &Model) -> Option<Value> {
    match content {
        UserContent::Text(text) if text.trim().is_empty() => None,
        UserContent::Text(text) => Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => {
            let blocks: Vec<Value> = blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text(t) if !t.text.trim().is_empty() => {
                        Some(json!({"type": "text", "text": t.text}))
                    }
                    ContentBlock::Image(image) if model.supports_images() => {
                        Some(image_block(image))
                    }
                    _ => None,
                })
                .collect();
            (!blocks.is_empty()).then(|| json!({"role": "user", "content": blocks}))
        }
    }
}

fn convert_assistant(message: &AssistantMessage, oauth: bool) -> Option<Value> {
    let mut blocks = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            ContentBlock::Text(t) if !t.text.trim().is_empty() => {
                blocks.push(json!({"type": "text", "text": t.text}));
            }
            ContentBlock::Thinking(t) if t.redacted == Some(true) => {
                // The opaque payload travels back as it came; without it there is nothing to send.
                if let Some(data) = &t.thinking_signature {
                    blocks.push(json!({"type": "redacted_thinking", "data": data}));
                }
            }
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                match t
                    .thinking_signature
                    .as_deref()
                    .filter(|s| !s.trim().is_empty())
                {
                    Some(signature) => blocks.push(json!({
                        "type": "thinking", "thinking": t.thinking, "signature": signature,
                    })),
                    // Unsigned thinking (an aborted stream) would be rejected as thinking;
                    // plain text without tags keeps it and does not teach the model tags.
                    None => blocks.push(json!({"type": "text", "text": t.thinking})),
                }
            }
            ContentBlock::ToolCall(call) => {
                let name = if oauth {
                    to_claude_code_name(&call.name)
                } else {
                    call.name.clone()
                };
                blocks.push(json!({
                    "type": "tool_use", "id": call.id, "name": name, "input": call.arguments,
                }));
            }
            _ => {}
        }
    }
    (!blocks.is_empty()).then(|| json!({"role": "assistant", "content": blocks}))
}

/// A tool result's `content`: the text joined with `"\n"` when there are no images, else text
/// and image blocks (with [`SEE_ATTACHED_IMAGE`] first when there is no text).
fn tool_result_content(content: &[ContentBlock]) -> Value {
    let has_images = content.iter().any(|b| matches!(b, ContentBlock::Image(_)));
    if !has_images {
        return Value::from(clawloop_core::message::join_text(content));
    }
    let mut blocks: Vec<Value> = content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
            ContentBlock::Image(image) => Some(image_block(image)),
            _ => None,
        })
        .collect();
    if !content.iter().any(|b| matches!(b, ContentBlock::Text(_))) {
        blocks.insert(0, json!({"type": "text", "text": SEE_ATTACHED_IMAGE}));
    }
    Value::Array(blocks)
}

/// Caches the conversation so far: the marker goes on the last block of the last message when
/// it is a user message (a string content becomes one text block to carry it).
fn mark_last_user_message(messages: &mut [Value], cache_control: &Value) {
    let Some(last) = messages.last_mut() else {
        return;
    };
    if last["role"] != "user" {
        return;
    }
    match &mut last["content"] {
        Value::String(text) => {
            let text = std::mem::take(text);
            last["content"] =
                json!([{"type": "text", "text": text, "cache_control": cache_control}]);
        }
        Value::Array(blocks) => {
            if let Some(block) = blocks.last_mut()
                && matches!(
                    block["type"].as_str(),
                    Some("text" | "image" | "tool_result")
                )
            {
                block["cache_control"] = cache_control.clone();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::message::{ThinkingContent, ToolCall, ToolResultMessage, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(images: bool) -> Model {
        serde_json::from_value(json!({
            "id": "claude-sonnet-4-5", "api": "anthropic-messages", "provider": "anthropic",
            "input": if images { json!(["text", "image"]) } else { json!(["text"]) },
            "contextWindow": 200000, "maxTokens": 64000
        }))
        .unwrap()
    }

    fn thinking(text: &str, signature: Option<&str>, redacted: bool) -> ContentBlock {
        ContentBlock::Thinking(ThinkingContent {
            thinking: text.into(),
            thinking_signature: signature.map(str::to_owned),
            redacted: redacted.then_some(true),
            ..ThinkingContent::default()
        })
    }

    #[test]
    fn ids_are_normalized() {
        assert_eq!(normalize_tool_call_id("call_1|fc.2"), "call_1_fc_2");
        assert_eq!(normalize_tool_call_id(&"a".repeat(80)).len(), 64);
    }

    #[test]
    fn converts_a_whole_conversation() {
        let model = model(true);
        let mut assistant = AssistantMessage::for_model(&model, 2);
        assistant.content = vec![
            thinking("plan", Some("sig"), false),
            thinking("[Reasoning redacted]", Some("opaque"), true),
            thinking("unsigned", None, false),
            thinking("  ", Some("sig2"), false),
            ContentBlock::text(" "),
            ContentBlock::text("Reading."),
            ContentBlock::ToolCall(ToolCall::new("c1", "read", json!({"path": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("c2", "ls", json!({}))),
        ];
        assistant.stop_reason = StopReason::ToolUse;
        let mut image_result = ToolResultMessage::text("c2", "ls", "", false, 4);
        image_result.content = vec![ContentBlock::image("AAAA", "image/png")];
        let context = Context {
            system_prompt: None,
            messages: vec![
                Message::User(UserMessage::text("hi", 1)),
                Message::User(UserMessage::text("   ", 1)),
                Message::Assistant(assistant),
                Message::ToolResult(ToolResultMessage::text("c1", "read", "ok", false, 3)),
                Message::ToolResult(image_result),
            ],
            tools: Vec::new(),
        };
        let out = convert_messages(&model, &context, true, Some(&json!({"type": "ephemeral"})));
        assert_eq!(
            Value::Array(out),
            json!([
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "text", "text": "unsigned"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "c1", "name": "Read", "input": {"path": "a"}},
                    {"type": "tool_use", "id": "c2", "name": "ls", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "ok", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "c2", "content": [
                        {"type": "text", "text": SEE_ATTACHED_IMAGE},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
                    ], "is_error": false, "cache_control": {"type": "ephemeral"}}
                ]}
            ])
        );
    }

    #[test]
    fn user_images_need_a_vision_model_and_strings_take_the_cache_marker() {
        let blocks = UserContent::Blocks(vec![
            ContentBlock::text("look"),
            ContentBlock::image("AAAA", "image/jpeg"),
        ]);
        let user = Message::User(UserMessage {
            content: blocks,
            ..UserMessage::text("", 1)
        });
        let context = Context {
            messages: vec![user],
            ..Context::default()
        };
        let text_only = convert_messages(&model(false), &context, false, None);
        assert_eq!(
            Value::Array(text_only),
            json!([{"role": "user", "content": [{"type": "text", "text": "look"}]}])
        );
        let vision = convert_messages(&model(true), &context, false, None);
        assert_eq!(
            vision[0]["content"][1]["source"]["media_type"],
            "image/jpeg"
        );

        let context = Context {
            messages: vec![Message::User(UserMessage {
                content: UserContent::Text("hi".into()),
                ..UserMessage::text("", 1)
            })],
            ..Context::default()
        };
        let cached = convert_messages(
            &model(false),
            &context,
            false,
            Some(&json!({"type": "ephemeral", "ttl": "1h"})),
        );
        assert_eq!(
            Value::Array(cached),
            json!([{"role": "user", "content": [
                {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
            ]}])
        );
    }
}
