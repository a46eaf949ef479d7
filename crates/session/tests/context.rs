//! pi's `buildSessionContext` vectors (pi-mono §3.3.5, `build-context.test.ts`).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use clawloop_core::message::AgentMessage;
use clawloop_session::{ModelRef, SessionContext, SessionEntry, build_session_context};
use common::{assistant, assistant_calling, user};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn entry(v: Value) -> SessionEntry {
    serde_json::from_value(v).unwrap()
}

fn msg(id: &str, parent: Option<&str>, m: AgentMessage) -> SessionEntry {
    entry(
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "message": m}),
    )
}

fn compaction(id: &str, parent: &str, first_kept: &str, summary: &str) -> SessionEntry {
    entry(
        json!({"type": "compaction", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:05.000Z",
        "summary": summary, "firstKeptEntryId": first_kept, "tokensBefore": 100}),
    )
}

/// Roles and texts (summaries by their summary text).
fn texts(c: &SessionContext) -> Vec<String> {
    c.messages
        .iter()
        .map(|m| format!("{}:{}", m.role(), m.text()))
        .collect()
}

/// `1 u, 2 a, 3 u, 4 a, …` as a linear chain.
fn chain(n: usize) -> Vec<SessionEntry> {
    (1..=n)
        .map(|i| {
            let parent = (i > 1).then(|| (i - 1).to_string());
            let m = if i % 2 == 1 {
                user(&i.to_string())
            } else {
                assistant(&i.to_string())
            };
            msg(&i.to_string(), parent.as_deref(), m)
        })
        .collect()
}

#[test]
fn empty_and_null_leaf() {
    assert_eq!(build_session_context(&[], None), SessionContext::empty());
    assert_eq!(
        build_session_context(&[], Some("x")),
        SessionContext::empty()
    );
    let entries = chain(2);
    assert_eq!(
        build_session_context(&entries, None),
        SessionContext::empty()
    );
    assert_eq!(SessionContext::empty().thinking_level, "off");
}

#[test]
fn unknown_leaf_means_the_last_entry() {
    let entries = chain(3);
    assert_eq!(
        texts(&build_session_context(&entries, Some("nope"))),
        ["user:1", "assistant:2", "user:3"]
    );
}

#[test]
fn compaction_keeps_from_first_kept() {
    let mut entries = chain(4);
    entries.push(compaction("5", "4", "3", "S"));
    entries.push(msg("6", Some("5"), user("6")));
    entries.push(msg("7", Some("6"), assistant("7")));
    let c = build_session_context(&entries, Some("7"));
    assert_eq!(
        texts(&c),
        [
            "compactionSummary:S",
            "user:3",
            "assistant:4",
            "user:6",
            "assistant:7"
        ]
    );
    assert_eq!(c.messages[0].timestamp(), Some(1_767_225_605_000));
}

#[test]
fn compaction_right_after_the_kept_entries() {
    let mut entries = chain(2);
    entries.push(compaction("3", "2", "1", "S"));
    entries.push(msg("4", Some("3"), user("4")));
    assert_eq!(
        texts(&build_session_context(&entries, Some("4"))),
        ["compactionSummary:S", "user:1", "assistant:2", "user:4"]
    );
}

#[test]
fn only_the_latest_compaction_counts() {
    let mut entries = chain(2);
    entries.push(compaction("3", "2", "1", "S3"));
    entries.push(msg("4", Some("3"), user("4")));
    entries.push(msg("5", Some("4"), assistant("5")));
    entries.push(compaction("6", "5", "4", "S6"));
    entries.push(msg("7", Some("6"), user("7")));
    assert_eq!(
        texts(&build_session_context(&entries, Some("7"))),
        ["compactionSummary:S6", "user:4", "assistant:5", "user:7"]
    );
}

#[test]
fn first_kept_not_on_the_path_keeps_nothing_before() {
    let mut entries = chain(2);
    entries.push(compaction("3", "2", "elsewhere", "S"));
    entries.push(msg("4", Some("3"), user("4")));
    assert_eq!(
        texts(&build_session_context(&entries, Some("4"))),
        ["compactionSummary:S", "user:4"]
    );
}

