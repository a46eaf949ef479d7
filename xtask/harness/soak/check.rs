//! The checks after a soak: transcripts open, acknowledged turns are in them, the auth state
//! parses, no lock is left held, peak RSS stayed flat.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clawloop_core::auth_store::AuthState;
use clawloop_session::{SessionOptions, Transcript, WriteLock};

use super::child::FinishedTurn;
use super::rule::answer_for;

/// How much the last minute's median peak RSS may exceed the first minute's, in percent.
pub const RSS_GROWTH_PERCENT: u64 = 10;

/// Every file under `dir` whose name ends with `suffix`, sorted.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Opens every transcript with the session crate; the problems, and the texts of those that
/// opened (for the acknowledgement check).
pub fn transcripts(home: &Path, violations: &mut Vec<String>) -> Vec<(PathBuf, String)> {
    let mut opened = Vec::new();
    for path in files_ending(home, ".jsonl") {
        match Transcript::open(&path, SessionOptions::default()) {
            Ok(_) => match std::fs::read_to_string(&path) {
                Ok(text) => opened.push((path, text)),
                Err(err) => violations.push(format!("cannot read {}: {err}", path.display())),
            },
            Err(err) => violations.push(format!(
                "transcript {} does not open: {err}",
                path.display()
            )),
        }
    }
    opened
}

/// Every turn that exited 0 has its prompt and its answer in one transcript.
pub fn acknowledged(
    turns: &[FinishedTurn],
    transcripts: &[(PathBuf, String)],
    violations: &mut Vec<String>,
) {
    for turn in turns.iter().filter(|t| t.status.code() == Some(0)) {
        let answer = answer_for(&turn.prompt);
        if !turn.stdout.contains(&answer) {
            violations.push(format!(
                "turn {} exited 0 but printed {:?}, not {answer:?}",
                turn.turn,
                turn.stdout.trim()
            ));
        }
        let prompt = json_text(&turn.prompt);
        let answer = json_text(&answer);
        if !transcripts
            .iter()
            .any(|(_, text)| text.contains(&prompt) && text.contains(&answer))
        {
            violations.push(format!(
                "turn {} (key {}) exited 0 but its prompt and answer are not in a transcript",
                turn.turn, turn.key
            ));
        }
    }
}

/// `text` as it appears inside a JSON string.
fn json_text(text: &str) -> String {
    let quoted = serde_json::Value::from(text).to_string();
    quoted
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(&quoted)
        .to_owned()
}

/// `auth-state.json` and `sessions.json` parse.
pub fn state_files(home: &Path, violations: &mut Vec<String>) -> usize {
    let mut checked = 0;
    for path in files_ending(home, "auth-state.json") {
        checked += 1;
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<AuthState>(&t).map_err(|e| e.to_string()));
        if let Err(err) = parsed {
            violations.push(format!("{} does not parse: {err}", path.display()));
        }
    }
    for path in files_ending(home, "sessions.json") {
        checked += 1;
        let parsed = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).map_err(|e| e.to_string()));
        if let Err(err) = parsed {
            violations.push(format!("{} does not parse: {err}", path.display()));
        }
    }
    checked
}

/// Every lock file left behind can be taken (its holder is gone); the count of lock files.
pub fn locks(home: &Path, violations: &mut Vec<String>) -> usize {
    let found = files_ending(home, ".lock");
    for path in &found {
        let text = path.to_string_lossy();
        let target = PathBuf::from(text.strip_suffix(".lock").unwrap_or(&text));
        if target.ends_with("auth-store") {
            // The auth store's lock is its own kind (not a session lock); the final runs
            // prove it is usable.
            continue;
        }
        if let Err(err) = WriteLock::acquire(&target, Duration::from_secs(2)) {
            violations.push(format!("lock {} is still held: {err}", path.display()));
        }
    }
    found.len()
}

/// The median peak RSS of the turns that exited 0 in the first and in the last minute.
pub fn rss(
    turns: &[FinishedTurn],
    total: Duration,
    violations: &mut Vec<String>,
) -> (Option<u64>, Option<u64>) {
    let minute = Duration::from_secs(60).min(total / 2);
    let median = |pick: &dyn Fn(Duration) -> bool| {
        let mut peaks: Vec<u64> = turns
            .iter()
            .filter(|t| t.status.code() == Some(0) && t.peak_rss_kib > 0 && pick(t.started_after))
            .map(|t| t.peak_rss_kib)
            .collect();
        peaks.sort_unstable();
        peaks.get(peaks.len() / 2).copied()
    };
    let first = median(&|at| at < minute);
    let last = median(&|at| at + minute >= total);
    if let (Some(first), Some(last)) = (first, last)
        && last * 100 > first * (100 + RSS_GROWTH_PERCENT)
    {
        violations.push(format!(
            "peak RSS grew from {first} KiB (first minute) to {last} KiB (last minute), more than {RSS_GROWTH_PERCENT} %"
        ));
    }
    (first, last)
}
