//! Streaming throughput of the whole `Subscription` (issue 5, "Benchmark").
//!
//! A deterministic markdown reply (headings, prose, lists, ``` and ~~~ fences of varied length,
//! inline code, occasional `<think>` sections) of 1 MB and of 100 KB is streamed as agent events
//! (`message_start`, `text_start`, text deltas, `text_end`, `message_end`) through a
//! subscription in `text_end` break mode with the default 800/1200 paragraph chunking, once as
//! 1-byte deltas, once as 16-byte deltas and once as a single delta.
//!
//! Linear work shows as the same MB/s for both sizes (a time ratio near 10 between them).
//! Run with `cargo bench -p clawloop-subscribe` or `cargo xtask bench subscribe`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

#[path = "support/workload.rs"]
mod workload;

use workload::{Frame, deltas, markdown, stream};

fn bench_stream(c: &mut Criterion) {
    for (label, size) in [("1MB", 1_000_000), ("100KB", 100_000)] {
        let text = markdown(size);
        let frame = Frame::new(&text);
        let mut group = c.benchmark_group(format!("stream/{label}"));
        group
            .throughput(Throughput::Bytes(text.len() as u64))
            // Each iteration takes milliseconds: few flat samples keep `cargo bench` quick.
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        for (mode, delta_bytes) in [("1-byte", 1), ("16-byte", 16), ("one-delta", text.len())] {
            let pieces = deltas(&text, delta_bytes);
            let sink = stream(&frame, &pieces);
            assert!(sink.blocks > 0, "{label}/{mode}: no block replies");
            eprintln!(
                "{label}/{mode}: {} bytes in {} deltas -> {} block replies ({} bytes)",
                text.len(),
                pieces.len(),
                sink.blocks,
                sink.bytes
            );
            group.bench_with_input(BenchmarkId::from_parameter(mode), &pieces, |b, pieces| {
                b.iter(|| black_box(stream(&frame, black_box(pieces))));
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench_stream);
criterion_main!(benches);
