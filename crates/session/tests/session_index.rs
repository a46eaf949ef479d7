//! `sessions.json` through core's `SessionIndex` seam.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use clawloop_core::session_index::{SessionIndex, SessionOverrides, SessionTurnRecord};
use clawloop_session::SessionStore;
use pretty_assertions::assert_eq;

#[tokio::test]
async fn a_new_key_is_bound_once_and_then_found() {
    let dir = tempfile::tempdir().unwrap();
    let index: Arc<dyn SessionIndex> = Arc::new(SessionStore::new(dir.path()));
    let first = index.bind("main").await.unwrap();
    let again = index.bind("main").await.unwrap();
    assert!(first.created && !again.created);
    assert_eq!(
        (again.session_id.as_str(), again.session_file.as_path()),
        (first.session_id.as_str(), first.session_file.as_path())
    );
    assert_eq!(
        first.session_file,
        dir.path().join(format!("{}.jsonl", first.session_id))
    );
    let other = index.bind("other").await.unwrap();
    assert_ne!(other.session_id, first.session_id);
}

#[test]
fn threads_binding_the_same_new_key_agree_on_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    SessionStore::new(dir.path())
                        .bind_key("race")
                        .unwrap()
                        .session_id
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
}

#[tokio::test]
async fn reset_starts_a_new_session_and_turns_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let index: &dyn SessionIndex = &store;
    let first = index.bind("main").await.unwrap();
    let turn = SessionTurnRecord {
        provider: Some("acme".to_owned()),
        model: Some("m1".to_owned()),
        input_tokens: Some(10),
        output_tokens: Some(5),
        total_tokens: Some(15),
        context_tokens: Some(128_000),
        compactions: 2,
        message_count: Some(4),
        updated_at: 1_700_000_000_000,
        overrides: SessionOverrides::default(),
    };
    index.record_turn("main", turn.clone()).await.unwrap();
    index
        .record_turn(
            "main",
            SessionTurnRecord {
                compactions: 1,
                updated_at: 1_700_000_000_500,
                ..SessionTurnRecord::default()
            },
        )
        .await
        .unwrap();
    let record = store.find_by_key("main").unwrap().unwrap();
    assert_eq!(
        (
            record.model_provider.as_deref(),
            record.model.as_deref(),
            record.total_tokens,
            record.compaction_count,
            record.updated_at
        ),
        (
            Some("acme"),
            Some("m1"),
            Some(15),
            Some(3),
            1_700_000_000_500
        )
    );
    let reset = index.reset("main").await.unwrap();
    assert_ne!(reset.session_id, first.session_id);
    assert_eq!(
        index.bind("main").await.unwrap().session_id,
        reset.session_id
    );
}

#[tokio::test]
async fn the_users_model_and_thinking_choice_is_kept_for_the_key_until_changed() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let index: &dyn SessionIndex = &store;
    assert_eq!(
        index.bind("main").await.unwrap().overrides,
        SessionOverrides::default()
    );
    let chose = |model: Option<&str>, thinking: Option<&str>| SessionTurnRecord {
        overrides: SessionOverrides {
            provider: model.map(|_| "acme".to_owned()),
            model: model.map(str::to_owned),
            thinking_level: thinking.map(str::to_owned),
        },
        ..SessionTurnRecord::default()
    };
    index
        .record_turn("main", chose(Some("m2"), Some("high")))
        .await
        .unwrap();
    // A turn that chooses nothing (a fallback answered, say) leaves the choice.
    index.record_turn("main", chose(None, None)).await.unwrap();
    let expected = SessionOverrides {
        provider: Some("acme".to_owned()),
        model: Some("m2".to_owned()),
        thinking_level: Some("high".to_owned()),
    };
    assert_eq!(index.bind("main").await.unwrap().overrides, expected);
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store.store_path()).unwrap()).unwrap();
    assert_eq!(
        (
            &raw["main"]["providerOverride"],
            &raw["main"]["modelOverride"],
            &raw["main"]["thinkingLevel"]
        ),
        (
            &serde_json::json!("acme"),
            &serde_json::json!("m2"),
            &serde_json::json!("high")
        )
    );
    // The key keeps its choice across a reset.
    assert_eq!(index.reset("main").await.unwrap().overrides, expected);
    index
        .record_turn("main", chose(None, Some("off")))
        .await
        .unwrap();
    assert_eq!(
        index
            .bind("main")
            .await
            .unwrap()
            .overrides
            .thinking_level
            .as_deref(),
        Some("off")
    );
}

#[tokio::test]
async fn recording_a_turn_for_an_unknown_key_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = SessionStore::new(dir.path());
    let err = SessionIndex::record_turn(&index, "ghost", SessionTurnRecord::default())
        .await
        .unwrap_err();
    assert!(err.message.contains("ghost"), "{}", err.message);
}

#[tokio::test]
async fn record_turn_keeps_the_message_count_in_the_index_for_listing() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let index: &dyn SessionIndex = &store;
    index.bind("main").await.unwrap();
    let turn = |message_count, updated_at| SessionTurnRecord {
        message_count,
        updated_at,
        ..SessionTurnRecord::default()
    };
    index.record_turn("main", turn(Some(6), 1)).await.unwrap();
    // A turn that knows no count (failed before loading the session) keeps the last one.
    index.record_turn("main", turn(None, 2)).await.unwrap();
    let record = store.find_by_key("main").unwrap().unwrap();
    assert_eq!((record.message_count, record.updated_at), (Some(6), 2));
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(store.store_path()).unwrap()).unwrap();
    assert_eq!(raw["main"]["messageCount"], serde_json::json!(6));
    // The listing reads it from sessions.json alone.
    let listed = store.list().unwrap();
    assert_eq!(listed[0].record.message_count, Some(6));
}

#[tokio::test]
async fn binding_a_known_key_leaves_the_store_file_alone() {
    use std::os::unix::fs::MetadataExt;

    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let index: &dyn SessionIndex = &store;
    let first = index.bind("main").await.unwrap();
    index.bind("other").await.unwrap();
    let path = store.store_path();
    let (before, inode) = (
        std::fs::read(&path).unwrap(),
        std::fs::metadata(&path).unwrap().ino(),
    );
    for _ in 0..3 {
        let again = index.bind("main").await.unwrap();
        assert_eq!(
            (again.session_id.as_str(), again.created),
            (first.session_id.as_str(), false)
        );
    }
    // An atomic rewrite replaces the file (a new inode) even when the bytes are the same.
    assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!dir.path().join("sessions.json.lock").exists());
}
