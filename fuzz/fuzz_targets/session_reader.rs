//! Arbitrary bytes as a transcript file: open, build the context, append a turn, reopen, and
//! resume the first transcript as a turn after it would.
//!
//! A refused file is left untouched; an opened one keeps every entry it read: after the
//! appends the file reopens to exactly those entries plus the two new ones, the new leaf's
//! context is the old one plus the two messages, and no new unusable line appears.
#![no_main]

use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::clock::ManualClock;
use clawloop_core::message::UserMessage;
use clawloop_core::{AssistantMessage, StopReason};
use clawloop_session::{FsyncPolicy, SessionOptions, Transcript};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static DIR: tempfile::TempDir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => panic!("no temporary directory: {error}"),
    };
}

fn options() -> SessionOptions {
    SessionOptions {
        fsync: FsyncPolicy::Never,
        clock: Arc::new(ManualClock::new(1_700_000_000_000)),
        cwd: Some("/fuzz".to_owned()),
        session_id: Some("fuzz-session".to_owned()),
        ..SessionOptions::default()
    }
}

fn check(path: PathBuf, data: &[u8]) {
    if let Err(error) = std::fs::write(&path, data) {
        panic!("cannot write {}: {error}", path.display());
    }
    let mut transcript = match Transcript::open(&path, options()) {
        Ok(transcript) => transcript,
        Err(_) => {
            let after = std::fs::read(&path).unwrap_or_default();
            assert_eq!(after, data, "a refused file was changed");
            return;
        }
    };
    let entries = transcript.entries().to_vec();
    let context = transcript.build_context();
    let skipped = transcript.report().skipped_lines;

    let mut answer = AssistantMessage::empty("fuzz", "fuzz", "fuzz-model", 1_700_000_000_001);
    answer.stop_reason = StopReason::Stop;
    let user = transcript.append_message(UserMessage::text("hi", 1_700_000_000_000));
    let assistant = transcript.append_message(answer);
    let (Ok(user), Ok(assistant)) = (user, assistant) else {
        panic!("appending to an opened transcript failed");
    };
    assert_eq!(transcript.leaf_id(), Some(assistant.as_str()));
    // Kept, as between two turns, to be resumed below.
    if let Err(error) = transcript.release_lock() {
        panic!("releasing the lock failed: {error}");
    }

    let reopened = match Transcript::open(&path, options()) {
        Ok(reopened) => reopened,
        Err(error) => panic!("the appended file does not reopen: {error}"),
    };
    let again = reopened.entries();
    assert_eq!(
        again.len(),
        entries.len() + 2,
        "entries were lost or gained"
    );
    assert_eq!(&again[..entries.len()], &entries[..], "entries changed");
    assert_eq!(again[entries.len()].id(), user);
    assert_eq!(again[entries.len() + 1].id(), assistant);
    assert_eq!(reopened.leaf_id(), Some(assistant.as_str()));
    assert!(
        reopened.report().skipped_lines <= skipped,
        "appending made {} unusable lines out of {skipped}",
        reopened.report().skipped_lines
    );
    assert_eq!(
        reopened.build_context().messages.len(),
        context.messages.len() + 2,
        "the context did not grow by the two messages"
    );

    // Resumed, the kept transcript is what reopening the file gives.
    let resumed = match transcript.resume_locked(options()) {
        Ok(resumed) => resumed,
        Err(error) => panic!("the kept transcript does not resume: {error}"),
    };
    assert_eq!(resumed.leaf_id(), reopened.leaf_id());
    assert_eq!(
        resumed.entries(),
        again,
        "a resumed transcript differs from the file"
    );
    assert_eq!(resumed.build_context(), reopened.build_context());
}

fuzz_target!(|data: &[u8]| {
    DIR.with(|dir| {
        let path = dir.path().join("session.jsonl");
        check(path.clone(), data);
        let _ = std::fs::remove_file(&path);
    });
});
