//! Instruction counts of the full decode path against the decoder's own typed parse (issue 3,
//! "Benchmarks"): the `decode` bench's ratio, measured with callgrind, which is stable on a
//! busy machine where wall and CPU time are not.
//!
//! ```text
//! cargo build --release -p clawloop-providers --example decode_instr
//! for mode in full typed; do
//!   valgrind --tool=callgrind --toggle-collect='decode_instr::run' \
//!     target/release/examples/decode_instr anthropic $mode 20000
//! done
//! ```
//!
//! `full / typed` of the two `Collected` totals is the bench's `full/typed` ratio.

// An example: a broken setup should stop the run loudly.
#![allow(clippy::unwrap_used)]

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;

use support::Size;
use support::wire::{anthropic_wire, json_payloads, openai_wire, parse_typed};

/// The measured work, the only function callgrind collects in.
#[inline(never)]
fn run(api: &str, full: bool, reads: &[&[u8]], payloads: &[&str]) -> usize {
    match (api, full) {
        ("openai", true) => support::decode_openai(reads).unwrap().text().len(),
        ("anthropic", true) => support::decode_anthropic(reads).unwrap().text().len(),
        ("openai", false) => parse_typed::<openai_wire::Chunk>(payloads),
        _ => parse_typed::<anthropic_wire::WireEvent>(payloads),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let api = args.get(1).map_or("anthropic", String::as_str);
    let full = args.get(2).map_or("full", String::as_str) == "full";
    let deltas: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let body = match api {
        "openai" => support::openai_stream(Size::Deltas(deltas), 1).0,
        _ => support::anthropic_stream(Size::Deltas(deltas), 1).0,
    };
    let reads = support::reads(&body, 2);
    let frames = support::frames(&body).unwrap();
    let payloads = json_payloads(&frames);
    println!("{}", black_box(run(api, full, &reads, &payloads)));
}
