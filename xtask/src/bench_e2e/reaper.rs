//! The measuring process: `bench-reaper REPORT -- CMD [ARG]…` spawns CMD with its own stdio,
//! reaps it and writes CMD's usage to REPORT as JSON (spawn and exit on CLOCK_MONOTONIC,
//! user/sys CPU, peak RSS, exit code).
//!
//! No safe crate API offers `wait4` with its rusage, and the workspace forbids `unsafe`; a
//! process with exactly one child gets that child's usage from `getrusage(RUSAGE_CHILDREN)`
//! after reaping it. It must be a *small* process: the kernel counts the RSS of the address
//! space a child execs from (its parent's, under `vfork`/`posix_spawn`) in the child's peak
//! RSS. So the bench compiles this file alone with `rustc -O` against xtask's `nix`, instead
//! of measuring from the large xtask binary; it is also a module of xtask, where it is tested.

use std::process::{Command, ExitCode};

/// CLOCK_MONOTONIC now, in nanoseconds (the clock `std::time::Instant` reads on Linux); 0 if
/// it cannot be read.
pub fn monotonic_ns() -> u64 {
    match nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC) {
        Ok(ts) => {
            let secs = u64::try_from(ts.tv_sec()).unwrap_or(0);
            let nanos = u64::try_from(ts.tv_nsec()).unwrap_or(0);
            secs.saturating_mul(1_000_000_000).saturating_add(nanos)
        }
        Err(_) => 0,
    }
}

fn micros(tv: nix::sys::time::TimeVal) -> u64 {
    u64::try_from(tv.tv_sec())
        .unwrap_or(0)
        .saturating_mul(1_000_000)
        .saturating_add(u64::try_from(tv.tv_usec()).unwrap_or(0))
}

/// Runs `REPORT -- CMD…`; the error says what went wrong.
pub fn run(args: &[String]) -> Result<(), String> {
    let (report, rest) = args
        .split_first()
        .ok_or("usage: bench-reaper REPORT -- CMD [ARG]...")?;
    let Some((dashes, command)) = rest.split_first() else {
        return Err("usage: bench-reaper REPORT -- CMD [ARG]...".to_owned());
    };
    let Some((program, program_args)) = command.split_first().filter(|_| dashes == "--") else {
        return Err("usage: bench-reaper REPORT -- CMD [ARG]...".to_owned());
    };
    let spawn_ns = monotonic_ns();
    let status = Command::new(program)
        .args(program_args)
        .status()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    let exit_ns = monotonic_ns();
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map_err(|e| format!("getrusage failed: {e}"))?;
    let code = status.code().map_or("null".to_owned(), |c| c.to_string());
    // Linux reports ru_maxrss in KiB.
    let json = format!(
        "{{\"spawnNs\":{spawn_ns},\"exitNs\":{exit_ns},\"userUs\":{},\"sysUs\":{},\"maxRssKib\":{},\"code\":{code}}}",
        micros(usage.user_time()),
        micros(usage.system_time()),
        u64::try_from(usage.max_rss()).unwrap_or(0),
    );
    std::fs::write(report, json).map_err(|e| format!("cannot write {report}: {e}"))
}

/// The binary's entry point.
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-reaper: {e}");
            ExitCode::FAILURE
        }
    }
}
