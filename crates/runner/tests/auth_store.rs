//! The file-backed auth store through the public API, over real files and real processes.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use clawloop_core::FailoverReason;
use clawloop_core::auth_store::{AuthState, AuthStore, AuthStoreError};
use clawloop_core::clock::ManualClock;
use clawloop_runner::auth::{AuthConfig, AuthProfileManager, FileAuthStore};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const NOW: u64 = 1_700_000_000_000;

/// Env var naming the agent dir a child worker updates; absent in a normal test run.
const CHILD_DIR_ENV: &str = "CLAWLOOP_AUTH_TEST_CHILD_DIR";
/// Updates each process makes in the concurrency test.
const UPDATES_PER_PROCESS: u32 = 150;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn pretty(value: &Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(value).unwrap())
}

fn manager(store: FileAuthStore, now: u64) -> (AuthProfileManager, ManualClock) {
    let clock = ManualClock::new(now);
    (
        AuthProfileManager::new(
            Arc::new(store),
            Arc::new(AuthConfig::default()),
            Arc::new(clock.clone()),
        ),
        clock,
    )
}

/// One increment of a counter kept in the state file: read, add one, write.
fn increment(store: &FileAuthStore) {
    increment_errors(store, "counter:p");
}

/// Adds one to `profile`'s error count in the state file: read, add one, write.
fn increment_errors(store: &FileAuthStore, profile: &str) {
    store
        .update_state(&mut |_, state| {
            let stats = state.stats_mut(profile);
            stats.error_count = Some(stats.error_count.unwrap_or(0) + 1);
            true
        })
        .unwrap();
}

/// Not a test on its own: the child half of `two_processes_lose_no_update`, run by the parent
/// as `<this test binary> --exact child_worker` with the agent dir in the environment.
#[test]
fn child_worker() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = FileAuthStore::new(dir).with_lock_timeout(Duration::from_secs(60));
    for _ in 0..UPDATES_PER_PROCESS {
        increment(&store);
    }
}

#[test]
fn two_processes_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let agent_dir = dir.path().join("agent");
    let store = FileAuthStore::new(&agent_dir).with_lock_timeout(Duration::from_secs(60));
    let state_path = store.state_path();

    // A reader that keeps parsing the file while the writers run: it must always read a
    // whole file (or none yet), never a torn one.
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let done = Arc::clone(&done);
        let path = state_path.clone();
        thread::spawn(move || {
            let mut reads = 0_u32;
            while !done.load(Ordering::SeqCst) {
                match fs::read_to_string(&path) {
                    Ok(text) => {
                        serde_json::from_str::<AuthState>(&text)
                            .unwrap_or_else(|e| panic!("torn state file ({e}): {text:?}"));
                        reads += 1;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => panic!("cannot read {}: {e}", path.display()),
                }
            }
            reads
        })
    };

    let exe = std::env::current_exe().unwrap();
    let child = Command::new(exe)
        .args(["--exact", "child_worker", "--test-threads", "1"])
        .env(CHILD_DIR_ENV, &agent_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..UPDATES_PER_PROCESS {
        increment(&store);
    }
    let output = child.wait_with_output().unwrap();
    done.store(true, Ordering::SeqCst);
    let reads = reader.join().unwrap();
    assert!(output.status.success(), "child failed: {output:?}");
    assert!(reads > 0, "the reader never saw the file");

    let state = store.load().unwrap().state;
    assert_eq!(
        state.stats("counter:p").unwrap().error_count,
        Some(2 * UPDATES_PER_PROCESS)
    );
}

