//! Tool calls left without results at the end of a branch (a process killed while its tools
//! ran). The in-memory pairing repair ([`super::repair_tool_pairing`]) answers them for one
//! request; writing the answers to the file makes the repair permanent, so no later reader —
//! pi, OpenClaw, a provider — ever sees the orphaned call.

use std::collections::HashSet;

use clawloop_core::message::{AgentMessage, ToolResultMessage};

use super::tool_pairing::MISSING_TOOL_RESULT_TEXT;

/// Synthetic error results for the calls of the conversation's last assistant message that no
/// tool result after it answers, in call order. Empty when the last assistant message failed
/// (its calls may be incomplete, so nothing is made up for them), asked for no tool, or has
/// every call answered.
pub fn dangling_tool_call_results(
    messages: &[AgentMessage],
    now_ms: u64,
) -> Vec<ToolResultMessage> {
    let Some(position) = messages
        .iter()
        .rposition(|m| matches!(m, AgentMessage::Assistant(_)))
    else {
        return Vec::new();
    };
    let Some(AgentMessage::Assistant(assistant)) = messages.get(position) else {
        return Vec::new();
    };
    if assistant.stop_reason.is_failure() {
        return Vec::new();
    }
    let answered: HashSet<&str> = messages[position + 1..]
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(result) => Some(result.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assistant
        .tool_calls()
        .filter(|call| !answered.contains(call.id.as_str()))
        .map(|call| {
            let name = if call.name.trim().is_empty() {
                "unknown"
            } else {
                call.name.as_str()
            };
            ToolResultMessage::text(
                call.id.clone(),
                name,
                MISSING_TOOL_RESULT_TEXT,
                true,
                now_ms,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::message::{AssistantMessage, ContentBlock, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn assistant(calls: &[&str], stop: StopReason) -> AgentMessage {
        let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 1);
        for id in calls {
            a.content.push(ContentBlock::ToolCall(ToolCall::new(
                *id,
                "read",
                json!({}),
            )));
        }
        a.stop_reason = stop;
        AgentMessage::Assistant(a)
    }

    fn result(id: &str) -> AgentMessage {
        AgentMessage::ToolResult(ToolResultMessage::text(id, "read", "ok", false, 2))
    }

    fn ids(results: &[ToolResultMessage]) -> Vec<&str> {
        results.iter().map(|r| r.tool_call_id.as_str()).collect()
    }

    #[test]
    fn unanswered_calls_of_the_last_assistant_get_error_results_in_call_order() {
        let user = AgentMessage::User(UserMessage::text("go", 0));
        let rows: Vec<(Vec<AgentMessage>, Vec<&str>)> = vec![
            (vec![user.clone()], vec![]),
            (
                vec![user.clone(), assistant(&["a", "b"], StopReason::ToolUse)],
                vec!["a", "b"],
            ),
            (
                vec![
                    user.clone(),
                    assistant(&["a", "b"], StopReason::ToolUse),
                    result("a"),
                ],
                vec!["b"],
            ),
            (
                vec![
                    user.clone(),
                    assistant(&["a"], StopReason::ToolUse),
                    result("a"),
                ],
                vec![],
            ),
            (
                vec![user.clone(), assistant(&["a"], StopReason::Aborted)],
                vec![],
            ),
            (vec![user.clone(), assistant(&[], StopReason::Stop)], vec![]),
        ];
        for (messages, expected) in rows {
            let results = dangling_tool_call_results(&messages, 9);
            assert_eq!(ids(&results), expected);
            assert!(results.iter().all(|r| r.is_error
                && r.text_content() == MISSING_TOOL_RESULT_TEXT
                && r.timestamp == 9));
        }
    }
}
