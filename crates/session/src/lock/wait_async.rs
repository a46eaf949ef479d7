//! Waiting for a write lock from async code: the same attempts as [`WriteLock::acquire`], with
//! the pauses between them spent in the runtime's timer instead of sleeping the thread, so the
//! other tasks of a runtime worker (a single-threaded runtime's only thread included) go on
//! while a lock is waited for.

use std::path::Path;
use std::time::Duration;

use super::{Attempt, FIRST_POLL, MAX_POLL, WriteLock, attempt, lock_path_for};
use crate::error::SessionError;

impl WriteLock {
    /// Takes the write lock of `target` as [`WriteLock::acquire`] does, waiting up to
    /// `timeout` for a live holder without blocking the calling thread.
    ///
    /// Each attempt is one non-blocking `try_lock` on the lock file (plus reading its small
    /// record); between attempts the task sleeps on the Tokio timer (1 ms doubling to 20 ms).
    /// After `timeout` (zero: a single attempt) fails with [`SessionError::Locked`] naming the
    /// holder. Must be awaited within a Tokio runtime with its timer enabled.
    pub async fn acquire_async(target: &Path, timeout: Duration) -> Result<Self, SessionError> {
        let lock_path = lock_path_for(target);
        let started = tokio::time::Instant::now();
        let mut pause = FIRST_POLL;
        loop {
            let holder = match attempt(target, &lock_path)? {
                Attempt::Acquired(lock) => return Ok(lock),
                Attempt::Retry => continue,
                Attempt::Busy(holder) => holder,
            };
            let waited = started.elapsed();
            if waited >= timeout {
                return Err(SessionError::Locked {
                    path: target.to_owned(),
                    lock_path,
                    holder,
                    waited,
                });
            }
            tokio::time::sleep(pause.min(timeout - waited)).await;
            pause = (pause * 2).min(MAX_POLL);
        }
    }
}
