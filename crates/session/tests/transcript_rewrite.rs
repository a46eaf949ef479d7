//! Tool-result truncation through an open transcript (reference openclaw-runner §10.1): the
//! file is rewritten under the lock the transcript holds, no other writer gets in between, and
//! the transcript goes on appending to the rewritten file.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::sync::mpsc;
use std::time::Duration;

use clawloop_core::message::{AgentMessage, ToolResultMessage};
use clawloop_session::transforms::{
    ToolResultBudget, ToolResultRewrite, truncate_oversized_tool_results_in_file,
};
use clawloop_session::{SessionEntry, SessionError, SessionOptions, Transcript, WriteLock};
use common::*;
use pretty_assertions::assert_eq;

fn big_result(id: &str, chars: usize) -> AgentMessage {
    ToolResultMessage::text(id, "ls", "x".repeat(chars), false, T0).into()
}

fn entries_json(t: &Transcript) -> serde_json::Value {
    serde_json::to_value(t.entries()).unwrap()
}

fn tool_text_len(t: &Transcript, id: &str) -> usize {
    match t.entry(id).and_then(SessionEntry::as_message) {
        Some(AgentMessage::ToolResult(r)) => r
            .content
            .iter()
            .filter_map(|b| b.as_text())
            .map(|s| s.chars().count())
            .sum(),
        other => panic!("not a tool result: {other:?}"),
    }
}

/// A budget of 1 200 chars per result (a 1 000-token window).
fn budget() -> ToolResultBudget {
    ToolResultBudget::for_context_window(1_000)
}

#[test]
fn rewrite_keeps_the_lock_and_the_transcript_appends_on() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("list")).unwrap();
    t.append_message(assistant_calling("c1")).unwrap();
    let result_id = t.append_message(big_result("c1", 50_000)).unwrap();
    let answer_id = t.append_message(assistant("done")).unwrap();
    let label_id = t.append_label(&result_id, Some("huge")).unwrap();

    // The path-based rewrite cannot get in: this transcript holds the lock.
    let locked = SessionOptions {
        lock_timeout: Duration::ZERO,
        ..options()
    };
    assert!(matches!(
        truncate_oversized_tool_results_in_file(&path, &budget(), &locked),
        Err(SessionError::Locked { .. })
    ));

    let outcome = t.truncate_oversized_tool_results(&budget()).unwrap();
    assert_eq!(
        outcome,
        ToolResultRewrite {
            truncated: true,
            truncated_count: 1,
            reason: None,
            oversized_count: 1,
            aggregate_count: 0,
            chars_removed: 50_000 - 1_200,
        }
    );
    // Still ours: a single attempt at the lock fails, and the transcript says it holds it.
    assert!(t.holds_lock());
    assert!(matches!(
        WriteLock::acquire(&path, Duration::ZERO),
        Err(SessionError::Locked { .. })
    ));
    // Memory and file agree: the same entries, the leaf where it was, the label kept.
    assert_eq!(tool_text_len(&t, &result_id), 1_200);
    assert_eq!(t.leaf_id(), Some(label_id.as_str()));
    assert_eq!(t.label(&result_id), Some("huge"));
    assert_eq!(entries_json(&t), entries_json(&open(&path)));

    // Appends go on from the rewritten file.
    let next = t.append_message(user("and now?")).unwrap();
    assert_eq!(t.entry(&next).unwrap().parent_id(), Some(label_id.as_str()));
    t.close().unwrap();
    assert_valid_jsonl(&path);
    let reopened = open(&path);
    assert_eq!(reopened.leaf_id(), Some(next.as_str()));
    assert_eq!(tool_text_len(&reopened, &result_id), 1_200);
    assert_eq!(
        reopened.entry(&answer_id).unwrap().parent_id(),
        Some(result_id.as_str())
    );
    assert_eq!(reopened.build_context(), {
        let mut t = open(&path);
        t.branch(&next).unwrap();
        t.build_context()
    });
    // Nothing to do a second time: the file is left alone.
    let mut again = Transcript::open_locked(&path, options()).unwrap();
    let before = read(&path);
    assert_eq!(
        again
            .truncate_oversized_tool_results(&budget())
            .unwrap()
            .reason,
        Some("no oversized or aggregate tool results")
    );
    assert_eq!(read(&path), before);
}

