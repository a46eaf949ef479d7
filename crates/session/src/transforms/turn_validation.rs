//! Turn validation for providers that insist on alternating turns (reference openclaw-runner
//! §9, OpenClaw `pi-embedded-helpers/turns.ts`).
//!
//! Gemini rejects two model turns in a row, so consecutive assistant messages are merged.
//! Anthropic rejects two user turns in a row and a `tool_use` without its `tool_result`, so
//! dangling tool calls are stripped and consecutive user messages merged.

use std::collections::HashSet;

use serde_json::Value;

use clawloop_core::StopReason;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, ContentBlock, JsonObject, UserContent, UserMessage,
};

use super::tool_ids::{
    is_tool_call_block, tool_call_block_id, tool_call_refs, tool_result_id, trimmed_non_empty,
};

/// What an assistant message says when every block was a dangling tool call.
pub const TOOL_CALLS_OMITTED_TEXT: &str = "[tool calls omitted]";

/// Fields that name the call a tool result answers, across harnesses.
const RESULT_ID_FIELDS: [&str; 6] = [
    "toolUseId",
    "toolCallId",
    "tool_use_id",
    "tool_call_id",
    "callId",
    "call_id",
];

/// Consecutive assistant messages merged into one (OpenClaw `validateGeminiTurns`).
///
/// The merged message is the first one with the contents concatenated, the later message's
/// usage and stop reason, and its error message when it has a non-empty one.
pub fn validate_gemini_turns(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    merge_consecutive(messages, "assistant", |previous, current| {
        match (previous, current) {
            (AgentMessage::Assistant(p), AgentMessage::Assistant(c)) => {
                merge_assistants(p, c);
            }
            // Unreachable: both messages have role `assistant`, which only the typed variant
            // carries. Keep the current one rather than lose it.
            (p, c) => *p = c.clone(),
        }
    })
}

/// Dangling tool calls stripped, then consecutive user messages merged (OpenClaw
/// `validateAnthropicTurns`).
///
/// A tool call of an assistant message is dangling when no tool result between it and the
/// next assistant message answers it (by `toolCallId`/`toolUseId`, or a `tool`-role message or
/// `toolResult` block naming it). An assistant message left without blocks says
/// [`TOOL_CALLS_OMITTED_TEXT`], or nothing when it had failed. Merged user messages carry both
/// contents as blocks (a string content becomes one text block) and the later message's
/// other fields.
pub fn validate_anthropic_turns(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    let stripped = strip_dangling_tool_calls(messages);
    merge_consecutive(&stripped, "user", |previous, current| {
        match (&*previous, current) {
            (AgentMessage::User(p), AgentMessage::User(c)) => {
                *previous = AgentMessage::User(merge_users(p, c));
            }
            (_, c) => *previous = c.clone(),
        }
    })
}

/// Merges runs of `role` with `merge(last kept, next)`; other roles reset the run.
fn merge_consecutive(
    messages: &[AgentMessage],
    role: &str,
    mut merge: impl FnMut(&mut AgentMessage, &AgentMessage),
) -> Vec<AgentMessage> {
    let mut out: Vec<AgentMessage> = Vec::with_capacity(messages.len());
    let mut last_role: Option<&str> = None;
    for message in messages {
        let current = message.role();
        if current.is_empty() {
            out.push(message.clone());
            continue;
        }
        // OpenClaw would merge into a roleless message in between; such a message cannot
        // be read from a transcript, so only a directly preceding `role` message is merged.
        if last_role == Some(role)
            && current == role
            && let Some(previous) = out.last_mut().filter(|p| p.role() == role)
        {
            merge(previous, message);
            continue;
        }
        out.push(message.clone());
        last_role = Some(current);
    }
    out
}

fn merge_assistants(previous: &mut AssistantMessage, current: &AssistantMessage) {
    previous.content.extend(current.content.iter().cloned());
    previous.usage = current.usage.clone();
    previous.stop_reason = current.stop_reason;
    if let Some(error) = current.error_message.as_ref().filter(|e| !e.is_empty()) {
        previous.error_message = Some(error.clone());
    }
}

fn merge_users(previous: &UserMessage, current: &UserMessage) -> UserMessage {
    let mut blocks = previous.content.to_blocks();
    blocks.extend(current.content.to_blocks());
    UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: current.timestamp,
        extra: current.extra.clone(),
    }
}

