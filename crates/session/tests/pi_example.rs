//! The real pi 0.58.3 session of pi-mono §3.3.9: it opens, rebuilds pi's context and its lines
//! survive a parse/serialize round trip byte for byte.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use clawloop_session::{ModelRef, SessionEntry, SessionHeader, Transcript};
use common::{context_texts, options, pairs};
use pretty_assertions::assert_eq;

const FIXTURE: &str = include_str!("fixtures/pi-0.58.3-example.jsonl");

fn fixture_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, path) = common::temp_session();
    std::fs::write(&path, FIXTURE).unwrap();
    (dir, path)
}

#[test]
fn every_line_round_trips_byte_for_byte() {
    let mut lines = FIXTURE.lines();
    let header = lines.next().unwrap();
    let parsed: SessionHeader = serde_json::from_str(header).unwrap();
    assert_eq!(serde_json::to_string(&parsed).unwrap(), header);
    for line in lines {
        let entry: SessionEntry = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&entry).unwrap(), line);
    }
}

#[test]
fn opens_at_the_last_entry_and_rebuilds_pi_context() {
    let (_dir, path) = fixture_copy();
    let t = Transcript::open(&path, options()).unwrap();
    assert_eq!(t.entries().len(), 12);
    assert_eq!(t.leaf_id(), Some("d9bfbc49"));
    assert_eq!(t.version(), 3);
    assert_eq!(t.session_id(), "7baf6ab4-8382-4401-b310-aee1e107968d");
    assert_eq!(t.report().skipped_lines, 0);
    assert_eq!(t.label("d35fccb9"), Some("start"));
    assert_eq!(t.session_name(), Some("My Session"));

    // The leaf's path leaves the compacted branch at 7e59a477 through the branch summary.
    let context = t.build_context();
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("user", "list files"),
            ("assistant", ""),
            ("branchSummary", "BRANCH SUMMARY"),
            ("custom", "injected"),
        ])
    );
    assert_eq!(context.thinking_level, "medium");
    assert_eq!(
        context.model,
        Some(ModelRef {
            provider: "anthropic".into(),
            model_id: "claude-sonnet-4-5".into()
        })
    );
    // Summaries and custom messages take their time from the entry's ISO timestamp.
    assert_eq!(context.messages[2].timestamp(), Some(1_795_300_728_250));
    assert_eq!(context.messages[3].timestamp(), Some(1_795_300_728_351));
    // Opening wrote nothing.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), FIXTURE);
}

#[test]
fn the_compacted_branch_starts_with_the_summary() {
    let (_dir, path) = fixture_copy();
    let mut t = Transcript::open(&path, options()).unwrap();
    t.branch("fc5ffbcb").unwrap();
    assert_eq!(
        context_texts(&t),
        pairs(&[
            ("compactionSummary", "SUMMARY"),
            ("user", "list files"),
            ("assistant", ""),
            ("toolResult", "a.txt"),
            ("assistant", "a.txt"),
        ])
    );
    assert_eq!(
        t.build_context().messages[0].timestamp(),
        Some(1_795_300_727_005)
    );
}

#[test]
fn appending_to_the_example_keeps_its_bytes() {
    let (_dir, path) = fixture_copy();
    let mut t = Transcript::open(&path, options()).unwrap();
    let id = t.append_session_info("  Renamed  ").unwrap();
    drop(t);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(&text[..FIXTURE.len()], FIXTURE);
    let t = Transcript::open(&path, options()).unwrap();
    assert_eq!(t.leaf_id(), Some(id.as_str()));
    assert_eq!(t.session_name(), Some("Renamed"));
}

#[test]
fn a_blank_name_keeps_the_previous_one_as_pi_does() {
    // pi's `getSessionName` skips `session_info` entries without a (non-empty) name; seen with
    // `cargo xtask interop` against the real 0.58.3 package.
    let (_dir, path) = fixture_copy();
    let mut t = Transcript::open(&path, options()).unwrap();
    t.append_session_info("   ").unwrap();
    assert_eq!(t.session_name(), Some("My Session"));
    drop(t);
    let t = Transcript::open(&path, options()).unwrap();
    assert_eq!(t.session_name(), Some("My Session"));
}
