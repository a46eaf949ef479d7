//! A session file changed behind a transcript's back — by a stale second transcript, by a
//! process that ignores the lock, or by a user who deletes or replaces it — is never cut,
//! overwritten or appended to blindly: the write fails with `ChangedOnDisk`, says what was
//! found, and leaves every byte another writer wrote in place (issue 10 items 4 and 5).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::path::Path;

use clawloop_session::{SessionError, Transcript};
use common::*;
use pretty_assertions::assert_eq;

/// Header, `u1`, `a1`: the lines a transcript of this file extends.
fn two_turn_file(path: &Path) -> String {
    let text = format!(
        "{HEADER}\n{}\n{}\n",
        message_line("a0000001", None, &user("u1")),
        message_line("a0000002", Some("a0000001"), &assistant("a1")),
    );
    std::fs::write(path, &text).unwrap();
    text
}

/// What a refused write must say: `ChangedOnDisk` for this file, with `what`.
fn assert_changed(err: SessionError, path: &Path, what: &str) {
    let SessionError::ChangedOnDisk { path: p, what: w } = &err else {
        panic!("expected ChangedOnDisk, got {err:?}");
    };
    assert_eq!((p.as_path(), w.as_str()), (path, what));
    assert_eq!(
        err.to_string(),
        format!(
            "session file {} changed on disk since it was opened ({what}); not writing to it",
            path.display()
        )
    );
}

fn append_raw(path: &Path, bytes: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes.as_bytes()).unwrap();
}

#[test]
fn a_stale_writer_never_cuts_an_entry_that_took_the_place_of_its_torn_tail() {
    let (_dir, path) = temp_session();
    let good = two_turn_file(&path);
    // The other writer's entry will be exactly as long as the torn tail: every id has eight
    // characters and the clock is fixed, so its length is known before it is written.
    let theirs_len = message_line_at("xxxxxxxx", Some("a0000002"), &user("theirs")).len() + 1;
    let torn: String = message_line("a0000003", Some("a0000002"), &user(&"x".repeat(400)))
        .chars()
        .take(theirs_len)
        .collect();
    std::fs::write(&path, format!("{good}{torn}")).unwrap();

    let mut stale = open(&path);
    assert_eq!(
        stale.report().torn_line.as_ref().map(|t| t.len),
        Some(theirs_len as u64)
    );

    // Another transcript takes the lock, cuts the torn tail and writes its entry.
    let mut other = Transcript::open_locked(&path, options()).unwrap();
    let theirs = other.append_message(user("theirs")).unwrap();
    other.close().unwrap();
    let after_other = format!(
        "{good}{}\n",
        message_line_at(&theirs, Some("a0000002"), &user("theirs"))
    );
    assert_eq!(read(&path), after_other);
    // Same length as the stale writer read: a length check alone would be fooled.
    assert_eq!(after_other.len(), good.len() + torn.len());

    let err = stale.append_message(user("mine")).unwrap_err();
    assert_changed(
        err,
        &path,
        &format!(
            "its last {} bytes are not the ones read, though its length is the same",
            after_other.len()
        ),
    );
    assert_eq!(read(&path), after_other);
    // Every later try is refused as well; the stale view never writes.
    assert!(matches!(
        stale.append_message(assistant("mine")),
        Err(SessionError::ChangedOnDisk { .. })
    ));
    assert_eq!(stale.entry_count(), 2);
    assert_eq!(read(&path), after_other);
    drop(stale);

    let reopened = open(&path);
    assert_eq!(reopened.report().torn_line, None);
    assert_eq!(
        context_texts(&reopened),
        pairs(&[("user", "u1"), ("assistant", "a1"), ("user", "theirs")])
    );
}

#[test]
fn a_stale_writer_refuses_a_file_that_grew_or_was_rewritten_in_place() {
    // Grown by another transcript.
    let (_dir, path) = temp_session();
    let good = two_turn_file(&path);
    let mut stale = open(&path);
    let mut other = Transcript::open_locked(&path, options()).unwrap();
    let theirs = other.append_message(user("theirs")).unwrap();
    other.close().unwrap();
    let grown = format!(
        "{good}{}\n",
        message_line_at(&theirs, Some("a0000002"), &user("theirs"))
    );
    let err = stale.append_message(user("mine")).unwrap_err();
    assert_changed(
        err,
        &path,
        &format!("{} bytes when read, {} now", good.len(), grown.len()),
    );
    assert_eq!(read(&path), grown);

    // Rewritten in place to the same length, by something that ignores the lock.
    let (_dir, path) = temp_session();
    let good = two_turn_file(&path);
    let mut stale = open(&path);
    let edited = good.replace("\"a1\"", "\"b2\"");
    assert_eq!(edited.len(), good.len());
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(edited.as_bytes()).unwrap();
    drop(f);
    let err = stale.append_message(user("mine")).unwrap_err();
    assert_changed(
        err,
        &path,
        &format!(
            "its last {} bytes are not the ones read, though its length is the same",
            good.len()
        ),
    );
    assert_eq!(read(&path), edited);
}

