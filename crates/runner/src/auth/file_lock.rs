//! The auth store's writer lock: one read-modify-write at a time, across threads and
//! processes.
//!
//! An exclusive OS lock (std [`File::try_lock`]; `flock(2)` on Unix, `LockFileEx` on Windows)
//! on a sibling file that is never deleted or replaced, so every writer locks the same inode.
//! The data files themselves are replaced by rename on every write and cannot carry the lock.
//! The kernel releases the lock when its holder exits, however it exits, so there are no
//! stale locks to detect. Every acquisition opens the file anew, and the lock belongs to that
//! open file description, so two threads of one process exclude each other too.
//!
//! Acquiring **blocks** the calling thread, polling with short sleeps (1 ms doubling to
//! 25 ms) until the timeout. Async code must call it from a blocking context
//! (`tokio::task::spawn_blocking`), never on a runtime worker.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use clawloop_core::auth_store::AuthStoreError;

const FIRST_POLL: Duration = Duration::from_millis(1);
const MAX_POLL: Duration = Duration::from_millis(25);

/// A held lock; dropping it releases the lock.
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
}

/// Takes the exclusive lock on `path` (creating the file, mode 0600), waiting at most
/// `timeout`.
pub fn acquire(path: &Path, timeout: Duration) -> Result<StoreLock, AuthStoreError> {
    let file = open_lock_file(path)?;
    let start = Instant::now();
    let mut pause = FIRST_POLL;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(StoreLock { _file: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(source)) => {
                return Err(AuthStoreError::Io {
                    action: "lock",
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
        let waited = start.elapsed();
        if waited >= timeout {
            return Err(AuthStoreError::LockTimeout {
                path: path.to_path_buf(),
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            });
        }
        thread::sleep(pause.min(timeout.saturating_sub(waited)));
        pause = (pause * 2).min(MAX_POLL);
    }
}

fn open_lock_file(path: &Path) -> Result<File, AuthStoreError> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path).map_err(|source| AuthStoreError::Io {
        action: "open the lock file",
        path: PathBuf::from(path),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_times_out_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = acquire(&path, Duration::from_secs(1)).unwrap();
        match acquire(&path, Duration::ZERO) {
            Err(AuthStoreError::LockTimeout { path: p, .. }) => assert_eq!(p, path),
            other => panic!("expected a timeout, got {other:?}"),
        }
        drop(held);
        acquire(&path, Duration::ZERO).unwrap();
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/x.lock");
        let err = acquire(&path, Duration::ZERO).unwrap_err();
        assert!(err.to_string().contains("no/such/dir/x.lock"), "{err}");
    }
}