/// OpenClaw `stripDanglingAnthropicToolUses`.
fn strip_dangling_tool_calls(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    messages
        .iter()
        .enumerate()
        .map(|(i, message)| match message {
            AgentMessage::Assistant(a)
                if !a.content.is_empty() && !tool_call_refs(a).is_empty() =>
            {
                let answered = answered_ids(&messages[i + 1..]);
                strip_unanswered(a, &answered)
                    .map_or_else(|| message.clone(), AgentMessage::Assistant)
            }
            _ => message.clone(),
        })
        .collect()
}

/// The assistant message without tool calls outside `answered`; `None` when nothing changes.
fn strip_unanswered(
    message: &AssistantMessage,
    answered: &HashSet<String>,
) -> Option<AssistantMessage> {
    let kept: Vec<ContentBlock> = message
        .content
        .iter()
        .filter(|block| {
            !is_tool_call_block(block)
                || tool_call_block_id(block)
                    .map(clawloop_core::js_text::js_trim)
                    .is_some_and(|id| !id.is_empty() && answered.contains(id))
        })
        .cloned()
        .collect();
    if kept.len() == message.content.len() {
        return None;
    }
    let mut out = message.clone();
    out.content = if !kept.is_empty() {
        kept
    } else if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
        Vec::new()
    } else {
        vec![ContentBlock::text(TOOL_CALLS_OMITTED_TEXT)]
    };
    Some(out)
}

/// Ids of the calls answered before the next assistant message.
fn answered_ids(following: &[AgentMessage]) -> HashSet<String> {
    let mut ids = HashSet::new();
    for message in following {
        match message {
            AgentMessage::Assistant(_) => break,
            AgentMessage::ToolResult(r) => {
                if let Some(id) = tool_result_id(r) {
                    ids.insert(id.to_owned());
                }
                add_block_ids(&mut ids, &r.content);
            }
            AgentMessage::User(u) => {
                if let UserContent::Blocks(blocks) = &u.content {
                    add_block_ids(&mut ids, blocks);
                }
            }
            AgentMessage::Custom(c) => {
                if let UserContent::Blocks(blocks) = &c.content {
                    add_block_ids(&mut ids, blocks);
                }
            }
            AgentMessage::Other(map) => {
                if map.get("role").and_then(Value::as_str) == Some("tool") {
                    add_record_ids(&mut ids, map);
                }
                if let Some(Value::Array(blocks)) = map.get("content") {
                    for block in blocks.iter().filter_map(Value::as_object) {
                        add_result_block_ids(&mut ids, block);
                    }
                }
            }
            _ => {}
        }
    }
    ids
}

fn add_block_ids(ids: &mut HashSet<String>, blocks: &[ContentBlock]) {
    for block in blocks {
        if let ContentBlock::Other(map) = block {
            add_result_block_ids(ids, map);
        }
    }
}

/// Ids named by a `toolResult` or `tool` block (Anthropic-style results inside a message).
fn add_result_block_ids(ids: &mut HashSet<String>, block: &JsonObject) {
    if matches!(
        block.get("type").and_then(Value::as_str),
        Some("toolResult" | "tool")
    ) {
        add_record_ids(ids, block);
    }
}

