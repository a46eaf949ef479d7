//! Decoding throughput of long provider streams (issue 3, "Benchmarks").
//!
//! About 10 MB of recorded-style SSE (see `support`) per API, fed in 4–16 KiB reads through
//! the real path: [`SseFramer`](clawloop_providers::transport::SseFramer) → the API's decoder
//! → core's events applied to the message builder (`full`). The baselines parse the same
//! `data:` payloads, framed up front, and nothing else: `value` into `serde_json::Value` (the
//! issue's "serde_json alone"), and `typed` into a copy of the decoder's own wire structs, the
//! parse the decoder really does, so `full / typed` is what framing and normalization add.
//! Target: ratio ≤ 1.5.
//!
//! ```text
//! cargo bench -p clawloop-providers            # or: cargo xtask bench providers
//! ```
//!
//! criterion reports each variant in MiB/s; after its summary a line per API gives MB/s and
//! both ratios from interleaved runs (see `print_ratios`), which hold up better than
//! criterion's back-to-back groups on a busy machine.
//!
//! Allocations per text delta are measured outside criterion, because a counting global
//! allocator needs `unsafe` (forbidden workspace-wide); see `examples/delta_allocs.rs`:
//!
//! ```text
//! cargo build --release -p clawloop-providers --example delta_allocs
//! for api in openai anthropic; do for n in 1000 100000; do
//!   valgrind target/release/examples/delta_allocs $api $n 2>&1 | grep 'total heap usage'
//! done; done
//! ```
//!
//! allocations per delta = (allocs(100000) − allocs(1000)) / 99000: 2.2 for OpenAI, 3.2 for
//! Anthropic, the same at 1 000 and 100 000 deltas (no re-copy of the text so far).
//!
//! `many/<api>/<n>` decodes, for each of the five wire APIs, a stream of `n` rounds of a
//! thinking block, a text block and a tool call (`support::many`), at `n` and `4n`: a linear
//! decoder takes four times as long for the second (issue 10 item 8). Instruction counts of the
//! same work, stable on a busy machine, come from `examples/decode_many.rs`.
//!
//! `parallel/responses-parallel/<n>` decodes `n` Responses `function_call` items that are all
//! open at once (`support::many::PARALLEL`), at `n` and `4n`: the shape that showed the
//! message builder's per-event search of the open calls (issue 22 item 6).

// A benchmark: a broken setup should stop the run loudly.
#![allow(clippy::unwrap_used)]

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawloop_core::AssistantMessage;
use criterion::{Criterion, Throughput};

use support::Size;
use support::wire::{anthropic_wire, json_payloads, openai_wire, parse_typed, parse_values};

/// Body size per API.
const BODY_BYTES: usize = 10 * 1000 * 1000;

type Decode = fn(&[&[u8]]) -> Result<AssistantMessage, String>;
type Typed = fn(&[&str]) -> usize;

/// One API's body and the three ways to get through it.
struct Api {
    name: &'static str,
    body: Vec<u8>,
    decode: Decode,
    typed: Typed,
}

fn apis() -> [Api; 2] {
    [
        Api {
            name: "openai",
            body: support::openai_stream(Size::Bytes(BODY_BYTES), 0x5EED_00A1).0,
            decode: support::decode_openai,
            typed: parse_typed::<openai_wire::Chunk>,
        },
        Api {
            name: "anthropic",
            body: support::anthropic_stream(Size::Bytes(BODY_BYTES), 0x5EED_0A27).0,
            decode: support::decode_anthropic,
            typed: parse_typed::<anthropic_wire::WireEvent>,
        },
    ]
}

fn bench_api(c: &mut Criterion, api: &Api, reads: &[&[u8]], payloads: &[&str]) {
    let mut group = c.benchmark_group(format!("decode/{}", api.name));
    // 10 MB per iteration takes tens of milliseconds: ten samples are plenty, and the whole
    // run stays well under three minutes.
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes(api.body.len() as u64));
    group.bench_function("full", |b| b.iter(|| (api.decode)(black_box(reads))));
    group.bench_function("value", |b| b.iter(|| parse_values(black_box(payloads))));
    group.bench_function("typed", |b| b.iter(|| (api.typed)(black_box(payloads))));
    group.finish();
}

/// Rounds of blocks and calls in the smaller `many` stream; the larger has four times as many.
const MANY_ROUNDS: usize = 500;

fn bench_many(c: &mut Criterion) {
    for api in support::many::APIS {
        let mut group = c.benchmark_group(format!("many/{api}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for n in [MANY_ROUNDS, 4 * MANY_ROUNDS] {
            let body = support::many::body(api, n);
            let reads = support::reads(body.as_bytes(), 0x5EED_4EAD);
            assert_eq!(support::many::decode(api, &reads).unwrap(), 3 * n);
            group.bench_function(n.to_string(), |b| {
                b.iter(|| support::many::decode(api, black_box(&reads)))
            });
        }
        group.finish();
    }
}

/// Parallel calls in the smaller `parallel` stream; the larger has four times as many.
const PARALLEL_CALLS: usize = 2000;

fn bench_parallel(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("parallel/{}", support::many::PARALLEL));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in [PARALLEL_CALLS, 4 * PARALLEL_CALLS] {
        let body = support::many::body(support::many::PARALLEL, n);
        let reads = support::reads(body.as_bytes(), 0x5EED_4EAD);
        assert_eq!(
            support::many::decode(support::many::PARALLEL, &reads).unwrap(),
            n
        );
        group.bench_function(n.to_string(), |b| {
            b.iter(|| support::many::decode(support::many::PARALLEL, black_box(&reads)))
        });
    }
    group.finish();
}

