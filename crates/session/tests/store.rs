//! The session store `sessions.json` (SPEC §2, §5): layout, atomic updates that keep what they
//! do not know, lookups, `/new`, fork and delete.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::ManualClock;
use clawloop_session::{
    SessionEntry, SessionError, SessionOptions, SessionRecord, SessionStore, StoredSession,
    Transcript, lock_path_for,
};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const KEY: &str = "agent:main:main";
/// 2026-01-01T00:01:00.000Z: the store's clock, a minute after the transcripts'.
const NOW: u64 = T0 + 60_000;

fn store_in(dir: &Path) -> SessionStore {
    SessionStore::new(dir)
        .with_clock(Arc::new(ManualClock::new(NOW)))
        .with_lock_timeout(Duration::from_secs(5))
}

/// Options for a new session: no fixed id, so the store picks one.
fn new_options() -> SessionOptions {
    SessionOptions {
        session_id: None,
        ..options()
    }
}

fn store_json(store: &SessionStore) -> Value {
    serde_json::from_str(&std::fs::read_to_string(store.store_path()).unwrap()).unwrap()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn the_store_of_an_agent_lives_where_spec_section_2_says() {
    let home = tempfile::tempdir().unwrap();
    let store = SessionStore::for_agent(home.path(), "main").unwrap();
    assert_eq!(store.dir(), home.path().join("agents/main/sessions"));
    assert_eq!(
        store.store_path(),
        home.path().join("agents/main/sessions/sessions.json")
    );
    assert!(SessionStore::for_agent(home.path(), "../x").is_err());
    // Reading a store that does not exist yet is an empty store, and creates nothing.
    assert_eq!(store.list().unwrap(), []);
    assert!(!home.path().join("agents").exists());
}

#[test]
fn new_session_for_key_points_the_key_at_a_fresh_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let mut t = store.new_session_for_key(KEY, new_options()).unwrap();
    let id = t.session_id().to_owned();
    assert_eq!(id.len(), 36);
    let expected_path = dir.path().join(format!("{id}.jsonl"));
    assert_eq!(t.path(), expected_path);
    // pi's deferred write: nothing before the first assistant message.
    assert!(!expected_path.exists());
    t.append_message(user("hi")).unwrap();
    t.append_message(assistant("hello")).unwrap();
    drop(t);
    assert_eq!(
        names_in(dir.path()),
        [format!("{id}.jsonl"), "sessions.json".into()]
    );

    let file = std::path::absolute(&expected_path).unwrap();
    assert_eq!(
        store_json(&store),
        json!({KEY: {"sessionId": id, "updatedAt": NOW, "sessionFile": file.to_string_lossy()}})
    );
    // `JSON.stringify(store, null, 2)`.
    let raw = std::fs::read_to_string(store.store_path()).unwrap();
    assert!(
        raw.starts_with("{\n  \"agent:main:main\": {\n    \"sessionId\": "),
        "{raw}"
    );
    let record = store.find_by_key(KEY).unwrap().unwrap();
    assert_eq!(record.transcript_path(store.dir()), file);

    // `/new` again: a new session for the same key; the old transcript stays, the key's
    // settings stay, its counters start over.
    store
        .update(KEY, |r| {
            r.model = Some("claude-sonnet-4-5".into());
            r.model_provider = Some("anthropic".into());
            r.total_tokens = Some(1234);
            r.compaction_count = Some(2);
            r.thinking_level = Some("high".into());
            r.extra.insert("label".into(), json!("kept"));
        })
        .unwrap();
    let t2 = store.new_session_for_key(KEY, new_options()).unwrap();
    assert_ne!(t2.session_id(), id);
    let record = store.find_by_key(KEY).unwrap().unwrap();
    assert_eq!(record.session_id, t2.session_id());
    assert_eq!(record.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(record.model_provider.as_deref(), Some("anthropic"));
    assert_eq!((record.total_tokens, record.compaction_count), (None, None));
    assert_eq!(record.thinking_level.as_deref(), Some("high"));
    assert_eq!(record.extra["label"], "kept");
    assert!(expected_path.exists());

    // A requested id that is taken is refused, not reopened.
    let err = store
        .new_session_for_key(
            KEY,
            SessionOptions {
                session_id: Some(id.clone()),
                ..options()
            },
        )
        .unwrap_err();
    assert!(err.to_string().contains("exists already"), "{err}");
    let err = store
        .new_session_for_key(
            KEY,
            SessionOptions {
                session_id: Some("../x".into()),
                ..options()
            },
        )
        .unwrap_err();
    assert!(matches!(err, SessionError::InvalidName { .. }), "{err:?}");
}

/// An OpenClaw-style store: unknown fields, an unreadable record, key order.
const OPENCLAW_STORE: &str = r#"{
  "agent:main:main": {
    "sessionId": "aaaa1111-0000-4000-8000-000000000001",
    "updatedAt": 1767225600000,
    "systemSent": true,
    "chatType": "direct",
    "inputTokens": 10,
    "deliveryContext": {"channel": "telegram", "to": "123"},
    "compactionCount": 1
  },
  "agent:main:telegram:dm:42": {
    "sessionId": "aaaa2222-0000-4000-8000-000000000002",
    "updatedAt": 1767225700000,
    "sessionFile": "aaaa2222-0000-4000-8000-000000000002.jsonl"
  },
  "agent:main:broken": {"updatedAt": "yesterday"},
  "cron:nightly": {
    "sessionId": "bbbb3333-0000-4000-8000-000000000003",
    "updatedAt": 1767225650000
  }
}"#;