#[test]
fn threads_of_one_process_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(FileAuthStore::new(dir.path()));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let store = Arc::clone(&store);
            thread::spawn(move || {
                for _ in 0..50 {
                    increment(&store);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let state = store.load().unwrap().state;
    assert_eq!(state.stats("counter:p").unwrap().error_count, Some(200));
}

#[cfg(unix)]
#[test]
fn files_and_created_directories_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let agent_dir = dir.path().join("agents/main/agent");
    let store = FileAuthStore::new(&agent_dir);
    store
        .update_profiles(&mut |profiles| {
            profiles.profiles.insert(
                "openai:a".into(),
                serde_json::from_value(
                    json!({"type": "api_key", "provider": "openai", "key": "sk"}),
                )
                .unwrap(),
            );
            true
        })
        .unwrap();
    let (manager, _) = manager(store.clone(), NOW);
    manager
        .mark_failure("openai:a", FailoverReason::RateLimit, None)
        .unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let modes: Vec<(String, u32)> = [
        store.profiles_path(),
        store.state_path(),
        store.lock_path(),
        agent_dir.clone(),
        dir.path().join("agents/main"),
        dir.path().join("agents"),
    ]
    .iter()
    .map(|p| {
        (
            p.strip_prefix(dir.path()).unwrap().display().to_string(),
            mode(p),
        )
    })
    .collect();
    assert_eq!(
        modes,
        vec![
            ("agents/main/agent/auth-profiles.json".to_owned(), 0o600),
            ("agents/main/agent/auth-state.json".to_owned(), 0o600),
            ("agents/main/agent/auth-store.lock".to_owned(), 0o600),
            ("agents/main/agent".to_owned(), 0o700),
            ("agents/main".to_owned(), 0o700),
            ("agents".to_owned(), 0o700),
        ]
    );
}

fn expect_invalid(err: AuthStoreError, path: &Path) {
    match &err {
        AuthStoreError::Invalid { path: p, .. } => assert_eq!(p, path),
        other => panic!("expected Invalid for {}, got {other:?}", path.display()),
    }
    let text = err.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("left unchanged"), "{text}");
}

#[test]
fn a_corrupt_state_file_is_reported_and_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path());
    write(
        &store.profiles_path(),
        &pretty(
            &json!({"version": 1, "profiles": {"openai:a": {"type": "api_key", "provider": "openai", "key": "k"}}}),
        ),
    );
    let corrupt = "{\"version\": 1, \"usageStats\": {\"openai:a\": {\"errorCount\": 2";
    write(&store.state_path(), corrupt);

    expect_invalid(store.load().unwrap_err(), &store.state_path());
    let (manager, _) = manager(store.clone(), NOW);
    expect_invalid(
        manager
            .mark_failure("openai:a", FailoverReason::Billing, None)
            .unwrap_err(),
        &store.state_path(),
    );
    expect_invalid(
        manager.mark_used("openai:a").unwrap_err(),
        &store.state_path(),
    );
    expect_invalid(
        manager.order("openai", None, None).unwrap_err(),
        &store.state_path(),
    );
    assert_eq!(fs::read_to_string(store.state_path()).unwrap(), corrupt);

    // A field of the wrong type is as bad as broken syntax, and the message says where.
    write(
        &store.state_path(),
        r#"{"usageStats": {"openai:a": {"cooldownUntil": "soon"}}}"#,
    );
    let err = store.load().unwrap_err();
    assert!(
        err.to_string()
            .contains("usageStats.openai:a.cooldownUntil"),
        "{err}"
    );
}

#[test]
fn a_corrupt_profiles_file_is_reported_and_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path());
    let corrupt = "{\"version\": 1, \"profiles\": [";
    write(&store.profiles_path(), corrupt);
    expect_invalid(store.load().unwrap_err(), &store.profiles_path());
    let mut called = false;
    let err = store
        .update_profiles(&mut |_| {
            called = true;
            true
        })
        .unwrap_err();
    expect_invalid(err, &store.profiles_path());
    assert!(!called, "the update ran on data that was never read");
    assert_eq!(fs::read_to_string(store.profiles_path()).unwrap(), corrupt);
    // Trailing garbage after a valid document is corrupt too.
    write(&store.profiles_path(), "{\"profiles\": {}} x");
    expect_invalid(store.load().unwrap_err(), &store.profiles_path());
}

