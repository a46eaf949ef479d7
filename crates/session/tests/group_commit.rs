//! `sessions.json` changes made concurrently by one process share one write of the file
//! (group commit), and each caller still gets its own result.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::sync::Barrier;
use std::time::Duration;

use clawloop_session::{SessionError, SessionStore, WriteLock};
use pretty_assertions::assert_eq;

const CALLERS: usize = 500;

#[test]
fn five_hundred_concurrent_binds_all_land_in_a_few_writes() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    std::fs::create_dir_all(dir.path()).unwrap();
    // Another holder of the store's lock (as another process would be) makes every caller
    // queue before the first write, so the batching does not depend on thread timing.
    let other_holder = WriteLock::acquire(&store.store_path(), Duration::ZERO).unwrap();
    let started = Barrier::new(CALLERS + 1);
    let bound: Vec<(String, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..CALLERS)
            .map(|i| {
                let (store, started) = (store.clone(), &started);
                scope.spawn(move || {
                    started.wait();
                    let key = format!("key-{i}");
                    let binding = store.bind_key(&key).unwrap();
                    assert!(binding.created, "{key} was bound as new");
                    (key, binding.session_id)
                })
            })
            .collect();
        started.wait();
        drop(other_holder);
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let on_disk: BTreeSet<(String, String)> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|s| (s.key, s.record.session_id))
        .collect();
    assert_eq!(on_disk, bound.into_iter().collect::<BTreeSet<_>>());
    assert_eq!(on_disk.len(), CALLERS);
    let writes = store.store_writes();
    // How many changes share a write depends on thread timing; one write per change is what
    // no batching at all gives, so anything below it shows changes sharing writes.
    assert!(
        (1..CALLERS as u64).contains(&writes),
        "{CALLERS} binds took {writes} writes of sessions.json"
    );
    // Nothing is pending, so the lock is free for other processes again.
    WriteLock::acquire(&store.store_path(), Duration::ZERO).unwrap();
}

#[test]
fn a_failing_change_fails_only_its_caller() {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let started = Barrier::new(100);
    let outcomes: Vec<Result<String, SessionError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..100)
            .map(|i| {
                let (store, started) = (store.clone(), &started);
                scope.spawn(move || {
                    started.wait();
                    if i % 2 == 0 {
                        store.bind_key(&format!("bound-{i}")).map(|b| b.session_key)
                    } else {
                        store
                            .update(&format!("unknown-{i}"), |r| r.model = Some("m".into()))
                            .map(|r| r.session_id)
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    for (i, outcome) in outcomes.into_iter().enumerate() {
        match outcome {
            Ok(key) => assert_eq!(key, format!("bound-{i}")),
            Err(SessionError::UnknownSessionKey(key)) => {
                assert_eq!(key, format!("unknown-{i}"));
            }
            Err(other) => panic!("caller {i} failed with {other}"),
        }
    }
    let keys: BTreeSet<String> = store.list().unwrap().into_iter().map(|s| s.key).collect();
    let expected: BTreeSet<String> = (0..100).step_by(2).map(|i| format!("bound-{i}")).collect();
    assert_eq!(keys, expected);
}
