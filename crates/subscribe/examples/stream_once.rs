//! Streams the benchmark's markdown reply through a subscription once, for instruction counts:
//!
//! ```text
//! cargo build --release -p clawloop-subscribe --example stream_once
//! valgrind --tool=callgrind target/release/examples/stream_once 1000000 16
//! ```
//!
//! Arguments: the reply size in bytes (default 1 000 000), the delta size in bytes (default
//! 16; 0 streams the whole reply as one delta) and how many times to stream it (default 1; more
//! to see steady-state costs such as page faults with `perf stat`). Wall-clock numbers on a
//! loaded machine vary by tens of percent; instruction counts do not, so they are what to
//! compare between changes.

use std::hint::black_box;

#[path = "../benches/support/workload.rs"]
mod workload;

use workload::{Frame, deltas, markdown, stream};

fn main() {
    let mut args = std::env::args().skip(1);
    let size = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000usize);
    let delta = args.next().and_then(|a| a.parse().ok()).unwrap_or(16usize);
    let repeat = args.next().and_then(|a| a.parse().ok()).unwrap_or(1usize);
    let text = markdown(size);
    let frame = Frame::new(&text);
    let pieces = deltas(&text, if delta == 0 { text.len() } else { delta });
    let mut sink = stream(&frame, black_box(&pieces));
    for _ in 1..repeat {
        sink = stream(&frame, black_box(&pieces));
    }
    println!(
        "{} bytes in {} deltas -> {} block replies ({} bytes)",
        text.len(),
        pieces.len(),
        sink.blocks,
        sink.bytes
    );
}
