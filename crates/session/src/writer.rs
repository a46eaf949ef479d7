//! The append side of a session file: creation, one-write appends, the torn-tail cut,
//! rollback of a failed append, fsync per policy, and the write lock held while writing.
//!
//! The lock is held for the writer's *writable lifetime*: taken at the first write (or before
//! reading, for [`crate::Transcript::open_locked`]) and kept until the writer is closed or
//! dropped, not taken per write. A transcript's memory — the leaf every new entry hangs
//! from, the byte length the torn-tail cut relies on — is only true while nobody else
//! writes; per-write locking would let another process append between two of our writes and
//! our next entry would name a stale parent. Taking it at the first write rather than on open
//! lets readers open a session without waiting or leaving lock files; the length check on
//! the first write then refuses to write over anything appended since the file was read.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::atomic::write_atomic;
use crate::error::SessionError;
use crate::fsync::FsyncPolicy;
use crate::lock::WriteLock;

/// Where the file stands.
#[derive(Debug)]
enum State {
    /// Nothing written yet. `deferred`: wait for the first assistant message (pi's rule for
    /// new sessions); otherwise the first append creates the file.
    Unwritten { deferred: bool },
    /// The file has a valid header and `len` bytes of content this writer vouches for.
    Open {
        /// Opened on the first append.
        file: Option<File>,
        /// Length after the cut; appends go after it.
        len: u64,
        /// The length the file had when it was read; it must still have it when cut.
        seen_len: u64,
        /// The kept content lacks its final `\n` (a header-only file).
        needs_newline: bool,
    },
}

/// Appends lines to one session file.
#[derive(Debug)]
pub(crate) struct Writer {
    path: PathBuf,
    fsync: FsyncPolicy,
    state: State,
    /// The file's write lock, once taken; see the module comment.
    lock: Option<WriteLock>,
    /// How long taking the lock may wait.
    lock_timeout: Duration,
}

impl Writer {
    /// A writer for a session not on disk yet.
    pub(crate) fn unwritten(
        path: PathBuf,
        fsync: FsyncPolicy,
        lock_timeout: Duration,
        deferred: bool,
    ) -> Self {
        Writer {
            path,
            fsync,
            state: State::Unwritten { deferred },
            lock: None,
            lock_timeout,
        }
    }

    /// A writer for an existing file of `seen_len` bytes whose first `keep_len` are valid.
    pub(crate) fn existing(
        path: PathBuf,
        fsync: FsyncPolicy,
        lock_timeout: Duration,
        keep_len: u64,
        seen_len: u64,
        needs_newline: bool,
    ) -> Self {
        Writer {
            path,
            fsync,
            state: State::Open {
                file: None,
                len: keep_len,
                seen_len,
                needs_newline,
            },
            lock: None,
            lock_timeout,
        }
    }

    /// Hands the writer a lock taken before the file was read.
    pub(crate) fn with_lock(mut self, lock: Option<WriteLock>) -> Self {
        self.lock = lock;
        self
    }

    /// Whether this writer holds the file's write lock.
    pub(crate) fn holds_lock(&self) -> bool {
        self.lock.is_some()
    }

    /// Takes the write lock unless already held, waiting up to the timeout.
    fn ensure_locked(&mut self) -> Result<(), SessionError> {
        if self.lock.is_none() {
            self.lock = Some(WriteLock::acquire(&self.path, self.lock_timeout)?);
        }
        Ok(())
    }

    /// Whether the file exists with a header written or read by this session.
    pub(crate) fn is_written(&self) -> bool {
        matches!(self.state, State::Open { .. })
    }

    /// Makes an unwritten file wait for the first assistant message, even if an empty file
    /// exists at the path (a fork's target).
    pub(crate) fn set_deferred(&mut self) {
        if let State::Unwritten { deferred } = &mut self.state {
            *deferred = true;
        }
    }

    /// Whether creation waits for the first assistant message.
    pub(crate) fn is_deferred(&self) -> bool {
        matches!(self.state, State::Unwritten { deferred: true })
    }