fn add_record_ids(ids: &mut HashSet<String>, record: &JsonObject) {
    for field in RESULT_ID_FIELDS {
        if let Some(id) = trimmed_non_empty(record.get(field)) {
            ids.insert(id.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::Usage;
    use clawloop_core::message::{ToolCall, ToolResultMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn user(t: &str, ts: u64) -> AgentMessage {
        UserMessage::text(t, ts).into()
    }

    fn assistant(blocks: Vec<ContentBlock>, stop: StopReason) -> AssistantMessage {
        let mut m = AssistantMessage::empty("google-generative-ai", "google", "gemini", 0);
        m.content = blocks;
        m.stop_reason = stop;
        m
    }

    fn call(id: &str) -> ContentBlock {
        ContentBlock::ToolCall(ToolCall::new(id, "read", json!({"path": "a"})))
    }

    #[test]
    fn gemini_merges_assistants_later_fields_win() {
        let first = assistant(vec![ContentBlock::text("part one")], StopReason::Stop);
        let mut second = assistant(vec![ContentBlock::text("part two")], StopReason::Error);
        second.usage = Usage {
            input: 5,
            ..Usage::default()
        };
        second.error_message = Some("stream interrupted".into());
        second.timestamp = 99;
        let input = vec![
            user("q", 1),
            first.clone().into(),
            second.clone().into(),
            user("and now?", 2),
        ];
        let mut merged = first;
        merged.content.push(ContentBlock::text("part two"));
        merged.usage = second.usage.clone();
        merged.stop_reason = StopReason::Error;
        merged.error_message = Some("stream interrupted".into());
        assert_eq!(
            validate_gemini_turns(&input),
            vec![input[0].clone(), merged.into(), input[3].clone()]
        );
    }

    #[test]
    fn gemini_keeps_earlier_error_when_later_has_none() {
        let mut first = assistant(vec![], StopReason::Error);
        first.error_message = Some("first".into());
        let second = assistant(vec![ContentBlock::text("x")], StopReason::Stop);
        let out = validate_gemini_turns(&[first.into(), second.into()]);
        let mut want = assistant(vec![ContentBlock::text("x")], StopReason::Stop);
        want.error_message = Some("first".into());
        assert_eq!(out, vec![AgentMessage::from(want)]);
    }

    #[test]
    fn gemini_run_broken_by_other_roles() {
        let a = || AgentMessage::from(assistant(vec![ContentBlock::text("a")], StopReason::Stop));
        let tool: AgentMessage = ToolResultMessage::text("c", "read", "r", false, 0).into();
        let roleless = AgentMessage::Other(json!({"note": 1}).as_object().cloned().unwrap());
        assert_eq!(
            validate_gemini_turns(&[a(), tool.clone(), a()]),
            vec![a(), tool, a()]
        );
        assert_eq!(
            validate_gemini_turns(&[a(), roleless.clone(), a()]),
            vec![a(), roleless, a()]
        );
    }

    #[test]
    fn anthropic_merges_users_with_later_fields() {
        let mut second = UserMessage::text("second", 9);
        second
            .extra
            .insert("provenance".into(), json!({"kind": "x"}));
        let string_user = AgentMessage::User(UserMessage {
            content: UserContent::Text("third".into()),
            timestamp: 10,
            extra: JsonObject::new(),
        });
        let answer = AgentMessage::from(assistant(
            vec![ContentBlock::text("answer")],
            StopReason::Stop,
        ));
        let out = validate_anthropic_turns(&[
            user("first", 1),
            second.clone().into(),
            string_user,
            answer.clone(),
        ]);
        let merged = UserMessage {
            content: UserContent::Blocks(vec![
                ContentBlock::text("first"),
                ContentBlock::text("second"),
                ContentBlock::text("third"),
            ]),
            timestamp: 10,
            extra: JsonObject::new(),
        };
        assert_eq!(out, vec![merged.into(), answer]);
    }

    #[test]
    fn anthropic_strips_dangling_calls() {
        let a = assistant(
            vec![ContentBlock::text("I will read it"), call("orphan_7")],
            StopReason::ToolUse,
        );
        let only_call = assistant(vec![call("x")], StopReason::ToolUse);
        let failed_call = assistant(vec![call("y")], StopReason::Aborted);
        let answered = assistant(vec![call("ok"), call(" ok2 ")], StopReason::ToolUse);
        let input = vec![
            user("check", 0),
            a.clone().into(),
            user("stop", 0),
            only_call.into(),
            user("u", 0),
            failed_call.into(),
            user("v", 0),
            answered.clone().into(),
            ToolResultMessage::text("ok", "read", "r", false, 0).into(),
            AgentMessage::Other(
                json!({"role": "tool", "tool_call_id": "ok2"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
        ];
        let mut stripped = a;
        stripped.content.truncate(1);
        let out = validate_anthropic_turns(&input);
        assert_eq!(
            out,
            vec![
                input[0].clone(),
                stripped.into(),
                input[2].clone(),
                assistant(
                    vec![ContentBlock::text(TOOL_CALLS_OMITTED_TEXT)],
                    StopReason::ToolUse
                )
                .into(),
                input[4].clone(),
                assistant(vec![], StopReason::Aborted).into(),
                input[6].clone(),
                answered.into(),
                input[8].clone(),
                input[9].clone(),
            ]
        );
    }

    #[test]
    fn anthropic_result_blocks_inside_user_messages_answer_calls() {
        let block = ContentBlock::Other(
            json!({"type": "toolResult", "toolUseId": "t1"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        let reply = AgentMessage::User(UserMessage {
            content: UserContent::Blocks(vec![block]),
            timestamp: 0,
            extra: JsonObject::new(),
        });
        let a: AgentMessage = assistant(vec![call("t1")], StopReason::ToolUse).into();
        let input = vec![a, reply];
        assert_eq!(validate_anthropic_turns(&input), input);
    }
}
