//! `transcript_holds_no_answer`: which transcripts a runner may forget after a failed turn.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use clawloop_session::transcript_holds_no_answer;
use serde_json::json;

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn message(role: &str, extra: serde_json::Value) -> String {
    let mut message = json!({"role": role, "content": [{"type": "text", "text": "x"}]});
    if let (Some(m), Some(e)) = (message.as_object_mut(), extra.as_object()) {
        m.extend(e.clone());
    }
    json!({"type": "message", "id": "e1", "parentId": null,
           "timestamp": "2026-01-01T00:00:00.000Z", "message": message})
    .to_string()
}

async fn holds_no_answer(lines: &[String]) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    transcript_holds_no_answer(&path).await.unwrap()
}

#[tokio::test]
async fn only_prompts_and_failed_replies_are_no_answer() {
    let user = message("user", json!({}));
    let failed = message(
        "assistant",
        json!({"stopReason": "error", "errorMessage": "503"}),
    );
    let answered = message("assistant", json!({"stopReason": "stop"}));
    let tool_call = message("assistant", json!({"stopReason": "toolUse"}));
    let tool_result = message(
        "toolResult",
        json!({"toolCallId": "c1", "toolName": "read"}),
    );
    let model_change = json!({"type": "model_change", "id": "e2", "parentId": null,
        "timestamp": "2026-01-01T00:00:00.000Z", "provider": "acme", "modelId": "m1"})
    .to_string();
    let rows: Vec<(&str, Vec<String>, bool)> = vec![
        ("header only", vec![HEADER.to_owned()], true),
        ("a prompt", vec![HEADER.to_owned(), user.clone()], true),
        (
            "prompts and failed replies",
            vec![
                HEADER.to_owned(),
                user.clone(),
                failed.clone(),
                user.clone(),
                failed.clone(),
            ],
            true,
        ),
        (
            "a non-message entry",
            vec![
                HEADER.to_owned(),
                model_change,
                user.clone(),
                failed.clone(),
            ],
            true,
        ),
        (
            "blank lines",
            vec![
                HEADER.to_owned(),
                String::new(),
                "  ".to_owned(),
                user.clone(),
            ],
            true,
        ),
        (
            "an answer",
            vec![HEADER.to_owned(), user.clone(), answered],
            false,
        ),
        (
            "a tool call",
            vec![HEADER.to_owned(), user.clone(), tool_call],
            false,
        ),
        (
            "a tool result",
            vec![HEADER.to_owned(), user.clone(), failed.clone(), tool_result],
            false,
        ),
        (
            "a line that does not parse",
            vec![HEADER.to_owned(), user, "{not json".to_owned()],
            false,
        ),
        (
            "a message entry without a role",
            vec![
                HEADER.to_owned(),
                r#"{"type":"message","id":"e3"}"#.to_owned(),
            ],
            false,
        ),
    ];
    for (name, lines, expected) in rows {
        assert_eq!(holds_no_answer(&lines).await, expected, "{name}");
    }
}

#[tokio::test]
async fn a_missing_transcript_holds_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone.jsonl");
    assert!(transcript_holds_no_answer(&missing).await.unwrap());
}

#[tokio::test]
async fn an_unreadable_transcript_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // A directory cannot be read as text: the query fails instead of guessing.
    let err = transcript_holds_no_answer(dir.path()).await.unwrap_err();
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
}
