//! pi's `convertResponsesMessages`: the conversation as the Responses `input` array
//! (pi-mono §1.6 "Input conversion").

use clawloop_core::message::{ContentBlock, ImageContent, Message, UserContent};
use clawloop_core::{AssistantMessage, Context, Model, ToolResultMessage};
use serde_json::{Map, Value, json};

use super::text_signature::{TextSignature, replay_message_id};
use crate::replay::transform_messages;

/// Output of a tool result that has no text (pi's placeholder).
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Providers whose foreign tool-call ids pi rewrites into the `call|item` syntax.
const ID_NORMALIZING_PROVIDERS: [&str; 3] = ["openai", "openai-codex", "opencode"];

/// Longest call id / item id OpenAI accepts.
const MAX_ID_CHARS: usize = 64;

/// pi's id normalization for `call|item` ids: both halves sanitized to `[a-zA-Z0-9_-]`, the
/// item id made to start with `fc` (Responses rejects other prefixes), each cut to 64 chars
/// and stripped of trailing `_`. An id without `|` is returned unchanged.
pub fn normalize_tool_call_id(id: &str) -> String {
    let mut halves = id.split('|');
    let (Some(call), Some(item)) = (halves.next(), halves.next()) else {
        return id.to_owned();
    };
    let call = sanitize(call);
    let mut item = sanitize(item);
    if !item.starts_with("fc") {
        item = format!("fc_{item}");
    }
    format!("{}|{}", cut(&call), cut(&item))
}

/// Replaces every character outside `[a-zA-Z0-9_-]` by `_`, one per UTF-16 code unit as pi's
/// (non-unicode) regex does, so an emoji becomes `__`.
fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    out
}

/// At most [`MAX_ID_CHARS`] characters (the input is ASCII), trailing `_` removed.
fn cut(id: &str) -> &str {
    id.get(..MAX_ID_CHARS).unwrap_or(id).trim_end_matches('_')
}

/// The `input` array for `context`: the system prompt first (`developer` for reasoning models,
/// else `system`), then every message after cross-provider replay (pi-mono §1.9).
pub fn convert_input(model: &Model, context: &Context) -> Vec<Value> {
    let mut input = Vec::with_capacity(context.messages.len() + 1);
    if let Some(system) = &context.system_prompt {
        let role = if model.reasoning {
            "developer"
        } else {
            "system"
        };
        input.push(json!({"role": role, "content": system}));
    }
    let normalize = ID_NORMALIZING_PROVIDERS.contains(&model.provider.as_str());
    let messages = transform_messages(&context.messages, model, |id| {
        if normalize {
            normalize_tool_call_id(id)
        } else {
            id.to_owned()
        }
    });
    // pi numbers messages for fallback text ids; a message that produced nothing is skipped
    // without counting, as in pi.
    let mut index = 0;
    for message in &messages {
        let before = input.len();
        match message {
            Message::User(user) => convert_user(&user.content, model, &mut input),
            Message::Assistant(assistant) => {
                convert_assistant(assistant, model, index, &mut input);
            }
            Message::ToolResult(result) => convert_tool_result(result, model, &mut input),
        }
        if input.len() > before {
            index += 1;
        }
    }
    input
}

fn image_part(image: &ImageContent) -> Value {
    json!({
        "type": "input_image",
        "detail": "auto",
        "image_url": format!("data:{};base64,{}", image.mime_type, image.data),
    })
}

fn text_part(text: &str) -> Value {
    json!({"type": "input_text", "text": text})
}

fn convert_user(content: &UserContent, model: &Model, input: &mut Vec<Value>) {
    let parts: Vec<Value> = match content {
        UserContent::Text(text) => vec![text_part(text)],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(t) => Some(text_part(&t.text)),
                ContentBlock::Image(image) if model.supports_images() => Some(image_part(image)),
                _ => None,
            })
            .collect(),
    };
    if !parts.is_empty() {
        input.push(json!({"role": "user", "content": parts}));
    }
}

