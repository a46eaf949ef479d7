//! The attempt's history pipeline in one call (sanitize → turn validation → history limit →
//! pairing repair), over a transcript read back from a real session file.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::expect_used)]

use clawloop_core::StopReason;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, ContentBlock, ThinkingContent, ToolCall, ToolResultMessage,
    UserContent, UserMessage,
};
use clawloop_session::transforms::{
    MISSING_TOOL_RESULT_TEXT, ReplayHistoryOptions, prepare_replay_history,
    resolve_transcript_policy,
};
use clawloop_session::{FsyncPolicy, SessionOptions, Transcript};
use pretty_assertions::assert_eq;
use serde_json::json;

fn assistant(
    model: &str,
    blocks: Vec<ContentBlock>,
    stop: StopReason,
    ts: u64,
) -> AssistantMessage {
    let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", model, ts);
    a.content = blocks;
    a.stop_reason = stop;
    a
}

fn call(id: &str, name: &str) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall::new(id, name, json!({"path": "a.txt"})))
}

/// A session written to disk and read back: a tool exchange, two user turns in a row (a
/// crashed turn), and a call whose result never arrived.
fn written_history(model: &str) -> Vec<AgentMessage> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.jsonl");
    let options = SessionOptions {
        fsync: FsyncPolicy::Never,
        ..SessionOptions::default()
    };
    let mut t = Transcript::open_locked(&path, options.clone()).expect("open");
    let thinking = ContentBlock::Thinking(ThinkingContent {
        thinking: "let me look".into(),
        thinking_signature: Some("sig".into()),
        ..ThinkingContent::default()
    });
    let mut read = ToolResultMessage::text("c1", "read", "file body", false, 3);
    read.details = Some(json!({"bytes": 9}));
    let appended: Vec<AgentMessage> = vec![
        UserMessage::text("first", 1).into(),
        assistant(
            model,
            vec![thinking, ContentBlock::text("reading"), call("c1", "read")],
            StopReason::ToolUse,
            2,
        )
        .into(),
        read.into(),
        assistant(model, vec![ContentBlock::text("done")], StopReason::Stop, 4).into(),
        UserMessage::text("second", 5).into(),
        UserMessage::text("second again", 6).into(),
        assistant(model, vec![call("c2", "exec")], StopReason::ToolUse, 7).into(),
        UserMessage::text("third", 8).into(),
    ];
    for m in appended {
        t.append_message(m).expect("append");
    }
    t.close().expect("close");
    Transcript::open(&path, options)
        .expect("reopen")
        .build_context()
        .messages
}

#[test]
fn anthropic_history_is_sanitized_validated_limited_and_paired() {
    let model = "claude-3-7-sonnet-20250219";
    let history = written_history(model);
    let options = ReplayHistoryOptions {
        policy: resolve_transcript_policy("anthropic", "anthropic-messages", model),
        allowed_tool_names: None,
        history_limit: Some(2),
        now_ms: 99,
    };
    let merged = UserMessage {
        content: UserContent::Blocks(vec![
            ContentBlock::text("second"),
            ContentBlock::text("second again"),
        ]),
        timestamp: 6,
        extra: Default::default(),
    };
    assert_eq!(
        prepare_replay_history(&history, &options),
        vec![
            merged.into(),
            assistant(model, vec![call("c2", "exec")], StopReason::ToolUse, 7).into(),
            ToolResultMessage::text("c2", "exec", MISSING_TOOL_RESULT_TEXT, true, 99).into(),
            UserMessage::text("third", 8).into(),
        ]
    );

    // Without a limit the whole history comes back: thinking dropped (Claude 3.7), details
    // stripped, the users merged, the missing result inserted.
    let all = prepare_replay_history(
        &history,
        &ReplayHistoryOptions {
            history_limit: None,
            ..options
        },
    );
    let texts: Vec<String> = all.iter().map(AgentMessage::text).collect();
    assert_eq!(all.len(), 8);
    assert_eq!(texts[0], "first");
    let AgentMessage::Assistant(first_answer) = &all[1] else {
        panic!("not an assistant message: {:?}", all[1])
    };
    assert_eq!(
        first_answer.content,
        vec![ContentBlock::text("reading"), call("c1", "read")]
    );
    assert_eq!(
        all[2],
        ToolResultMessage::text("c1", "read", "file body", false, 3).into()
    );
}

#[test]
fn gemini_history_gets_its_bootstrap_turn_and_merged_model_turns() {
    let history = written_history("gemini-2.5-pro");
    // Start mid-conversation on a model turn, as a delivery mirror after /new would.
    let tail = &history[3..4];
    let options = ReplayHistoryOptions {
        policy: resolve_transcript_policy("google", "google-generative-ai", "gemini-2.5-pro"),
        now_ms: 5,
        ..ReplayHistoryOptions::default()
    };
    let out = prepare_replay_history(&[tail[0].clone(), tail[0].clone()], &options);
    let roles: Vec<&str> = out.iter().map(AgentMessage::role).collect();
    let texts: Vec<String> = out.iter().map(AgentMessage::text).collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(texts, ["(session bootstrap)", "done\ndone"]);
}
