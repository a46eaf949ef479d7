//! Entry times in milliseconds and the latest compaction on a branch: what the runner needs to
//! ignore usage reported before a compaction (pi-mono §3.5 step 2).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use clawloop_core::ManualClock;
use clawloop_session::{SessionEntry, SessionOptions, Transcript, format_iso, parse_iso, time};
use common::*;
use pretty_assertions::assert_eq;

#[test]
fn iso_times_round_trip_through_the_public_api() {
    assert_eq!(parse_iso("2026-01-01T00:00:00.000Z"), Some(T0));
    assert_eq!(
        time::parse_iso("2025-12-08T22:41:05.306Z"),
        Some(1_765_233_665_306)
    );
    assert_eq!(parse_iso("2026-01-01T01:00:00.000+01:00"), Some(T0));
    assert_eq!(parse_iso("not a date"), None);
    assert_eq!(format_iso(T0 + 1), "2026-01-01T00:00:00.001Z");
}

#[test]
fn the_latest_compaction_on_the_leafs_branch_and_its_time() {
    let (_dir, path) = temp_session();
    let clock = Arc::new(ManualClock::new(T0));
    let options = SessionOptions {
        clock: clock.clone(),
        ..options()
    };
    let mut t = Transcript::open_locked(&path, options.clone()).unwrap();
    assert!(t.latest_compaction().is_none());
    let first = t.append_message(user("q")).unwrap();
    t.append_message(assistant("a")).unwrap();
    clock.advance(1_000);
    t.append_compaction("S1", &first, 10, None, None).unwrap();
    clock.advance(1_000);
    let fork_point = t.append_message(user("q2")).unwrap();
    clock.advance(1_000);
    let second = t
        .append_compaction("S2", &fork_point, 20, None, None)
        .unwrap();
    t.branch(&fork_point).unwrap();
    clock.advance(1_000);
    t.append_message(assistant("on the other branch")).unwrap();
    t.close().unwrap();

    let mut reopened = Transcript::open(&path, options).unwrap();
    // The leaf (the last entry) is on the branch that only has the first compaction.
    let latest = reopened.latest_compaction().unwrap();
    assert!(matches!(latest, SessionEntry::Compaction(c) if c.summary == "S1"));
    assert_eq!(latest.timestamp_ms(), Some(T0 + 1_000));
    reopened.branch(&second).unwrap();
    let latest = reopened.latest_compaction().unwrap();
    assert_eq!(latest.id(), second);
    assert_eq!(latest.timestamp_ms(), Some(T0 + 3_000));
    assert_eq!(reopened.entry(&first).unwrap().timestamp_ms(), Some(T0));
}
