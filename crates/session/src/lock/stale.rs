//! Lock files left behind: what `clawloop doctor` reports and `doctor --fix` removes. The
//! rules are the lock's own (see the module comment of `lock.rs`): the OS lock is the
//! authority, and a free lock file whose record names a live process still counts as held. So
//! a lock file is stale exactly when [`WriteLock::acquire`] would take it over at once.

use std::fs::{OpenOptions, TryLockError};
use std::io;
use std::path::Path;
use std::time::Duration;

use super::{LockHolder, WriteLock, is_same_file, read_holder};
use crate::error::SessionError;
use crate::process::{Liveness, liveness};

/// What a lock file on disk stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockFileState {
    /// A writer holds it: the OS lock is taken, or the record names a live process.
    Held(Option<LockHolder>),
    /// Nobody holds it: the record names a process that is gone (or a reused pid), or there is
    /// no record at all. The next writer takes it over; removing it is safe.
    Stale(Option<LockHolder>),
}

/// Looks at the lock file `lock_path` (a `<file>.lock`) without changing it; `None` when there
/// is no such file. The OS lock is taken for a moment to see whether it is free, so a writer
/// arriving then waits one poll longer.
pub fn inspect_lock_file(lock_path: &Path) -> Result<Option<LockFileState>, SessionError> {
    let io_err = |action, e| SessionError::io(lock_path, action, e);
    let mut file = match OpenOptions::new().read(true).write(true).open(lock_path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("open lock file", e)),
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Ok(Some(LockFileState::Held(read_holder(&mut file))));
        }
        Err(TryLockError::Error(e)) => return Err(io_err("lock", e)),
    }
    if !is_same_file(&file, lock_path) {
        // Released and removed between our open and our lock: there is nothing left.
        return Ok(None);
    }
    let holder = read_holder(&mut file);
    let _ = file.unlock();
    let live = holder
        .as_ref()
        .is_some_and(|h| h.is_this_process() || liveness(h.pid, h.start_time) == Liveness::Alive);
    Ok(Some(if live {
        LockFileState::Held(holder)
    } else {
        LockFileState::Stale(holder)
    }))
}

/// Removes the lock file `lock_path` if it is stale, the way a writer takes a stale lock
/// over: acquired (a dead holder's record is replaced) and released at once, which deletes
/// the file under the OS lock. True when it was removed; false when a writer holds it or it
/// is gone already. `lock_path` must end in `.lock`.
pub fn remove_stale_lock(lock_path: &Path) -> Result<bool, SessionError> {
    let Some(target) = lock_path
        .to_str()
        .and_then(|p| p.strip_suffix(".lock"))
        .map(Path::new)
    else {
        return Err(SessionError::io(
            lock_path,
            "remove lock file",
            io::Error::new(io::ErrorKind::InvalidInput, "not a `.lock` file"),
        ));
    };
    if !matches!(inspect_lock_file(lock_path)?, Some(LockFileState::Stale(_))) {
        return Ok(false);
    }
    match WriteLock::acquire(target, Duration::ZERO) {
        Ok(lock) => lock.release().map(|()| true),
        Err(SessionError::Locked { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// A pid no process has: beyond Linux's `pid_max` limit (2^22).
    const DEAD_PID: u32 = 4_194_304 + 17;

    #[test]
    fn dead_holders_are_stale_live_ones_held_and_only_stale_ones_removed()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("s.jsonl");
        let lock_path = dir.path().join("s.jsonl.lock");
        assert_eq!(inspect_lock_file(&lock_path)?, None);

        let dead = LockHolder {
            pid: DEAD_PID,
            start_time: None,
            created_at: Some("2026-01-01T00:00:00.000Z".to_owned()),
        };
        std::fs::write(&lock_path, serde_json::to_vec(&dead)?)?;
        if crate::process::own_start_time().is_some() {
            assert_eq!(
                inspect_lock_file(&lock_path)?,
                Some(LockFileState::Stale(Some(dead.clone())))
            );
            assert!(remove_stale_lock(&lock_path)?);
            assert!(!lock_path.exists());
        }

        let held = WriteLock::acquire(&target, Duration::ZERO)?;
        assert!(matches!(
            inspect_lock_file(&lock_path)?,
            Some(LockFileState::Held(Some(h))) if h.pid == std::process::id()
        ));
        assert!(!remove_stale_lock(&lock_path)?);
        assert!(lock_path.exists());
        held.release()?;
        assert_eq!(inspect_lock_file(&lock_path)?, None);
        Ok(())
    }
}
