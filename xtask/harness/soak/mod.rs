//! `cargo xtask soak [--minutes N] [--seed S]`: several concurrent release `clawloop run`
//! processes against a provider on 127.0.0.1 that injects random faults (429 with and without
//! `Retry-After`, 5xx, stalls beyond the idle timeout, dropped connections, malformed bodies)
//! and asks for megabytes of tool output, with random SIGINT and `kill -9`; afterwards every
//! transcript must open, every acknowledged turn must be in one, the auth state must parse,
//! no lock may be left held, a final run per session key must succeed and peak RSS must stay
//! flat. A key moves to a new session every [`TURNS_PER_SESSION`] turns (`--new`), so turns
//! late in the soak carry no more history than early ones. Not part of `ci`.

mod check;
mod child;
mod rule;
mod setup;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clawloop_testkit::{FaultKind, FaultPlan, FaultRule, SplitRng};

use child::{Fate, FinishedTurn, Launcher, RunningTurn};

pub use xtask::soak::Options;

/// Processes running at once.
const CONCURRENCY: usize = 3;
/// Session keys the turns spread over (one process per key at a time).
const SESSION_KEYS: [&str; 4] = ["soak-a", "soak-b", "soak-c", "soak-d"];
/// Turns a session takes before its key moves to a new one (`--new`), as a user starts a new
/// conversation. Each turn is a process that loads its session's context, so a session that
/// only grew would make later turns bigger by their history alone; bounded sessions make the
/// first and the last minute's turns comparable, and what the RSS check sees is then a leak.
const TURNS_PER_SESSION: u64 = 20;
/// The chance of a fault per provider request, in percent.
const FAULT_PERCENT: u32 = 25;
/// How many violations the report lists.
const SHOWN_VIOLATIONS: usize = 20;

/// Runs the soak; the exit status (0: every check held).
pub fn run(options: &Options) -> u8 {
    match soak(options) {
        Ok(violations) if violations.is_empty() => {
            println!("xtask soak: every check held");
            0
        }
        Ok(violations) => {
            eprintln!("xtask soak: {} violation(s); the first:", violations.len());
            for violation in violations.iter().take(SHOWN_VIOLATIONS) {
                eprintln!("  {violation}");
            }
            1
        }
        Err(err) => {
            eprintln!("xtask soak: {err}");
            1
        }
    }
}

/// Counts for the report.
#[derive(Debug, Default)]
struct Counts {
    turns: u64,
    ok: u64,
    failed: BTreeMap<String, u64>,
    interrupted: u64,
    killed: u64,
    other_exit: BTreeMap<String, u64>,
}

fn soak(options: &Options) -> Result<Vec<String>, String> {
    let binary = setup::build_release()?;
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot make a scratch dir: {e}"))?;
    let faults_on = Arc::new(AtomicBool::new(true));
    let plan = FaultPlan {
        seed: options.seed,
        fault_percent: FAULT_PERCENT,
        kinds: FaultKind::ALL.to_vec(),
        stall_ms: setup::STALL_MS,
    };
    let faults = FaultRule::new(rule::clean_reply as fn(&_) -> _, plan);
    let fault_counts = faults.counts();
    let server = setup::Server::start(rule::soak_rule(faults, Arc::clone(&faults_on)))?;
    let home = scratch.path().join("home");
    let launcher = Launcher {
        binary,
        workspace: scratch.path().join("workspace"),
        scratch: scratch.path().join("out"),
        home: home.clone(),
    };
    setup::write_home(&home, &launcher.workspace, &launcher.scratch, &server.url)?;

    let total = Duration::from_secs(options.minutes.max(1) * 60);
    println!(
        "xtask soak: {} minute(s), seed {}, {CONCURRENCY} processes, home {}",
        options.minutes.max(1),
        options.seed,
        home.display()
    );
    let mut rng = SplitRng::new(options.seed ^ 0x5eed);
    let start = Instant::now();
    let mut running: Vec<RunningTurn> = Vec::new();
    let mut finished: Vec<FinishedTurn> = Vec::new();
    let mut next_turn = 0u64;
    let mut turns_on_key: BTreeMap<&str, u64> = BTreeMap::new();
    let mut sessions_started = 0u64;
    while start.elapsed() < total {
        while running.len() < CONCURRENCY {
            let free: Vec<&str> = SESSION_KEYS
                .iter()
                .copied()
                .filter(|k| running.iter().all(|r| r.key != *k))
                .collect();
            let Some(key) = pick(&mut rng, &free) else {
                break;
            };
            next_turn += 1;
            let prompt = prompt_for(next_turn, &mut rng);
            let fate = fate(&mut rng);
            let on_key = turns_on_key.entry(key).or_default();
            let new_session = *on_key > 0 && on_key.is_multiple_of(TURNS_PER_SESSION);
            *on_key += 1;
            sessions_started += u64::from(new_session);
            let turn = launcher
                .start(next_turn, key, &prompt, fate, new_session)
                .map_err(|e| format!("cannot start clawloop: {e}"))?;
            running.push(turn);
        }
        let mut still = Vec::with_capacity(running.len());
        for mut turn in running {
            match turn.poll(start) {
                Ok(Some(done)) => finished.push(done),
                Ok(None) => still.push(turn),
                Err(err) => return Err(format!("cannot watch turn {}: {err}", turn.turn)),
            }
        }
        running = still;
        std::thread::sleep(Duration::from_millis(20));
    }
    for turn in running {
        finished.push(
            turn.wait(start)
                .map_err(|e| format!("cannot wait for a turn: {e}"))?,
        );
    }

    // The final runs: no faults, no signals; each key's session must take its locks over.
    faults_on.store(false, Ordering::Relaxed);
    let mut violations = Vec::new();
    for key in SESSION_KEYS {
        next_turn += 1;
        let prompt = format!(
            "{}{next_turn} final {}",
            rule::PROMPT_PREFIX,
            rule::PROMPT_END
        );
        let done = launcher
            .start(next_turn, key, &prompt, Fate::Normal, false)
            .and_then(|t| t.wait(start))
            .map_err(|e| format!("cannot run the final turn: {e}"))?;
        if done.status.code() != Some(0) {
            violations.push(format!(
                "the final run on key {key} exited {:?}: {}",
                done.status.code(),
                done.stderr.trim()
            ));
        }
        finished.push(done);
    }

    let counts = count(&finished);
    let transcripts = check::transcripts(&home, &mut violations);
    check::acknowledged(&finished, &transcripts, &mut violations);
    let state_files = check::state_files(&home, &mut violations);
    let lock_files = check::locks(&home, &mut violations);
    let (rss_first, rss_last) = check::rss(&finished, total, &mut violations);
    print_report(&counts, &fault_counts.snapshot(), server.requests());
    println!(
        "  transcripts checked: {}; new sessions started (--new, every {TURNS_PER_SESSION} turns of a key): {sessions_started}; state files parsed: {state_files}; lock files left: {lock_files}",
        transcripts.len()
    );
    println!(
        "  median peak RSS of ok turns: first minute {} KiB, last minute {} KiB",
        rss_first.map_or("-".to_owned(), |v| v.to_string()),
        rss_last.map_or("-".to_owned(), |v| v.to_string())
    );
    Ok(violations)
}

