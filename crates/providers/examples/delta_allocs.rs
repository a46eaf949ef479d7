//! Heap allocations per text delta of the full decode path (issue 3, "Benchmarks"), counted
//! from outside: a counting global allocator needs `unsafe`, which the workspace forbids.
//!
//! ```text
//! cargo build --release -p clawloop-providers --example delta_allocs
//! for api in openai anthropic; do for n in 1000 100000; do
//!   valgrind target/release/examples/delta_allocs $api $n 2>&1 | grep 'total heap usage'
//! done; done
//! ```
//!
//! The program generates a recorded-style stream of `N` text deltas (`benches/support`), cuts
//! it into 4–16 KiB reads and decodes it as the stream function does. Everything but the
//! per-delta decode work is fixed or O(log N) (buffers that double), so
//! `(allocs(N2) − allocs(N1)) / (N2 − N1)` is the allocations per delta; the same figure for
//! every N means no delta re-copies the text accumulated so far.

#[path = "../benches/support/mod.rs"]
mod support;

use std::process::ExitCode;

use support::Size;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(api), Some(Ok(deltas))) = (args.get(1), args.get(2).map(|n| n.parse::<usize>()))
    else {
        eprintln!("usage: delta_allocs openai|anthropic <deltas>");
        return ExitCode::from(2);
    };
    let (body, decode): (_, fn(&[&[u8]]) -> _) = match api.as_str() {
        "openai" => (
            support::openai_stream(Size::Deltas(deltas), 1).0,
            support::decode_openai,
        ),
        "anthropic" => (
            support::anthropic_stream(Size::Deltas(deltas), 1).0,
            support::decode_anthropic,
        ),
        _ => {
            eprintln!("unknown API {api:?}: expected openai or anthropic");
            return ExitCode::from(2);
        }
    };
    let reads = support::reads(&body, 2);
    match decode(&reads) {
        Ok(message) => {
            println!(
                "{api}: {deltas} deltas, {} body bytes, {} text bytes",
                body.len(),
                message.text().len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{api}: decode failed: {e}");
            ExitCode::FAILURE
        }
    }
}