#[test]
fn updates_keep_unknown_fields_other_keys_and_unreadable_records() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    std::fs::write(store.store_path(), OPENCLAW_STORE).unwrap();
    let before = store_json(&store);

    let updated = store
        .update(KEY, |r| {
            r.input_tokens = Some(99);
            r.compaction_count = Some(r.compaction_count.unwrap_or(0) + 1);
            r.updated_at = NOW;
        })
        .unwrap();
    assert_eq!(updated.compaction_count, Some(2));
    let after = store_json(&store);
    let mut expected = before.clone();
    expected[KEY]["inputTokens"] = json!(99);
    expected[KEY]["compactionCount"] = json!(2);
    expected[KEY]["updatedAt"] = json!(NOW);
    assert_eq!(after, expected);
    // The keys keep their order in the file.
    let keys: Vec<&String> = after.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "agent:main:main",
            "agent:main:telegram:dm:42",
            "agent:main:broken",
            "cron:nightly"
        ]
    );
    // No temporary or lock file is left behind.
    assert_eq!(names_in(dir.path()), ["sessions.json"]);

    // The unreadable record is kept but not listed; asking for it by key is an error, and so
    // is updating it.
    let listed: Vec<String> = store.list().unwrap().into_iter().map(|s| s.key).collect();
    assert_eq!(
        listed,
        [
            "agent:main:telegram:dm:42",
            "agent:main:main",
            "cron:nightly"
        ]
    );
    let err = store.find_by_key("agent:main:broken").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("session store entry \"agent:main:broken\" is unusable: "),
        "{err}"
    );
    assert!(store.update("agent:main:broken", |_| {}).is_err());
    assert!(matches!(
        store.update("nope", |_| {}),
        Err(SessionError::UnknownSessionKey(k)) if k == "nope"
    ));
    assert_eq!(store_json(&store), after);
}

#[test]
fn lookups_by_key_and_by_id_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    std::fs::write(store.store_path(), OPENCLAW_STORE).unwrap();

    let record = store
        .find_by_key("agent:main:telegram:dm:42")
        .unwrap()
        .unwrap();
    assert_eq!(
        record.transcript_path(store.dir()),
        dir.path()
            .join("aaaa2222-0000-4000-8000-000000000002.jsonl")
    );
    assert_eq!(store.find_by_key("missing").unwrap(), None);

    let found = store.find_by_id_prefix("bbbb").unwrap().unwrap();
    assert_eq!(found.key, "cron:nightly");
    let found = store.find_by_id_prefix("aaaa2").unwrap().unwrap();
    assert_eq!(
        found.record.session_id,
        "aaaa2222-0000-4000-8000-000000000002"
    );
    assert_eq!(store.find_by_id_prefix("cccc").unwrap(), None);
    assert_eq!(store.find_by_id_prefix("").unwrap(), None);
    let err = store.find_by_id_prefix("aaaa").unwrap_err();
    assert_eq!(
        err.to_string(),
        "session id prefix \"aaaa\" is ambiguous: it matches \
         aaaa1111-0000-4000-8000-000000000001, aaaa2222-0000-4000-8000-000000000002"
    );
    // Two keys leading to one session are not ambiguous: the most recent key wins.
    store
        .set(
            "alias",
            SessionRecord::new("bbbb3333-0000-4000-8000-000000000003", None, NOW),
        )
        .unwrap();
    let found = store.find_by_id_prefix("bbbb").unwrap().unwrap();
    assert_eq!(found.key, "alias");
}

