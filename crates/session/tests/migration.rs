//! v1 → v2 → v3 migrations on real files: rewritten atomically, ids chained, nothing lost.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn lines_of(path: &std::path::Path) -> Vec<Value> {
    read(path)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn v1_file_is_migrated_and_rewritten_once() {
    let (dir, path) = temp_session();
    let v1 = [
        json!({"type": "session", "id": "9a8b7c6d-1111-4222-8333-444455556666", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/old/proj", "provider": "anthropic"}).to_string(),
        json!({"type": "message", "timestamp": "2025-06-01T10:00:01.000Z", "message": user("hello")}).to_string(),
        "not json at all".to_owned(),
        json!({"type": "message", "timestamp": "2025-06-01T10:00:02.000Z", "message": assistant("hi there")}).to_string(),
        json!({"type": "compaction", "timestamp": "2025-06-01T10:00:03.000Z", "summary": "S", "firstKeptEntryIndex": 1, "tokensBefore": 50}).to_string(),
        json!({"type": "message", "timestamp": "2025-06-01T10:00:04.000Z", "message": {"role": "hookMessage", "customType": "h", "content": "hooked", "display": true, "timestamp": 5}}).to_string(),
        "{\"type\":\"mess".to_owned(),
    ];
    write_lines(&path, &v1.iter().map(String::as_str).collect::<Vec<_>>());
    let t = open(&path);
    assert_eq!(t.report().migrated_from, Some(1));
    assert_eq!(t.report().skipped_lines, 2);
    assert_eq!(t.version(), 3);
    assert_eq!(t.entries().len(), 4);
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("compactionSummary", "S"),
            ("user", "hello"),
            ("assistant", "hi there"),
            ("custom", "hooked")
        ])
    );

    let text = read(&path);
    let raw: Vec<&str> = text.lines().collect();
    // Header first with its unknown field kept, the garbage line kept verbatim, the torn tail gone.
    assert_eq!(
        raw[0],
        r#"{"type":"session","id":"9a8b7c6d-1111-4222-8333-444455556666","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/old/proj","provider":"anthropic","version":3}"#
    );
    assert_eq!(raw[2], "not json at all");
    assert_eq!(raw.len(), 6);
    let ids: Vec<String> = t.entries().iter().map(|e| e.id().to_owned()).collect();
    assert!(ids.iter().all(|id| id.len() == 8));
    let parents: Vec<Option<&str>> = t.entries().iter().map(|e| e.parent_id()).collect();
    assert_eq!(
        parents,
        [
            None,
            Some(ids[0].as_str()),
            Some(ids[1].as_str()),
            Some(ids[2].as_str())
        ]
    );
    let compaction: Value = serde_json::from_str(raw[4]).unwrap();
    assert_eq!(compaction["firstKeptEntryId"], json!(ids[0]));
    assert_eq!(compaction.get("firstKeptEntryIndex"), None);
    assert_eq!(t.leaf_id(), Some(ids[3].as_str()));

    // Reopening finds a current file: same ids, nothing rewritten.
    drop(t);
    let t = open(&path);
    assert_eq!(t.report().migrated_from, None);
    assert_eq!(t.report().skipped_lines, 1);
    assert_eq!(
        t.entries()
            .iter()
            .map(|e| e.id().to_owned())
            .collect::<Vec<_>>(),
        ids
    );
    assert_eq!(read(&path), text);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [std::ffi::OsString::from("s.jsonl")]);
}

#[test]
fn v2_file_keeps_its_ids() {
    let (_dir, path) = temp_session();
    let v2 = [
        json!({"type": "session", "version": 2, "id": "s", "timestamp": "t", "cwd": "/"}).to_string(),
        message_line("abcd0001", None, &user("u")),
        json!({"type": "message", "id": "abcd0002", "parentId": "abcd0001", "timestamp": "t",
            "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": false, "timestamp": 1}}).to_string(),
    ];
    write_lines(&path, &v2.iter().map(String::as_str).collect::<Vec<_>>());
    let t = open(&path);
    assert_eq!(t.report().migrated_from, Some(2));
    assert_eq!(
        t.entries().iter().map(|e| e.id()).collect::<Vec<_>>(),
        ["abcd0001", "abcd0002"]
    );
    let lines = lines_of(&path);
    assert_eq!(lines[0]["version"], 3);
    assert_eq!(lines[2]["message"]["role"], "custom");
    assert_eq!(lines[1], serde_json::from_str::<Value>(&v2[1]).unwrap());
}

#[test]
fn current_file_is_not_rewritten() {
    let (_dir, path) = temp_session();
    write_lines(
        &path,
        &[HEADER, &message_line("abcd0001", None, &user("u"))],
    );
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let bytes = read(&path);
    let t = open(&path);
    assert_eq!(t.report().migrated_from, None);
    assert_eq!(read(&path), bytes);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
}
