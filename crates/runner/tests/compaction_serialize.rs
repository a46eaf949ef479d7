//! `serialize_conversation` vectors (pi 0.58.3 `serializeConversation`).

#![allow(
    clippy::expect_used,
    reason = "test helpers fail the test on broken fixtures"
)]

mod compaction_support;

use compaction_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;

use clawloop_core::StopReason;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, BashExecutionMessage, CompactionSummaryMessage, ContentBlock,
    ThinkingContent, UserContent, UserMessage, convert_to_llm,
};
use clawloop_runner::compaction::serialize::truncate_for_summary;
use clawloop_runner::compaction::serialize_conversation;

fn serialize(messages: &[AgentMessage]) -> String {
    serialize_conversation(&convert_to_llm(messages))
}

#[test]
fn labels_blocks_and_joins_them_with_blank_lines() {
    let mut assistant = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
    assistant.content = vec![
        ContentBlock::text("Let me look."),
        ContentBlock::Thinking(ThinkingContent {
            thinking: "need the file".into(),
            ..ThinkingContent::default()
        }),
        ContentBlock::text("Second part."),
        ContentBlock::ToolCall(clawloop_core::ToolCall::new(
            "c1",
            "read",
            json!({"path": "a.rs", "offset": 10, "opts": {"x": [1, "é"]}}),
        )),
        ContentBlock::Thinking(ThinkingContent {
            thinking: "and more".into(),
            ..ThinkingContent::default()
        }),
        ContentBlock::ToolCall(clawloop_core::ToolCall::new("c2", "ls", json!({}))),
    ];
    assistant.stop_reason = StopReason::ToolUse;
    let messages = vec![
        user("plain string"),
        AgentMessage::User(UserMessage {
            content: UserContent::Blocks(vec![
                ContentBlock::text("two "),
                ContentBlock::image("AAAA", "image/png"),
                ContentBlock::text("blocks"),
            ]),
            ..UserMessage::default()
        }),
        AgentMessage::Assistant(assistant),
        tool_result("c1", "read", "line one\nline two"),
        tool_result("c2", "ls", ""),
        user(""),
        AgentMessage::BashExecution(BashExecutionMessage {
            command: "ls".into(),
            output: "a.txt".into(),
            exit_code: Some(0),
            ..BashExecutionMessage::default()
        }),
        AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: "OLD".into(),
            ..CompactionSummaryMessage::default()
        }),
    ];
    assert_eq!(
        serialize(&messages),
        [
            "[User]: plain string",
            "[User]: two blocks",
            "[Assistant thinking]: need the file\nand more",
            "[Assistant]: Let me look.\nSecond part.",
            "[Assistant tool calls]: read(path=\"a.rs\", offset=10, opts={\"x\":[1,\"é\"]}); ls()",
            "[Tool result]: line one\nline two",
            "[User]: Ran `ls`\n```\na.txt\n```",
            "[User]: The conversation history before this point was compacted into the following summary:\n\n<summary>\nOLD\n</summary>",
        ]
        .join("\n\n")
    );
    assert_eq!(serialize(&[]), "");
}

#[test]
fn tool_results_are_cut_at_2000_chars() {
    let long = format!("{}{}", "a".repeat(1999), "é".repeat(3001));
    let serialized = serialize(&[tool_result("c", "read", &long)]);
    assert_eq!(
        serialized,
        format!(
            "[Tool result]: {}é\n\n[... 3000 more characters truncated]",
            "a".repeat(1999)
        )
    );
    // pi's own vector: 5000 chars → 3000 more.
    assert_eq!(
        truncate_for_summary(&"x".repeat(5000), 2000),
        format!(
            "{}\n\n[... 3000 more characters truncated]",
            "x".repeat(2000)
        )
    );
    assert_eq!(
        truncate_for_summary(&"x".repeat(2000), 2000),
        "x".repeat(2000)
    );
    // User and assistant text is never cut.
    assert_eq!(serialize(&[user(&"u".repeat(5000))]).len(), 5008);
}
