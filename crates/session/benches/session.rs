//! Session benchmarks (issue 4): open + context rebuild of a generated 100 000-entry session,
//! and append latency under the default fsync policy `on-turn-end`.
//!
//! `cargo bench -p clawloop-session --bench session`. Peak memory of a load is measured by the
//! `session_load` example instead (`/usr/bin/time -v`), since criterion's process holds the
//! generated session and its own samples.

// Benchmark tooling: a failure to set up is reported by panicking.
#![allow(clippy::unwrap_used, missing_docs)]

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawloop_core::StopReason;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserMessage,
};
use clawloop_session::{FsyncPolicy, SessionOptions, Transcript};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn options(fsync: FsyncPolicy) -> SessionOptions {
    SessionOptions {
        fsync,
        cwd: Some("/home/dev/project".into()),
        ..SessionOptions::default()
    }
}

/// One agent turn, as appended: user, two tool rounds, final answer (the turn end, whose fsync
/// runs in the background).
fn turn(rng: &mut support::Rng, n: usize) -> Vec<AgentMessage> {
    let mut out: Vec<AgentMessage> = vec![UserMessage::text(rng.text(300), 0).into()];
    for call in 0..2 {
        let id = format!("toolu_{n}_{call}");
        let mut m =
            AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", 0);
        m.content.push(ContentBlock::text(rng.text(120)));
        m.content.push(ContentBlock::ToolCall(ToolCall::new(
            &id,
            "read",
            json!({"path": "src/lib.rs"}),
        )));
        m.stop_reason = StopReason::ToolUse;
        out.push(m.into());
        out.push(ToolResultMessage::text(&id, "read", rng.text(1_500), false, 0).into());
    }
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", 0);
    m.content.push(ContentBlock::text(rng.text(800)));
    out.push(m.into());
    out
}

fn open_and_rebuild(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("session");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    // The realistic session (its last compaction near the end), then one whose context is
    // the last tenth of the file (~10 000 messages).
    for (name, recent_compaction) in [
        ("open_and_rebuild_100k", true),
        ("open_and_rebuild_100k_huge_context", false),
    ] {
        let path = dir.path().join(format!("{name}.jsonl"));
        let started = Instant::now();
        support::generate(&path, support::ENTRIES, 42, recent_compaction).unwrap();
        let t = Transcript::open(&path, options(FsyncPolicy::OnTurnEnd)).unwrap();
        eprintln!(
            "{name}: {} entries, {:.1} MB, {} context messages (generated in {:.1?})",
            t.entry_count(),
            std::fs::metadata(&path).unwrap().len() as f64 / 1e6,
            t.build_context().messages.len(),
            started.elapsed()
        );
        drop(t);
        group.bench_function(name, |b| {
            b.iter(|| {
                let t = Transcript::open(&path, options(FsyncPolicy::OnTurnEnd)).unwrap();
                black_box(t.build_context().messages.len())
            })
        });
    }
    group.finish();
}

/// Per-append latency percentiles (criterion reports means; the target is a p99).
fn append_latency(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("append.jsonl");
    let mut rng = support::Rng(7);
    let turns: Vec<Vec<AgentMessage>> = (0..2_000).map(|n| turn(&mut rng, n)).collect();
    let mut t = Transcript::open_locked(&path, options(FsyncPolicy::OnTurnEnd)).unwrap();
    // The first turn creates the file (and takes the lock); not an append to measure.
    for m in &turns[0] {
        t.append_message(m.clone()).unwrap();
    }
    // Every append, and apart those that end a turn (and so request the background fsync)
    // and those that do not.
    let (mut all, mut turn_ends, mut others) = (Vec::new(), Vec::new(), Vec::new());
    for messages in &turns[1..] {
        for (i, m) in messages.iter().enumerate() {
            let m = m.clone();
            let started = Instant::now();
            t.append_message(m).unwrap();
            let took = started.elapsed();
            all.push(took);
            if i == messages.len() - 1 {
                turn_ends.push(took);
            } else {
                others.push(took);
            }
        }
    }
    let pct = |v: &mut Vec<Duration>, p: f64| {
        v.sort_unstable();
        v[((v.len() as f64 * p) as usize).min(v.len() - 1)]
    };
    eprintln!(
        "append, fsync on-turn-end, {} appends ({:.1} MB): all p50 {:.1?} p99 {:.1?} max {:.1?}; \
         within a turn p50 {:.1?} p99 {:.1?}; turn ends (background fsync) p50 {:.1?} p99 {:.1?}",
        all.len(),
        std::fs::metadata(&path).unwrap().len() as f64 / 1e6,
        pct(&mut all, 0.5),
        pct(&mut all, 0.99),
        pct(&mut all, 1.0),
        pct(&mut others, 0.5),
        pct(&mut others, 0.99),
        pct(&mut turn_ends, 0.5),
        pct(&mut turn_ends, 0.99),
    );
    let mut group = c.benchmark_group("session");
    let mut next = turns.iter().flatten().cycle();
    group.bench_function("append_on_turn_end", |b| {
        b.iter(|| t.append_message(next.next().unwrap().clone()).unwrap())
    });
    group.finish();
}

criterion_group!(benches, open_and_rebuild, append_latency);
criterion_main!(benches);
