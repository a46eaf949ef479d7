//! Opening reads messages lazily (only their envelope until they are needed): the results
//! must be exactly those of typing every entry first.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;
#[path = "../benches/support/mod.rs"]
#[allow(
    dead_code,
    reason = "the benchmark generator, of which the tests use a part"
)]
mod support;

use clawloop_session::{SessionContext, SessionEntry, Transcript, build_session_context};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;

/// Contexts at `leaves` from a transcript that never typed all its entries, and the same from
/// every entry typed first (the public `build_session_context` over `entries()`).
fn lazy_and_eager(
    path: &std::path::Path,
    leaves: &[String],
) -> (Vec<SessionContext>, Vec<SessionContext>) {
    let mut lazy = Transcript::open(path, options()).unwrap();
    let mut lazy_contexts = vec![lazy.build_context()];
    for leaf in leaves {
        lazy.branch(leaf).unwrap();
        lazy_contexts.push(lazy.build_context());
    }
    let eager = Transcript::open(path, options()).unwrap();
    let all = eager.entries();
    let last = eager.leaf_id().map(str::to_owned);
    let eager_contexts = std::iter::once(last.as_deref())
        .chain(leaves.iter().map(|l| Some(l.as_str())))
        .map(|leaf| build_session_context(all, leaf))
        .collect();
    (lazy_contexts, eager_contexts)
}

#[test]
fn a_generated_session_gives_the_same_context_at_every_sampled_leaf() {
    let (_dir, path) = temp_session();
    support::generate(&path, 3_000, 7, true).unwrap();
    let t = Transcript::open(&path, options()).unwrap();
    let leaves: Vec<String> = t
        .entries()
        .iter()
        .step_by(23)
        .map(|e| e.id().to_owned())
        .collect();
    assert!(
        t.entries()
            .iter()
            .any(|e| matches!(e, SessionEntry::Compaction(_)))
    );
    drop(t);
    let (lazy, eager) = lazy_and_eager(&path, &leaves);
    assert_eq!(lazy.len(), leaves.len() + 1);
    for (i, (l, e)) in lazy.iter().zip(&eager).enumerate() {
        assert!(l == e, "context {i} differs");
    }
}

