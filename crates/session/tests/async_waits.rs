//! Blocking calls never block an async worker thread: lock waits sleep on the Tokio timer and
//! store operations run on the blocking pool. Each test runs on a single-threaded runtime
//! where the holder of a lock only lets go after a ticking task has run a number of times, so
//! the wait can only end if the waiting task left the thread to the ticker.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawloop_core::ManualClock;
use clawloop_session::{
    SessionError, SessionOptions, SessionRecord, SessionStore, Transcript, WriteLock,
};
use common::*;
use pretty_assertions::assert_eq;

/// How many ticks the ticker counts before it lets go of what it holds.
const RELEASE_AT: usize = 5;
/// Long enough never to run out in a passing test; a wait that blocked the thread would run
/// it out and fail.
const PATIENT: Duration = Duration::from_secs(60);

/// Spawns a task that ticks every millisecond and runs `release` at tick [`RELEASE_AT`].
fn ticker(
    release: impl FnOnce() + Send + 'static,
) -> (Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let ticks = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&ticks);
    let handle = tokio::spawn(async move {
        let mut release = Some(release);
        loop {
            let n = counted.fetch_add(1, Ordering::SeqCst) + 1;
            if n >= RELEASE_AT {
                if let Some(release) = release.take() {
                    release();
                }
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    });
    (ticks, handle)
}

#[tokio::test(flavor = "current_thread")]
async fn waiting_for_a_write_lock_lets_other_tasks_run() {
    let (_dir, path) = temp_session();
    let held = Arc::new(Mutex::new(Some(
        WriteLock::acquire(&path, Duration::ZERO).unwrap(),
    )));
    let holder = Arc::clone(&held);
    let (ticks, ticking) = ticker(move || drop(holder.lock().unwrap().take()));

    let lock = WriteLock::acquire_async(&path, PATIENT).await.unwrap();
    assert_eq!(ticks.load(Ordering::SeqCst), RELEASE_AT);
    assert!(held.lock().unwrap().is_none());
    assert_eq!(lock.target(), path.as_path());
    ticking.await.unwrap();

    // Held, it is refused after the timeout, naming this process.
    let err = WriteLock::acquire_async(&path, Duration::from_millis(5))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, SessionError::Locked { holder: Some(h), .. } if h.is_this_process()),
        "{err}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn opening_under_the_lock_waits_for_the_writer_without_blocking() {
    let (_dir, path) = temp_session();
    let mut writer = Transcript::open_locked(&path, options()).unwrap();
    writer.append_message(user("hi")).unwrap();
    let last = writer.append_message(assistant("hello")).unwrap();
    let held = Arc::new(Mutex::new(Some(writer)));
    let holder = Arc::clone(&held);
    let (ticks, ticking) = ticker(move || holder.lock().unwrap().take().unwrap().close().unwrap());

    let patient = SessionOptions {
        lock_timeout: PATIENT,
        ..options()
    };
    let mut t = Transcript::open_locked_async(&path, patient).await.unwrap();
    assert_eq!(ticks.load(Ordering::SeqCst), RELEASE_AT);
    ticking.await.unwrap();
    assert!(t.holds_lock());
    assert_eq!(t.leaf_id(), Some(last.as_str()));
    assert_eq!(
        context_texts(&t),
        pairs(&[("user", "hi"), ("assistant", "hello")])
    );
    t.append_message(user("more")).unwrap();
    t.close().unwrap();
    assert_eq!(context_texts(&open(&path)).len(), 3);
}

fn store_in(dir: &std::path::Path) -> SessionStore {
    SessionStore::new(dir)
        .with_clock(Arc::new(ManualClock::new(T0)))
        .with_lock_timeout(PATIENT)
}

#[tokio::test(flavor = "current_thread")]
async fn store_changes_wait_for_the_store_lock_on_the_blocking_pool() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let held = Arc::new(Mutex::new(Some(
        WriteLock::acquire(&store.store_path(), Duration::ZERO).unwrap(),
    )));
    let holder = Arc::clone(&held);
    let (ticks, ticking) = ticker(move || drop(holder.lock().unwrap().take()));

    let record = SessionRecord::new("abc-123", None, T0);
    store
        .set_async("agent:main:main", record.clone())
        .await
        .unwrap();
    assert_eq!(ticks.load(Ordering::SeqCst), RELEASE_AT);
    ticking.await.unwrap();
    assert_eq!(
        store.find_by_key_async("agent:main:main").await.unwrap(),
        Some(record)
    );
}

#[tokio::test(flavor = "current_thread")]
async fn every_store_operation_has_an_async_counterpart() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(dir.path());
    let mut t = store
        .new_session_for_key_async(
            "k",
            new_session_options("11111111-0000-4000-8000-000000000000"),
        )
        .await
        .unwrap();
    t.append_message(user("q")).unwrap();
    let leaf = t.append_message(assistant("a")).unwrap();
    t.close().unwrap();

    let updated = store
        .update_async("k", |r| r.model = Some("m".into()))
        .await
        .unwrap();
    assert_eq!(updated.model.as_deref(), Some("m"));
    let forked = store
        .fork_async(
            "k",
            Some(&leaf),
            "k2",
            new_session_options("22222222-0000-4000-8000-000000000000"),
        )
        .await
        .unwrap();
    assert_eq!(
        context_texts(&forked),
        pairs(&[("user", "q"), ("assistant", "a")])
    );
    drop(forked);

    let keys: Vec<String> = store
        .list_async()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.key)
        .collect();
    assert_eq!(keys.len(), 2);
    let found = store
        .find_by_id_prefix_async("2222")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.key, "k2");
    let deleted = store.delete_async("k").await.unwrap().unwrap();
    assert_eq!(deleted.session_id, "11111111-0000-4000-8000-000000000000");
    assert_eq!(store.find_by_key_async("k").await.unwrap(), None);
}

fn new_session_options(id: &str) -> SessionOptions {
    SessionOptions {
        session_id: Some(id.into()),
        ..options()
    }
}