fn convert_assistant(
    message: &AssistantMessage,
    model: &Model,
    index: usize,
    input: &mut Vec<Value>,
) {
    // OpenAI remembers which `fc_` items were paired with which reasoning items; replaying an
    // item id without its reasoning item (another model's turn, or thinking that cannot be
    // replayed) fails the request, so the item id is left out then.
    let different_model =
        message.model != model.id && message.provider == model.provider && message.api == model.api;
    let mut skipped_thinking = false;
    for block in &message.content {
        match block {
            ContentBlock::Thinking(thinking) => {
                // The signature is the whole reasoning item (encrypted content included).
                match thinking
                    .thinking_signature
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                {
                    Some(item @ Value::Object(_)) => input.push(item),
                    _ => skipped_thinking = true,
                }
            }
            ContentBlock::Text(text) => {
                let signature = text
                    .text_signature
                    .as_deref()
                    .and_then(TextSignature::parse);
                let mut item = Map::new();
                item.insert("type".into(), Value::from("message"));
                item.insert("role".into(), Value::from("assistant"));
                item.insert(
                    "content".into(),
                    json!([{"type": "output_text", "text": text.text, "annotations": []}]),
                );
                item.insert("status".into(), Value::from("completed"));
                item.insert(
                    "id".into(),
                    Value::from(replay_message_id(signature.as_ref(), index)),
                );
                if let Some(phase) = signature.and_then(|s| s.phase) {
                    item.insert("phase".into(), Value::from(phase));
                }
                input.push(Value::Object(item));
            }
            ContentBlock::ToolCall(call) => {
                let mut halves = call.id.split('|');
                let call_id = halves.next().unwrap_or_default();
                let item_id = halves
                    .next()
                    .filter(|id| !((different_model || skipped_thinking) && id.starts_with("fc_")));
                let mut item = Map::new();
                item.insert("type".into(), Value::from("function_call"));
                if let Some(item_id) = item_id {
                    item.insert("id".into(), Value::from(item_id));
                }
                item.insert("call_id".into(), Value::from(call_id));
                item.insert("name".into(), Value::from(call.name.clone()));
                item.insert("arguments".into(), Value::from(call.arguments.to_string()));
                input.push(Value::Object(item));
            }
            ContentBlock::Image(_) | ContentBlock::Other(_) => {}
        }
    }
}