#[test]
fn openclaw_files_round_trip_with_unknown_fields() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path());
    let profiles = json!({
        "version": 1,
        "profiles": {
            "anthropic:claude-cli": {
                "type": "oauth", "provider": "anthropic", "access": "at", "refresh": "rt",
                "expires": 1_700_036_000_000_u64, "managedBy": "claude-cli", "scopes": ["user:inference"]
            },
            "openai:work": {"type": "api_key", "provider": "openai", "key": "sk-w",
                "metadata": {"team": "x"}, "priority": 10},
            "openai:ref": {"type": "api_key", "provider": "openai",
                "keyRef": {"source": "env", "provider": "default", "id": "OPENAI_API_KEY"}},
            "bedrock:sdk": {"type": "aws-sdk", "provider": "amazon-bedrock", "region": "eu-west-1"}
        },
        "secrets": {"note": "a newer OpenClaw's field"}
    });
    let state = json!({
        "version": 1,
        "order": {"openai": ["openai:work", "openai:ref"]},
        "lastGood": {"anthropic": "anthropic:claude-cli"},
        "usageStats": {
            "openai:work": {"lastUsed": 1_699_999_000_000_u64, "errorCount": 0, "blockedReason": "subscription_limit"},
            "openai:ref": {"errorCount": 1, "failureCounts": {"overloaded": 1},
                "lastFailureAt": 1_699_999_990_000_u64, "cooldownUntil": 1_700_000_020_000_u64,
                "cooldownReason": "overloaded"}
        },
        "priorities": {"openai:work": 3}
    });
    let profiles_text = pretty(&profiles);
    write(&store.profiles_path(), &profiles_text);
    write(&store.state_path(), &pretty(&state));

    // Read as they are.
    let (manager, _) = manager(store.clone(), NOW);
    assert_eq!(
        manager.order("openai", None, None).unwrap(),
        ["openai:work", "openai:ref"]
    );
    assert_eq!(
        manager.order("anthropic", None, None).unwrap(),
        ["anthropic:claude-cli"]
    );

    // A profiles update that changes nothing writes the same bytes back.
    store.update_profiles(&mut |_| true).unwrap();
    assert_eq!(
        fs::read_to_string(store.profiles_path()).unwrap(),
        profiles_text
    );

    // A state update keeps every field it does not own.
    manager.mark_used("openai:ref").unwrap();
    let written: Value =
        serde_json::from_str(&fs::read_to_string(store.state_path()).unwrap()).unwrap();
    let mut expected = state.clone();
    expected["usageStats"]["openai:ref"] = json!({"errorCount": 0,
        "lastFailureAt": 1_699_999_990_000_u64, "lastUsed": NOW});
    assert_eq!(written, expected);
    // And it is written like OpenClaw writes it: two-space indent, final newline.
    assert_eq!(
        fs::read_to_string(store.state_path()).unwrap(),
        pretty(&written)
    );
}

#[test]
fn an_empty_state_removes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path());
    write(
        &store.state_path(),
        &pretty(&json!({"version": 1, "lastGood": {"openai": "openai:a"}})),
    );
    store
        .update_state(&mut |_, state| {
            state.last_good = None;
            true
        })
        .unwrap();
    assert!(!store.state_path().exists());
    // Nothing to change: nothing is written.
    let snapshot = store.update_state(&mut |_, _| false).unwrap();
    assert!(snapshot.state.is_empty());
    assert!(!store.state_path().exists());
}

#[test]
fn legacy_auth_json_and_inline_state_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path());
    write(
        &store.legacy_path(),
        &pretty(&json!({
            "anthropic": {"type": "api_key", "key": "sk-ant", "email": "me@example.com"},
            "openai": {"type": "oauth", "provider": "openai-codex", "access": "a", "refresh": "r", "expires": 5},
            "junk": {"type": "password", "value": "x"},
            "also-junk": 3
        })),
    );
    let snapshot = store.load().unwrap();
    assert_eq!(
        serde_json::to_value(&snapshot.profiles).unwrap(),
        json!({"version": 1, "profiles": {
            "anthropic:default": {"type": "api_key", "provider": "anthropic", "key": "sk-ant", "email": "me@example.com"},
            "openai:default": {"type": "oauth", "provider": "openai-codex", "access": "a", "refresh": "r", "expires": 5}
        }})
    );
    // Reading migrates nothing on disk.
    assert!(!store.profiles_path().exists());

    // An older auth-profiles.json with its state inline.
    write(
        &store.profiles_path(),
        &pretty(&json!({"version": 1,
            "profiles": {"openai:a": {"type": "api_key", "provider": "openai", "key": "k"},
                         "openai:b": {"type": "api_key", "provider": "openai", "key": "k"}},
            "order": {"openai": ["openai:b", "openai:a"]},
            "usageStats": {"openai:b": {"lastUsed": 7}}})),
    );
    let (manager, _) = manager(store.clone(), NOW);
    assert_eq!(
        manager.order("openai", None, None).unwrap(),
        ["openai:b", "openai:a"]
    );
    // Once the state file exists it is the state; clearing it keeps an (empty) file so the
    // inline copy does not come back.
    store
        .update_state(&mut |_, state| {
            *state = AuthState::default();
            true
        })
        .unwrap();
    assert_eq!(
        fs::read_to_string(store.state_path()).unwrap(),
        "{\n  \"version\": 1\n}\n"
    );
    assert_eq!(
        manager.order("openai", None, None).unwrap(),
        ["openai:a", "openai:b"]
    );
}

