//! Summary requests through a scripted `LlmStream`: the exact request, split turns, the
//! chunked path, failures, cancellation and the safety timeout.

#![allow(
    clippy::expect_used,
    reason = "test helpers fail the test on broken fixtures"
)]

mod compaction_support;

use std::sync::Arc;
use std::time::Duration;

use compaction_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use clawloop_core::clock::ManualClock;
use clawloop_core::message::AgentMessage;
use clawloop_core::{CompactionResult, StreamOptions, ThinkLevel};
use clawloop_runner::compaction::prompts::{
    MERGE_SUMMARIES_INSTRUCTIONS, SUMMARIZATION_PROMPT, SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT, UPDATE_SUMMARIZATION_PROMPT,
};
use clawloop_runner::compaction::{
    CompactionError, CompactionOutcome, CompactionPreparation, CompactionSettings, Compactor,
    FileOperations, prepare_compaction,
};

fn preparation(messages: Vec<AgentMessage>) -> CompactionPreparation {
    CompactionPreparation {
        first_kept_entry_id: "kept0001".into(),
        messages_to_summarize: messages,
        turn_prefix_messages: Vec::new(),
        is_split_turn: false,
        tokens_before: 12_345,
        previous_summary: None,
        file_ops: FileOperations::default(),
        settings: CompactionSettings::default(),
    }
}

fn compactor(
    provider: Arc<dyn clawloop_core::LlmStream>,
    window: u64,
    reasoning: bool,
) -> Compactor {
    Compactor::new(provider, model(window, reasoning))
        .with_clock(Arc::new(ManualClock::new(1_700_000_000_000)))
        .with_stream_options(StreamOptions {
            api_key: Some("sk-test".into()),
            ..StreamOptions::default()
        })
}

#[tokio::test]
async fn one_request_with_pi_prompt_budget_and_reasoning() {
    let (provider, requests) = scripted(|_, _| Answer::Text("## Goal|Ship it".into()));
    let mut prep = preparation(vec![
        user("fix the bug in src/lib.rs"),
        assistant_calls(&[
            ("r", "read", json!({"path": "src/lib.rs"})),
            (
                "e",
                "edit",
                json!({"path": "src/lib.rs", "oldText": "a", "newText": "b"}),
            ),
        ]),
        tool_result("r", "read", "fn main() {}"),
    ]);
    prep.file_ops.read.insert("src/lib.rs".into());
    prep.file_ops.read.insert("README.md".into());
    prep.file_ops.edited.insert("src/lib.rs".into());

    let outcome = compactor(provider, 200_000, true)
        .compact(&prep, Some("focus on the bug"), &CancellationToken::new())
        .await
        .expect("compacted");

    let requests = taken(&requests);
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        request.system_prompt.as_deref(),
        Some(SUMMARIZATION_SYSTEM_PROMPT)
    );
    assert_eq!(request.message_count, 1);
    assert_eq!(request.timestamp, 1_700_000_000_000);
    let conversation = "[User]: fix the bug in src/lib.rs\n\n[Assistant tool calls]: read(path=\"src/lib.rs\"); edit(path=\"src/lib.rs\", oldText=\"a\", newText=\"b\")\n\n[Tool result]: fn main() {}";
    assert_eq!(
        request.prompt,
        format!(
            "<conversation>\n{conversation}\n</conversation>\n\n{SUMMARIZATION_PROMPT}\n\nAdditional focus: focus on the bug"
        )
    );
    assert_eq!(request.max_tokens, Some(13_107));
    assert_eq!(request.reasoning, Some(ThinkLevel::High));
    assert_eq!(request.api_key.as_deref(), Some("sk-test"));

    assert_eq!(
        outcome,
        CompactionOutcome::Compacted(CompactionResult {
            summary: "## Goal\nShip it\n\n<read-files>\nREADME.md\n</read-files>\n\n<modified-files>\nsrc/lib.rs\n</modified-files>".into(),
            first_kept_entry_id: "kept0001".into(),
            tokens_before: 12_345,
            details: Some(json!({"readFiles": ["README.md"], "modifiedFiles": ["src/lib.rs"]})),
            extra: Default::default(),
        })
    );
}

#[tokio::test]
async fn an_update_carries_the_previous_summary_and_no_reasoning_without_a_reasoning_model() {
    let (provider, requests) = scripted(|_, _| Answer::Text("UPDATED".into()));
    let mut prep = preparation(vec![user("next step"), assistant_text("done")]);
    prep.previous_summary = Some("OLD SUMMARY".into());
    prep.settings.reserve_tokens = 1_000;
    let outcome = compactor(provider, 200_000, false)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect("compacted");
    let request = &taken(&requests)[0];
    assert_eq!(
        request.prompt,
        format!(
            "<conversation>\n[User]: next step\n\n[Assistant]: done\n</conversation>\n\n<previous-summary>\nOLD SUMMARY\n</previous-summary>\n\n{UPDATE_SUMMARIZATION_PROMPT}"
        )
    );
    assert_eq!(request.max_tokens, Some(800));
    assert_eq!(request.reasoning, None);
    assert_eq!(
        outcome.result().map(|r| r.summary.as_str()),
        Some("UPDATED")
    );
}

