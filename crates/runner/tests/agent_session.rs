//! The agent session over a real transcript file: persistence in `message_end` order, model and
//! thinking entries, threshold compaction, overflow compact-and-retry, queued messages that
//! arrive during compaction.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use clawloop_core::ThinkLevel;
use clawloop_core::agent_event::{AgentEvent, CompactionResult};
use clawloop_core::message::AgentMessage;
use clawloop_core::tool::BoxFuture;
use clawloop_runner::agent::session::OVERFLOW_RECOVERY_FAILED;
use clawloop_runner::agent::{
    AgentSession, AutoCompactionSettings, CompactionRequest, CompactionTrigger,
    TranscriptCompactor, TranscriptHandle,
};
use clawloop_runner::compaction::{CompactionError, CompactionOutcome};
use clawloop_session::{SessionOptions, Transcript};
use clawloop_tools::execute::EventSink;
use common::*;
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A compactor that keeps the last user message's entry and summarizes the rest as "S<n>";
/// it can queue a steering message while it runs, as a user typing during compaction would.
#[derive(Default)]
struct KeepLastUser {
    calls: Mutex<Vec<CompactionTrigger>>,
    steer_during: Mutex<Option<(clawloop_runner::agent::MessageQueues, AgentMessage)>>,
    fail_with: Option<String>,
}