#[test]
fn lines_another_process_appends_between_two_appends_are_kept_and_reported() {
    let (_dir, path) = temp_session();
    let good = two_turn_file(&path);
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    let mine = t.append_message(user("mine")).unwrap();
    let mine_line = message_line_at(&mine, Some("a0000002"), &user("mine"));
    let before = format!("{good}{mine_line}\n");
    assert_eq!(read(&path), before);

    // A process that ignores the lock appends a whole line.
    let foreign = message_line("f0000001", Some(&mine), &assistant("foreign"));
    append_raw(&path, &format!("{foreign}\n"));
    let with_foreign = format!("{before}{foreign}\n");
    let err = t.append_message(assistant("mine again")).unwrap_err();
    assert_changed(
        err,
        &path,
        &format!(
            "{} bytes after this session's last write, {} now: another writer changed it",
            before.len(),
            with_foreign.len()
        ),
    );
    assert_eq!(read(&path), with_foreign);
    assert_valid_jsonl(&path);
    assert_eq!(t.entry_count(), 3);
    drop(t);

    let reopened = open(&path);
    assert_eq!(
        context_texts(&reopened),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("user", "mine"),
            ("assistant", "foreign"),
        ])
    );
}

#[test]
fn an_append_after_the_file_was_deleted_fails_and_recreates_nothing() {
    let (_dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("u1")).unwrap();
    t.append_message(assistant("a1")).unwrap();
    t.append_message(user("u2")).unwrap();
    std::fs::remove_file(&path).unwrap();

    let err = t.append_message(assistant("lost?")).unwrap_err();
    assert_changed(err, &path, "it was deleted");
    assert!(!path.exists());
    // Still refused, and the session in memory is as it was before the failed append.
    let err = t.append_message(assistant("lost?")).unwrap_err();
    assert_changed(err, &path, "it was deleted");
    assert_eq!(t.entry_count(), 3);
    assert!(!path.exists());
    drop(t);
    assert!(Transcript::open(&path, options()).unwrap().report().created);
}

#[test]
fn a_reader_whose_file_was_deleted_before_its_first_write_fails_too() {
    let (_dir, path) = temp_session();
    two_turn_file(&path);
    let mut t = open(&path);
    std::fs::remove_file(&path).unwrap();
    let err = t.append_message(user("u2")).unwrap_err();
    assert_changed(err, &path, "it was deleted or moved away");
    assert!(!path.exists());
}

#[test]
fn an_append_after_the_file_was_replaced_fails_and_leaves_both_files_alone() {
    let (dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("u1")).unwrap();
    t.append_message(assistant("a1")).unwrap();

    // Another session renamed over ours (what an atomic rewrite by someone else does).
    let replacement = two_turn_file(&dir.path().join("other.jsonl"));
    std::fs::rename(dir.path().join("other.jsonl"), &path).unwrap();
    let err = t.append_message(user("u2")).unwrap_err();
    assert_changed(err, &path, "another file was put in its place");
    assert_eq!(read(&path), replacement);
    drop(t);

    // Moved away: nothing is written to the old file under its new name either.
    let (dir, path) = temp_session();
    let mut t = Transcript::open_locked(&path, options()).unwrap();
    t.append_message(user("u1")).unwrap();
    t.append_message(assistant("a1")).unwrap();
    // Appended through its handle already, which still has the file open once it is moved.
    t.append_message(user("u2")).unwrap();
    let moved = dir.path().join("moved.jsonl");
    let before = read(&path);
    std::fs::rename(&path, &moved).unwrap();
    let err = t.append_message(assistant("a2")).unwrap_err();
    assert_changed(err, &path, "it was moved away");
    assert_eq!(read(&moved), before);
    assert!(!path.exists());
}

#[test]
fn a_reader_whose_file_was_replaced_by_an_identical_copy_still_refuses() {
    // Same length, same bytes, another file: the identity alone tells.
    let (dir, path) = temp_session();
    let good = two_turn_file(&path);
    let mut t = open(&path);
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::rename(&copy, &path).unwrap();
    let err = t.append_message(user("u2")).unwrap_err();
    assert_changed(err, &path, "another file was put in its place");
    assert_eq!(read(&path), good);
}

#[test]
fn a_failed_write_leaves_a_session_that_a_fresh_transcript_extends() {
    let (_dir, path) = temp_session();
    let good = two_turn_file(&path);
    let mut stale = open(&path);
    let foreign = message_line("f0000001", Some("a0000002"), &user("foreign"));
    append_raw(&path, &format!("{foreign}\n"));
    assert!(stale.append_message(user("stale")).is_err());
    drop(stale);

    let mut fresh = Transcript::open_locked(&path, options()).unwrap();
    assert_eq!(fresh.leaf_id(), Some("f0000001"));
    let id = fresh.append_message(assistant("answer")).unwrap();
    assert_eq!(
        read(&path),
        format!(
            "{good}{foreign}\n{}\n",
            message_line_at(&id, Some("f0000001"), &assistant("answer"))
        )
    );
}
