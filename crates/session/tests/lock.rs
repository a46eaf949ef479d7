//! The write lock (SPEC §5): exclusion within a process and across processes, the error that
//! names a live holder, takeover of locks left by dead processes (and by reused pids), and no
//! lock file left after a clean close.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod child;
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clawloop_session::{
    LockHolder, SessionError, SessionOptions, Transcript, WriteLock, lock_path_for,
};
use common::*;
use pretty_assertions::assert_eq;

const ENTRY: &str = "zz_child_entry_point";
const PATH_ENV: &str = "CLAWLOOP_LOCK_PATH";

fn with_timeout(ms: u64) -> SessionOptions {
    SessionOptions {
        lock_timeout: Duration::from_millis(ms),
        ..options()
    }
}

/// Children: `hold` takes the session's lock with a first turn and keeps it until stdin
/// closes; `idle` only waits for stdin to close (a live process that holds nothing).
#[test]
fn zz_child_entry_point() {
    match child::role().as_deref() {
        Some("hold") => {
            let path = PathBuf::from(std::env::var(PATH_ENV).unwrap());
            let mut t = Transcript::open_locked(&path, options()).unwrap();
            t.append_message(user("mine")).unwrap();
            t.append_message(assistant("all mine")).unwrap();
            child::say("LOCKED");
            child::wait_for_stdin_close();
        }
        Some("idle") => {
            child::say("UP");
            child::wait_for_stdin_close();
        }
        _ => {}
    }
}

fn lock_record(path: &Path) -> LockHolder {
    serde_json::from_str(&std::fs::read_to_string(lock_path_for(path)).unwrap()).unwrap()
}

fn locked_error(result: Result<Transcript, SessionError>) -> SessionError {
    match result {
        Err(e @ SessionError::Locked { .. }) => e,
        other => panic!("expected a Locked error, got {other:?}"),
    }
}

/// The whole text of a [`SessionError::Locked`] for `path` naming the holder as `holder`; the
/// waiting time is the error's own (load on the machine may stretch it).
fn locked_text(err: &SessionError, path: &Path, holder: &str) -> String {
    let SessionError::Locked { waited, .. } = err else {
        panic!("expected a Locked error, got {err:?}")
    };
    format!(
        "{} is locked by {holder}; gave up after waiting {:.1} s (lock file {})",
        path.display(),
        waited.as_secs_f64(),
        lock_path_for(path).display()
    )
}

/// Start time of `pid` from `/proc` (Linux), to forge records of live processes.
fn start_time_of(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..]
        .split_ascii_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

#[test]
fn the_lock_file_names_this_process_and_goes_away_on_close_and_drop() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open(&path, options()).unwrap();
    assert!(!t.holds_lock());
    t.append_message(user("u")).unwrap();
    // Deferred (no assistant yet): nothing written, so no lock taken either.
    assert!(!lock_path_for(&path).exists());
    t.append_message(assistant("a")).unwrap();
    assert!(t.holds_lock());
    let record = lock_record(&path);
    assert_eq!(record.pid, std::process::id());
    assert!(record.is_this_process());
    assert_eq!(record.start_time, start_time_of(std::process::id()));
    assert!(record.created_at.unwrap().ends_with('Z'));
    t.close().unwrap();
    assert!(!lock_path_for(&path).exists());

    let t = Transcript::open_locked(&path, options()).unwrap();
    assert!(t.holds_lock() && lock_path_for(&path).exists());
    drop(t);
    assert!(!lock_path_for(&path).exists());
    // Reading takes no lock.
    let t = Transcript::open(&path, options()).unwrap();
    assert!(!t.holds_lock() && !lock_path_for(&path).exists());
}