impl TranscriptCompactor for KeepLastUser {
    fn compact<'a>(
        &'a self,
        transcript: &'a TranscriptHandle,
        request: CompactionRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionOutcome, CompactionError>> {
        Box::pin(async move {
            self.calls.lock().push(request.reason);
            if let Some((queues, message)) = self.steer_during.lock().take() {
                queues.steer(message);
            }
            if let Some(message) = &self.fail_with {
                return Err(CompactionError::SummarizationFailed(message.clone()));
            }
            let n = self.calls.lock().len();
            transcript
                .with(move |t: &mut Transcript| {
                    let leaf = t.leaf_id()?.to_owned();
                    let keep = t
                        .branch_path(&leaf)
                        .into_iter()
                        .rev()
                        .find(|e| e.as_message().is_some_and(|m| m.role() == "user"))?
                        .id()
                        .to_owned();
                    let summary = format!("S{n}");
                    t.append_compaction(summary.clone(), keep.clone(), 999, None, None)
                        .ok()?;
                    Some(CompactionResult {
                        summary,
                        first_kept_entry_id: keep,
                        tokens_before: 999,
                        details: None,
                        extra: Default::default(),
                    })
                })
                .await
                .map(|result| {
                    result.map_or(
                        CompactionOutcome::NotCompacted {
                            reason: "none".to_owned(),
                        },
                        CompactionOutcome::Compacted,
                    )
                })
                .map_err(|e| CompactionError::SummarizationFailed(e.to_string()))
        })
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    provider: Scripted,
    compactor: Arc<KeepLastUser>,
    session: AgentSession,
}

async fn fixture(
    replies: Vec<Vec<clawloop_core::stream_event::AssistantMessageEvent>>,
    compactor: KeepLastUser,
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let transcript = TranscriptHandle::open_locked(&path, SessionOptions::default())
        .await
        .unwrap();
    let provider = Scripted::new(replies);
    let compactor = Arc::new(compactor);
    let cfg = config(Arc::new(provider.clone()), vec![echo(false, None)]);
    let session = AgentSession::new(
        transcript,
        Vec::new(),
        cfg,
        compactor.clone(),
        AutoCompactionSettings {
            enabled: true,
            reserve_tokens: 16_384,
        },
    )
    .unwrap();
    Fixture {
        _dir: dir,
        path,
        provider,
        compactor,
        session,
    }
}

fn file_types(path: &std::path::Path) -> Vec<String> {
    let t = Transcript::open(path, SessionOptions::default()).unwrap();
    t.entries()
        .iter()
        .map(|e| match e.as_message() {
            Some(m) => format!("message:{}", m.role()),
            None => e.type_name().to_owned(),
        })
        .collect()
}

fn reopened_context(path: &std::path::Path) -> Vec<(String, String)> {
    let t = Transcript::open(path, SessionOptions::default()).unwrap();
    summary(&t.build_context().messages)
}

fn events_of(seen: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    seen.lock()
        .iter()
        .filter(|e| e.starts_with("auto_") || e.starts_with("agent_"))
        .cloned()
        .collect()
}

#[tokio::test]
async fn every_message_is_persisted_in_message_end_order_and_reopens_the_same() {
    let mut f = fixture(
        vec![
            tool_reply(&[("c1", "echo", json!({"text": "a"}))]),
            text_reply("done"),
        ],
        KeepLastUser::default(),
    )
    .await;
    f.session.set_model(model()).await.unwrap();
    f.session
        .write_thinking_level(ThinkLevel::Off)
        .await
        .unwrap();
    let (sink, _) = recorder();
    let outcome = f
        .session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(outcome.compaction_count, 0);
    assert_eq!(
        file_types(&f.path),
        [
            "model_change",
            "thinking_level_change",
            "message:user",
            "message:assistant",
            "message:toolResult",
            "message:assistant"
        ]
    );
    assert_eq!(reopened_context(&f.path), summary(f.session.messages()));
    assert_eq!(f.provider.requests(), 2);
}

#[tokio::test]
async fn an_unchanged_thinking_level_writes_nothing() {
    let mut f = fixture(vec![text_reply("hi")], KeepLastUser::default()).await;
    f.session.set_thinking_level(ThinkLevel::Off).await.unwrap();
    f.session
        .set_thinking_level(ThinkLevel::High)
        .await
        .unwrap();
    f.session
        .set_thinking_level(ThinkLevel::High)
        .await
        .unwrap();
    let (sink, _) = recorder();
    f.session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(
        file_types(&f.path),
        ["thinking_level_change", "message:user", "message:assistant"]
    );
    assert_eq!(f.session.config().options.reasoning, Some(ThinkLevel::High));
}

#[tokio::test]
async fn passing_the_threshold_compacts_after_agent_end_without_retry() {
    // Window 128 000, reserve 16 384: 120 000 context tokens is past the threshold.
    let mut f = fixture(
        vec![with_usage(text_reply("big"), 120_000)],
        KeepLastUser::default(),
    )
    .await;
    let (sink, seen) = recorder();
    let outcome = f
        .session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(
        events_of(&seen),
        [
            "agent_start",
            "agent_end",
            "auto_compaction_start",
            "auto_compaction_end"
        ]
    );
    assert_eq!(outcome.compaction_count, 1);
    assert_eq!(f.provider.requests(), 1);
    assert_eq!(
        summary(f.session.messages()),
        [
            s("compactionSummary", "S1"),
            s("user", "go"),
            s("assistant", "big")
        ]
    );
    assert_eq!(reopened_context(&f.path), summary(f.session.messages()));
}

#[tokio::test]
async fn below_the_threshold_nothing_is_compacted() {
    let mut f = fixture(
        vec![with_usage(text_reply("small"), 100_000)],
        KeepLastUser::default(),
    )
    .await;
    let (sink, seen) = recorder();
    f.session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(events_of(&seen), ["agent_start", "agent_end"]);
    assert!(f.compactor.calls.lock().is_empty());
}

#[tokio::test]
async fn an_overflow_compacts_once_and_retries_on_the_compacted_context() {
    let mut f = fixture(
        vec![
            error_reply("400 prompt is too long: 210000 tokens > 200000 maximum"),
            text_reply("answer"),
        ],
        KeepLastUser::default(),
    )
    .await;
    let (sink, seen) = recorder();
    let outcome = f
        .session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(
        events_of(&seen),
        [
            "agent_start",
            "agent_end",
            "auto_compaction_start",
            "auto_compaction_end",
            "agent_start",
            "agent_end"
        ]
    );
    assert_eq!(outcome.compaction_count, 1);
    assert_eq!(
        outcome.last_assistant().map(|a| a.text()),
        Some("answer".to_owned())
    );
    // The retry sent the compacted context, without the failed reply.
    assert_eq!(
        f.provider.context_texts(1),
        [
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>",
            "go"
        ]
    );
    // The failed reply stays in the file and in the rebuilt context, as in pi; providers drop
    // failed replies when they build a request.
    assert_eq!(
        file_types(&f.path),
        [
            "message:user",
            "message:assistant",
            "compaction",
            "message:assistant"
        ]
    );
    assert_eq!(
        reopened_context(&f.path),
        [
            s("compactionSummary", "S1"),
            s("user", "go"),
            s("assistant", ""),
            s("assistant", "answer")
        ]
    );
}

#[tokio::test]
async fn a_second_overflow_after_the_retry_is_reported_not_retried() {
    let overflow = "400 prompt is too long: 210000 tokens > 200000 maximum";
    let mut f = fixture(
        vec![error_reply(overflow), error_reply(overflow)],
        KeepLastUser::default(),
    )
    .await;
    let ends = Arc::new(Mutex::new(Vec::new()));
    let sink: EventSink = {
        let ends = Arc::clone(&ends);
        Arc::new(move |event: AgentEvent| {
            if let AgentEvent::AutoCompactionEnd {
                will_retry,
                error_message,
                ..
            } = event
            {
                ends.lock().push((will_retry, error_message));
            }
        })
    };
    let outcome = f
        .session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(
        *ends.lock(),
        [
            (true, None),
            (false, Some(OVERFLOW_RECOVERY_FAILED.to_owned()))
        ]
    );
    assert_eq!(f.provider.requests(), 2);
    assert_eq!(
        outcome
            .last_assistant()
            .and_then(|a| a.error_message.clone()),
        Some(overflow.to_owned())
    );
}

#[tokio::test]
async fn a_failed_overflow_compaction_keeps_the_error_for_the_run_loop() {
    let overflow = "400 prompt is too long: 210000 tokens > 200000 maximum";
    let compactor = KeepLastUser {
        fail_with: Some("500".to_owned()),
        ..Default::default()
    };
    let mut f = fixture(vec![error_reply(overflow)], compactor).await;
    let ends = Arc::new(Mutex::new(Vec::new()));
    let sink: EventSink = {
        let ends = Arc::clone(&ends);
        Arc::new(move |event: AgentEvent| {
            if let AgentEvent::AutoCompactionEnd { error_message, .. } = event {
                ends.lock().push(error_message);
            }
        })
    };
    let outcome = f
        .session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(
        *ends.lock(),
        [Some(
            "Context overflow recovery failed: Summarization failed: 500".to_owned()
        )]
    );
    assert_eq!(outcome.compaction_count, 0);
    assert_eq!(
        outcome
            .last_assistant()
            .and_then(|a| a.error_message.clone()),
        Some(overflow.to_owned())
    );
}

#[tokio::test]
async fn a_message_steered_in_during_compaction_is_delivered_and_persisted() {
    let mut f = fixture(
        vec![with_usage(text_reply("big"), 120_000), text_reply("got it")],
        KeepLastUser::default(),
    )
    .await;
    *f.compactor.steer_during.lock() =
        Some((f.session.config().queues.clone(), user("one more thing")));
    let (sink, _) = recorder();
    let outcome = f
        .session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert_eq!(
        summary(&outcome.new_messages),
        [
            s("user", "go"),
            s("assistant", "big"),
            s("user", "one more thing"),
            s("assistant", "got it")
        ]
    );
    assert_eq!(
        reopened_context(&f.path),
        [
            s("compactionSummary", "S1"),
            s("user", "go"),
            s("assistant", "big"),
            s("user", "one more thing"),
            s("assistant", "got it")
        ]
    );
}

#[tokio::test]
async fn disabled_auto_compaction_never_compacts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let transcript = TranscriptHandle::open_locked(&path, SessionOptions::default())
        .await
        .unwrap();
    let provider = Scripted::new(vec![error_reply(
        "400 prompt is too long: 210000 tokens > 200000 maximum",
    )]);
    let compactor = Arc::new(KeepLastUser::default());
    let mut session = AgentSession::new(
        transcript,
        Vec::new(),
        config(Arc::new(provider.clone()), vec![]),
        compactor.clone(),
        AutoCompactionSettings {
            enabled: false,
            reserve_tokens: 16_384,
        },
    )
    .unwrap();
    let (sink, _) = recorder();
    session
        .prompt(vec![user("go")], &CancellationToken::new(), &sink)
        .await
        .unwrap();
    assert!(compactor.calls.lock().is_empty());
    assert_eq!(provider.requests(), 1);
}

#[test]
fn a_session_without_a_runtime_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let transcript =
        Transcript::open(dir.path().join("s.jsonl"), SessionOptions::default()).unwrap();
    let result = AgentSession::new(
        TranscriptHandle::new(transcript),
        Vec::new(),
        config(Arc::new(Scripted::new(vec![])), vec![]),
        Arc::new(KeepLastUser::default()),
        AutoCompactionSettings::default(),
    );
    let err = result.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("no tokio runtime"), "{err}");
}