#[test]
fn a_waiting_writer_only_ever_sees_the_rewritten_and_appended_file() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("list")).unwrap();
    t.append_message(assistant_calling("c1")).unwrap();
    let result_id = t.append_message(big_result("c1", 20_000)).unwrap();
    t.append_message(assistant("done")).unwrap();

    let (ready_tx, ready_rx) = mpsc::channel();
    let waiter_path = path.clone();
    let waiter = std::thread::spawn(move || {
        let patient = SessionOptions {
            lock_timeout: Duration::from_secs(120),
            ..options()
        };
        ready_tx.send(()).unwrap();
        // Blocks until the first transcript is closed.
        let seen = Transcript::open_locked(&waiter_path, patient).unwrap();
        let texts: Vec<String> = seen
            .build_context()
            .messages
            .iter()
            .map(AgentMessage::text)
            .collect();
        (entries_json(&seen), texts)
    });
    ready_rx.recv().unwrap();

    t.truncate_oversized_tool_results(&budget()).unwrap();
    let last = t.append_message(user("after the rewrite")).unwrap();
    let final_entries = entries_json(&t);
    t.close().unwrap();

    let (seen_entries, texts) = waiter.join().unwrap();
    assert_eq!(seen_entries, final_entries);
    assert_eq!(texts.last().map(String::as_str), Some("after the rewrite"));
    let reopened = open(&path);
    assert_eq!(reopened.leaf_id(), Some(last.as_str()));
    assert_eq!(tool_text_len(&reopened, &result_id), 1_200);
}

#[test]
fn only_the_leafs_branch_is_truncated_and_the_leaf_stays() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("list")).unwrap();
    let call = t.append_message(assistant_calling("c1")).unwrap();
    let first = t.append_message(big_result("c1", 5_000)).unwrap();
    t.branch(&call).unwrap();
    let second = t.append_message(big_result("c1", 6_000)).unwrap();
    t.branch(&first).unwrap();

    let outcome = t.truncate_oversized_tool_results(&budget()).unwrap();
    assert_eq!(outcome.truncated_count, 1);
    assert_eq!(t.leaf_id(), Some(first.as_str()));
    assert_eq!(tool_text_len(&t, &first), 1_200);
    assert_eq!(tool_text_len(&t, &second), 6_000);
    let next = t.append_message(assistant("on the first branch")).unwrap();
    assert_eq!(t.entry(&next).unwrap().parent_id(), Some(first.as_str()));
    t.close().unwrap();
    assert_eq!(
        open(&path).entry(&next).unwrap().parent_id(),
        Some(first.as_str())
    );
}

#[test]
fn a_file_changed_behind_the_transcripts_back_is_not_rewritten() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("list")).unwrap();
    t.append_message(assistant_calling("c1")).unwrap();
    t.append_message(big_result("c1", 5_000)).unwrap();
    // A writer that ignores the lock appends a line.
    let foreign = message_line("ffffffff", None, &user("not yours"));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    writeln!(file, "{foreign}").unwrap();
    let before = read(&path);
    let entries_before = entries_json(&t);

    let err = t.truncate_oversized_tool_results(&budget()).unwrap_err();
    assert!(matches!(err, SessionError::ChangedOnDisk { .. }), "{err}");
    assert_eq!(read(&path), before);
    assert_eq!(entries_json(&t), entries_before);
}

#[test]
fn an_unlocked_transcript_takes_the_lock_and_keeps_it() {
    let (_dir, path) = temp_session();
    {
        let mut w = Transcript::open_locked(&path, options()).unwrap();
        w.append_message(user("list")).unwrap();
        w.append_message(assistant_calling("c1")).unwrap();
        w.append_message(big_result("c1", 3_000)).unwrap();
        w.close().unwrap();
    }
    let mut t = open(&path);
    assert!(!t.holds_lock());
    assert!(
        t.truncate_oversized_tool_results(&budget())
            .unwrap()
            .truncated
    );
    assert!(t.holds_lock());
    t.append_message(assistant("ok")).unwrap();
    t.close().unwrap();
    assert_eq!(
        context_texts(&open(&path))
            .last()
            .map(|(_, text)| text.as_str()),
        Some("ok")
    );

    // A session that is not on disk yet has nothing to rewrite.
    let (_dir2, fresh) = temp_session();
    let mut new = Transcript::open(&fresh, options()).unwrap();
    new.append_message(user("only a user turn")).unwrap();
    assert_eq!(
        new.truncate_oversized_tool_results(&budget())
            .unwrap()
            .reason,
        Some("empty session")
    );
    assert!(!fresh.exists());
}
