//! Compacting an open transcript file: the summary is appended, and the reopened file's
//! context is the summary followed by the kept messages.

#![allow(
    clippy::expect_used,
    reason = "test helpers fail the test on broken fixtures"
)]

mod compaction_support;

use std::sync::Arc;

use compaction_support::*;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use clawloop_core::clock::ManualClock;
use clawloop_core::message::{AgentMessage, CompactionSummaryMessage, JsonObject};
use clawloop_core::tokens::estimate_context_tokens;
use clawloop_runner::compaction::{
    CompactionError, CompactionOutcome, CompactionSettings, Compactor, append_compaction,
};
use clawloop_session::{SessionEntry, SessionOptions, Transcript};

const NOW: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

fn options() -> SessionOptions {
    SessionOptions {
        clock: Arc::new(ManualClock::new(NOW)),
        ..SessionOptions::default()
    }
}

fn conversation() -> Vec<AgentMessage> {
    vec![
        user(&"first question ".repeat(40)),
        assistant_with_usage(&"first answer ".repeat(40), 400),
        user("second question"),
        assistant_with_usage("second answer", 900),
    ]
}

#[tokio::test]
async fn the_summary_is_appended_and_survives_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.jsonl");
    let mut transcript = Transcript::open(&path, options()).expect("open");
    let messages = conversation();
    for m in &messages {
        transcript.append_message(m.clone()).expect("append");
    }
    let kept_id = transcript.entries()[2].id().to_owned();

    let (provider, requests) = scripted(|_, _| Answer::Text("THE SUMMARY".into()));
    let settings = CompactionSettings {
        keep_recent_tokens: 5,
        ..CompactionSettings::default()
    };
    let compactor = Compactor::new(provider, model(200_000, false)).with_settings(settings);
    let outcome = compactor
        .compact_transcript(&mut transcript, None, &CancellationToken::new())
        .await
        .expect("compacted");
    assert_eq!(taken(&requests).len(), 1);
    let result = outcome.result().expect("a result").clone();
    assert_eq!(result.first_kept_entry_id, kept_id);
    assert_eq!(
        result.tokens_before,
        estimate_context_tokens(&messages).tokens
    );
    assert_eq!(result.tokens_before, 900);
    assert_eq!(result.summary, "THE SUMMARY");

    let expected = |tokens_before| {
        let mut context = vec![AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: "THE SUMMARY".into(),
            tokens_before,
            timestamp: NOW,
            extra: JsonObject::new(),
        })];
        context.extend_from_slice(&messages[2..]);
        context
    };
    assert_eq!(transcript.build_context().messages, expected(900));
    drop(transcript);

    let reopened = Transcript::open(&path, options()).expect("reopen");
    assert_eq!(reopened.build_context().messages, expected(900));
    let Some(SessionEntry::Compaction(entry)) = reopened.leaf_entry() else {
        panic!("the leaf is the compaction");
    };
    assert_eq!(entry.from_hook, Some(false));
    assert_eq!(
        entry.details,
        Some(serde_json::json!({"readFiles": [], "modifiedFiles": []}))
    );
    // pi's key order for a compaction line.
    let last_line = std::fs::read_to_string(&path)
        .expect("read")
        .lines()
        .last()
        .map(str::to_owned)
        .unwrap_or_default();
    assert!(
        last_line.starts_with(r#"{"type":"compaction","id":""#)
            && last_line.ends_with(&format!(
                r#""summary":"THE SUMMARY","firstKeptEntryId":"{kept_id}","tokensBefore":900,"details":{{"readFiles":[],"modifiedFiles":[]}},"fromHook":false}}"#
            )),
        "{last_line}"
    );

    // Compacting again right away: pi's error, nothing written.
    let mut reopened = reopened;
    let (provider, requests) = scripted(|_, _| Answer::Text("never".into()));
    let err = Compactor::new(provider, model(200_000, false))
        .compact_transcript(&mut reopened, None, &CancellationToken::new())
        .await
        .expect_err("already compacted");
    assert_eq!(err.to_string(), "Already compacted");
    assert_eq!(taken(&requests).len(), 0);
}

#[tokio::test]
async fn a_session_too_small_writes_nothing_and_asks_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("session.jsonl");
    let (provider, requests) = scripted(|_, _| Answer::Text("never".into()));
    let compactor = Compactor::new(provider, model(200_000, false));

    let mut empty = Transcript::open(&path, options()).expect("open");
    let err = compactor
        .compact_transcript(&mut empty, None, &CancellationToken::new())
        .await
        .expect_err("nothing");
    assert!(matches!(err, CompactionError::NothingToCompact));
    assert_eq!(err.to_string(), "Nothing to compact (session too small)");

    let mut transcript = Transcript::open(&path, options()).expect("open");
    for m in conversation() {
        transcript.append_message(m).expect("append");
    }
    let before = std::fs::read_to_string(&path).expect("read");
    let outcome = compactor
        .compact_transcript(&mut transcript, None, &CancellationToken::new())
        .await
        .expect("outcome");
    assert_eq!(
        outcome,
        CompactionOutcome::NotCompacted {
            reason: "no real conversation messages".into()
        }
    );
    assert_eq!(taken(&requests).len(), 0);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), before);
}

#[test]
fn append_compaction_returns_the_result_it_wrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut transcript = Transcript::open(dir.path().join("s.jsonl"), options()).expect("open");
    for m in conversation() {
        transcript.append_message(m).expect("append");
    }
    let first = transcript.entries()[0].id().to_owned();
    let result = clawloop_core::CompactionResult {
        summary: "S".into(),
        first_kept_entry_id: first.clone(),
        tokens_before: 7,
        details: None,
        extra: Default::default(),
    };
    assert_eq!(
        append_compaction(&mut transcript, result.clone()).expect("append"),
        result
    );
    let context = transcript.build_context().messages;
    assert_eq!(context.len(), 5);
    assert_eq!(context[0].text(), "S");
    assert_eq!(&context[1..], conversation().as_slice());
}