    /// The path written to.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the file with `content` (header and first entries) in one atomic step.
    ///
    /// Refuses when the file has meanwhile appeared with content: that is someone else's.
    pub(crate) fn create(&mut self, content: &[u8]) -> Result<(), SessionError> {
        self.ensure_locked()?;
        match std::fs::metadata(&self.path) {
            Ok(m) if m.len() > 0 => {
                return Err(SessionError::ChangedOnDisk {
                    path: self.path.clone(),
                    what: format!("it now holds {} bytes", m.len()),
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(SessionError::io(&self.path, "create", e)),
        }
        write_atomic(&self.path, content, self.fsync != FsyncPolicy::Never)
            .map_err(|e| SessionError::io(&self.path, "create", e))?;
        let len = content.len() as u64;
        self.state = State::Open {
            file: None,
            len,
            seen_len: len,
            needs_newline: false,
        };
        Ok(())
    }

    /// Appends one complete line (ending in `\n`) with a single write.
    ///
    /// The first append after opening cuts a torn tail off. A failed write is rolled back to
    /// the previous length so no partial line stays behind. `turn_end` asks for an fsync under
    /// [`FsyncPolicy::OnTurnEnd`].
    pub(crate) fn append(&mut self, line: &[u8], turn_end: bool) -> Result<(), SessionError> {
        if self.is_written() {
            self.ensure_locked()?;
        }
        let path = &self.path;
        let State::Open {
            file,
            len,
            seen_len,
            needs_newline,
        } = &mut self.state
        else {
            return Err(SessionError::io(
                path,
                "append",
                std::io::Error::other("the session file has not been created yet"),
            ));
        };
        let io = |action, e| SessionError::io(path, action, e);
        let f = match file {
            Some(f) => f,
            None => {
                let f = OpenOptions::new()
                    .append(true)
                    .open(path)
                    .map_err(|e| io("open for append", e))?;
                let actual = f.metadata().map_err(|e| io("stat", e))?.len();
                if actual != *seen_len {
                    return Err(SessionError::ChangedOnDisk {
                        path: path.clone(),
                        what: format!("{seen_len} bytes when read, {actual} now"),
                    });
                }
                if actual != *len {
                    f.set_len(*len).map_err(|e| io("cut torn line", e))?;
                }
                file.insert(f)
            }
        };
        let mut buf = Vec::with_capacity(line.len() + 1);
        if *needs_newline {
            buf.push(b'\n');
        }
        buf.extend_from_slice(line);
        if let Err(e) = f.write_all(&buf) {
            // Best effort: take a partial line back so the file keeps ending on a whole line.
            let _ = f.set_len(*len);
            return Err(io("append", e));
        }
        *len += buf.len() as u64;
        *seen_len = *len;
        *needs_newline = false;
        let sync = match self.fsync {
            FsyncPolicy::Always => true,
            FsyncPolicy::OnTurnEnd => turn_end,
            FsyncPolicy::Never => false,
        };
        if sync {
            f.sync_data().map_err(|e| io("fsync", e))?;
        }
        Ok(())
    }

    /// Replaces the whole file with `content` (header first) through write-temp-then-rename,
    /// under the lock.
    ///
    /// Refuses when the file no longer has the length it had when read or last written: it
    /// holds lines this writer has not seen.
    pub(crate) fn rewrite(&mut self, content: &[u8]) -> Result<(), SessionError> {
        self.ensure_locked()?;
        let path = &self.path;
        let State::Open { seen_len, .. } = &self.state else {
            return Err(SessionError::io(
                path,
                "rewrite",
                std::io::Error::other("the session file has not been created yet"),
            ));
        };
        let actual = std::fs::metadata(path)
            .map_err(|e| SessionError::io(path, "stat", e))?
            .len();
        if actual != *seen_len {
            return Err(SessionError::ChangedOnDisk {
                path: path.clone(),
                what: format!("{seen_len} bytes when read, {actual} now"),
            });
        }
        write_atomic(path, content, self.fsync != FsyncPolicy::Never)
            .map_err(|e| SessionError::io(path, "rewrite", e))?;
        let len = content.len() as u64;
        // The rename replaced the file: a descriptor opened before would append to the old one.
        self.state = State::Open {
            file: None,
            len,
            seen_len: len,
            needs_newline: false,
        };
        Ok(())
    }

    /// Syncs per policy and releases the write lock, removing its file, reporting what fails.
    pub(crate) fn close(&mut self) -> Result<(), SessionError> {
        let synced = self.sync();
        let released = self.lock.take().map_or(Ok(()), WriteLock::release);
        synced.and(released)
    }

    /// Forces appended lines to stable storage (no-op before the first append or under
    /// [`FsyncPolicy::Never`]).
    pub(crate) fn sync(&mut self) -> Result<(), SessionError> {
        if self.fsync == FsyncPolicy::Never {
            return Ok(());
        }
        if let State::Open { file: Some(f), .. } = &self.state {
            f.sync_data()
                .map_err(|e| SessionError::io(&self.path, "fsync", e))?;
        }
        Ok(())
    }
}
