//! Cut points and preparation (pi 0.58.3 `findCutPoint` / `prepareCompaction`, pi-mono §3.5).

#![allow(
    clippy::expect_used,
    reason = "test helpers fail the test on broken fixtures"
)]

mod compaction_support;

use compaction_support::*;
use pretty_assertions::assert_eq;
use serde_json::json;

use clawloop_core::message::{AgentMessage, JsonObject};
use clawloop_core::tokens::{estimate_context_tokens, estimate_tokens};
use clawloop_runner::compaction::{
    CompactionError, CompactionSettings, CutPoint, FileLists, find_cut_point,
    find_turn_start_index, find_valid_cut_points, prepare_compaction,
};
use clawloop_session::{CompactionEntry, ModelChangeEntry, SessionEntry};

/// pi-mono §3.5's worked example: `0 user(1000) 1 asst(1000) 2 user(100) 3 asst+toolCall(103)
/// 4 toolResult(2000) 5 asst+toolCall(103) 6 toolResult(2000) 7 asst(100)` (estimated tokens).
fn worked_example() -> Vec<SessionEntry> {
    // "read" (4 chars) + `{"path":"<397 x>"}` (408 chars) = 412 chars = 103 tokens.
    let read = |id: &str| assistant_calls(&[(id, "read", json!({"path": "x".repeat(397)}))]);
    path_of(vec![
        user(&"u".repeat(4000)),
        assistant_text(&"a".repeat(4000)),
        user(&"u".repeat(400)),
        read("c1"),
        tool_result("c1", "read", &"r".repeat(8000)),
        read("c2"),
        tool_result("c2", "read", &"r".repeat(8000)),
        assistant_text(&"a".repeat(400)),
    ])
}

#[test]
fn worked_example_table() {
    let path = worked_example();
    let tokens: Vec<u64> = path
        .iter()
        .map(|e| e.as_message().map_or(0, estimate_tokens))
        .collect();
    assert_eq!(tokens, [1000, 1000, 100, 103, 2000, 103, 2000, 100]);
    assert_eq!(
        find_valid_cut_points(&path, 0, path.len()),
        [0, 1, 2, 3, 5, 7]
    );

    let split = |first, start| CutPoint {
        first_kept_entry_index: first,
        turn_start_index: Some(start),
        is_split_turn: true,
    };
    let table = [
        (100, split(7, 2)),
        // The budget is reached on tool result 6; the next cut point is 7.
        (2100, split(7, 2)),
        (4000, split(5, 2)),
        (4300, split(3, 2)),
        (5300, split(1, 0)),
        (
            7000,
            CutPoint {
                first_kept_entry_index: 0,
                turn_start_index: None,
                is_split_turn: false,
            },
        ),
    ];
    for (keep, expected) in table {
        assert_eq!(
            find_cut_point(&path, 0, path.len(), keep),
            expected,
            "keep {keep}"
        );
    }
}

/// Every budget, on a path with parallel tool calls: the kept part never starts with a tool
/// result and every kept tool result has its call kept too.
#[test]
fn a_cut_never_separates_a_tool_call_from_its_result() {
    let path = path_of(vec![
        user("please read both files"),
        assistant_calls(&[
            ("a", "read", json!({"path": "a.rs"})),
            ("b", "read", json!({"path": "b.rs"})),
        ]),
        tool_result("a", "read", &"A".repeat(900)),
        tool_result("b", "read", &"B".repeat(900)),
        assistant_calls(&[("c", "bash", json!({"command": "cargo test"}))]),
        tool_result("c", "bash", &"ok ".repeat(300)),
        assistant_text("done"),
    ]);
    // A naive cut at the budget would land on the tool result at index 3 here.
    let naive = find_cut_point(&path, 0, path.len(), 460);
    assert_eq!(naive.first_kept_entry_index, 4);

    for keep in 0..=1500 {
        let cut = find_cut_point(&path, 0, path.len(), keep);
        let kept = &path[cut.first_kept_entry_index..];
        assert!(
            !matches!(kept[0].as_message(), Some(AgentMessage::ToolResult(_))),
            "keep {keep}: kept part starts with a tool result"
        );
        for entry in kept {
            if let Some(AgentMessage::ToolResult(result)) = entry.as_message() {
                let call_kept = kept.iter().any(|e| {
                    e.as_message()
                        .and_then(AgentMessage::as_assistant)
                        .is_some_and(|a| a.tool_calls().any(|c| c.id == result.tool_call_id))
                });
                assert!(
                    call_kept,
                    "keep {keep}: result {} lost its call",
                    result.tool_call_id
                );
            }
        }
    }
}

#[test]
fn the_cut_takes_preceding_settings_entries_and_stops_at_a_compaction() {
    let mut path = path_of(vec![user("one"), assistant_text("two")]);
    path.push(SessionEntry::ModelChange(ModelChangeEntry {
        id: "mc".into(),
        parent_id: Some("e1".into()),
        timestamp: "2026-01-01T00:00:00.000Z".into(),
        provider: "p".into(),
        model_id: "m".into(),
        extra: JsonObject::new(),
    }));
    path.push(message_entry(3, user(&"x".repeat(400))));
    let cut = find_cut_point(&path, 0, path.len(), 50);
    assert_eq!(
        cut.first_kept_entry_index, 2,
        "the model change stays with its turn"
    );
    assert_eq!(path[cut.first_kept_entry_index].id(), "mc");
    // The cut entry is not a user message, but the turn it splits starts right after it;
    // pi looks backwards only, so the turn before counts as the one split.
    assert_eq!(cut.turn_start_index, Some(0));
    assert_eq!(find_turn_start_index(&path, 1, 1), None);
    assert_eq!(find_valid_cut_points(&path, 0, 0), Vec::<usize>::new());
    assert_eq!(
        find_cut_point(&path, 4, 4, 10),
        CutPoint {
            first_kept_entry_index: 4,
            turn_start_index: None,
            is_split_turn: false
        }
    );
}

