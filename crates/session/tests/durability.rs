//! SPEC §5 durability on real files: torn lines, garbage lines, refused files, empty files,
//! deferred creation.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use clawloop_session::{OpenReport, SessionError, TornLine, Transcript};
use common::*;
use pretty_assertions::assert_eq;

fn two_turn_file(path: &std::path::Path) -> Vec<String> {
    let lines = vec![
        HEADER.to_owned(),
        message_line("a0000001", None, &user("u1")),
        message_line("a0000002", Some("a0000001"), &assistant("a1")),
    ];
    write_lines(path, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    lines
}

#[test]
fn torn_last_line_without_newline_is_reported_and_cut_before_the_next_append() {
    let (_dir, path) = temp_session();
    two_turn_file(&path);
    let good = read(&path);
    let torn = r#"{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"user","content":[{"type":"te"#;
    std::fs::write(&path, format!("{good}{torn}")).unwrap();

    let mut t = open(&path);
    assert_eq!(
        t.report(),
        &OpenReport {
            created: false,
            skipped_lines: 1,
            torn_line: Some(TornLine {
                line: 4,
                offset: good.len() as u64,
                len: torn.len() as u64,
            }),
            migrated_from: None,
        }
    );
    assert_eq!(t.leaf_id(), Some("a0000002"));
    // Opening alone changes nothing on disk.
    assert_eq!(read(&path), format!("{good}{torn}"));

    t.append_message(user("after crash")).unwrap();
    t.append_message(assistant("recovered")).unwrap();
    assert_valid_jsonl(&path);
    assert!(read(&path).starts_with(&good));

    let t = open(&path);
    assert_eq!(t.report().skipped_lines, 0);
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("user", "after crash"),
            ("assistant", "recovered"),
        ])
    );
}

#[test]
fn a_complete_last_line_without_newline_is_kept_and_the_newline_added_before_the_next_append() {
    let (_dir, path) = temp_session();
    two_turn_file(&path);
    let good = read(&path);
    let whole = message_line("a0000003", Some("a0000002"), &user("no newline"));
    std::fs::write(&path, format!("{good}{whole}")).unwrap();

    let mut t = open(&path);
    assert_eq!(
        t.report(),
        &OpenReport {
            created: false,
            skipped_lines: 0,
            torn_line: None,
            migrated_from: None,
        }
    );
    assert_eq!(t.leaf_id(), Some("a0000003"));
    assert_eq!(read(&path), format!("{good}{whole}"));

    let next = t.append_message(assistant("next")).unwrap();
    let next_line = message_line_at(&next, Some("a0000003"), &assistant("next"));
    assert_eq!(read(&path), format!("{good}{whole}\n{next_line}\n"));
    let more = t.append_message(user("more")).unwrap();
    let more_line = message_line_at(&more, Some(&next), &user("more"));
    assert_eq!(
        read(&path),
        format!("{good}{whole}\n{next_line}\n{more_line}\n")
    );

    let t = open(&path);
    assert_eq!(t.report(), &OpenReport::default());
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("user", "u1"),
            ("assistant", "a1"),
            ("user", "no newline"),
            ("assistant", "next"),
            ("user", "more"),
        ])
    );
}