fn pick<'a>(rng: &mut SplitRng, items: &[&'a str]) -> Option<&'a str> {
    let len = u64::try_from(items.len()).ok().filter(|l| *l > 0)?;
    items
        .get(usize::try_from(rng.next_u64() % len).unwrap_or(0))
        .copied()
}

/// `soak turn N …`, with a tag for a tool call (30 %) or megabytes of tool output (10 %).
fn prompt_for(turn: u64, rng: &mut SplitRng) -> String {
    let tag = match rng.next_u64() % 10 {
        0 => rule::BIG_TAG,
        1..=3 => rule::TOOL_TAG,
        _ => "",
    };
    format!("{}{turn} {tag} {}", rule::PROMPT_PREFIX, rule::PROMPT_END)
}

/// Left alone (80 %), interrupted during the turn (10 %), killed before or during it (10 %).
fn fate(rng: &mut SplitRng) -> Fate {
    let delay = Duration::from_millis(rng.next_u64() % 2000);
    match rng.next_u64() % 10 {
        0 => Fate::Interrupt(delay),
        1 => Fate::Kill(delay),
        _ => Fate::Normal,
    }
}

fn count(turns: &[FinishedTurn]) -> Counts {
    use std::os::unix::process::ExitStatusExt;
    let mut counts = Counts::default();
    for turn in turns {
        counts.turns += 1;
        match (turn.status.code(), turn.status.signal()) {
            (Some(0), _) => counts.ok += 1,
            (Some(1), _) => *counts.failed.entry(failure_kind(&turn.stderr)).or_default() += 1,
            (Some(130), _) => counts.interrupted += 1,
            (None, Some(9)) => counts.killed += 1,
            (code, signal) => {
                *counts
                    .other_exit
                    .entry(format!("code {code:?} signal {signal:?}"))
                    .or_default() += 1;
            }
        }
    }
    counts
}

/// A failed turn's kind, from its error sentence.
fn failure_kind(stderr: &str) -> String {
    let text = stderr.to_ascii_lowercase();
    let kind = if text.contains("rate limit") || text.contains("429") {
        "rate_limit"
    } else if text.contains("timed out") || text.contains("timeout") || text.contains("idle") {
        "timeout"
    } else if ["500", "502", "503", "overloaded", "server"]
        .iter()
        .any(|s| text.contains(s))
    {
        "server_error"
    } else if text.contains("lock") {
        "lock"
    } else if text.contains("connection") || text.contains("terminated") || text.contains("stream")
    {
        "connection"
    } else {
        "other"
    };
    kind.to_owned()
}

fn print_report(counts: &Counts, faults: &BTreeMap<FaultKind, u64>, requests: usize) {
    println!("xtask soak: report");
    println!(
        "  turns: {}; ok: {}; interrupted: {}; killed: {}",
        counts.turns, counts.ok, counts.interrupted, counts.killed
    );
    println!("  failed by kind: {:?}", counts.failed);
    if !counts.other_exit.is_empty() {
        println!("  other exits: {:?}", counts.other_exit);
    }
    let faults: BTreeMap<&str, u64> = faults.iter().map(|(k, v)| (k.name(), *v)).collect();
    println!("  provider requests: {requests}; faults injected: {faults:?}");
}

/// Where the soak keeps its binary: the release build in the target directory.
pub fn release_dir() -> PathBuf {
    crate::conformance::discover::workspace_root()
        .join(std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".to_owned()))
        .join("release")
}