#[test]
fn two_transcripts_in_one_process_exclude_each_other() {
    let (_dir, path) = temp_session();
    let first = Transcript::open_locked(&path, options()).unwrap();

    let started = Instant::now();
    let err = locked_error(Transcript::open_locked(&path, with_timeout(150)));
    assert!(started.elapsed() >= Duration::from_millis(150));
    let SessionError::Locked { holder, .. } = &err else {
        unreachable!()
    };
    let holder = holder.as_ref().unwrap();
    assert!(holder.is_this_process());
    let since = holder.created_at.as_deref().unwrap();
    assert!(since.starts_with("20") && since.ends_with('Z'), "{since}");
    assert_eq!(
        err.to_string(),
        locked_text(
            &err,
            &path,
            &format!(
                "pid {} (this process), holding it since {since}",
                std::process::id()
            )
        )
    );

    // A reader opens fine; its first write meets the lock.
    let mut reader = Transcript::open(&path, with_timeout(50)).unwrap();
    reader.append_message(user("u")).unwrap();
    let err = reader.append_message(assistant("a")).unwrap_err();
    assert!(matches!(err, SessionError::Locked { .. }), "{err:?}");
    assert!(!path.exists(), "a refused write wrote nothing");

    drop(first);
    let mut second = Transcript::open_locked(&path, with_timeout(0)).unwrap();
    second.append_message(user("u")).unwrap();
    second.append_message(assistant("a")).unwrap();
}

#[test]
fn a_waiter_gets_the_lock_as_soon_as_the_holder_lets_go() {
    let (_dir, path) = temp_session();
    let holder = Transcript::open_locked(&path, options()).unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(holder);
    });
    let started = Instant::now();
    let t = Transcript::open_locked(&path, with_timeout(5_000)).unwrap();
    let waited = started.elapsed();
    assert!(t.holds_lock());
    assert!(waited >= Duration::from_millis(190), "{waited:?}");
    // Polling every 20 ms at most: noticed promptly (generously bounded for a loaded machine).
    assert!(waited < Duration::from_millis(3_000), "{waited:?}");
    release.join().unwrap();
}

