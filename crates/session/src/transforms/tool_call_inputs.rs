//! Tool-call input sanitation (reference openclaw-runner §9 step 5, OpenClaw
//! `repairToolCallInputs`): tool calls a provider would reject on replay are removed before
//! the transcript is sent again.

use std::collections::HashSet;

use serde_json::Value;

use clawloop_core::js_text::js_trim;
use clawloop_core::message::{AgentMessage, ContentBlock, JsonObject};

use super::tool_ids::is_raw_tool_call;

/// The longest tool name a replayed tool call may have.
pub const TOOL_CALL_NAME_MAX_CHARS: usize = 64;

/// The outcome of [`sanitize_tool_call_inputs`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCallInputReport {
    /// The sanitized transcript.
    pub messages: Vec<AgentMessage>,
    /// Tool-call blocks removed.
    pub dropped_tool_calls: usize,
    /// Assistant messages removed because nothing was left of them.
    pub dropped_assistant_messages: usize,
}

/// Removes unusable tool calls from assistant messages.
///
/// A tool-call block (`toolCall`, or a legacy `toolUse` / `functionCall` block) is removed
/// when it has no input (`arguments` / `input` absent or null), no non-blank string id, or a
/// name that is blank, longer than [`TOOL_CALL_NAME_MAX_CHARS`] after trimming, not made of
/// `[A-Za-z0-9_-]`, or (when `allowed_tool_names` names at least one tool) not among the
/// allowed names, compared trimmed and case-insensitively. A kept call's name is trimmed. An
/// assistant message whose every block was removed is removed.
pub fn sanitize_tool_call_inputs(
    messages: &[AgentMessage],
    allowed_tool_names: Option<&[String]>,
) -> ToolCallInputReport {
    let allowed = normalize_allowed(allowed_tool_names);
    let mut report = ToolCallInputReport {
        messages: Vec::with_capacity(messages.len()),
        ..ToolCallInputReport::default()
    };
    for message in messages {
        let AgentMessage::Assistant(assistant) = message else {
            report.messages.push(message.clone());
            continue;
        };
        let mut dropped_here = 0;
        let mut out = assistant.clone();
        out.content = Vec::with_capacity(assistant.content.len());
        for block in &assistant.content {
            match sanitize_block(block, allowed.as_ref()) {
                Some(kept) => out.content.push(kept),
                None => dropped_here += 1,
            }
        }
        report.dropped_tool_calls += dropped_here;
        if dropped_here > 0 && out.content.is_empty() {
            report.dropped_assistant_messages += 1;
            continue;
        }
        report.messages.push(AgentMessage::Assistant(out));
    }
    report
}

/// The allowed names trimmed and lowercased; `None` (no restriction) when there are none.
fn normalize_allowed(names: Option<&[String]>) -> Option<HashSet<String>> {
    let set: HashSet<String> = names?
        .iter()
        .map(|n| js_trim(n).to_lowercase())
        .filter(|n| !n.is_empty())
        .collect();
    (!set.is_empty()).then_some(set)
}

/// The block as it is replayed, or `None` when it is an unusable tool call.
fn sanitize_block(block: &ContentBlock, allowed: Option<&HashSet<String>>) -> Option<ContentBlock> {
    match block {
        ContentBlock::ToolCall(call) => {
            let usable = !call.arguments.is_null()
                && !js_trim(&call.id).is_empty()
                && valid_name(&call.name, allowed);
            usable.then(|| {
                let mut call = call.clone();
                let trimmed = js_trim(&call.name);
                if trimmed.len() != call.name.len() {
                    call.name = trimmed.to_owned();
                }
                ContentBlock::ToolCall(call)
            })
        }
        ContentBlock::Other(map) if is_raw_tool_call(map) => {
            let name = map.get("name").and_then(Value::as_str);
            let usable = has_input(map)
                && map
                    .get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| !js_trim(id).is_empty())
                && name.is_some_and(|n| valid_name(n, allowed));
            usable.then(|| {
                let mut map = map.clone();
                if let Some(n) = name.filter(|n| js_trim(n).len() != n.len()) {
                    map.insert("name".into(), Value::from(js_trim(n)));
                }
                ContentBlock::Other(map)
            })
        }
        other => Some(other.clone()),
    }
}

fn has_input(map: &JsonObject) -> bool {
    ["input", "arguments"]
        .iter()
        .any(|k| map.get(*k).is_some_and(|v| !v.is_null()))
}

/// OpenClaw `isAllowedToolCallName`.
fn valid_name(name: &str, allowed: Option<&HashSet<String>>) -> bool {
    let trimmed = js_trim(name);
    !trimmed.is_empty()
        && trimmed.chars().count() <= TOOL_CALL_NAME_MAX_CHARS
        && trimmed
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && allowed.is_none_or(|set| set.contains(&trimmed.to_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn call(id: &str, name: &str, args: Value) -> ContentBlock {
        ContentBlock::ToolCall(ToolCall::new(id, name, args))
    }

    fn assistant(blocks: Vec<ContentBlock>) -> AgentMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
        m.content = blocks;
        m.into()
    }

    fn raw(v: Value) -> ContentBlock {
        ContentBlock::Other(v.as_object().cloned().unwrap())
    }

    #[test]
    fn drops_unusable_calls_and_trims_names() {
        let input = vec![
            UserMessage::text("u", 0).into(),
            assistant(vec![
                ContentBlock::text("keep"),
                call("a", " read ", json!({})),
                call("b", "bad name", json!({})),
                call(" ", "read", json!({})),
                call("c", "read", Value::Null),
                call("d", &"x".repeat(65), json!({})),
                call("e", &"x".repeat(64), json!({})),
                raw(json!({"type": "toolUse", "id": "f", "name": "exec ", "input": {}})),
                raw(json!({"type": "functionCall", "id": "g", "name": "exec"})),
            ]),
            assistant(vec![call("h", "", json!({}))]),
        ];
        let report = sanitize_tool_call_inputs(&input, None);
        assert_eq!(
            report,
            ToolCallInputReport {
                messages: vec![
                    input[0].clone(),
                    assistant(vec![
                        ContentBlock::text("keep"),
                        call("a", "read", json!({})),
                        call("e", &"x".repeat(64), json!({})),
                        raw(json!({"type": "toolUse", "id": "f", "name": "exec", "input": {}})),
                    ]),
                ],
                dropped_tool_calls: 6,
                dropped_assistant_messages: 1,
            }
        );
    }

    #[test]
    fn allowed_names_are_case_insensitive() {
        let input = vec![assistant(vec![
            call("a", "Read", json!({})),
            call("b", "exec", json!({})),
        ])];
        let allowed = vec![" read ".to_owned(), "  ".to_owned()];
        let report = sanitize_tool_call_inputs(&input, Some(&allowed));
        assert_eq!(
            report.messages,
            vec![assistant(vec![call("a", "Read", json!({}))])]
        );
        let none: Vec<String> = vec![" ".into()];
        assert_eq!(
            sanitize_tool_call_inputs(&input, Some(&none)).messages,
            input
        );
    }
}