#[tokio::test]
async fn a_split_turn_summarizes_history_and_prefix_and_merges_them() {
    let (provider, requests) = scripted(|_, prompt| {
        if prompt.contains(TURN_PREFIX_SUMMARIZATION_PROMPT) {
            Answer::Text("PREFIX".into())
        } else {
            Answer::Text("HISTORY".into())
        }
    });
    let mut prep = preparation(vec![user("earlier"), assistant_text("earlier answer")]);
    prep.is_split_turn = true;
    prep.turn_prefix_messages = vec![
        user("big task"),
        assistant_calls(&[("w", "write", json!({"path": "out.txt", "content": "x"}))]),
        tool_result("w", "write", "ok"),
    ];
    prep.file_ops.written.insert("out.txt".into());
    let outcome = compactor(provider, 200_000, true)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect("compacted");
    assert_eq!(
        outcome.result().map(|r| r.summary.as_str()),
        Some(
            "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<modified-files>\nout.txt\n</modified-files>"
        )
    );
    let mut requests = taken(&requests);
    requests.sort_by_key(|r| r.max_tokens);
    assert_eq!(requests.len(), 2);
    let (prefix, history) = (&requests[0], &requests[1]);
    assert_eq!(
        prefix.prompt,
        format!(
            "<conversation>\n[User]: big task\n\n[Assistant tool calls]: write(path=\"out.txt\", content=\"x\")\n\n[Tool result]: ok\n</conversation>\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
        )
    );
    assert_eq!((prefix.max_tokens, prefix.reasoning), (Some(8_192), None));
    assert_eq!(
        history.prompt,
        format!(
            "<conversation>\n[User]: earlier\n\n[Assistant]: earlier answer\n</conversation>\n\n{SUMMARIZATION_PROMPT}"
        )
    );
    assert_eq!(
        (history.max_tokens, history.reasoning),
        (Some(13_107), Some(ThinkLevel::High))
    );
}

#[tokio::test]
async fn a_split_turn_without_earlier_history_says_so_without_asking() {
    let (provider, requests) = scripted(|_, _| Answer::Text("PREFIX".into()));
    let mut prep = preparation(Vec::new());
    prep.is_split_turn = true;
    prep.turn_prefix_messages = vec![user("only this turn")];
    let outcome = compactor(provider, 200_000, false)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect("compacted");
    assert_eq!(taken(&requests).len(), 1);
    assert_eq!(
        outcome.result().map(|r| r.summary.as_str()),
        Some("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX")
    );
}

#[tokio::test]
async fn failures_carry_pi_texts() {
    let (provider, _) = scripted(|_, _| Answer::Error("overloaded_error".into()));
    let prep = preparation(vec![user("q"), assistant_text("a")]);
    let err = compactor(provider, 200_000, false)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect_err("fails");
    assert_eq!(err.to_string(), "Summarization failed: overloaded_error");

    let (provider, _) = scripted(|_, prompt| {
        if prompt.contains(TURN_PREFIX_SUMMARIZATION_PROMPT) {
            Answer::Error(String::new())
        } else {
            Answer::Text("HISTORY".into())
        }
    });
    let mut prep = preparation(vec![user("q")]);
    prep.is_split_turn = true;
    prep.turn_prefix_messages = vec![user("turn")];
    let err = compactor(provider, 200_000, false)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect_err("fails");
    assert_eq!(
        err.to_string(),
        "Turn prefix summarization failed: Unknown error"
    );
}

/// A history one request cannot take: 6 messages of ~400 estimated tokens against a 4000
/// token window (800 for the answer) go out as two parts and one merge.
#[tokio::test]
async fn chunked_summarization_splits_by_token_share_and_merges() {
    let (provider, requests) = scripted(|i, _| match i {
        0 => Answer::Text("PART ONE".into()),
        1 => Answer::Text("PART TWO".into()),
        _ => Answer::Text("MERGED".into()),
    });
    let messages: Vec<AgentMessage> = (0..6usize)
        .map(|i| {
            let text = format!("{i}{}", "w".repeat(1_600));
            if i.is_multiple_of(2) {
                user(&text)
            } else {
                assistant_text(&text)
            }
        })
        .collect();
    let mut prep = preparation(messages);
    prep.settings.reserve_tokens = 1_000;
    prep.previous_summary = Some("BEFORE".into());
    let outcome = compactor(provider, 4_000, false)
        .compact(&prep, Some("keep ids"), &CancellationToken::new())
        .await
        .expect("compacted");

    let requests = taken(&requests);
    assert_eq!(requests.len(), 3);
    let block = |i: usize| {
        let label = if i.is_multiple_of(2) {
            "[User]"
        } else {
            "[Assistant]"
        };
        format!("{label}: {i}{}", "w".repeat(1_600))
    };
    let part = |range: std::ops::Range<usize>| range.map(block).collect::<Vec<_>>().join("\n\n");
    // Parts have no previous summary and keep the caller's focus.
    assert_eq!(
        requests[0].prompt,
        format!(
            "<conversation>\n{}\n</conversation>\n\n{SUMMARIZATION_PROMPT}\n\nAdditional focus: keep ids",
            part(0..3)
        )
    );
    assert_eq!(
        requests[1].prompt,
        format!(
            "<conversation>\n{}\n</conversation>\n\n{SUMMARIZATION_PROMPT}\n\nAdditional focus: keep ids",
            part(3..6)
        )
    );
    // The merge reads the partial summaries as user messages, updates the previous summary.
    assert_eq!(
        requests[2].prompt,
        format!(
            "<conversation>\n[User]: PART ONE\n\n[User]: PART TWO\n</conversation>\n\n<previous-summary>\nBEFORE\n</previous-summary>\n\n{UPDATE_SUMMARIZATION_PROMPT}\n\nAdditional focus: {MERGE_SUMMARIES_INSTRUCTIONS}\n\nAdditional focus:\nkeep ids"
        )
    );
    assert!(requests.iter().all(|r| r.max_tokens == Some(800)));
    assert_eq!(outcome.result().map(|r| r.summary.as_str()), Some("MERGED"));
}

