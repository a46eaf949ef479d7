//! The write lock of a session file (or of `sessions.json`): one writer at a time, across
//! processes and within one (SPEC §5).
//!
//! The lock is a sibling file `<file>.lock` (`s.jsonl` → `s.jsonl.lock`) on which the holder
//! keeps an exclusive OS lock (std [`File::try_lock`], `flock(2)` on Linux). A sibling rather
//! than the file itself because migrations and rewrites replace the session file by renaming
//! over it, which would silently drop a lock held on the old inode.
//!
//! * **Across processes** the OS lock does the excluding, and the kernel drops it when the
//!   holder dies, however it dies. **Within a process** it excludes too: the lock belongs to
//!   the open file description, and every acquisition opens the file anew.
//! * **Who holds it**: the holder writes `{"pid","startTime"?,"createdAt"}` into the file, so a
//!   waiter that gives up can name it, and so a lock file that outlived its writer can be told
//!   from a live one. The OS lock is the authority; the record decides only when the OS lock is
//!   free but the file names a live process — a writer that locks by the file's existence
//!   alone, as OpenClaw's `.lock` files do. Such a holder is waited for; a record of a dead
//!   process, or of a pid since reused (the start time differs), is taken over.
//! * **Clean release** (drop or [`WriteLock::release`]) removes the file while still holding
//!   the OS lock. A waiter that had opened the old file and locks it afterwards sees that the
//!   path no longer leads to what it locked and starts over, so two holders never coexist.
//!
//! Waiting polls with short sleeps (1 ms doubling to 20 ms) until the timeout.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::SessionError;
use crate::process::{Liveness, liveness, own_start_time};
use crate::time::format_iso;

mod stale;
mod wait_async;

pub use stale::{LockFileState, inspect_lock_file, remove_stale_lock};

/// How long a writer waits for another one by default (OpenClaw's session lock waits 10 s).
pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// The first pause between two attempts; it doubles up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(1);
/// The longest pause between two attempts: a released lock is noticed within this.
const MAX_POLL: Duration = Duration::from_millis(20);
/// More than any record this crate or OpenClaw writes; a bigger file is not a lock record.
const MAX_RECORD_BYTES: u64 = 4096;

/// The process recorded in a lock file: the one holding it, or the last one that did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockHolder {
    /// Its process id.
    pub pid: u32,
    /// Its start time in clock ticks since boot (`/proc/<pid>/stat` field 22); only on Linux.
    /// Tells a live holder from an unrelated process that was given the same pid later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<u64>,
    /// When it took the lock, ISO-8601 (OpenClaw's field name; its store lock says
    /// `startedAt`, read as an alias).
    #[serde(default, alias = "startedAt", skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

impl LockHolder {
    /// This process, taking a lock now.
    fn me() -> Self {
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        LockHolder {
            pid: std::process::id(),
            start_time: own_start_time(),
            created_at: Some(format_iso(now_ms)),
        }
    }

    /// Whether this is the calling process (another handle of this process holds the lock).
    pub fn is_this_process(&self) -> bool {
        self.pid == std::process::id()
            && self.start_time.is_none_or(|t| Some(t) == own_start_time())
    }
}

/// How a holder is named in [`SessionError::Locked`].
pub(crate) fn describe_holder(holder: Option<&LockHolder>) -> String {
    let Some(h) = holder else {
        return "another writer that has not recorded itself yet".to_owned();
    };
    let mut text = format!("pid {}", h.pid);
    if h.is_this_process() {
        text.push_str(" (this process)");
    }
    if let Some(since) = &h.created_at {
        text.push_str(&format!(", holding it since {since}"));
    }
    text
}

/// The lock file of `target`: `<target>.lock`.
pub fn lock_path_for(target: &Path) -> PathBuf {
    let mut name = target
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".lock");
    target.with_file_name(name)
}

/// An exclusive write lock on a file, released (and its lock file removed) on drop.
#[derive(Debug)]
pub struct WriteLock {
    /// The open lock file; the OS lock lives as long as it does.
    file: File,
    /// `<target>.lock`.
    lock_path: PathBuf,
    /// The file the lock protects.
    target: PathBuf,
    /// Set once released, so drop does nothing more.
    released: bool,
}

/// The outcome of one attempt.
enum Attempt {
    Acquired(WriteLock),
    /// Held; by the recorded process, if it recorded itself.
    Busy(Option<LockHolder>),
    /// The lock file was replaced under us; try again at once.
    Retry,
}