#[test]
fn state_before_the_kept_entries_still_counts_and_unkept_messages_do_not() {
    let (_dir, path) = temp_session();
    let mut opus = assistant("old answer");
    if let clawloop_core::message::AgentMessage::Assistant(a) = &mut opus {
        a.model = "claude-opus-4-1".into();
    }
    let mut lines = vec![
        HEADER.to_owned(),
        json!({"type":"thinking_level_change","id":"t1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"high"}).to_string(),
        json!({"type":"model_change","id":"m1","parentId":"t1","timestamp":"2026-01-01T00:00:00.000Z","provider":"openai","modelId":"gpt-5"}).to_string(),
        message_line("u1", Some("m1"), &user("dropped")),
        message_line("a1", Some("u1"), &opus),
        message_line("u2", Some("a1"), &user("kept")),
        message_line("a2", Some("u2"), &user("kept too")),
        json!({"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-01-01T00:00:00.000Z","summary":"S","firstKeptEntryId":"u2","tokensBefore":5}).to_string(),
        message_line("u3", Some("c1"), &user("after")),
        // A second compaction keeping from an id not on the path: nothing before it survives.
        json!({"type":"compaction","id":"c2","parentId":"u3","timestamp":"2026-01-01T00:00:00.000Z","summary":"S2","firstKeptEntryId":"nowhere","tokensBefore":5}).to_string(),
        message_line("u4", Some("c2"), &user("last")),
    ];
    write_lines(&path, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let leaves: Vec<String> = ["u3", "c1", "a2", "u4"].map(String::from).to_vec();
    let (lazy, eager) = lazy_and_eager(&path, &leaves);
    assert_eq!(lazy, eager);
    // At u3 (after c1): the summary, u2, a2, u3; the model from the dropped assistant a1.
    let at_u3 = &lazy[1];
    let texts: Vec<String> = at_u3.messages.iter().map(|m| m.text()).collect();
    assert_eq!(texts[1..], ["kept", "kept too", "after"]);
    assert_eq!(at_u3.thinking_level, "high");
    assert_eq!(at_u3.model.as_ref().unwrap().model_id, "claude-opus-4-1");

    // The same with the model set last by a model_change before the kept entries.
    lines[4] = message_line("a1", Some("u1"), &user("no longer an assistant"));
    write_lines(&path, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let (lazy, eager) = lazy_and_eager(&path, &leaves);
    assert_eq!(lazy, eager);
    assert_eq!(lazy[1].model.as_ref().unwrap().model_id, "gpt-5");
}

#[test]
fn a_message_that_cannot_be_read_is_kept_as_an_unknown_entry() {
    let (_dir, path) = temp_session();
    let bad = r#"{"type":"message","id":"bad00001","parentId":"a0000001","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":5}}"#;
    let lines = [
        HEADER.to_owned(),
        message_line("a0000001", None, &user("u1")),
        bad.to_owned(),
        message_line("a0000002", Some("bad00001"), &assistant("a1")),
    ];
    write_lines(&path, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let t = Transcript::open(&path, options()).unwrap();
    // Its envelope is sound, so it is an entry of the tree (as pi keeps it), not a skipped
    // line; its message is not one this version can read, so it never reaches the context.
    assert_eq!(t.report().skipped_lines, 0);
    assert_eq!(t.entry_count(), 3);
    assert_eq!(
        context_texts(&t),
        pairs(&[("user", "u1"), ("assistant", "a1")])
    );
    let SessionEntry::Other(kept) = t.entry("bad00001").unwrap() else {
        panic!("not kept as an unknown entry")
    };
    assert_eq!(serde_json::to_string(kept).unwrap(), bad);
}

#[test]
fn counts_lookups_and_appends_agree_before_and_after_typing_everything() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open(&path, options()).unwrap();
    t.append_message(user("u1")).unwrap();
    t.append_message(assistant("a1")).unwrap();
    drop(t);

    let mut t = Transcript::open(&path, options()).unwrap();
    assert_eq!(t.entry_count(), 2);
    let before = t.append_message(user("u2")).unwrap();
    assert_eq!(t.entries().len(), 3);
    let after = t.append_message(assistant("a2")).unwrap();
    assert_eq!((t.entry_count(), t.entries().len()), (4, 4));
    assert_eq!(t.entries()[2].id(), before);
    assert_eq!(t.entry(&after).unwrap().id(), after);
    assert_eq!(t.children(&before).len(), 1);
    assert_eq!(t.branch_path(&after).len(), 4);
    assert_eq!(context_texts(&t), two_turn_context());
}

#[test]
fn the_path_since_compaction_is_the_whole_path_from_its_latest_compaction() {
    let (_dir, path) = temp_session();
    support::generate(&path, 3_000, 7, true).unwrap();
    let eager = Transcript::open(&path, options()).unwrap();
    let leaves: Vec<String> = eager
        .entries()
        .iter()
        .step_by(23)
        .map(|e| e.id().to_owned())
        .chain(eager.leaf_id().map(str::to_owned))
        .collect();
    let expected: Vec<Vec<SessionEntry>> = leaves
        .iter()
        .map(|leaf| {
            let whole: Vec<SessionEntry> = eager.branch_path(leaf).into_iter().cloned().collect();
            let start = whole
                .iter()
                .rposition(|e| matches!(e, SessionEntry::Compaction(_)))
                .unwrap_or(0);
            whole[start..].to_vec()
        })
        .collect();
    let lazy = Transcript::open(&path, options()).unwrap();
    let got: Vec<Vec<SessionEntry>> = leaves
        .iter()
        .map(|leaf| {
            lazy.branch_path_since_compaction(leaf)
                .into_iter()
                .cloned()
                .collect()
        })
        .collect();
    assert_eq!(got, expected);
    // At the leaf of a long compacted session, only the tail since the compaction is read.
    let leaf = eager.leaf_id().unwrap();
    let (tail, whole) = (
        lazy.branch_path_since_compaction(leaf).len(),
        eager.branch_path(leaf).len(),
    );
    assert!(
        matches!(
            lazy.branch_path_since_compaction(leaf).first(),
            Some(SessionEntry::Compaction(_))
        ) && tail < whole,
        "{tail} of {whole} entries"
    );
}

/// The context of [`two_turns`]' session.
fn two_turn_context() -> Vec<(String, String)> {
    pairs(&[
        ("user", "u1"),
        ("assistant", "a1"),
        ("user", "u2"),
        ("assistant", "a2"),
    ])
}

/// A two-turn session file, written at `path`.
fn two_turns(path: &std::path::Path) {
    let lines = [
        HEADER.to_owned(),
        message_line("a0000001", None, &user("u1")),
        message_line("a0000002", Some("a0000001"), &assistant("a1")),
        message_line("a0000003", Some("a0000002"), &user("u2")),
        message_line("a0000004", Some("a0000003"), &assistant("a2")),
    ];
    write_lines(path, &lines.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn messages_are_typed_from_the_file_that_was_opened_even_after_it_was_replaced() {
    let (dir, path) = temp_session();
    two_turns(&path);
    let t = Transcript::open(&path, options()).unwrap();
    // Another file put in its place (a migration by another process does this) and the
    // original moved away: what was opened is still what is read.
    std::fs::rename(&path, dir.path().join("moved.jsonl")).unwrap();
    std::fs::write(&path, format!("{HEADER}\n")).unwrap();
    assert_eq!(context_texts(&t), two_turn_context());
}

#[test]
fn a_message_whose_line_was_cut_away_after_opening_is_kept_as_an_unknown_entry() {
    let (_dir, path) = temp_session();
    two_turns(&path);
    let t = Transcript::open(&path, options()).unwrap();
    // Cut by hand in place, behind the transcript's back, through the last two messages.
    let content = read(&path);
    let cut = content
        .find(r#"{"type":"message","id":"a0000003""#)
        .unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(cut as u64)
        .unwrap();
    // The tree still knows both (it was read before the cut); their messages cannot be read
    // back, so they stay out of the context instead of failing the rebuild.
    assert_eq!(t.entry_count(), 4);
    assert_eq!(
        context_texts(&t),
        pairs(&[("user", "u1"), ("assistant", "a1")])
    );
    let SessionEntry::Other(kept) = t.entry("a0000004").unwrap() else {
        panic!("not kept as an unknown entry")
    };
    assert_eq!(
        serde_json::Value::Object(kept.clone()),
        json!({"id": "a0000004", "parentId": "a0000003"})
    );
}
