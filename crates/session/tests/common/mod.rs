//! Helpers shared by the integration tests: files on disk, fixed clocks, messages.

#![allow(dead_code, reason = "each test file uses a different subset")]
// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::message::{AgentMessage, AssistantMessage, ContentBlock, ToolCall, UserMessage};
use clawloop_core::{ManualClock, StopReason};
use clawloop_session::{FsyncPolicy, SessionOptions, Transcript};
use serde_json::{Value, json};

/// 2026-01-01T00:00:00.000Z.
pub const T0: u64 = 1_767_225_600_000;

/// Options with a fixed clock at [`T0`] and a fixed header.
pub fn options() -> SessionOptions {
    SessionOptions {
        fsync: FsyncPolicy::Always,
        clock: Arc::new(ManualClock::new(T0)),
        cwd: Some("/home/dev/proj".into()),
        session_id: Some("3f1c2a9e-7b4d-4e8a-9c1f-0a2b3c4d5e6f".into()),
        parent_session: None,
        ..SessionOptions::default()
    }
}

/// A temp dir and a session path inside it.
pub fn temp_session() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    (dir, path)
}

/// Writes `lines`, each followed by `\n`.
pub fn write_lines(path: &Path, lines: &[&str]) {
    let mut text = String::new();
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

pub fn open(path: &Path) -> Transcript {
    Transcript::open(path, options()).unwrap()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Every line of the file parses as JSON and the file ends with `\n`.
pub fn assert_valid_jsonl(path: &Path) {
    let text = read(path);
    assert!(text.ends_with('\n'), "no final newline: {text:?}");
    for line in text.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
}

pub const HEADER: &str = r#"{"type":"session","version":3,"id":"3f1c2a9e-7b4d-4e8a-9c1f-0a2b3c4d5e6f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/proj"}"#;

pub fn user(text: &str) -> AgentMessage {
    UserMessage::text(text, T0).into()
}

pub fn assistant(text: &str) -> AgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", T0);
    m.content.push(ContentBlock::text(text));
    m.into()
}

pub fn assistant_calling(id: &str) -> AgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", T0);
    m.content
        .push(ContentBlock::ToolCall(ToolCall::new(id, "ls", json!({}))));
    m.stop_reason = StopReason::ToolUse;
    m.into()
}

/// A v3 `message` line.
pub fn message_line(id: &str, parent: Option<&str>, message: &AgentMessage) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
        "message": message})
    .to_string()
}

/// A v3 `message` line as a transcript stamps it with the test clock at [`T0`].
pub fn message_line_at(id: &str, parent: Option<&str>, message: &AgentMessage) -> String {
    message_line(id, parent, message)
        .replace("2026-01-01T00:00:01.000Z", "2026-01-01T00:00:00.000Z")
}

/// `(role, text)` of each context message.
pub fn context_texts(t: &Transcript) -> Vec<(String, String)> {
    t.build_context()
        .messages
        .iter()
        .map(|m| (m.role().to_owned(), m.text()))
        .collect()
}

pub fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}