#[test]
fn any_last_line_that_parses_keeps_its_place_without_newline() {
    // A typed entry, an entry of an unknown type, and an object this version cannot use (kept
    // in the file and counted as skipped, like the same line in the middle).
    let label = r#"{"type":"label","id":"a0000003","parentId":"a0000002","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a0000001","label":"start"}"#;
    let future = r#"{"type":"future_kind","id":"a0000003","parentId":"a0000002","timestamp":"2026-01-01T00:00:02.000Z","x":1}"#;
    let unusable = r#"{"type":"message","id":"a0000003","parentId":"a0000002","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":7}}"#;
    for (last, skipped, entries) in [(label, 0, 3), (future, 0, 3), (unusable, 1, 2)] {
        let (_dir, path) = temp_session();
        two_turn_file(&path);
        let good = read(&path);
        std::fs::write(&path, format!("{good}{last}")).unwrap();
        let mut t = open(&path);
        assert_eq!(
            (
                t.report().skipped_lines,
                &t.report().torn_line,
                t.entry_count()
            ),
            (skipped, &None, entries),
            "{last}"
        );
        let leaf = t.leaf_id().unwrap().to_owned();
        let id = t.append_message(user("after")).unwrap();
        let line = message_line_at(&id, Some(&leaf), &user("after"));
        assert_eq!(read(&path), format!("{good}{last}\n{line}\n"), "{last}");
        assert_valid_jsonl(&path);
        let reopened = open(&path);
        assert_eq!(
            (reopened.report().skipped_lines, reopened.entry_count()),
            (skipped, entries + 1),
            "{last}"
        );
    }
}