#[test]
fn list_is_most_recent_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    std::fs::write(store.store_path(), OPENCLAW_STORE).unwrap();
    let order: Vec<(String, u64)> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|StoredSession { key, record }| (key, record.updated_at))
        .collect();
    assert_eq!(
        order,
        [
            ("agent:main:telegram:dm:42".to_owned(), 1_767_225_700_000),
            ("cron:nightly".to_owned(), 1_767_225_650_000),
            ("agent:main:main".to_owned(), 1_767_225_600_000),
        ]
    );
}

#[test]
fn a_store_that_is_not_a_json_object_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    for bad in ["[1,2]", "{\"a\":", "null"] {
        std::fs::write(store.store_path(), bad).unwrap();
        let err = store
            .set(KEY, SessionRecord::new("x", None, NOW))
            .unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "{} is not a session store (",
                store.store_path().display()
            )),
            "{err}"
        );
        assert!(store.list().is_err());
        assert_eq!(std::fs::read_to_string(store.store_path()).unwrap(), bad);
        assert!(!lock_path_for(&store.store_path()).exists());
    }
    // Blank is empty.
    std::fs::write(store.store_path(), "  \n").unwrap();
    assert_eq!(store.list().unwrap(), []);
}

#[test]
fn concurrent_updates_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    store.set(KEY, SessionRecord::new("s", None, NOW)).unwrap();
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let store = store.clone().with_lock_timeout(Duration::from_secs(30));
            std::thread::spawn(move || {
                for _ in 0..15 {
                    store
                        .update(KEY, |r| {
                            r.output_tokens = Some(r.output_tokens.unwrap_or(0) + 1)
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        store.find_by_key(KEY).unwrap().unwrap().output_tokens,
        Some(90)
    );
}

/// A source session `1 u, 2 a, 3 u, 4 a` with a branch `5 u` off 2, labels on 1 (set, then
/// cleared and set again), on 3 and on 5 (off the fork's path).
fn source_session(store: &SessionStore) -> (Transcript, Vec<String>) {
    let mut t = store.new_session_for_key(KEY, new_options()).unwrap();
    let e1 = t.append_message(user("one")).unwrap();
    let e2 = t.append_message(assistant("two")).unwrap();
    t.append_label(&e1, Some("first")).unwrap();
    let e3 = t.append_message(user("three")).unwrap();
    t.append_label(&e3, Some("third")).unwrap();
    t.append_label(&e1, None).unwrap();
    t.append_label(&e1, Some("again")).unwrap();
    let e4 = t.append_message(assistant("four")).unwrap();
    t.branch(&e2).unwrap();
    let e5 = t.append_message(user("five")).unwrap();
    t.append_label(&e5, Some("other branch")).unwrap();
    (t, vec![e1, e2, e3, e4, e5])
}

#[test]
fn fork_copies_the_path_to_a_leaf_into_a_new_file_with_parent_session() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let (source, ids) = source_session(&store);
    store
        .update(KEY, |r| r.model = Some("claude-sonnet-4-5".into()))
        .unwrap();

    let forked = store
        .fork(KEY, Some(&ids[3]), "fork-key", new_options())
        .unwrap();
    assert_ne!(forked.session_id(), source.session_id());
    assert_eq!(
        forked.header().parent_session.as_deref(),
        Some(source.path().to_str().unwrap())
    );
    assert_eq!(forked.header().cwd, source.header().cwd);
    // Written at once: the path holds an assistant message.
    assert!(forked.is_persisted());
    let reopened = Transcript::open(forked.path(), options()).unwrap();
    let kinds: Vec<(&str, &str)> = reopened
        .entries()
        .iter()
        .map(|e| (e.type_name(), e.id()))
        .collect();
    // The path's entries with their ids, its labels left out and the rest re-chained (3 and 4
    // were appended right after labels)...
    for (i, id) in ids[..4].iter().enumerate() {
        assert_eq!(kinds[i], ("message", id.as_str()));
        let (copy, original) = (&reopened.entries()[i], source.entry(id).unwrap());
        assert_eq!(copy.as_message(), original.as_message());
        assert_eq!(copy.timestamp(), original.timestamp());
        assert_eq!(copy.parent_id(), i.checked_sub(1).map(|p| ids[p].as_str()));
    }
    assert_eq!(reopened.entries()[1], *source.entry(&ids[1]).unwrap());
    // ...then the labels in force on it, in pi's map order ("first" was cleared, so "again"
    // comes after "third"), chained after the last entry.
    let labels: Vec<(&str, &str, Option<&str>)> = reopened.entries()[4..]
        .iter()
        .map(|e| match e {
            SessionEntry::Label(l) => (
                l.target_id.as_str(),
                l.label.as_deref().unwrap(),
                l.parent_id.as_deref(),
            ),
            other => panic!("not a label: {other:?}"),
        })
        .collect();
    assert_eq!(labels.len(), 2);
    assert_eq!((labels[0].0, labels[0].1), (ids[2].as_str(), "third"));
    assert_eq!(labels[0].2, Some(ids[3].as_str()));
    assert_eq!((labels[1].0, labels[1].1), (ids[0].as_str(), "again"));
    assert_eq!(labels[1].2, Some(reopened.entries()[4].id()));
    assert_eq!(reopened.label(&ids[0]), Some("again"));
    assert_eq!(reopened.label(&ids[4]), None);
    assert_eq!(
        context_texts(&reopened),
        pairs(&[
            ("user", "one"),
            ("assistant", "two"),
            ("user", "three"),
            ("assistant", "four")
        ])
    );
    // The store knows the fork, with the source's settings and its message count.
    let record = store.find_by_key("fork-key").unwrap().unwrap();
    assert_eq!(record.session_id, forked.session_id());
    assert_eq!(record.message_count, Some(4));
    assert_eq!(record.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(
        record.transcript_path(store.dir()),
        std::path::absolute(forked.path()).unwrap()
    );

    // Forking at the current leaf by default: the other branch.
    let by_leaf = store.fork(KEY, None, "fork-2", new_options()).unwrap();
    let texts: Vec<String> = context_texts(&by_leaf)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(texts, ["one", "two", "five"]);
    assert!(matches!(
        store.fork(KEY, Some("nope"), "x", new_options()),
        Err(SessionError::EntryNotFound(id)) if id == "nope"
    ));
    assert!(matches!(
        store.fork("missing", None, "x", new_options()),
        Err(SessionError::UnknownSessionKey(_))
    ));
}

#[test]
fn a_fork_without_an_assistant_message_waits_for_one_as_pi_does() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let (_source, ids) = source_session(&store);
    let mut forked = store.fork(KEY, Some(&ids[0]), "k2", new_options()).unwrap();
    assert!(!forked.is_persisted());
    assert!(!forked.path().exists());
    forked.append_message(user("more")).unwrap();
    assert!(!forked.path().exists());
    forked.append_message(assistant("answer")).unwrap();
    let text = std::fs::read_to_string(forked.path()).unwrap();
    // Header, the root entry, its label, then the two new entries, each exactly once.
    assert_eq!(text.lines().count(), 5);
    assert!(text.lines().nth(1).unwrap().contains(&ids[0]));
}

#[test]
fn delete_removes_the_record_and_the_file_unless_another_key_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let mut t = store.new_session_for_key(KEY, new_options()).unwrap();
    t.append_message(user("u")).unwrap();
    t.append_message(assistant("a")).unwrap();
    let path = t.path().to_owned();
    let record = store.find_by_key(KEY).unwrap().unwrap();
    store.set("alias", record.clone()).unwrap();

    // A live writer holds the transcript: delete waits, then gives up, changing nothing.
    let impatient = store.clone().with_lock_timeout(Duration::from_millis(50));
    assert!(matches!(
        impatient.delete(KEY),
        Err(SessionError::Locked { .. })
    ));
    assert!(store.find_by_key(KEY).unwrap().is_some());
    t.close().unwrap();

    assert_eq!(store.delete(KEY).unwrap(), Some(record.clone()));
    assert!(path.exists(), "still used by another key");
    assert_eq!(store.delete("alias").unwrap(), Some(record));
    assert!(!path.exists());
    assert_eq!(store.delete("alias").unwrap(), None);
    assert_eq!(store.list().unwrap(), []);
    assert_eq!(names_in(dir.path()), ["sessions.json"]);
}

#[test]
fn delete_archiving_renames_the_transcript_with_the_deletion_time() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let mut t = store.new_session_for_key(KEY, new_options()).unwrap();
    t.append_message(user("u")).unwrap();
    t.append_message(assistant("a")).unwrap();
    let path = t.path().to_owned();
    let bytes = std::fs::read(&path).unwrap();
    t.close().unwrap();
    let record = store.find_by_key(KEY).unwrap().unwrap();
    store.set("alias", record.clone()).unwrap();

    // Another key still leads to the file: only the record goes.
    let first = store.delete_archiving(KEY).unwrap().unwrap();
    assert_eq!((first.record, first.archived), (record.clone(), None));
    assert!(path.exists());

    let second = store.delete_archiving("alias").unwrap().unwrap();
    let file_name = path.file_name().unwrap().to_str().unwrap();
    let expected = dir
        .path()
        .join(format!("{file_name}.deleted.2026-01-01T00-01-00.000Z"));
    assert_eq!(second.archived.as_deref(), Some(expected.as_path()));
    assert_eq!(std::fs::read(&expected).unwrap(), bytes);
    assert!(!path.exists());
    assert_eq!(store.delete_archiving("alias").unwrap(), None);
    assert_eq!(store.list().unwrap(), []);
    assert_eq!(
        names_in(dir.path()),
        [
            format!("{file_name}.deleted.2026-01-01T00-01-00.000Z"),
            "sessions.json".to_owned()
        ]
    );
}

