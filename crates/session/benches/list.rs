//! Listing a store of 10 000 sessions (`clawloop sessions list`): `SessionStore::list_summaries`
//! reads `sessions.json` alone, never a transcript, picking out only the listed fields, so it
//! must stay well under 100 ms; `SessionStore::list` (whole records) is measured beside it.
//!
//! `cargo bench -p clawloop-session --bench list`; instruction counts, steadier than wall time
//! on a shared machine: `valgrind --tool=callgrind <bench binary> --bench --test` and the
//! inclusive cost of `SessionStore::list_summaries` (called twice: setup and the test run).

// Benchmark tooling: a failure to set up is reported by panicking.
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use clawloop_session::SessionStore;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};

const SESSIONS: usize = 10_000;

/// A store shaped like OpenClaw's: the fields `list` reads plus the ones it only carries.
fn write_store(store: &SessionStore) {
    let mut map = Map::new();
    for i in 0..SESSIONS {
        let id = format!("{i:08x}-1111-4222-8333-444455556666");
        map.insert(
            format!("agent:main:telegram:dm:{i}"),
            json!({
                "sessionId": id,
                "updatedAt": 1_760_000_000_000_u64 + (i as u64 * 7919) % 1_000_000,
                "sessionFile": format!("{}/{id}.jsonl", store.dir().display()),
                "modelProvider": "anthropic",
                "model": "claude-sonnet-4-5",
                "inputTokens": 1200,
                "outputTokens": 340,
                "totalTokens": 15_000,
                "contextTokens": 200_000,
                "messageCount": 24,
                "thinkingLevel": "off",
                "deliveryContext": {"channel": "telegram", "to": format!("user:{i}")},
            }),
        );
    }
    std::fs::create_dir_all(store.dir()).unwrap();
    std::fs::write(
        store.store_path(),
        serde_json::to_vec_pretty(&Value::Object(map)).unwrap(),
    )
    .unwrap();
}

fn list_10k(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().join("sessions"));
    write_store(&store);
    assert_eq!(store.list().unwrap().len(), SESSIONS);
    let mut group = c.benchmark_group("store");
    assert_eq!(store.list_summaries().unwrap().len(), SESSIONS);
    group.bench_function("list_10k", |b| b.iter(|| black_box(store.list().unwrap())));
    group.bench_function("list_summaries_10k", |b| {
        b.iter(|| black_box(store.list_summaries().unwrap()))
    });
    group.finish();
}

criterion_group!(benches, list_10k);
criterion_main!(benches);
