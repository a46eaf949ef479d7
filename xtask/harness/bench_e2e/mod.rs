//! `cargo xtask bench e2e`: the measuring run against the scripted provider server (the lib's
//! `xtask::bench_e2e` is re-exported here, so `super::…` paths reach its modules).

pub mod harness;
pub mod peers;
pub mod runs;
pub mod scenario;

pub use xtask::bench_e2e::*;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::conformance::discover;

use self::harness::Harness;
use self::machine::{Machine, today};
use self::measure::Measurer;
use self::report::{E2eReport, check_targets, merge_section, render};

/// Runs the command; returns the exit status (0 measured, 1 a run failed, 2 usage).
pub fn run(opts: &Options) -> u8 {
    match run_bench(opts) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("xtask bench e2e: {err}");
            1
        }
    }
}

/// The target directory: `$CARGO_TARGET_DIR`, else `target/` in the workspace.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => discover::workspace_root().join("target"),
    }
}

fn run_bench(opts: &Options) -> Result<(), String> {
    let root = discover::workspace_root();
    let target = target_dir();
    let bench_dir = target.join("bench");
    std::fs::create_dir_all(&bench_dir)
        .map_err(|e| format!("cannot create {}: {e}", bench_dir.display()))?;
    let clawloop = build_clawloop(&root, &target)?;
    let floor = build_floor(&root, &bench_dir)?;
    let reaper = build_reaper(&bench_dir)?;
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot create a temp dir: {e}"))?;
    let measurer = Measurer {
        reaper,
        report: scratch.path().join("usage.json"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let (rows, skips) = runtime.block_on(async {
        let harness = Harness::start(scratch.path(), measurer).await?;
        let mut rows = runs::clawloop_and_floor(&harness, &clawloop, &floor, opts).await?;
        let (sandbox_rows, mut skips) = runs::sandbox_rows(&harness, &clawloop, opts).await?;
        rows.extend(sandbox_rows);
        if opts.peers {
            let (peer_rows, peer_skips) = peers::run(&harness, &bench_dir, opts.peer_runs).await;
            rows.extend(peer_rows);
            skips.extend(peer_skips);
        } else if !opts.quick {
            skips.push("peers: --no-peers".to_owned());
        }
        Ok::<_, String>((rows, skips))
    })?;
    let report = E2eReport {
        date: today(),
        machine: Machine::detect(),
        runs: opts.runs,
        targets: check_targets(&rows),
        rows,
        skips,
    };
    let table = render(&report);
    println!("{table}");
    write_report(&bench_dir.join("report.json"), &report)?;
    if opts.quick {
        println!("(--quick: README not updated)");
    } else {
        update_readme(&root.join("README.md"), &report, &table)?;
    }
    Ok(())
}

fn build_clawloop(root: &Path, target: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("==> {cargo} build --release -p clawloop");
    let status = Command::new(&cargo)
        .args(["build", "--quiet", "--release", "-p", "clawloop"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("could not start `{cargo}`: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo build --release -p clawloop` failed ({status})"
        ));
    }
    let binary = target
        .join("release")
        .join(format!("clawloop{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "clawloop was built but {} is missing",
            binary.display()
        ))
    }
}

/// `rustc -O` building the one-file program `source` into `binary` (the bench's own helper
/// processes, kept out of this large debug-built xtask).
fn rustc_bin(crate_name: &str, source: &Path, binary: &Path) -> Command {
    let mut command = Command::new("rustc");
    command
        .args([
            "--edition",
            "2024",
            "--crate-type",
            "bin",
            "-C",
            "opt-level=3",
        ])
        .args(["--crate-name", crate_name, "-o"])
        .arg(binary)
        .arg(source);
    command
}

/// Compiles the std-only floor client on its own with `rustc -O` (a second of work, and the
/// floor stays a tiny binary instead of a mode of this large debug-built one).
fn build_floor(root: &Path, bench_dir: &Path) -> Result<PathBuf, String> {
    let source = root.join("xtask/src/bench_e2e/floor_client.rs");
    let binary = bench_dir.join(format!("bench-floor{}", std::env::consts::EXE_SUFFIX));
    let output = rustc_bin("bench_floor", &source, &binary)
        .current_dir(root)
        .output()
        .map_err(|e| format!("could not start rustc for the floor client: {e}"))?;
    if output.status.success() {
        Ok(binary)
    } else {
        Err(format!(
            "rustc could not build the floor client {}: {}",
            source.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Compiles the measuring process ([`reaper`]) on its own with `rustc -O`, linked against
/// the `nix` rlib this example was built with (same compiler, same features). The deps
/// directory may hold other `nix` versions (a dependency's, without the features the reaper
/// needs), so the rlibs are tried newest first until one builds it.
fn build_reaper(bench_dir: &Path) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate xtask: {e}"))?;
    let deps = xtask::harness::profile_dir(&exe)
        .map(|dir| dir.join("deps"))
        .ok_or_else(|| format!("no deps directory next to {}", exe.display()))?;
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&deps)
        .map_err(|e| format!("cannot list {}: {e}", deps.display()))?
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.starts_with("libnix-") && name.ends_with(".rlib")
        })
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .collect();
    candidates.sort_by_key(|candidate| std::cmp::Reverse(candidate.0));
    let source = discover::workspace_root().join("xtask/src/bench_e2e/reaper.rs");
    let binary = bench_dir.join(format!("bench-reaper{}", std::env::consts::EXE_SUFFIX));
    let mut last = format!("no libnix-*.rlib in {}", deps.display());
    for (_, nix) in candidates {
        let output = rustc_bin("bench_reaper", &source, &binary)
            .arg("--extern")
            .arg(format!("nix={}", nix.display()))
            .arg("-L")
            .arg(format!("dependency={}", deps.display()))
            .output()
            .map_err(|e| format!("could not start rustc for the measuring process: {e}"))?;
        if output.status.success() {
            return Ok(binary);
        }
        last = format!(
            "rustc could not build the measuring process {} with {}: {}",
            source.display(),
            nix.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Err(last)
}

fn write_report(path: &Path, report: &E2eReport) -> Result<(), String> {
    let existing = std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let section =
        serde_json::to_value(report).map_err(|e| format!("cannot serialize the report: {e}"))?;
    let merged = merge_section(existing, "e2e", section);
    let text = serde_json::to_string_pretty(&merged)
        .map_err(|e| format!("cannot serialize the report: {e}"))?;
    std::fs::write(path, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("report: {}", path.display());
    Ok(())
}

fn update_readme(path: &Path, report: &E2eReport, table: &str) -> Result<(), String> {
    let readme = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let body = format!(
        "### Turn overhead (`cargo xtask bench e2e`)\n\n\
         Measured {} on {}. Sequential one-shot `clawloop run --print` processes of the release \
         binary against the scripted provider server on 127.0.0.1; `floor` is a minimal std-only \
         HTTP client posting the same request bodies. `stream-1000`: a 1 000-token reply in \
         1 000 deltas; `tool-read`: a `read` tool call, then a 200-token answer. CPU is user+sys \
         and peak RSS is the child's (`getrusage` after reaping); spawn → 1st request and the \
         tool gap (end of the tool-call response → next request) are taken by the server.\n\n{}",
        report.date,
        report.machine.describe(),
        table
    );
    let updated = readme_block::upsert_section(&readme, "e2e", &body);
    if updated != readme {
        std::fs::write(path, updated)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    println!("README: {}", path.display());
    Ok(())
}
