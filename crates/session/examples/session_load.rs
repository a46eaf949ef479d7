//! Peak memory of opening a long session, measured from outside the benchmark harness.
//!
//! ```text
//! cargo run --release -p clawloop-session --example session_load -- generate /tmp/s.jsonl
//! cargo run --release -p clawloop-session --example session_load -- generate /tmp/h.jsonl 100000 huge-context
//! /usr/bin/time -v target/release/examples/session_load load /tmp/s.jsonl
//! ```
//!
//! `load` opens the file, rebuilds the context at the leaf and prints the time taken, the
//! file size and the peak resident set (`VmHWM`, Linux), which `/usr/bin/time -v` reports as
//! "Maximum resident set size".

// A measuring tool: a bad argument or a failed step is reported by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/support/mod.rs"]
mod support;

use std::time::Instant;

use clawloop_session::{FsyncPolicy, SessionOptions, Transcript};

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(command), Some(path)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: session_load generate <path> [entries [huge-context]] | load <path>");
        std::process::exit(2);
    };
    match command.as_str() {
        "generate" => {
            let entries = args
                .get(3)
                .map_or(support::ENTRIES, |n| n.parse().expect("entries"));
            // `huge-context`: no compaction near the end (a ~10 MB context).
            let recent = args.get(4).map(String::as_str) != Some("huge-context");
            support::generate(path.as_ref(), entries, 42, recent).unwrap();
        }
        "load" => {
            let size = std::fs::metadata(path).unwrap().len();
            let started = Instant::now();
            let options = SessionOptions {
                fsync: FsyncPolicy::OnTurnEnd,
                ..SessionOptions::default()
            };
            let t = Transcript::open(path, options).unwrap();
            let opened = started.elapsed();
            let context = t.build_context();
            let total = started.elapsed();
            let peak = peak_rss_kb().unwrap_or(0);
            println!(
                "{} entries, {} context messages; open {opened:.1?}, open+rebuild {total:.1?}; \
                 file {:.1} MB, peak RSS {:.1} MB ({:.2}x the file)",
                t.entry_count(),
                context.messages.len(),
                size as f64 / 1e6,
                peak as f64 * 1024.0 / 1e6,
                peak as f64 * 1024.0 / size as f64
            );
        }
        other => {
            eprintln!("unknown command {other:?}");
            std::process::exit(2);
        }
    }
}