#[test]
fn delete_never_removes_a_file_outside_the_sessions_directory() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let store = store_in(&sessions);
    let outside = dir.path().join("precious.jsonl");
    std::fs::write(&outside, "keep me\n").unwrap();
    store
        .set(
            KEY,
            SessionRecord::new("x", Some(outside.to_string_lossy().into_owned()), NOW),
        )
        .unwrap();
    assert!(store.delete(KEY).unwrap().is_some());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me\n");
    assert_eq!(store.find_by_key(KEY).unwrap(), None);
}

#[test]
fn list_summaries_reads_the_listed_fields_of_usable_records_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    std::fs::write(
        store.store_path(),
        serde_json::to_vec_pretty(&json!({
            "old": {"sessionId": "s-old", "updatedAt": 10, "model": "m1", "messageCount": 3,
                    "deliveryContext": {"channel": "x", "nested": [1, {"a": null}]}},
            "broken": {"updatedAt": 99},
            "not-an-object": [1, 2],
            "new": {"sessionId": "s-new", "updatedAt": 2.0e1, "modelProvider": "acme",
                    "sessionFile": "s-new.jsonl", "totalTokens": 1500, "messageCount": "many"},
        }))
        .unwrap(),
    )
    .unwrap();
    let summaries = store.list_summaries().unwrap();
    assert_eq!(
        summaries,
        vec![
            clawloop_session::SessionSummary {
                key: "new".into(),
                session_id: "s-new".into(),
                updated_at: 20,
                session_file: Some("s-new.jsonl".into()),
                model_provider: Some("acme".into()),
                total_tokens: Some(1500),
                ..Default::default()
            },
            clawloop_session::SessionSummary {
                key: "old".into(),
                session_id: "s-old".into(),
                updated_at: 10,
                model: Some("m1".into()),
                message_count: Some(3),
                ..Default::default()
            },
        ]
    );

    // A repeated key: the last value wins, as JSON.parse reads it; an unusable one drops it.
    std::fs::write(
        store.store_path(),
        r#"{"a": {"sessionId": "one", "updatedAt": 5}, "b": {"sessionId": "two", "updatedAt": 5},
            "a": {"sessionId": "three", "updatedAt": 5}, "b": 7}"#,
    )
    .unwrap();
    let ids: Vec<(String, String)> = store
        .list_summaries()
        .unwrap()
        .into_iter()
        .map(|s| (s.key, s.session_id))
        .collect();
    assert_eq!(ids, [("a".to_owned(), "three".to_owned())]);

    std::fs::write(store.store_path(), "[1]").unwrap();
    assert!(matches!(
        store.list_summaries(),
        Err(SessionError::InvalidStore { .. })
    ));
    std::fs::remove_file(store.store_path()).unwrap();
    assert_eq!(store.list_summaries().unwrap(), []);
}

/// Both kinds of store write replace `sessions.json` whole through a temporary file; only the
/// opt-in durable kind fsyncs, which costs the default (a turn's critical path) nothing.
#[test]
fn store_writes_are_atomic_with_and_without_fsync_and_durable_is_opt_in() {
    assert!(!SessionStore::new("unused").durable_writes());
    for durable in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path()).with_durable_writes(durable);
        assert_eq!(store.durable_writes(), durable);
        store
            .set(
                KEY,
                SessionRecord::new("0b8e1f2a-1111-4222-8333-444455556666", None, NOW),
            )
            .unwrap();
        assert_eq!(
            store_json(&store),
            json!({KEY: {"sessionId": "0b8e1f2a-1111-4222-8333-444455556666", "updatedAt": NOW}}),
            "durable = {durable}"
        );
        assert_eq!(
            names_in(dir.path()),
            ["sessions.json"],
            "durable = {durable}"
        );
    }
}
