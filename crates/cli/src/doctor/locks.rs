//! Session lock files (`<file>.lock` beside transcripts and `sessions.json`) that no writer
//! holds any more, judged by the session crate's lock rules: the OS lock is free and the
//! recorded process is gone (or its pid was reused). Harmless — the next writer takes such a
//! lock over — but worth cleaning; `--fix` removes them the way a writer would take them.
//! The auth store's lock is an OS lock on a file that is meant to stay, so it is never stale.

use std::path::Path;

use clawloop_session::{LockFileState, LockHolder, inspect_lock_file, remove_stale_lock};

use super::layout::{agent_roots, files_ending};
use super::report::{Report, Status};

/// Checks (and with `fix`, removes) stale lock files in every agent's sessions directory.
pub fn check(report: &mut Report, home: &Path, fix: bool) {
    let mut stale = 0;
    for root in agent_roots(home) {
        for lock in files_ending(&root.join("sessions"), ".lock") {
            let holder = match inspect_lock_file(&lock) {
                Ok(Some(LockFileState::Stale(holder))) => holder,
                Ok(Some(LockFileState::Held(_)) | None) => continue,
                Err(err) => {
                    report.add(Status::Warn, err.to_string());
                    continue;
                }
            };
            stale += 1;
            let owner = describe(holder.as_ref());
            if !fix {
                report.add(
                    Status::Warn,
                    format!(
                        "stale lock {} ({owner}): `clawloop doctor --fix` removes it",
                        lock.display()
                    ),
                );
                continue;
            }
            match remove_stale_lock(&lock) {
                Ok(true) => report.add(
                    Status::Pass,
                    format!("fixed: removed stale lock {} ({owner})", lock.display()),
                ),
                Ok(false) => report.add(
                    Status::Pass,
                    format!(
                        "lock {} was taken by a writer meanwhile; left alone",
                        lock.display()
                    ),
                ),
                Err(err) => report.add(Status::Warn, err.to_string()),
            }
        }
    }
    if stale == 0 {
        report.add(Status::Pass, "no stale lock files");
    }
}

fn describe(holder: Option<&LockHolder>) -> String {
    match holder {
        Some(h) => format!("its process {} is gone", h.pid),
        None => "no process recorded".to_owned(),
    }
}