#[test]
fn branches_follow_the_leaf() {
    let mut entries = chain(3);
    entries.push(msg("4", Some("2"), user("4")));
    assert_eq!(
        texts(&build_session_context(&entries, Some("3"))),
        ["user:1", "assistant:2", "user:3"]
    );
    assert_eq!(
        texts(&build_session_context(&entries, Some("4"))),
        ["user:1", "assistant:2", "user:4"]
    );
}

#[test]
fn branch_summary_on_the_path_and_empty_ones_skipped() {
    let mut entries = chain(3);
    entries.push(entry(
        json!({"type": "branch_summary", "id": "4", "parentId": "2", "timestamp": "t",
        "fromId": "3", "summary": "B"}),
    ));
    entries.push(msg("5", Some("4"), user("5")));
    entries.push(entry(
        json!({"type": "branch_summary", "id": "6", "parentId": "5", "timestamp": "t",
        "fromId": "5", "summary": ""}),
    ));
    let c = build_session_context(&entries, Some("6"));
    assert_eq!(
        texts(&c),
        ["user:1", "assistant:2", "branchSummary:B", "user:5"]
    );
    // An unparsable entry time becomes 0, where JavaScript would give NaN.
    assert_eq!(c.messages[2].timestamp(), Some(0));
}

#[test]
fn thinking_level_and_model_tracking() {
    let entries = vec![
        entry(
            json!({"type": "model_change", "id": "1", "parentId": null, "timestamp": "t", "provider": "openai", "modelId": "gpt-5"}),
        ),
        entry(
            json!({"type": "thinking_level_change", "id": "2", "parentId": "1", "timestamp": "t", "thinkingLevel": "high"}),
        ),
        msg("3", Some("2"), user("3")),
    ];
    let c = build_session_context(&entries, Some("3"));
    assert_eq!(
        (c.thinking_level.as_str(), c.think_level()),
        ("high", Some(clawloop_core::ThinkLevel::High))
    );
    assert_eq!(
        c.model,
        Some(ModelRef {
            provider: "openai".into(),
            model_id: "gpt-5".into()
        })
    );
    // An assistant from another model after the model change wins.
    let mut entries = entries;
    entries.push(msg("4", Some("3"), assistant_calling("c1")));
    let c = build_session_context(&entries, Some("4"));
    assert_eq!(
        c.model,
        Some(ModelRef {
            provider: "anthropic".into(),
            model_id: "claude-sonnet-4-5".into()
        })
    );
    assert_eq!(texts(&c), ["user:3", "assistant:"]);
}

#[test]
fn non_message_entries_never_reach_the_context() {
    let entries = vec![
        msg("1", None, user("1")),
        entry(
            json!({"type": "custom", "customType": "x", "id": "2", "parentId": "1", "timestamp": "t"}),
        ),
        entry(
            json!({"type": "label", "id": "3", "parentId": "2", "timestamp": "t", "targetId": "1", "label": "l"}),
        ),
        entry(
            json!({"type": "session_info", "id": "4", "parentId": "3", "timestamp": "t", "name": "n"}),
        ),
        entry(json!({"type": "future", "id": "5", "parentId": "4"})),
        entry(
            json!({"type": "custom_message", "customType": "x", "content": "c", "display": false, "id": "6", "parentId": "5", "timestamp": "2026-01-01T00:00:00.000Z"}),
        ),
    ];
    assert_eq!(
        texts(&build_session_context(&entries, Some("6"))),
        ["user:1", "custom:c"]
    );
}

#[test]
fn an_orphan_yields_only_its_own_chain() {
    let entries = vec![
        msg("1", None, user("1")),
        msg("2", Some("missing"), user("2")),
        msg("3", Some("2"), user("3")),
    ];
    assert_eq!(
        texts(&build_session_context(&entries, Some("3"))),
        ["user:2", "user:3"]
    );
}
