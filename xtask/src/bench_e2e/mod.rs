//! `cargo xtask bench e2e`: the turn overhead of the real, release-built `clawloop` binary
//! against the providers crate's scripted server on 127.0.0.1, next to a floor (a minimal
//! client posting the same requests) and, when node is available outside CI, pi, codex and
//! OpenClaw. Prints a table, writes `bench/report.json` under the target directory and
//! regenerates the README's performance section.
//!
//! Here: its options and the parts the measured helper processes and the report need; the
//! measuring run (the scripted server's harness, the scenarios, the peers) is in the `harness`
//! example (`xtask/harness/bench_e2e/`), which may use the dev-dependency `clawloop-testkit`
//! (SPEC §1).

pub mod clock;
pub mod floor_client;
pub mod machine;
pub mod measure;
pub mod options;
pub mod readme_block;
pub mod reaper;
pub mod report;
pub mod stats;

pub use options::{Options, parse};
