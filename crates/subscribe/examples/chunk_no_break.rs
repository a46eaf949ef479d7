//! Runs the chunker's no-break workload once, for instruction counts:
//!
//! ```text
//! cargo build --release -p clawloop-subscribe --example chunk_no_break
//! valgrind --tool=callgrind target/release/examples/chunk_no_break 50000 16
//! ```
//!
//! Arguments: the text size in bytes (default 50 000) and the delta size in bytes (default 16).
//! Linear work shows as instruction counts growing 4× from a size to 4× that size.

use std::hint::black_box;

#[path = "../benches/support/no_break.rs"]
mod no_break;

fn main() {
    let mut args = std::env::args().skip(1);
    let size = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(50_000usize);
    let delta = args.next().and_then(|a| a.parse().ok()).unwrap_or(16usize);
    let text = no_break::text(size);
    let chunks = no_break::run(black_box(&text), delta);
    println!("{size} bytes in {delta}-byte deltas -> {chunks} chunks");
}