/// A single message above half the context window is truncated before it is summarized.
#[tokio::test]
async fn an_oversized_message_is_truncated_first() {
    let (provider, requests) = scripted(|i, _| Answer::Text(format!("S{i}")));
    let prep = CompactionPreparation {
        settings: CompactionSettings {
            reserve_tokens: 1_000,
            ..CompactionSettings::default()
        },
        ..preparation(vec![
            user("short question"),
            assistant_text(&"z".repeat(40_000)),
        ])
    };
    let outcome = compactor(provider, 4_000, false)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect("compacted");
    let requests = taken(&requests);
    // Half the window with the margin is 1666 tokens = 6664 chars; that fits one request.
    assert_eq!(requests.len(), 1);
    let expected_text = format!(
        "[Assistant]: {}\n\n[... 33349 more characters truncated]",
        &"z".repeat(40_000)[..6664 - 13]
    );
    assert_eq!(
        requests[0].prompt,
        format!(
            "<conversation>\n[User]: short question\n\n{expected_text}\n</conversation>\n\n{SUMMARIZATION_PROMPT}"
        )
    );
    assert_eq!(outcome.result().map(|r| r.summary.as_str()), Some("S0"));
}

#[tokio::test]
async fn nothing_to_summarize_sends_no_request() {
    let (provider, requests) = scripted(|_, _| Answer::Text("never".into()));
    let settings = CompactionSettings::default();
    // Everything fits the 20000 kept tokens: the cut keeps the whole branch.
    let path = path_of(vec![user("hello"), assistant_text("hi")]);
    let prep = prepare_compaction(&path, &settings).expect("prepared");
    let outcome = compactor(provider, 200_000, false)
        .compact(&prep, None, &CancellationToken::new())
        .await
        .expect("outcome");
    assert_eq!(
        outcome,
        CompactionOutcome::NotCompacted {
            reason: "no real conversation messages".into()
        }
    );
    assert!(!outcome.compacted());
    assert_eq!(taken(&requests).len(), 0);
}

#[tokio::test]
async fn cancelling_ends_with_compaction_cancelled_and_closes_the_request() {
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let (provider, requests) = scripted(move |_, _| {
        // The caller cancels while the request hangs.
        trigger.cancel();
        Answer::Hang
    });
    let prep = preparation(vec![user("q"), assistant_text("a")]);
    let err = compactor(provider, 200_000, false)
        .compact(&prep, None, &cancel)
        .await
        .expect_err("cancelled");
    assert!(matches!(err, CompactionError::Cancelled));
    assert_eq!(err.to_string(), "Compaction cancelled");
    assert!(taken(&requests)[0].cancel.is_cancelled());

    // Already cancelled: no request at all.
    let (provider, requests) = scripted(|_, _| Answer::Text("never".into()));
    let err = compactor(provider, 200_000, false)
        .compact(&prep, None, &cancel)
        .await
        .expect_err("cancelled");
    assert!(matches!(err, CompactionError::Cancelled));
    assert_eq!(taken(&requests).len(), 0);
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn the_safety_timeout_ends_a_hanging_compaction() {
    let (provider, requests) = scripted(|_, _| Answer::Hang);
    let prep = preparation(vec![user("q"), assistant_text("a")]);
    let cancel = CancellationToken::new();
    let err = compactor(provider, 200_000, false)
        .with_timeout(Duration::from_secs(300))
        .compact(&prep, None, &cancel)
        .await
        .expect_err("timed out");
    assert!(matches!(
        err,
        CompactionError::TimedOut {
            timeout_ms: 300_000
        }
    ));
    assert_eq!(err.to_string(), "Compaction timed out after 300000ms");
    // The hanging request was closed; the caller's token is untouched.
    assert!(taken(&requests)[0].cancel.is_cancelled());
    assert!(!cancel.is_cancelled());
}
