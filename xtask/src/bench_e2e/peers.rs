//! pi, codex and OpenClaw against the same scripted server (when node is on PATH, never in
//! CI). Anything that does not work is a `skip: …` line and the bench goes on.

use std::path::Path;

use super::harness::Harness;
use super::report::Row;

/// Measures the peers; returns their rows and the skip lines.
pub async fn run(harness: &Harness, bench_dir: &Path, runs: usize) -> (Vec<Row>, Vec<String>) {
    let _ = (harness, bench_dir, runs);
    if std::env::var_os("CI").is_some() {
        return (Vec::new(), vec!["peers: not run in CI".to_owned()]);
    }
    (Vec::new(), vec!["peers: not implemented yet".to_owned()])
}