impl WriteLock {
    /// Takes the write lock of `target`, waiting up to `timeout` for a live holder.
    ///
    /// A lock left behind by a dead process is taken over. After `timeout` (zero: a single
    /// attempt) fails with [`SessionError::Locked`] naming the holder. The lock file's
    /// directory must exist.
    pub fn acquire(target: &Path, timeout: Duration) -> Result<Self, SessionError> {
        let lock_path = lock_path_for(target);
        let started = Instant::now();
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
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(MAX_POLL);
        }
    }

    /// The file this lock protects.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The lock file (`<target>.lock`).
    pub fn lock_path(&self) -> &Path {
        &self.lock_path
    }

    /// Releases the lock and removes its file, reporting a failure to remove it (dropping
    /// the lock does the same silently).
    pub fn release(mut self) -> Result<(), SessionError> {
        self.release_inner()
            .map_err(|e| SessionError::io(&self.lock_path, "remove lock file", e))
    }

    fn release_inner(&mut self) -> io::Result<()> {
        if std::mem::replace(&mut self.released, true) {
            return Ok(());
        }
        // Removed while the OS lock is still ours: see the module comment. Only if the path
        // still leads to our file; a writer that broke the lock may have put its own there.
        let mut result = Ok(());
        if is_same_file(&self.file, &self.lock_path) {
            match fs::remove_file(&self.lock_path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    // At least withdraw the claim, so no one waits on a live pid that holds
                    // nothing.
                    let _ = self.file.set_len(0);
                    result = Err(e);
                }
            }
        }
        // Closing the file would release it too; unlocking explicitly makes the order plain.
        let _ = self.file.unlock();
        result
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        if let Err(e) = self.release_inner() {
            tracing::warn!(lock = %self.lock_path.display(), error = %e, "could not remove the lock file");
        }
    }
}

/// One try at the lock.
fn attempt(target: &Path, lock_path: &Path) -> Result<Attempt, SessionError> {
    let io = |action, e| SessionError::io(lock_path, action, e);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .map_err(|e| io("open lock file", e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => return Ok(Attempt::Busy(read_holder(&mut file))),
        Err(TryLockError::Error(e)) => return Err(io("lock", e)),
    }
    if !is_same_file(&file, lock_path) {
        // Its holder released it and removed it between our open and our lock.
        return Ok(Attempt::Retry);
    }
    if let Some(recorded) = read_holder(&mut file)
        && !recorded.is_this_process()
        && liveness(recorded.pid, recorded.start_time) == Liveness::Alive
    {
        // Free to the OS yet claimed by a live process: a writer that does not use OS locks.
        // Dropping `file` lets go of our OS lock again.
        return Ok(Attempt::Busy(Some(recorded)));
    }
    // Free, or left by a dead process (or by a pid that has been reused): ours now.
    write_holder(&mut file, &LockHolder::me()).map_err(|e| io("write lock file", e))?;
    Ok(Attempt::Acquired(WriteLock {
        file,
        lock_path: lock_path.to_owned(),
        target: target.to_owned(),
        released: false,
    }))
}

/// The record in a lock file; `None` when it is empty, being written, or not a record.
fn read_holder(file: &mut File) -> Option<LockHolder> {
    file.seek(SeekFrom::Start(0)).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn write_holder(file: &mut File, holder: &LockHolder) -> io::Result<()> {
    let bytes = serde_json::to_vec(holder).map_err(io::Error::other)?;
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    // No fsync: the record only matters while processes run; after a machine crash every OS
    // lock is gone and a stale or empty record is taken over.
    file.write_all(&bytes)
}

/// Whether `path` still names the file `file` has open.
#[cfg(unix)]
fn is_same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still names the file `file` has open. Without stable file ids in std, this
/// can only check that something is there; Windows does not let an open file be replaced
/// anyway unless it was opened for sharing deletes.
#[cfg(not(unix))]
fn is_same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_path_is_a_sibling_with_lock_appended() {
        assert_eq!(
            lock_path_for(Path::new("/a/b/s.jsonl")),
            Path::new("/a/b/s.jsonl.lock")
        );
        assert_eq!(
            lock_path_for(Path::new("sessions.json")),
            Path::new("sessions.json.lock")
        );
    }

    #[test]
    fn records_are_openclaw_compatible_json() {
        let h: LockHolder =
            serde_json::from_str(r#"{"pid":12,"createdAt":"2026-01-01T00:00:00.000Z"}"#).unwrap();
        assert_eq!(h.pid, 12);
        assert_eq!(h.start_time, None);
        let h: LockHolder =
            serde_json::from_str(r#"{"pid":12,"startedAt":"x","other":true}"#).unwrap();
        assert_eq!(h.created_at.as_deref(), Some("x"));
        let me = LockHolder::me();
        let text = serde_json::to_string(&me).unwrap();
        assert!(
            text.starts_with(&format!("{{\"pid\":{}", std::process::id())),
            "{text}"
        );
        assert!(me.is_this_process());
    }

    #[test]
    fn holders_are_described_for_humans() {
        assert_eq!(
            describe_holder(Some(&LockHolder {
                pid: u32::MAX,
                start_time: None,
                created_at: Some("2026-01-01T00:00:00.000Z".into()),
            })),
            "pid 4294967295, holding it since 2026-01-01T00:00:00.000Z"
        );
        assert!(describe_holder(Some(&LockHolder::me())).contains("(this process)"));
        assert!(describe_holder(None).contains("not recorded"));
    }
}
