//! The block chunker on a long text it may not break (issue 10 item 14): `max_chars` far
//! beyond the text, no whitespace, 16-byte deltas, a non-forced drain after each. Linear work
//! shows as a time ratio near 4 between the 50 KB and the 200 KB text (it was 16).
//! Run with `cargo bench -p clawloop-subscribe --bench chunker`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

#[path = "support/no_break.rs"]
mod no_break;

fn bench_no_break(c: &mut Criterion) {
    let mut group = c.benchmark_group("chunker/no-break");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (label, size) in [("50KB", 50_000), ("200KB", 200_000)] {
        let text = no_break::text(size);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(label), &text, |b, text| {
            b.iter(|| black_box(no_break::run(black_box(text), 16)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_no_break);
criterion_main!(benches);
