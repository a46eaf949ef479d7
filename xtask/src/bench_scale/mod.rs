//! `cargo xtask bench scale [--quick]`: session scale, concurrency, stream scale and a long
//! run (issue 14, benchmarks 3–6), in release builds, in-process through the runner's public
//! API against the providers crate's rule server on 127.0.0.1.
//!
//! Each benchmark runs in its own `scale_probe` process (an example of this package, built
//! with `--release`) so its RSS is its own; another probe process serves the provider rule.
//! [`run`] collects their numbers into a [`ScaleReport`]; [`render_table`] prints it and
//! [`main`] also writes it to `target/bench/scale.json` (under `$CARGO_TARGET_DIR` if set).
//! The probe's own code is in `xtask/harness/bench_scale/`: it uses the dev-dependency
//! `clawloop-testkit` (SPEC §1), which only an example may.

pub mod proc_stats;
pub mod report;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde::de::DeserializeOwned;

pub use report::{
    Concurrency, LongRun, ScaleReport, SessionScale, StreamRun, StreamScale, render_table,
};

use crate::conformance::discover;

/// What `bench scale` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Every count scaled down 10× for a smoke run.
    pub quick: bool,
}

/// The counts of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Entries of the large session.
    pub session_entries: usize,
    /// Concurrent turns.
    pub concurrent_turns: usize,
    /// Sequential turns one turn's CPU is averaged over.
    pub sequential_turns: usize,
    /// How long each concurrent turn's first response is held back, so all are in flight.
    pub stall_ms: u64,
    /// Bytes of the large streamed reply (the small one is a tenth).
    pub stream_bytes: usize,
    /// Turns of the long run.
    pub long_run_turns: usize,
}

impl Counts {
    /// Issue 14's counts, or a tenth of them for `quick`.
    pub fn for_options(opts: Options) -> Counts {
        let full = Counts {
            session_entries: 100_000,
            concurrent_turns: 1_000,
            sequential_turns: 50,
            stall_ms: 1_500,
            stream_bytes: 1 << 20,
            long_run_turns: 2_000,
        };
        if !opts.quick {
            return full;
        }
        Counts {
            session_entries: full.session_entries / 10,
            concurrent_turns: full.concurrent_turns / 10,
            sequential_turns: full.sequential_turns / 10,
            stall_ms: full.stall_ms / 10,
            stream_bytes: full.stream_bytes / 10,
            long_run_turns: full.long_run_turns / 10,
        }
    }
}

/// The probe example's name.
const PROBE: &str = "scale_probe";

/// Builds the probe, runs every benchmark and returns the numbers.
pub fn run(opts: Options) -> Result<ScaleReport, String> {
    let counts = Counts::for_options(opts);
    let probe = build_probe()?;
    let server = Server::start(&probe)?;
    let url = server.url.as_str();
    eprintln!("bench scale: session of {} entries", counts.session_entries);
    let session = run_probe(
        &probe,
        &["session", url, &counts.session_entries.to_string()],
    )?;
    eprintln!("bench scale: {} concurrent turns", counts.concurrent_turns);
    let concurrency = run_probe(
        &probe,
        &[
            "concurrency",
            url,
            &counts.concurrent_turns.to_string(),
            &counts.sequential_turns.to_string(),
            &counts.stall_ms.to_string(),
        ],
    )?;
    eprintln!("bench scale: streamed replies");
    let small = run_probe(
        &probe,
        &["stream", url, &(counts.stream_bytes / 10).to_string()],
    )?;
    let large = run_probe(&probe, &["stream", url, &counts.stream_bytes.to_string()])?;
    eprintln!("bench scale: long run of {} turns", counts.long_run_turns);
    let long_run = run_probe(
        &probe,
        &["long-run", url, &counts.long_run_turns.to_string()],
    )?;
    Ok(ScaleReport {
        quick: opts.quick,
        session,
        concurrency,
        stream: StreamScale { small, large },
        long_run,
    })
}

/// `cargo xtask bench scale`: runs, prints the table, writes the JSON. Exit status 0 when
/// every target holds, 1 when one is missed or a benchmark failed.
pub fn main(opts: Options) -> u8 {
    let report = match run(opts) {
        Ok(report) => report,
        Err(err) => {
            eprintln!("xtask bench scale: {err}");
            return 1;
        }
    };
    print!("{}", render_table(&report));
    let path = report_path();
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| {
            let json = serde_json::to_string_pretty(&report).map_err(std::io::Error::other)?;
            std::fs::write(&path, json + "\n")
        });
    match written {
        Ok(()) => println!("\nwritten to {}", path.display()),
        Err(e) => {
            eprintln!("xtask bench scale: cannot write {}: {e}", path.display());
            return 1;
        }
    }
    u8::from(!report.passed())
}

/// `<target>/bench/scale.json`.
pub fn report_path() -> PathBuf {
    target_dir().join("bench").join("scale.json")
}

/// `$CARGO_TARGET_DIR` (relative to the workspace root) or the workspace's `target`.
fn target_dir() -> PathBuf {
    let root = discover::workspace_root();
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
}

/// `cargo build --release -p xtask --example scale_probe`; the binary's path.
fn build_probe() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(&cargo)
        .args([
            "build",
            "--quiet",
            "--release",
            "-p",
            "xtask",
            "--example",
            PROBE,
        ])
        .current_dir(discover::workspace_root())
        .status()
        .map_err(|e| format!("could not start `{cargo}`: {e}"))?;
    if !status.success() {
        return Err(format!("building the {PROBE} example failed ({status})"));
    }
    let path = target_dir().join("release").join("examples").join(PROBE);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("the built probe is not at {}", path.display()))
    }
}

/// The provider server process; stopped (its stdin closed, then waited for) when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(probe: &Path) -> Result<Server, String> {
        let mut child = Command::new(probe)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", probe.display()))?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            let _ = BufReader::new(stdout).read_line(&mut line);
        }
        let url = line.trim().to_owned();
        if !url.starts_with("http://") {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the provider server printed {url:?}, not its URL"));
        }
        Ok(Server { child, url })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Runs the probe with `args` and parses the JSON it prints.
fn run_probe<T: DeserializeOwned>(probe: &Path, args: &[&str]) -> Result<T, String> {
    let output = Command::new(probe)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", probe.display()))?;
    if !output.status.success() {
        return Err(format!("the {} probe failed ({})", args[0], output.status));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "the {} probe printed no report ({e}): {}",
            args[0],
            String::from_utf8_lossy(&output.stdout)
        )
    })
}
