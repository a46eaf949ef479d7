//! How OpenClaw recognizes tool calls and tool results in a transcript (`tool-call-id.ts`).
//!
//! pi writes tool calls as `toolCall` blocks, but transcripts written by older versions or
//! other harnesses carry `toolUse` and `functionCall` blocks; OpenClaw treats all three alike,
//! so these helpers look at typed blocks and at unknown blocks of those types.

use serde_json::Value;

use clawloop_core::message::{AssistantMessage, ContentBlock, JsonObject, ToolResultMessage};

/// Block types OpenClaw treats as a tool call.
pub(crate) const TOOL_CALL_BLOCK_TYPES: [&str; 3] = ["toolCall", "toolUse", "functionCall"];

/// One tool call of an assistant message: its id and, when it is a string, its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolCallRef {
    /// Non-empty call id.
    pub id: String,
    /// The tool name (`None` when an unknown block has no string `name`).
    pub name: Option<String>,
}

/// Whether an unknown block is a tool call by its `type`.
pub(crate) fn is_raw_tool_call(map: &JsonObject) -> bool {
    map.get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| TOOL_CALL_BLOCK_TYPES.contains(&t))
}

/// Whether a block is a tool call (typed, or an unknown block of a tool-call type).
pub(crate) fn is_tool_call_block(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::ToolCall(_) => true,
        ContentBlock::Other(map) => is_raw_tool_call(map),
        _ => false,
    }
}

/// The raw `id` of a tool-call block, untrimmed (`None` when it is not a string).
pub(crate) fn tool_call_block_id(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::ToolCall(c) => Some(&c.id),
        ContentBlock::Other(map) if is_raw_tool_call(map) => map.get("id").and_then(Value::as_str),
        _ => None,
    }
}

/// OpenClaw's `extractToolCallsFromAssistant`: tool-call blocks with a non-empty string id,
/// in content order.
pub(crate) fn tool_call_refs(message: &AssistantMessage) -> Vec<ToolCallRef> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolCall(c) if !c.id.is_empty() => Some(ToolCallRef {
                id: c.id.clone(),
                name: Some(c.name.clone()),
            }),
            ContentBlock::Other(map) if is_raw_tool_call(map) => {
                let id = map
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty())?;
                Some(ToolCallRef {
                    id: id.to_owned(),
                    name: map.get("name").and_then(Value::as_str).map(str::to_owned),
                })
            }
            _ => None,
        })
        .collect()
}

/// OpenClaw's `extractToolResultId`: `toolCallId`, else a legacy `toolUseId`, when non-empty.
pub(crate) fn tool_result_id(message: &ToolResultMessage) -> Option<&str> {
    if !message.tool_call_id.is_empty() {
        return Some(&message.tool_call_id);
    }
    message
        .extra
        .get("toolUseId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// OpenClaw's `normalizeOptionalString`: a string trimmed (JS `trim`), `None` when blank or
/// not a string.
pub(crate) fn trimmed_non_empty(value: Option<&Value>) -> Option<&str> {
    let trimmed = clawloop_core::js_text::js_trim(value?.as_str()?);
    (!trimmed.is_empty()).then_some(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::ToolCall;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn other(v: Value) -> ContentBlock {
        match v {
            Value::Object(map) => ContentBlock::Other(map),
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn refs_cover_typed_and_legacy_blocks() {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
        m.content = vec![
            ContentBlock::text("x"),
            ContentBlock::ToolCall(ToolCall::new("a", "read", json!({}))),
            ContentBlock::ToolCall(ToolCall::new("", "skipped", json!({}))),
            other(json!({"type": "toolUse", "id": "b", "name": "exec", "input": {}})),
            other(json!({"type": "functionCall", "id": "c"})),
            other(json!({"type": "functionCall", "id": 5})),
            other(json!({"type": "audio", "id": "d"})),
        ];
        assert_eq!(
            tool_call_refs(&m),
            vec![
                ToolCallRef {
                    id: "a".into(),
                    name: Some("read".into())
                },
                ToolCallRef {
                    id: "b".into(),
                    name: Some("exec".into())
                },
                ToolCallRef {
                    id: "c".into(),
                    name: None
                },
            ]
        );
        assert!(is_tool_call_block(&m.content[3]));
        assert!(!is_tool_call_block(&m.content[6]));
        assert_eq!(tool_call_block_id(&m.content[5]), None);
    }

    #[test]
    fn result_id_falls_back_to_tool_use_id() {
        let mut r = ToolResultMessage::text("", "read", "x", false, 0);
        assert_eq!(tool_result_id(&r), None);
        r.extra.insert("toolUseId".into(), json!("legacy"));
        assert_eq!(tool_result_id(&r), Some("legacy"));
        r.tool_call_id = "main".into();
        assert_eq!(tool_result_id(&r), Some("main"));
    }

    #[test]
    fn trimmed_strings() {
        assert_eq!(trimmed_non_empty(Some(&json!("  a "))), Some("a"));
        assert_eq!(trimmed_non_empty(Some(&json!("  "))), None);
        assert_eq!(trimmed_non_empty(Some(&json!(3))), None);
        assert_eq!(trimmed_non_empty(None), None);
    }
}
