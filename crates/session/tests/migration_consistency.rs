//! A line is judged the same way before and after a migration rewrites the file: a migration
//! never turns a skipped line into an entry on the next open, nor drops one it kept (found by
//! the `session_reader` fuzz target).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use clawloop_core::message::UserMessage;
use clawloop_core::{AssistantMessage, StopReason};
use clawloop_session::{SessionEntry, Transcript};
use common::*;
use pretty_assertions::assert_eq;

/// The fuzz crash input: a v1 file whose user message has no `content`, two lines that are not
/// JSON, and a compaction.
const CRASH: &str = concat!(
    r#"{"type":"session","id":"old-1","timestamp":"2023-01-01T00:00:00.000Z","cwd":"/w"}"#,
    "\n",
    r#"{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","cidtent":"hi","timestamp":1704067201000}}"#,
    "\n",
    r#"{"type":"message","timestamp":"2024-01-01T00:00:02.000Z","message":{"role":"assiT00:00:00.000Z","cwd":"/w"}"#,
    "\n",
    r#"{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role"l":"gpt","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1704067201999}}"#,
    "\n",
    r#"{"type":"compaction","timestamp":"2024-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":1,"tokensBefore":10}"#,
    "\n",
);

/// Opens `content` (an older version, so the first open migrates it), appends a user and an
/// assistant message, and checks the reopened file holds exactly the first open's entries
/// plus the two new ones, with no more skipped lines.
fn open_append_reopen(content: &str) -> (Vec<SessionEntry>, usize) {
    let (_dir, path) = temp_session();
    std::fs::write(&path, content).unwrap();
    let mut t = Transcript::open(&path, options()).unwrap();
    assert!(
        t.report().migrated_from.is_some(),
        "the fixture is not an older version"
    );
    let first = t.entries().to_vec();
    let skipped = t.report().skipped_lines;
    let context = t.build_context().messages.len();

    let mut answer = AssistantMessage::empty("p", "api", "m", 1_700_000_000_001);
    answer.stop_reason = StopReason::Stop;
    let user = t
        .append_message(UserMessage::text("hi", 1_700_000_000_000))
        .unwrap();
    let assistant = t.append_message(answer).unwrap();
    t.close().unwrap();

    let again = Transcript::open(&path, options()).unwrap();
    let ids: Vec<&str> = again.entries().iter().map(SessionEntry::id).collect();
    let mut expected: Vec<&str> = first.iter().map(SessionEntry::id).collect();
    expected.extend([user.as_str(), assistant.as_str()]);
    assert_eq!(ids, expected);
    assert_eq!(&again.entries()[..first.len()], &first[..]);
    assert_eq!(again.report().skipped_lines, skipped);
    assert_eq!(again.build_context().messages.len(), context + 2);
    (first, skipped)
}

#[test]
fn fuzz_crash_v1_message_without_content_is_kept_across_migration() {
    let (first, skipped) = open_append_reopen(CRASH);
    // pi keeps every line that parses as an object: the message it cannot type is kept as an
    // unknown entry (as a current-version file's reader keeps it), the compaction follows it.
    let kinds: Vec<&str> = first.iter().map(SessionEntry::type_name).collect();
    assert_eq!(kinds, ["message", "compaction"]);
    assert!(matches!(first[0], SessionEntry::Other(_)));
    assert_eq!(first[1].parent_id(), Some(first[0].id()));
    assert_eq!(skipped, 2);
}

#[test]
fn every_kind_of_unusable_v1_line_is_judged_the_same_after_the_rewrite() {
    let header =
        r#"{"type":"session","id":"old-2","timestamp":"2023-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let lines = [
        // Message envelopes whose message this version cannot read.
        r#"{"type":"message","timestamp":"t","message":{"role":"user"}}"#,
        r#"{"type":"message","timestamp":"t","message":{"role":"assistant","content":7}}"#,
        r#"{"type":"message","timestamp":"t","message":{"role":"future","x":1}}"#,
        // A duplicated key: the last one counts, as for every JSON object read here.
        r#"{"type":"message","timestamp":"t","message":{"role":7,"role":"user","content":[]}}"#,
        // Faulty envelopes: skipped at every open.
        r#"{"type":"message","timestamp":"t","message":{"role":7}}"#,
        r#"{"type":"message","timestamp":"t","message":["user"]}"#,
        r#"{"type":"message","message":{"role":"user","content":"x","timestamp":1}}"#,
        r#"{"type":"message","timestamp":5,"message":{"role":"user","content":"x","timestamp":1}}"#,
        r#"{"type":"compaction","timestamp":"t"}"#,
        // Not objects: skipped, and kept verbatim by the rewrite.
        r#"["message","a",null,"t",["user"]]"#,
        r#"["message","a",null,"t",{"role":"user"}]"#,
        "42",
        "not json",
        r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"ok","timestamp":1}}"#,
    ];
    let mut content = format!("{header}\n");
    for line in lines {
        content.push_str(line);
        content.push('\n');
    }
    let (first, skipped) = open_append_reopen(&content);
    assert_eq!(first.len(), 5);
    assert_eq!(skipped, 9);
}

#[test]
fn a_current_file_reads_no_array_as_an_entry() {
    let (_dir, path) = temp_session();
    let header = r#"{"type":"session","version":3,"id":"cur-1","timestamp":"2023-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let kept = r#"{"type":"message","id":"m1","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","timestamp":1}}"#;
    write_lines(
        &path,
        &[
            header,
            kept,
            // Every envelope field by position: not an object, so not an entry.
            r#"["message","a1","m1","t",{"role":"user"}]"#,
            r#"{"type":"message","id":"a2","parentId":"m1","timestamp":"t","message":["assistant"]}"#,
            r#"{"type":"message","id":"a3","parentId":"m1","timestamp":"t","message":{"role":"user","role":"assistant"}}"#,
        ],
    );
    let t = open(&path);
    let ids: Vec<&str> = t.entries().iter().map(SessionEntry::id).collect();
    // The duplicated role is read as JSON reads it (the last one wins), like any other object.
    assert_eq!(ids, ["m1", "a3"]);
    assert_eq!(t.report().skipped_lines, 2);
    assert_eq!(t.leaf_id(), Some("a3"));
}