#[test]
fn a_held_lock_times_out_with_the_lock_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path()).with_lock_timeout(Duration::ZERO);
    let lock_path: PathBuf = store.lock_path();
    fs::create_dir_all(dir.path()).unwrap();
    let holder = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .unwrap();
    holder.lock().unwrap();
    let err = store.update_state(&mut |_, _| true).unwrap_err();
    assert!(
        matches!(&err, AuthStoreError::LockTimeout { path, .. } if *path == lock_path),
        "{err:?}"
    );
    holder.unlock().unwrap();
    // Released: a changing update takes the lock again.
    store.update_state(&mut |_, _| true).unwrap();
}

/// An update that changes nothing is answered from a read without the lock (what a locked read
/// would have seen), so it neither waits for a held lock nor creates the lock file; one that
/// changes something still waits for the lock and is made on what the files hold under it.
#[test]
fn an_update_that_changes_nothing_takes_no_lock() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path()).with_lock_timeout(Duration::ZERO);
    let seen = store.update_state(&mut |_, _| false).unwrap();
    assert_eq!(seen.state, AuthState::default());
    assert!(!store.lock_path().exists());

    write(
        &store.state_path(),
        &pretty(&json!({"version": 1, "usageStats": {"openai:a": {"errorCount": 2}}})),
    );
    let holder = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(store.lock_path())
        .unwrap();
    holder.lock().unwrap();
    let mut calls = 0;
    let seen = store
        .update_state(&mut |_, _| {
            calls += 1;
            false
        })
        .unwrap();
    assert_eq!(calls, 1);
    assert_eq!(
        seen.state.stats("openai:a").and_then(|s| s.error_count),
        Some(2)
    );
    let err = store
        .update_state(&mut |_, state| {
            state.stats_mut("openai:a").error_count = Some(3);
            true
        })
        .unwrap_err();
    assert!(matches!(err, AuthStoreError::LockTimeout { .. }), "{err:?}");
    holder.unlock().unwrap();
    increment_errors(&store, "openai:a");
    assert_eq!(
        store
            .load()
            .unwrap()
            .state
            .stats("openai:a")
            .and_then(|s| s.error_count),
        Some(3)
    );
}

#[test]
fn manager_runs_on_the_blocking_pool_from_async_code() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileAuthStore::new(dir.path());
    write(
        &store.profiles_path(),
        &pretty(
            &json!({"version": 1, "profiles": {"openai:a": {"type": "api_key", "provider": "openai", "key": "k"}}}),
        ),
    );
    let (manager, clock) = manager(store, NOW);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (in_cooldown, later) = runtime.block_on(async {
        manager
            .blocking(|m| m.mark_failure("openai:a", FailoverReason::RateLimit, Some("gpt-5")))
            .await
            .unwrap();
        let in_cooldown = manager
            .blocking(|m| m.is_in_cooldown("openai:a", Some("gpt-5")))
            .await
            .unwrap();
        clock.advance(10_000);
        let later = manager
            .blocking(|m| m.is_in_cooldown("openai:a", Some("gpt-5")))
            .await
            .unwrap();
        (in_cooldown, later)
    });
    assert_eq!((in_cooldown, later), (true, false));
}