#[test]
fn an_old_version_file_keeps_its_last_line_without_newline_through_the_migration() {
    let (_dir, path) = temp_session();
    let v2_header = HEADER.replace(r#""version":3"#, r#""version":2"#);
    let u1 = message_line("a0000001", None, &user("u1"));
    let a1 = message_line("a0000002", Some("a0000001"), &assistant("a1"));
    std::fs::write(&path, format!("{v2_header}\n{u1}\n{a1}")).unwrap();
    let mut t = open(&path);
    assert_eq!(
        t.report(),
        &OpenReport {
            created: false,
            skipped_lines: 0,
            torn_line: None,
            migrated_from: Some(2),
        }
    );
    assert_eq!(read(&path), format!("{HEADER}\n{u1}\n{a1}\n"));
    let id = t.append_message(user("u2")).unwrap();
    let u2 = message_line_at(&id, Some("a0000002"), &user("u2"));
    assert_eq!(read(&path), format!("{HEADER}\n{u1}\n{a1}\n{u2}\n"));
    assert_eq!(
        context_texts(&open(&path)),
        pairs(&[("user", "u1"), ("assistant", "a1"), ("user", "u2")])
    );
}

#[test]
fn unparsable_last_line_with_newline_is_torn_and_cut() {
    let (_dir, path) = temp_session();
    two_turn_file(&path);
    let good = read(&path);
    std::fs::write(&path, format!("{good}{{\"type\":\"mess\n\n")).unwrap();
    let mut t = open(&path);
    assert_eq!(t.report().skipped_lines, 1);
    assert_eq!(t.report().torn_line.as_ref().map(|l| l.line), Some(4));
    t.append_compaction("S", "a0000001", 10, None, None)
        .unwrap();
    assert_valid_jsonl(&path);
    assert_eq!(read(&path).lines().count(), 4);
}

#[test]
fn garbage_lines_in_the_middle_are_skipped_counted_and_kept() {
    let (_dir, path) = temp_session();
    let lines = [
        HEADER.to_owned(),
        message_line("a0000001", None, &user("u1")),
        "this is not json {{{".to_owned(),
        r#"{"type":"message","id":"bad","parentId":null,"timestamp":"t","message":{"role":7}}"#
            .to_owned(),
        "42".to_owned(),
        message_line("a0000002", Some("a0000001"), &assistant("a1")),
    ];
    write_lines(&path, &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let before = read(&path);
    let mut t = open(&path);
    assert_eq!(t.report().skipped_lines, 3);
    assert_eq!(t.report().torn_line, None);
    assert_eq!(t.entries().len(), 2);
    assert_eq!(t.leaf_id(), Some("a0000002"));
    t.append_message(user("u2")).unwrap();
    // Nothing already written is rewritten: the bad lines stay where they were.
    assert!(read(&path).starts_with(&before));
}

#[test]
fn non_empty_files_without_a_header_are_refused_and_untouched() {
    let cases: [&[u8]; 7] = [
        b"hello world\n",
        b"{\"type\":\"message\",\"id\":\"x\"}\n",
        b"{\"type\":\"session\"}\n",
        b"{\"type\":\"session\",\"id\":7}\n",
        b"[1,2,3]\n",
        b"\n\n  \n",
        b"\xff\xfe binary",
    ];
    for bytes in cases {
        let (_dir, path) = temp_session();
        std::fs::write(&path, bytes).unwrap();
        let err = Transcript::open(&path, options()).unwrap_err();
        assert!(matches!(err, SessionError::NotASession { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains("not a session file"), "{text}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }
}

#[test]
fn an_invalid_header_type_is_refused_before_anything_is_rewritten() {
    let (_dir, path) = temp_session();
    // A v1 file would be migrated and rewritten, but its header cannot be used.
    let bytes = "{\"type\":\"session\",\"id\":\"x\",\"cwd\":5}\n{\"type\":\"message\"}\n";
    std::fs::write(&path, bytes).unwrap();
    let err = Transcript::open(&path, options()).unwrap_err();
    assert!(err.to_string().contains("invalid session header"), "{err}");
    assert_eq!(read(&path), bytes);
}

#[test]
fn an_empty_file_opens_as_new_and_the_first_append_writes_the_header() {
    let (_dir, path) = temp_session();
    std::fs::write(&path, "").unwrap();
    let mut t = open(&path);
    assert!(t.report().created);
    assert_eq!(t.build_context().messages, vec![]);
    assert_eq!(read(&path), "");
    let id = t.append_message(user("hi")).unwrap();
    let expected = format!("{HEADER}\n{}\n", message_line_at(&id, None, &user("hi")));
    assert_eq!(read(&path), expected);
}

#[test]
fn a_new_session_is_written_at_its_first_assistant_message_all_at_once() {
    let (_dir, path) = temp_session();
    let mut t = open(&path);
    let tl = t
        .append_thinking_level_change(clawloop_core::ThinkLevel::Medium)
        .unwrap();
    let u = t.append_message(user("hi")).unwrap();
    assert!(!path.exists());
    assert!(!t.is_persisted());
    let a = t.append_message(assistant("hello")).unwrap();
    assert!(t.is_persisted());
    let text = read(&path);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], HEADER);
    assert_eq!(
        lines[1],
        format!(
            r#"{{"type":"thinking_level_change","id":"{tl}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"medium"}}"#
        )
    );
    assert_eq!(lines[2], message_line_at(&u, Some(&tl), &user("hi")));
    assert_eq!(lines[3], message_line_at(&a, Some(&u), &assistant("hello")));
    // From now on each entry is appended as it comes.
    t.append_message(user("more")).unwrap();
    assert_eq!(read(&path).lines().count(), 5);
    // No temporary file is left next to it; the lock file only while the transcript lives.
    let names = || {
        let mut names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(), ["s.jsonl", "s.jsonl.lock"]);
    drop(t);
    assert_eq!(names(), ["s.jsonl"]);
}

#[test]
fn a_session_with_only_user_messages_leaves_no_file() {
    let (_dir, path) = temp_session();
    let mut t = open(&path);
    t.append_message(user("hi")).unwrap();
    drop(t);
    assert!(!path.exists());
}

#[test]
fn a_deferred_session_refuses_a_file_that_appeared_meanwhile() {
    let (_dir, path) = temp_session();
    let mut t = open(&path);
    t.append_message(user("hi")).unwrap();
    std::fs::write(&path, "someone else's\n").unwrap();
    let err = t.append_message(assistant("hello")).unwrap_err();
    assert!(matches!(err, SessionError::ChangedOnDisk { .. }), "{err:?}");
    assert_eq!(read(&path), "someone else's\n");
    // The failed append left the session as it was.
    assert_eq!(t.entries().len(), 1);
}

#[test]
fn the_torn_cut_refuses_a_file_that_grew_since_it_was_read() {
    let (_dir, path) = temp_session();
    two_turn_file(&path);
    let good = read(&path);
    std::fs::write(&path, format!("{good}{{\"torn")).unwrap();
    let mut t = open(&path);
    let grown = format!(
        "{good}{{\"torn\n{}\n",
        message_line("zzzzzzzz", None, &user("other writer"))
    );
    std::fs::write(&path, &grown).unwrap();
    let err = t.append_message(user("mine")).unwrap_err();
    assert!(matches!(err, SessionError::ChangedOnDisk { .. }), "{err:?}");
    assert_eq!(read(&path), grown);
}

#[test]
fn a_header_without_newline_gets_one_before_the_first_entry() {
    let (_dir, path) = temp_session();
    std::fs::write(&path, HEADER).unwrap();
    let mut t = open(&path);
    assert_eq!(t.report().skipped_lines, 0);
    assert!(!t.report().created);
    t.append_message(user("hi")).unwrap();
    assert_valid_jsonl(&path);
    assert_eq!(open(&path).entries().len(), 1);
}

#[test]
fn every_fsync_policy_appends_the_same_bytes() {
    use clawloop_session::FsyncPolicy;
    let mut files = Vec::new();
    for fsync in [
        FsyncPolicy::Always,
        FsyncPolicy::OnTurnEnd,
        FsyncPolicy::Never,
    ] {
        let (dir, path) = temp_session();
        two_turn_file(&path);
        let mut t = Transcript::open(
            &path,
            clawloop_session::SessionOptions { fsync, ..options() },
        )
        .unwrap();
        t.append_message(assistant_calling("c1")).unwrap();
        t.append_message(assistant("done")).unwrap();
        t.sync().unwrap();
        let text = read(&path);
        // Ids are random; everything else must agree.
        let shape: Vec<String> = text
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("id");
                v.as_object_mut().unwrap().remove("parentId");
                v.to_string()
            })
            .collect();
        files.push(shape);
        drop(dir);
    }
    assert_eq!(files[0], files[1]);
    assert_eq!(files[1], files[2]);
}

#[test]
fn an_unreadable_path_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let err = Transcript::open(dir.path(), options()).unwrap_err();
    assert!(matches!(err, SessionError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains(&dir.path().display().to_string()));
}

#[test]
fn the_tool_result_rewrite_keeps_a_last_line_without_newline() {
    use clawloop_core::message::ToolResultMessage;
    use clawloop_session::transforms::{ToolResultBudget, truncate_tool_result_message};

    let (_dir, path) = temp_session();
    let output: clawloop_core::AgentMessage =
        ToolResultMessage::text("c1", "ls", "line\n".repeat(1000), false, T0).into();
    let u = message_line("a0000001", None, &user("list"));
    let call = message_line("a0000002", Some("a0000001"), &assistant_calling("c1"));
    let result = message_line("a0000003", Some("a0000002"), &output);
    let answer = message_line("a0000004", Some("a0000003"), &assistant("done"));
    std::fs::write(&path, format!("{HEADER}\n{u}\n{call}\n{result}\n{answer}")).unwrap();

    let outcome = clawloop_session::truncate_oversized_tool_results_in_file(
        &path,
        &ToolResultBudget::for_context_window(1000),
        &options(),
    )
    .unwrap();
    assert_eq!(outcome.truncated_count, 1);
    let shortened = truncate_tool_result_message(&output, 1200, 0);
    let shortened_line = message_line("a0000003", Some("a0000002"), &shortened);
    assert_eq!(
        read(&path),
        format!("{HEADER}\n{u}\n{call}\n{shortened_line}\n{answer}\n")
    );
    let t = open(&path);
    assert_eq!(t.report(), &OpenReport::default());
    assert_eq!(t.leaf_id(), Some("a0000004"));
    assert_eq!(
        t.build_context().messages,
        vec![
            user("list"),
            assistant_calling("c1"),
            shortened,
            assistant("done")
        ]
    );
}
