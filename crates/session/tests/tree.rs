//! The entry tree on real files: parent chaining for every append, key order, branching,
//! labels, names, the leaf on reopen.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use clawloop_core::ThinkLevel;
use clawloop_core::message::{AgentMessage, ContentBlock, UserContent};
use clawloop_session::{SessionEntry, Transcript};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;

/// A persisted session with `u1, a1` (ids returned).
fn started(path: &std::path::Path) -> (Transcript, String, String) {
    let mut t = open(path);
    let u = t.append_message(user("u1")).unwrap();
    let a = t.append_message(assistant("a1")).unwrap();
    (t, u, a)
}

#[test]
fn every_append_chains_to_the_leaf_and_writes_pi_key_order() {
    let (_dir, path) = temp_session();
    let (mut t, u, a) = started(&path);
    let ids = [
        t.append_thinking_level_change(ThinkLevel::High).unwrap(),
        t.append_model_change("openai", "gpt-5").unwrap(),
        t.append_compaction(
            "S",
            &u,
            1234,
            Some(json!({"readFiles": [], "modifiedFiles": []})),
            Some(false),
        )
        .unwrap(),
        t.append_custom("my-ext", Some(json!({"n": 1}))).unwrap(),
        t.append_custom_message("my-ext", "injected", true, None)
            .unwrap(),
        t.append_label(&u, Some("start")).unwrap(),
        t.append_session_info(" My Session ").unwrap(),
    ];
    let mut parent = a.clone();
    let ts = "2026-01-01T00:00:00.000Z";
    let expected = [
        format!(
            r#"{{"type":"thinking_level_change","id":"{}","parentId":"{parent}","timestamp":"{ts}","thinkingLevel":"high"}}"#,
            ids[0]
        ),
        format!(
            r#"{{"type":"model_change","id":"{}","parentId":"{}","timestamp":"{ts}","provider":"openai","modelId":"gpt-5"}}"#,
            ids[1], ids[0]
        ),
        format!(
            r#"{{"type":"compaction","id":"{}","parentId":"{}","timestamp":"{ts}","summary":"S","firstKeptEntryId":"{u}","tokensBefore":1234,"details":{{"readFiles":[],"modifiedFiles":[]}},"fromHook":false}}"#,
            ids[2], ids[1]
        ),
        format!(
            r#"{{"type":"custom","customType":"my-ext","data":{{"n":1}},"id":"{}","parentId":"{}","timestamp":"{ts}"}}"#,
            ids[3], ids[2]
        ),
        format!(
            r#"{{"type":"custom_message","customType":"my-ext","content":"injected","display":true,"id":"{}","parentId":"{}","timestamp":"{ts}"}}"#,
            ids[4], ids[3]
        ),
        format!(
            r#"{{"type":"label","id":"{}","parentId":"{}","timestamp":"{ts}","targetId":"{u}","label":"start"}}"#,
            ids[5], ids[4]
        ),
        format!(
            r#"{{"type":"session_info","id":"{}","parentId":"{}","timestamp":"{ts}","name":"My Session"}}"#,
            ids[6], ids[5]
        ),
    ];
    let text = read(&path);
    let written: Vec<&str> = text.lines().skip(3).collect();
    assert_eq!(
        written,
        expected.iter().map(String::as_str).collect::<Vec<_>>()
    );
    for id in &ids {
        let e = t.entry(id).unwrap();
        assert_eq!(e.parent_id(), Some(parent.as_str()));
        assert_eq!(e.id().len(), 8);
        parent = id.clone();
    }
    assert_eq!(t.leaf_id(), Some(ids[6].as_str()));
    assert_eq!(t.label(&u), Some("start"));
    assert_eq!(t.session_name(), Some("My Session"));
}

#[test]
fn branching_forks_and_reopening_returns_to_the_last_entry_in_file_order() {
    let (_dir, path) = temp_session();
    let (mut t, u1, a1) = started(&path);
    let u2 = t.append_message(user("u2")).unwrap();
    t.branch(&a1).unwrap();
    assert_eq!(t.leaf_id(), Some(a1.as_str()));
    let alt = t.append_message(user("u2 alternative")).unwrap();
    assert_eq!(t.entry(&alt).unwrap().parent_id(), Some(a1.as_str()));
    assert_eq!(
        t.children(&a1).iter().map(|e| e.id()).collect::<Vec<_>>(),
        [u2.as_str(), alt.as_str()]
    );
    assert_eq!(
        t.branch_path(&alt)
            .iter()
            .map(|e| e.id())
            .collect::<Vec<_>>(),
        [u1.as_str(), a1.as_str(), alt.as_str()]
    );

    // A pure branch writes nothing: reopening lands on the last appended entry.
    t.branch(&u2).unwrap();
    drop(t);
    let t = open(&path);
    assert_eq!(t.leaf_id(), Some(alt.as_str()));
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("user", "u2 alternative")
        ])
    );
}

