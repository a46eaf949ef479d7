//! Two processes writing one session, and one store, at the same time through the locks
//! (issue 4, "Prove it"): no interleaved, lost or stale-parented lines, no lost store update.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod child;
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clawloop_session::{FsyncPolicy, SessionOptions, SessionRecord, SessionStore, Transcript};
use common::*;
use serde_json::Value;

const ENTRY: &str = "zz_child_entry_point";
const DIR_ENV: &str = "CLAWLOOP_CONCURRENT_DIR";
const TAG_ENV: &str = "CLAWLOOP_CONCURRENT_TAG";
/// Sessions each child opens, appends to and closes.
const ROUNDS: usize = 40;
/// Entries per round: user, assistant, user, assistant.
const PER_ROUND: usize = 4;
const KEY: &str = "agent:main:main";

fn writer_options() -> SessionOptions {
    SessionOptions {
        fsync: FsyncPolicy::OnTurnEnd,
        lock_timeout: Duration::from_secs(30),
        ..options()
    }
}

fn store(dir: &Path) -> SessionStore {
    SessionStore::new(dir).with_lock_timeout(Duration::from_secs(30))
}

/// A writer: waits for the start signal, then `ROUNDS` times opens the session under its lock,
/// appends `PER_ROUND` entries chained to whatever the other writer left, closes, and counts
/// the round in the store.
#[test]
fn zz_child_entry_point() {
    if child::role().as_deref() != Some("writer") {
        return;
    }
    let dir = PathBuf::from(std::env::var(DIR_ENV).unwrap());
    let tag = std::env::var(TAG_ENV).unwrap();
    let path = dir.join("s.jsonl");
    let go = dir.join("go");
    while !go.exists() {
        std::thread::sleep(Duration::from_millis(1));
    }
    for round in 0..ROUNDS {
        let mut t = Transcript::open_locked(&path, writer_options()).unwrap();
        for j in 0..PER_ROUND {
            let text = format!("{tag}-{round}-{j}");
            let m = if j % 2 == 0 {
                user(&text)
            } else {
                assistant(&text)
            };
            t.append_message(m).unwrap();
        }
        t.close().unwrap();
        store(&dir)
            .update(KEY, |r| {
                r.compaction_count = Some(r.compaction_count.unwrap_or(0) + 1)
            })
            .unwrap();
        // Give the other writer a moment to win the lock, so the rounds interleave.
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// `(entry id, parent id, text)` of every line after the header; asserts each line is one
/// complete JSON object.
fn read_entries(path: &Path) -> Vec<(String, Option<String>, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'));
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["type"], "session");
    lines
        .map(|line| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("interleaved or torn line ({e}): {line}"));
            assert_eq!(v["type"], "message", "{line}");
            let content = &v["message"]["content"];
            let text = content
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| content[0]["text"].as_str().unwrap().to_owned());
            (
                v["id"].as_str().unwrap().to_owned(),
                v["parentId"].as_str().map(str::to_owned),
                text,
            )
        })
        .collect()
}

#[test]
fn two_processes_append_through_the_lock_without_losing_or_mixing_lines() {
    if child::role().is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    store(dir.path())
        .set(KEY, SessionRecord::new("s", Some("s.jsonl".into()), T0))
        .unwrap();
    let mut procs: Vec<_> = ["A", "B"]
        .into_iter()
        .map(|tag| {
            child::spawn(
                ENTRY,
                "writer",
                &[
                    (DIR_ENV, dir.path().to_string_lossy().into_owned()),
                    (TAG_ENV, tag.to_owned()),
                ],
            )
        })
        .collect();
    let started = Instant::now();
    std::fs::write(dir.path().join("go"), "").unwrap();
    for p in &mut procs {
        assert!(p.wait().unwrap().success());
    }
    let elapsed = started.elapsed();

    let entries = read_entries(&path);
    assert_eq!(entries.len(), 2 * ROUNDS * PER_ROUND);
    // Nothing lost or duplicated.
    let mut texts: Vec<&str> = entries.iter().map(|(_, _, t)| t.as_str()).collect();
    texts.sort_unstable();
    let mut expected: Vec<String> = ["A", "B"]
        .iter()
        .flat_map(|tag| {
            (0..ROUNDS).flat_map(move |r| (0..PER_ROUND).map(move |j| format!("{tag}-{r}-{j}")))
        })
        .collect();
    expected.sort_unstable();
    assert_eq!(texts, expected);
    // Each round is contiguous, and every entry hangs from the line before it: each writer
    // saw everything the other had written when it took the lock.
    for (i, chunk) in entries.chunks(PER_ROUND).enumerate() {
        let prefix = chunk[0].2.rsplit_once('-').unwrap().0;
        assert!(
            chunk.iter().all(|e| e.2.starts_with(prefix)),
            "round {i} interleaved"
        );
    }
    for pair in entries.windows(2) {
        assert_eq!(
            pair[1].1.as_deref(),
            Some(pair[0].0.as_str()),
            "stale parent"
        );
    }
    let switches = entries
        .windows(2)
        .filter(|p| p[0].2.as_bytes()[0] != p[1].2.as_bytes()[0])
        .count();
    eprintln!(
        "{} entries from 2 processes in {elapsed:.1?}, {switches} hand-overs of the lock",
        entries.len()
    );
    // Every store update counted: read-modify-write under the store lock loses none.
    let record = store(dir.path()).find_by_key(KEY).unwrap().unwrap();
    assert_eq!(record.compaction_count, Some(2 * ROUNDS as u64));
    // Clean exits leave no lock files.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["go", "s.jsonl", "sessions.json"]);
}
