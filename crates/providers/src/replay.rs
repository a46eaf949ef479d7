//! Cross-provider replay (pi's `transformMessages`, pi-mono §1.9), shared by every wire API.
//!
//! A conversation may hold messages produced by other providers or models; before they are
//! sent they are made safe for the target: failed turns dropped, foreign thinking turned into
//! text, foreign signatures removed, tool-call ids normalized, orphaned calls answered.

use std::collections::HashMap;

use clawloop_core::message::{ContentBlock, Message, TextContent, ToolResultMessage};
use clawloop_core::{AssistantMessage, Model, StopReason};

/// Text of the synthetic result for a tool call that never got one (pi's text).
pub const NO_RESULT_PROVIDED: &str = "No result provided";

/// Whether `message` was produced by `model` (same provider, API and model id).
pub fn is_same_model(message: &AssistantMessage, model: &Model) -> bool {
    message.provider == model.provider && message.api == model.api && message.model == model.id
}

/// The messages to send to `model`. `normalize_id` rewrites the tool-call ids of messages
/// from other models into the target's id syntax; tool results follow the rewrite.
pub fn transform_messages(
    messages: &[Message],
    model: &Model,
    normalize_id: impl Fn(&str) -> String,
) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut id_map: HashMap<String, String> = HashMap::new();
    // Calls of the last assistant message that have no result yet: (id, tool name).
    let mut open_calls: Vec<(String, String)> = Vec::new();
    for message in messages {
        match message {
            Message::Assistant(assistant) => {
                if assistant.stop_reason.is_failure() {
                    continue;
                }
                answer_orphans(&mut open_calls, &mut out, assistant.timestamp);
                let converted = convert_assistant(assistant, model, &normalize_id, &mut id_map);
                open_calls = converted
                    .tool_calls()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect();
                out.push(Message::Assistant(converted));
            }
            Message::ToolResult(result) => {
                let mut result = result.clone();
                if let Some(new_id) = id_map.get(&result.tool_call_id) {
                    result.tool_call_id.clone_from(new_id);
                }
                open_calls.retain(|(id, _)| *id != result.tool_call_id);
                out.push(Message::ToolResult(result));
            }
            Message::User(user) => {
                answer_orphans(&mut open_calls, &mut out, user.timestamp);
                out.push(message.clone());
            }
        }
    }
    out
}

fn answer_orphans(open_calls: &mut Vec<(String, String)>, out: &mut Vec<Message>, timestamp: u64) {
    for (id, name) in open_calls.drain(..) {
        out.push(Message::ToolResult(ToolResultMessage::text(
            id,
            name,
            NO_RESULT_PROVIDED,
            true,
            timestamp,
        )));
    }
}

fn convert_assistant(
    message: &AssistantMessage,
    model: &Model,
    normalize_id: &impl Fn(&str) -> String,
    id_map: &mut HashMap<String, String>,
) -> AssistantMessage {
    let same = is_same_model(message, model);
    let mut converted = message.clone();
    converted.content = Vec::with_capacity(message.content.len());
    for block in &message.content {
        match block {
            ContentBlock::Thinking(thinking) => {
                if same
                    && (thinking.thinking_signature.is_some() || thinking.redacted == Some(true))
                {
                    converted.content.push(block.clone());
                } else if thinking.redacted == Some(true) || thinking.thinking.trim().is_empty() {
                    // Foreign redacted thinking is unreadable; empty thinking says nothing.
                } else if same {
                    converted.content.push(block.clone());
                } else {
                    converted.content.push(ContentBlock::Text(TextContent {
                        text: thinking.thinking.clone(),
                        ..TextContent::default()
                    }));
                }
            }
            ContentBlock::Text(text) if !same => {
                converted.content.push(ContentBlock::Text(TextContent {
                    text_signature: None,
                    ..text.clone()
                }));
            }
            ContentBlock::ToolCall(call) if !same => {
                let mut call = call.clone();
                call.thought_signature = None;
                let new_id = normalize_id(&call.id);
                if new_id != call.id {
                    id_map.insert(call.id.clone(), new_id.clone());
                    call.id = new_id;
                }
                converted.content.push(ContentBlock::ToolCall(call));
            }
            other => converted.content.push(other.clone()),
        }
    }
    if converted.stop_reason == StopReason::ToolUse && converted.tool_calls().next().is_none() {
        converted.stop_reason = StopReason::Stop;
    }
    converted
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{ThinkingContent, ToolCall, UserMessage};
    use serde_json::json;

    fn model() -> Model {
        serde_json::from_value(json!({
            "id": "gpt", "api": "openai-completions", "provider": "openai",
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    fn assistant(provider: &str, content: Vec<ContentBlock>, stop: StopReason) -> Message {
        let mut m = AssistantMessage::empty("anthropic-messages", provider, "claude", 1);
        m.content = content;
        m.stop_reason = stop;
        Message::Assistant(m)
    }

    #[test]
    fn foreign_messages_are_made_safe() {
        let thinking = ContentBlock::Thinking(ThinkingContent {
            thinking: "hmm".into(),
            thinking_signature: Some("sig".into()),
            ..ThinkingContent::default()
        });
        let mut call = ToolCall::new("toolu|item", "read", json!({}));
        call.thought_signature = Some("x".into());
        let messages = vec![
            Message::User(UserMessage::text("hi", 1)),
            assistant(
                "anthropic",
                vec![ContentBlock::text("x")],
                StopReason::Error,
            ),
            assistant(
                "anthropic",
                vec![
                    thinking,
                    ContentBlock::ToolCall(call.clone()),
                    ContentBlock::ToolCall(ToolCall::new("b", "ls", json!({}))),
                ],
                StopReason::ToolUse,
            ),
            Message::ToolResult(ToolResultMessage::text(
                "toolu|item",
                "read",
                "ok",
                false,
                2,
            )),
            Message::User(UserMessage::text("next", 3)),
        ];
        let out = transform_messages(&messages, &model(), |id| {
            id.split('|').next().unwrap_or(id).to_owned()
        });
        let roles: Vec<_> = out.iter().map(Message::role).collect();
        assert_eq!(
            roles,
            ["user", "assistant", "toolResult", "toolResult", "user"]
        );
        let Message::Assistant(a) = &out[1] else {
            panic!()
        };
        assert_eq!(a.content[0], ContentBlock::text("hmm"));
        let calls: Vec<_> = a.tool_calls().collect();
        assert_eq!(calls[0].id, "toolu");
        assert_eq!(calls[0].thought_signature, None);
        let Message::ToolResult(r) = &out[2] else {
            panic!()
        };
        assert_eq!(r.tool_call_id, "toolu");
        let Message::ToolResult(orphan) = &out[3] else {
            panic!()
        };
        assert_eq!((orphan.tool_call_id.as_str(), orphan.is_error), ("b", true));
        assert_eq!(orphan.text_content(), NO_RESULT_PROVIDED);
    }
}