#[test]
fn branching_to_an_unknown_id_is_pi_error() {
    let (_dir, path) = temp_session();
    let (mut t, _, a) = started(&path);
    assert_eq!(
        t.branch("deadbeef").unwrap_err().to_string(),
        "Entry deadbeef not found"
    );
    assert_eq!(
        t.append_label("deadbeef", Some("x"))
            .unwrap_err()
            .to_string(),
        "Entry deadbeef not found"
    );
    assert_eq!(
        t.branch_with_summary(Some("deadbeef"), "S", None, None)
            .unwrap_err()
            .to_string(),
        "Entry deadbeef not found"
    );
    assert_eq!(t.leaf_id(), Some(a.as_str()));
}

#[test]
fn reset_leaf_starts_a_new_root() {
    let (_dir, path) = temp_session();
    let (mut t, _, _) = started(&path);
    t.reset_leaf();
    assert_eq!(t.leaf_id(), None);
    assert_eq!(t.build_context().messages, Vec::<AgentMessage>::new());
    let root = t.append_message(user("fresh")).unwrap();
    assert_eq!(t.entry(&root).unwrap().parent_id(), None);
    assert_eq!(context_texts(&t), pairs(&[("user", "fresh")]));
}

#[test]
fn branch_with_summary_attaches_at_the_target_or_the_root() {
    let (_dir, path) = temp_session();
    let (mut t, u1, a1) = started(&path);
    t.append_message(user("abandoned")).unwrap();
    let s = t
        .branch_with_summary(Some(&a1), "Tried X.", None, Some(false))
        .unwrap();
    let SessionEntry::BranchSummary(entry) = t.entry(&s).unwrap() else {
        panic!("not a branch summary");
    };
    assert_eq!(
        (entry.parent_id.as_deref(), entry.from_id.as_str()),
        (Some(a1.as_str()), a1.as_str())
    );
    t.append_message(user("try Y")).unwrap();
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("branchSummary", "Tried X."),
            ("user", "try Y")
        ])
    );

    let root = t
        .branch_with_summary(None, "From the top.", None, None)
        .unwrap();
    let e = t.entry(&root).unwrap();
    assert_eq!(e.parent_id(), None);
    assert_eq!(t.leaf_id(), Some(root.as_str()));
    assert_eq!(
        context_texts(&t),
        pairs(&[("branchSummary", "From the top.")])
    );
    assert_eq!(t.branch_path(&root).len(), 1);
    assert_ne!(u1, root);
}

#[test]
fn labels_latest_wins_and_empty_or_absent_clears() {
    let (_dir, path) = temp_session();
    let (mut t, u, a) = started(&path);
    t.append_label(&u, Some("one")).unwrap();
    t.append_label(&u, Some("two")).unwrap();
    t.append_label(&a, Some("answer")).unwrap();
    assert_eq!((t.label(&u), t.label(&a)), (Some("two"), Some("answer")));
    t.append_label(&u, None).unwrap();
    t.append_label(&a, Some("")).unwrap();
    assert_eq!((t.label(&u), t.label(&a)), (None, None));
    t.append_label(&u, Some("three")).unwrap();
    let t = open(&path);
    assert_eq!((t.label(&u), t.label(&a)), (Some("three"), None));
    // Labels never reach the context.
    assert_eq!(
        context_texts(&t),
        pairs(&[("user", "u1"), ("assistant", "a1")])
    );
}

#[test]
fn custom_message_content_may_be_blocks() {
    let (_dir, path) = temp_session();
    let (mut t, _, _) = started(&path);
    let blocks = UserContent::Blocks(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
    t.append_custom_message("ext", blocks.clone(), false, Some(json!({"k": null})))
        .unwrap();
    let t = open(&path);
    let AgentMessage::Custom(m) = t.build_context().messages.pop().unwrap() else {
        panic!("not custom");
    };
    assert_eq!(
        (m.content, m.display, m.details, m.timestamp),
        (blocks, false, Some(json!({"k": null})), T0)
    );
}

#[test]
fn unknown_entry_types_survive_and_take_part_in_the_tree() {
    let (_dir, path) = temp_session();
    let future = r#"{"type":"future_thing","id":"f0000002","parentId":"f0000001","timestamp":"t","payload":{"x":[1,2.5]}}"#;
    write_lines(
        &path,
        &[
            HEADER,
            &message_line("f0000001", None, &user("u1")),
            future,
            &message_line("f0000003", Some("f0000002"), &user("u2")),
        ],
    );
    let mut t = open(&path);
    assert_eq!(t.report().skipped_lines, 0);
    assert_eq!(context_texts(&t), pairs(&[("user", "u1"), ("user", "u2")]));
    assert_eq!(
        serde_json::to_string(t.entry("f0000002").unwrap()).unwrap(),
        future
    );
    t.append_message(user("u3")).unwrap();
    assert!(read(&path).contains(future));
}

#[test]
fn a_parent_cycle_does_not_hang() {
    let (_dir, path) = temp_session();
    write_lines(
        &path,
        &[
            HEADER,
            &message_line("c0000001", Some("c0000002"), &user("one")),
            &message_line("c0000002", Some("c0000001"), &user("two")),
        ],
    );
    let t = open(&path);
    assert_eq!(
        context_texts(&t),
        pairs(&[("user", "one"), ("user", "two")])
    );
    assert_eq!(t.branch_path("c0000001").len(), 2);
}
