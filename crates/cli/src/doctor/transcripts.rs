//! Transcripts whose branch ends in tool calls without results (a run killed while its tools
//! ran). A run answers them before its next turn anyway; `--fix` does the same now, through
//! the same session operation ([`Transcript::answer_dangling_tool_calls`]), under the file's
//! write lock.

use std::path::Path;
use std::time::Duration;

use clawloop_session::transforms::dangling_tool_call_results;
use clawloop_session::{SessionError, SessionOptions, Transcript};

use super::layout::{agent_roots, files_ending};
use super::report::{Report, Status};

/// Checks (and with `fix`, repairs) every agent's transcripts.
pub fn check(report: &mut Report, home: &Path, fix: bool) {
    let mut found = 0;
    for root in agent_roots(home) {
        for path in files_ending(&root.join("sessions"), ".jsonl") {
            let transcript = match Transcript::open(&path, SessionOptions::default()) {
                Ok(t) => t,
                Err(err) => {
                    report.add(Status::Warn, err.to_string());
                    continue;
                }
            };
            let orphaned: Vec<String> =
                dangling_tool_call_results(&transcript.build_context().messages, 0)
                    .into_iter()
                    .map(|r| r.tool_call_id)
                    .collect();
            drop(transcript);
            if orphaned.is_empty() {
                continue;
            }
            found += 1;
            if !fix {
                report.add(
                    Status::Warn,
                    format!(
                        "{} ends with {} tool call(s) without results ({}): `clawloop doctor --fix` answers them",
                        path.display(),
                        orphaned.len(),
                        orphaned.join(", ")
                    ),
                );
                continue;
            }
            match answer(&path) {
                Ok(answered) => report.add(
                    Status::Pass,
                    format!(
                        "fixed: answered {} orphaned tool call(s) in {} ({})",
                        answered.len(),
                        path.display(),
                        answered.join(", ")
                    ),
                ),
                Err(err) => report.add(Status::Warn, err.to_string()),
            }
        }
    }
    if found == 0 {
        report.add(Status::Pass, "no transcript has orphaned tool calls");
    }
}

/// Answers the orphaned calls of `path` under its write lock; a run holding it is not
/// waited for long (it answers them itself).
fn answer(path: &Path) -> Result<Vec<String>, SessionError> {
    let options = SessionOptions {
        lock_timeout: Duration::from_secs(2),
        ..SessionOptions::default()
    };
    let mut transcript = Transcript::open_locked(path, options)?;
    let answered = transcript.answer_dangling_tool_calls(now_ms())?;
    transcript.close()?;
    Ok(answered)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