/// A tool result is a `function_call_output`: its text (pi's placeholder when there is none),
/// or, with images for a model that reads them, the list of its text and image parts.
fn convert_tool_result(result: &ToolResultMessage, model: &Model, input: &mut Vec<Value>) {
    let call_id = result.tool_call_id.split('|').next().unwrap_or_default();
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Image(_)));
    let output = if has_images && model.supports_images() {
        Value::Array(
            result
                .content
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text(t) => Some(text_part(&t.text)),
                    ContentBlock::Image(image) => Some(image_part(image)),
                    _ => None,
                })
                .collect(),
        )
    } else {
        let text = clawloop_core::message::join_text(&result.content);
        Value::from(if text.is_empty() {
            SEE_ATTACHED_IMAGE.to_owned()
        } else {
            text
        })
    };
    input.push(json!({"type": "function_call_output", "call_id": call_id, "output": output}));
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::message::{TextContent, ThinkingContent, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(provider: &str, reasoning: bool, images: bool) -> Model {
        serde_json::from_value(json!({
            "id": "gpt-5", "api": "openai-responses", "provider": provider, "reasoning": reasoning,
            "input": if images { json!(["text", "image"]) } else { json!(["text"]) },
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    #[test]
    fn ids_are_normalized_like_pi() {
        assert_eq!(normalize_tool_call_id("call_1|fc_2"), "call_1|fc_2");
        assert_eq!(normalize_tool_call_id("call:1|item.2"), "call_1|fc_item_2");
        assert_eq!(normalize_tool_call_id("c😀|rs_x_"), "c|fc_rs_x");
        assert_eq!(normalize_tool_call_id("a😀b|x"), "a__b|fc_x");
        assert_eq!(normalize_tool_call_id("toolu_01"), "toolu_01");
        let long = normalize_tool_call_id(&format!("{}|{}", "a".repeat(70), "b".repeat(70)));
        assert_eq!(long, format!("{}|fc_{}", "a".repeat(64), "b".repeat(61)));
    }

    #[test]
    fn converts_a_whole_conversation() {
        let model = model("openai", true, true);
        let reasoning =
            json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"});
        let mut assistant = AssistantMessage::for_model(&model, 2);
        assistant.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: String::new(),
                thinking_signature: Some(reasoning.to_string()),
                ..ThinkingContent::default()
            }),
            ContentBlock::Text(TextContent {
                text: "Reading.".into(),
                text_signature: Some(r#"{"v":1,"id":"msg_a","phase":"commentary"}"#.into()),
                ..TextContent::default()
            }),
            ContentBlock::ToolCall(ToolCall::new("call_1|fc_1", "read", json!({"path": "a"}))),
        ];
        assistant.stop_reason = StopReason::ToolUse;
        let mut result = ToolResultMessage::text("call_1|fc_1", "read", "see", false, 3);
        result
            .content
            .push(ContentBlock::image("AAAA", "image/png"));
        let empty = ToolResultMessage {
            content: Vec::new(),
            ..ToolResultMessage::text("x", "ls", "", false, 4)
        };
        let mut plain = AssistantMessage::for_model(&model, 5);
        plain.content = vec![ContentBlock::text("Done.")];
        let context = Context {
            system_prompt: Some("be brief".into()),
            messages: vec![
                Message::User(UserMessage::text("hi", 1)),
                Message::Assistant(assistant),
                Message::ToolResult(result),
                Message::ToolResult(empty),
                Message::Assistant(plain),
            ],
            tools: Vec::new(),
        };
        assert_eq!(
            Value::Array(convert_input(&model, &context)),
            json!([
                {"role": "developer", "content": "be brief"},
                {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                reasoning,
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
                 "status": "completed", "id": "msg_a", "phase": "commentary"},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read",
                 "arguments": "{\"path\":\"a\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": [
                    {"type": "input_text", "text": "see"},
                    {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,AAAA"}
                ]},
                {"type": "function_call_output", "call_id": "x", "output": SEE_ATTACHED_IMAGE},
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
                 "status": "completed", "id": "msg_4"}
            ])
        );
    }

    #[test]
    fn other_models_lose_item_ids_and_images_need_support() {
        let model = model("openai", false, false);
        // Same provider and API, other model: `fc_` item ids are dropped.
        let mut other = AssistantMessage::empty("openai-responses", "openai", "gpt-4.1", 1);
        other.content = vec![ContentBlock::ToolCall(ToolCall::new(
            "call_9|fc_9",
            "ls",
            json!({}),
        ))];
        other.stop_reason = StopReason::ToolUse;
        let mut result = ToolResultMessage::text("call_9|fc_9", "ls", "", false, 2);
        result.content = vec![ContentBlock::image("AAAA", "image/png")];
        let mut user = UserMessage::text("look", 3);
        user.content = UserContent::Blocks(vec![ContentBlock::image("BBBB", "image/png")]);
        let context = Context {
            system_prompt: Some("sys".into()),
            messages: vec![
                Message::Assistant(other),
                Message::ToolResult(result),
                Message::User(user),
            ],
            tools: Vec::new(),
        };
        assert_eq!(
            Value::Array(convert_input(&model, &context)),
            json!([
                {"role": "system", "content": "sys"},
                {"type": "function_call", "call_id": "call_9", "name": "ls", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_9", "output": SEE_ATTACHED_IMAGE}
            ])
        );
    }

    #[test]
    fn thinking_without_a_replayable_item_drops_the_pairing() {
        let model = model("openai", true, false);
        let mut assistant = AssistantMessage::for_model(&model, 1);
        assistant.content = vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "plain".into(),
                ..ThinkingContent::default()
            }),
            ContentBlock::ToolCall(ToolCall::new("call_1|fc_1", "ls", json!({}))),
        ];
        assistant.stop_reason = StopReason::ToolUse;
        let context = Context {
            system_prompt: None,
            messages: vec![
                Message::Assistant(assistant),
                Message::ToolResult(ToolResultMessage::text("call_1|fc_1", "ls", "ok", false, 2)),
            ],
            tools: Vec::new(),
        };
        assert_eq!(
            Value::Array(convert_input(&model, &context)),
            json!([
                {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
            ])
        );
    }
}