/// Rounds of the interleaved ratio measurement.
const RATIO_ROUNDS: usize = 7;

/// Passes over the body per measurement: Linux updates a thread's CPU time at scheduler ticks
/// (4 ms at 250 Hz), too coarse for one 10 MB pass of a few tens of milliseconds.
const RATIO_BATCH: u32 = 8;

/// CPU time this thread has run (Linux `se.sum_exec_runtime`), so time spent waiting for a
/// core on a busy machine does not count; `None` where unavailable.
fn thread_cpu_time() -> Option<Duration> {
    let sched = std::fs::read_to_string("/proc/thread-self/sched").ok()?;
    let line = sched
        .lines()
        .find(|l| l.starts_with("se.sum_exec_runtime"))?;
    let ms: f64 = line.split(':').nth(1)?.trim().parse().ok()?;
    Some(Duration::from_secs_f64(ms / 1e3))
}

/// How long one call of `work` takes, over [`RATIO_BATCH`] calls: thread CPU time where the
/// system reports it, else wall time.
fn timed(mut work: impl FnMut()) -> Duration {
    let (cpu, wall) = (thread_cpu_time(), Instant::now());
    for _ in 0..RATIO_BATCH {
        work();
    }
    let total = match (cpu, thread_cpu_time()) {
        (Some(start), Some(end)) => end.saturating_sub(start),
        _ => wall.elapsed(),
    };
    total / RATIO_BATCH
}

/// Prints MB/s and the ratios from the fastest of [`RATIO_ROUNDS`] interleaved runs of each
/// variant. criterion measures the variants one after the other in wall time, so on a shared
/// machine a change in load between them skews the ratio; interleaving exposes all three to
/// the same conditions, CPU time leaves out waiting for a core, and the minimum is the run
/// least disturbed by other processes (cache, frequency).
fn print_ratios(api: &Api, reads: &[&[u8]], payloads: &[&str]) {
    let mut best = [Duration::MAX; 3];
    for _ in 0..RATIO_ROUNDS {
        let runs = [
            timed(|| {
                black_box((api.decode)(black_box(reads)).is_ok());
            }),
            timed(|| {
                black_box(parse_values(black_box(payloads)));
            }),
            timed(|| {
                black_box((api.typed)(black_box(payloads)));
            }),
        ];
        for (best, run) in best.iter_mut().zip(runs) {
            *best = (*best).min(run);
        }
    }
    let mb_per_s = |d: Duration| api.body.len() as f64 / 1e6 / d.as_secs_f64();
    let [full, value, typed] = best;
    println!(
        "decode/{}: {:.1} MB body; MB/s full {:.0}, value {:.0}, typed {:.0}; \
         full/value {:.2}, full/typed {:.2} (fastest of {RATIO_ROUNDS} interleaved batches of {RATIO_BATCH}, {})",
        api.name,
        api.body.len() as f64 / 1e6,
        mb_per_s(full),
        mb_per_s(value),
        mb_per_s(typed),
        full.as_secs_f64() / value.as_secs_f64(),
        full.as_secs_f64() / typed.as_secs_f64(),
        if thread_cpu_time().is_some() {
            "thread CPU time"
        } else {
            "wall time"
        },
    );
}

/// Whether criterion will measure (not `--test`, `--list` or `--profile-time`, and run by
/// `cargo bench`, which passes `--bench`): only then is the ratio worth its seconds.
fn measuring() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench")
        && !args
            .iter()
            .any(|a| a == "--test" || a == "--list" || a.starts_with("--profile-time"))
}

// A hand-written `criterion_main!`: the streams are generated once for criterion and the ratio
// report, which runs after criterion's summary.
fn main() {
    let apis = apis();
    let prepared: Vec<_> = apis
        .iter()
        .map(|api| {
            let reads = support::reads(&api.body, 0x5EED_4EAD);
            let frames = support::frames(&api.body).unwrap();
            // Every payload must parse in both baselines, or they would measure error paths.
            let count = json_payloads(&frames).len();
            assert_eq!(parse_values(&json_payloads(&frames)), count);
            assert_eq!((api.typed)(&json_payloads(&frames)), count);
            assert!(!(api.decode)(&reads).unwrap().text().is_empty());
            (reads, frames)
        })
        .collect();
    let mut criterion = Criterion::default().configure_from_args();
    for (api, (reads, frames)) in apis.iter().zip(&prepared) {
        bench_api(&mut criterion, api, reads, &json_payloads(frames));
    }
    bench_many(&mut criterion);
    bench_parallel(&mut criterion);
    criterion.final_summary();
    if measuring() {
        for (api, (reads, frames)) in apis.iter().zip(&prepared) {
            print_ratios(api, reads, &json_payloads(frames));
        }
    }
}