#[test]
fn preparation_of_a_split_turn() {
    let path = worked_example();
    let settings = CompactionSettings {
        keep_recent_tokens: 4000,
        ..CompactionSettings::default()
    };
    let prep = prepare_compaction(&path, &settings).expect("prepared");
    let messages: Vec<AgentMessage> = path
        .iter()
        .filter_map(|e| e.as_message().cloned())
        .collect();
    assert_eq!(prep.first_kept_entry_id, "e5");
    assert!(prep.is_split_turn);
    assert_eq!(prep.messages_to_summarize, messages[0..2]);
    assert_eq!(prep.turn_prefix_messages, messages[2..5]);
    assert_eq!(
        prep.tokens_before,
        estimate_context_tokens(&messages).tokens
    );
    assert_eq!(prep.previous_summary, None);
    assert_eq!(
        prep.file_ops.file_lists(),
        FileLists {
            read_files: vec!["x".repeat(397)],
            modified_files: Vec::new()
        }
    );
    assert_eq!(prep.settings, settings);
}

fn compaction_entry(
    id: &str,
    parent: &str,
    first_kept: &str,
    from_hook: Option<bool>,
) -> SessionEntry {
    SessionEntry::Compaction(CompactionEntry {
        id: id.into(),
        parent_id: Some(parent.into()),
        timestamp: "2026-01-01T00:00:01.000Z".into(),
        summary: "EARLIER".into(),
        first_kept_entry_id: first_kept.into(),
        tokens_before: 999,
        details: Some(json!({"readFiles": ["old-read.rs"], "modifiedFiles": ["old-edit.rs"]})),
        from_hook,
        extra: JsonObject::new(),
    })
}

/// pi 0.58.3 starts after the previous compaction: what that compaction kept (`e1`) is
/// neither summarized nor kept again; `tokensBefore` counts from the previous summary on.
#[test]
fn preparation_after_a_previous_compaction_keeps_the_0_58_3_boundary() {
    let mut path = path_of(vec![
        user("old question"),
        assistant_with_usage("old answer", 50),
    ]);
    path.push(compaction_entry("c", "e1", "e1", Some(false)));
    let after = [
        user("new question"),
        assistant_calls(&[("w", "write", json!({"path": "new.rs", "content": "x"}))]),
        tool_result("w", "write", "written"),
        user(&"q".repeat(200)),
    ];
    for (i, m) in after.iter().enumerate() {
        path.push(message_entry(3 + i, m.clone()));
    }
    let settings = CompactionSettings {
        keep_recent_tokens: 40,
        ..CompactionSettings::default()
    };
    let prep = prepare_compaction(&path, &settings).expect("prepared");
    assert_eq!(prep.first_kept_entry_id, "e6");
    assert!(!prep.is_split_turn);
    assert_eq!(prep.messages_to_summarize, after[0..3]);
    assert_eq!(prep.previous_summary.as_deref(), Some("EARLIER"));
    // The last assistant message's reported usage (zero here, as pi counts it) plus the
    // estimates of the messages after it; the older summary and messages do not count.
    let expected_tokens = after[2..].iter().map(estimate_tokens).sum::<u64>();
    assert_eq!(prep.tokens_before, expected_tokens);
    assert_eq!(
        prep.file_ops.file_lists(),
        FileLists {
            read_files: vec!["old-read.rs".into()],
            modified_files: vec!["new.rs".into(), "old-edit.rs".into()],
        }
    );

    // An extension's compaction contributes no file lists.
    path[2] = compaction_entry("c", "e1", "e1", Some(true));
    let prep = prepare_compaction(&path, &settings).expect("prepared");
    assert_eq!(prep.file_ops.file_lists().modified_files, ["new.rs"]);
}

#[test]
fn preparation_refuses_an_empty_or_already_compacted_branch() {
    let settings = CompactionSettings::default();
    let empty: Vec<SessionEntry> = Vec::new();
    assert!(matches!(
        prepare_compaction(&empty, &settings),
        Err(CompactionError::NothingToCompact)
    ));
    let mut path = path_of(vec![user("q"), assistant_text("a")]);
    path.push(compaction_entry("c", "e1", "e0", None));
    let err = prepare_compaction(&path, &settings).expect_err("already compacted");
    assert_eq!(err.to_string(), "Already compacted");
    // Works on a transcript's borrowed path too.
    let borrowed: Vec<&SessionEntry> = path[..2].iter().collect();
    let prep = prepare_compaction(&borrowed, &settings).expect("prepared");
    assert_eq!(prep.first_kept_entry_id, "e0");
    assert!(prep.messages_to_summarize.is_empty());
    assert!(!prep.has_conversation());
}
