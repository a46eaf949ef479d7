//! Instruction counts of decoding a stream with `n` rounds of content blocks and tool calls
//! (issue 10 item 8), for one wire API: callgrind's counts are stable on a busy machine where
//! time is not, and `count(4n) / count(n)` near 4 shows the decoder is linear.
//!
//! ```text
//! cargo build --release -p clawloop-providers --example decode_many
//! for api in completions responses anthropic gemini ollama responses-parallel; do for n in 2000 8000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='decode_many::run' \
//!     target/release/examples/decode_many $api $n 2>&1 | grep Collected
//! done; done
//! ```

// An example: a broken setup should stop the run loudly.
#![allow(clippy::unwrap_used)]

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;

use support::many;

/// The measured work, the only function callgrind collects in.
#[inline(never)]
fn run(api: &str, reads: &[&[u8]]) -> usize {
    many::decode(api, reads).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let api = args.get(1).map_or("completions", String::as_str);
    let n: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2000);
    let body = many::body(api, n);
    let reads = support::reads(body.as_bytes(), 2);
    println!("{}", black_box(run(api, &reads)));
}
