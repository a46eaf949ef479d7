//! A transcript kept between turns (`release_lock`, then `resume_locked`) behaves exactly as
//! opening the file again would, and reads nothing again when nobody else wrote to it.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use clawloop_session::{SessionEntry, Transcript};
use common::*;
use pretty_assertions::assert_eq;

/// One turn: a user message and its answer, appended under the lock.
fn turn(t: &mut Transcript, question: &str, answer: &str) {
    t.append_message(user(question)).unwrap();
    t.append_message(assistant(answer)).unwrap();
}

/// A transcript of `path` with the turn u1/a1, its lock released.
fn kept_after_a_turn(path: &std::path::Path) -> Transcript {
    let mut kept = Transcript::open_locked(path, options()).unwrap();
    turn(&mut kept, "u1", "a1");
    kept.release_lock().unwrap();
    kept
}

#[test]
fn a_resumed_transcript_goes_on_as_a_fresh_open_would() {
    let (_dir, path) = temp_session();
    let kept = kept_after_a_turn(&path);
    assert!(!kept.holds_lock());
    // Released: another writer could take the lock now.
    drop(Transcript::open_locked(&path, options()).unwrap());

    let mut kept = kept.resume_locked(options()).unwrap();
    assert!(kept.holds_lock());
    let fresh = Transcript::open(&path, options()).unwrap();
    assert_eq!(kept.build_context(), fresh.build_context());
    assert_eq!(kept.leaf_id(), fresh.leaf_id());
    assert_eq!(kept.entries(), fresh.entries());
    drop(fresh);

    turn(&mut kept, "u2", "a2");
    kept.release_lock().unwrap();
    let kept = kept.resume_locked(options()).unwrap();
    assert_eq!(
        context_texts(&kept),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("user", "u2"),
            ("assistant", "a2")
        ])
    );
    assert_eq!(kept.entries(), open(&path).entries());
    assert_valid_jsonl(&path);
}

#[test]
fn the_leaf_goes_back_to_the_last_entry_as_on_open() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    turn(&mut t, "u1", "a1");
    let first = t.entries()[0].id().to_owned();
    turn(&mut t, "u2", "a2");
    t.branch(&first).unwrap();
    t.release_lock().unwrap();
    let t = t.resume_locked(options()).unwrap();
    assert_eq!(t.leaf_id(), open(&path).leaf_id());
    assert_eq!(context_texts(&t).len(), 4);
}

#[test]
fn lines_another_writer_appended_meanwhile_are_read() {
    let (_dir, path) = temp_session();
    let kept = kept_after_a_turn(&path);

    let mut other = Transcript::open_locked(&path, options()).unwrap();
    turn(&mut other, "other question", "other answer");
    drop(other);

    let mut kept = kept.resume_locked(options()).unwrap();
    assert_eq!(kept.entry_count(), 4);
    turn(&mut kept, "u3", "a3");
    assert_eq!(
        context_texts(&kept),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("user", "other question"),
            ("assistant", "other answer"),
            ("user", "u3"),
            ("assistant", "a3")
        ])
    );
    assert_valid_jsonl(&path);
}

#[test]
fn a_file_put_in_its_place_is_opened_anew() {
    let (dir, path) = temp_session();
    let kept = kept_after_a_turn(&path);

    let elsewhere = dir.path().join("other.jsonl");
    let mut other = Transcript::open_locked(&elsewhere, options()).unwrap();
    turn(&mut other, "replacement", "file");
    drop(other);
    std::fs::rename(&elsewhere, &path).unwrap();

    let kept = kept.resume_locked(options()).unwrap();
    assert_eq!(
        context_texts(&kept),
        pairs(&[("user", "replacement"), ("assistant", "file")])
    );
}

#[test]
fn a_session_never_written_starts_anew() {
    let (_dir, path) = temp_session();
    let mut kept = Transcript::open_locked(&path, options()).unwrap();
    // Held back until the first assistant message, which never came.
    kept.append_message(user("lost")).unwrap();
    kept.release_lock().unwrap();
    let kept = kept.resume_locked(options()).unwrap();
    assert_eq!(kept.entry_count(), 0);
    assert!(!path.exists());
}

#[test]
fn messages_of_a_resumed_transcript_are_read_back_from_the_file() {
    let (_dir, path) = temp_session();
    let kept = kept_after_a_turn(&path);
    let kept = kept.resume_locked(options()).unwrap();
    // Blank the user message in place, behind the transcript's back: it is not held in
    // memory any more, so what the file says now is what the transcript sees.
    let text = read(&path);
    let start = text.find(r#"{"type":"message""#).unwrap();
    let end = start + text[start..].find('\n').unwrap();
    let mut bytes = text.into_bytes();
    bytes[start..end].fill(b' ');
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(context_texts(&kept), pairs(&[("assistant", "a1")]));
    assert!(matches!(
        kept.entry(kept.entries()[0].id()),
        Some(SessionEntry::Other(_))
    ));
}