#[test]
fn threads_of_one_process_take_turns() {
    let (_dir, path) = temp_session();
    let threads: Vec<_> = (0..4)
        .map(|n| {
            let path = path.clone();
            std::thread::spawn(move || {
                for round in 0..15 {
                    let mut t = Transcript::open_locked(&path, with_timeout(20_000)).unwrap();
                    t.append_message(user(&format!("{n}-{round}"))).unwrap();
                    t.append_message(assistant(&format!("{n}-{round}")))
                        .unwrap();
                    t.close().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let t = Transcript::open(&path, options()).unwrap();
    assert_eq!(t.entries().len(), 4 * 15 * 2);
    assert_eq!(t.report().skipped_lines, 0);
    // One linear chain: nobody appended from a stale view.
    for pair in t.entries().windows(2) {
        assert_eq!(pair[1].parent_id(), Some(pair[0].id()));
    }
    assert!(!lock_path_for(&path).exists());
}

#[test]
fn a_live_holder_in_another_process_is_named_and_its_lock_taken_over_once_it_dies() {
    let (_dir, path) = temp_session();
    let mut holder = child::spawn(
        ENTRY,
        "hold",
        &[(PATH_ENV, path.to_string_lossy().into_owned())],
    );
    let mut lines = child::Lines::new(&mut holder);
    assert_eq!(lines.next_with("LOCKED"), Some(String::new()));
    let pid = holder.id();

    let err = locked_error(Transcript::open_locked(&path, with_timeout(300)));
    let SessionError::Locked {
        holder: recorded,
        waited,
        ..
    } = &err
    else {
        unreachable!()
    };
    let recorded = recorded.as_ref().unwrap();
    assert_eq!(recorded.pid, pid);
    assert_eq!(recorded.start_time, start_time_of(pid));
    assert!(*waited >= Duration::from_millis(300));
    let since = recorded.created_at.as_deref().unwrap();
    assert_eq!(
        err.to_string(),
        locked_text(&err, &path, &format!("pid {pid}, holding it since {since}"))
    );

    // SIGKILL: no clean release, the lock file stays behind naming a dead process.
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(lock_record(&path).pid, pid);
    let mut t = Transcript::open_locked(&path, with_timeout(0)).unwrap();
    assert_eq!(lock_record(&path).pid, std::process::id());
    assert_eq!(context_texts(&t).len(), 2);
    t.append_message(user("taken over")).unwrap();
    t.close().unwrap();
    assert!(!lock_path_for(&path).exists());
}

#[test]
fn a_record_of_a_dead_process_is_taken_over_at_once() {
    let (_dir, path) = temp_session();
    // A pid that existed and is gone: a child that has exited and been reaped.
    let mut gone = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("--list")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dead_pid = gone.id();
    gone.wait().unwrap();
    std::fs::write(
        lock_path_for(&path),
        format!(r#"{{"pid":{dead_pid},"startTime":1,"createdAt":"2026-01-01T00:00:00.000Z"}}"#),
    )
    .unwrap();
    let lock = WriteLock::acquire(&path, Duration::ZERO).unwrap();
    assert_eq!(lock_record(&path).pid, std::process::id());
    assert_eq!(lock.lock_path(), lock_path_for(&path));
    lock.release().unwrap();
    assert!(!lock_path_for(&path).exists());

    // Garbage and empty records are no claim either.
    for junk in ["", "not json", "{\"pid\":\"x\"}"] {
        std::fs::write(lock_path_for(&path), junk).unwrap();
        drop(WriteLock::acquire(&path, Duration::ZERO).unwrap());
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_live_pid_counts_only_with_its_own_start_time() {
    let (_dir, path) = temp_session();
    let mut idle = child::spawn(ENTRY, "idle", &[]);
    let mut lines = child::Lines::new(&mut idle);
    assert_eq!(lines.next_with("UP"), Some(String::new()));
    let pid = idle.id();
    let start = start_time_of(pid).unwrap();

    // The pid is alive but belongs to a process started at another time: the record is a
    // crashed writer's, and the pid was reused. Taken over.
    std::fs::write(
        lock_path_for(&path),
        format!(r#"{{"pid":{pid},"startTime":{}}}"#, start + 1),
    )
    .unwrap();
    drop(WriteLock::acquire(&path, Duration::ZERO).unwrap());

    // The same pid with its real start time is a live writer that locks by the file alone
    // (as OpenClaw does): waited for, and named.
    std::fs::write(
        lock_path_for(&path),
        format!(r#"{{"pid":{pid},"startTime":{start},"createdAt":"2026-01-01T00:00:00.000Z"}}"#),
    )
    .unwrap();
    let err = WriteLock::acquire(&path, Duration::from_millis(50)).unwrap_err();
    assert_eq!(
        err.to_string(),
        locked_text(
            &err,
            &path,
            &format!("pid {pid}, holding it since 2026-01-01T00:00:00.000Z")
        )
    );
    // OpenClaw's own record (pid and createdAt only) of a live process: waited for too.
    std::fs::write(
        lock_path_for(&path),
        format!(r#"{{"pid":{pid},"createdAt":"2026-01-01T00:00:00.000Z"}}"#),
    )
    .unwrap();
    assert!(WriteLock::acquire(&path, Duration::ZERO).is_err());
    // It is left alone: the record is not ours to remove.
    assert_eq!(lock_record(&path).pid, pid);

    drop(idle.stdin.take());
    idle.wait().unwrap();
    // Once that process is gone, its record is stale.
    drop(WriteLock::acquire(&path, Duration::ZERO).unwrap());
    assert!(!lock_path_for(&path).exists());
}

#[test]
fn a_reader_refuses_to_write_over_lines_appended_since_it_read() {
    let (_dir, path) = temp_session();
    let mut writer = Transcript::open_locked(&path, options()).unwrap();
    writer.append_message(user("u")).unwrap();
    writer.append_message(assistant("a")).unwrap();
    writer.close().unwrap();

    let mut stale = Transcript::open(&path, options()).unwrap();
    let mut other = Transcript::open_locked(&path, options()).unwrap();
    other.append_message(user("from the other writer")).unwrap();
    other.close().unwrap();

    let err = stale.append_message(user("from a stale view")).unwrap_err();
    assert!(matches!(err, SessionError::ChangedOnDisk { .. }), "{err:?}");
    let t = Transcript::open(&path, options()).unwrap();
    assert_eq!(t.entries().len(), 3);
}

#[test]
fn a_missing_directory_is_an_io_error_naming_the_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("s.jsonl");
    let err = Transcript::open_locked(&path, options()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("session file {}", lock_path_for(&path).display())),
        "{err}"
    );
}
