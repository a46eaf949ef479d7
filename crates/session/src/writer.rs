//! The append side of a session file: creation, one-write appends, the torn-tail cut,
//! rollback of a failed append, fsync per policy, and the write lock held while writing.
//!
//! The lock is held for the writer's *writable lifetime*: taken at the first write (or before
//! reading, for [`crate::Transcript::open_locked`]) and kept until the writer is closed or
//! dropped, not taken per write. A transcript's memory — the leaf every new entry hangs
//! from, the bytes the torn-tail cut relies on — is only true while nobody else writes;
//! per-write locking would let another process append between two of our writes and our next
//! entry would name a stale parent. Taking it at the first write rather than on open lets
//! readers open a session without waiting or leaving lock files.
//!
//! The lock only keeps out writers that take it, so every write also checks the file itself
//! against what this writer believes it holds ([`crate::on_disk`]): the first write through
//! a new handle compares the file's identity, length and last bytes with what was read or
//! written (so a stale reader never cuts or extends lines it has not seen), and every append
//! checks that the file is still at its path, not deleted or replaced, with the length this
//! writer's own writes left — before the write, and the identity once more after it, so a
//! line written into a file that lost its name is reported, never acknowledged.
//!
//! Under [`FsyncPolicy::OnTurnEnd`] the turn end's fsync runs on a background thread (see
//! [`syncer`] for why that loses nothing a process crash could not); the writer joins that
//! thread before it releases the lock, on [`Writer::close`] and on drop alike, so no fsync of
//! ours runs while another writer holds the file.

mod syncer;

use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::atomic::stage;
use crate::error::SessionError;
use crate::fsync::FsyncPolicy;
use crate::lock::WriteLock;
use crate::on_disk::{FileId, Seen, check_handle, open_seen, read_file, take_back, verify_whole};
use syncer::Syncer;

/// Where the file stands.
#[derive(Debug)]
enum State {
    /// Nothing written yet. `deferred`: wait for the first assistant message (pi's rule for
    /// new sessions); otherwise the first append creates the file.
    Unwritten { deferred: bool },
    /// The file has a valid header and `len` bytes of content this writer vouches for.
    Open {
        /// Opened, after checking the file against `seen`, by the first append.
        handle: Option<Handle>,
        /// Length after the cut; appends go after it.
        len: u64,
        /// The file as read or last written whole; the cut removes what follows `len`.
        seen: Seen,
        /// The kept content lacks its final `\n` (its last line parses but lost it).
        needs_newline: bool,
    },
}

/// The handle appends go through, and the identity of its file.
#[derive(Debug)]
struct Handle {
    file: File,
    id: Option<FileId>,
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
    /// The background fsync of turn ends under [`FsyncPolicy::OnTurnEnd`]; its thread is
    /// started by the first turn end and always holds a clone of the current append handle.
    syncer: Syncer,
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
            syncer: Syncer::default(),
        }
    }

    /// A writer for an existing file as `seen`, of which the first `keep_len` bytes are valid.
    pub(crate) fn existing(
        path: PathBuf,
        fsync: FsyncPolicy,
        lock_timeout: Duration,
        seen: Seen,
        keep_len: u64,
        needs_newline: bool,
    ) -> Self {
        Writer {
            path,
            fsync,
            state: State::Open {
                handle: None,
                len: keep_len,
                seen,
                needs_newline,
            },
            lock: None,
            lock_timeout,
            syncer: Syncer::default(),
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
    /// Refuses when the file has meanwhile appeared with content: that is someone else's. A
    /// new file is linked into place, which never replaces one that appeared at the last
    /// moment; an empty one (a session that never got its first line) is replaced.
    pub(crate) fn create(&mut self, content: &[u8]) -> Result<(), SessionError> {
        self.ensure_locked()?;
        let path = &self.path;
        let io = |action, e| SessionError::io(path, action, e);
        let mut staged =
            stage(path, content, self.fsync != FsyncPolicy::Never).map_err(|e| io("create", e))?;
        let id = staged.id();
        if !staged.create().map_err(|e| io("create", e))? {
            match std::fs::metadata(path) {
                Ok(m) if m.len() > 0 => {
                    return Err(SessionError::ChangedOnDisk {
                        path: path.clone(),
                        what: format!("it now holds {} bytes", m.len()),
                    });
                }
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(io("create", e)),
            }
            staged.replace().map_err(|e| io("create", e))?;
        }
        let len = content.len() as u64;
        self.state = State::Open {
            handle: None,
            len,
            seen: Seen::new(id, content, len),
            needs_newline: false,
        };
        Ok(())
    }

    /// Appends one complete line (ending in `\n`) with a single write.
    ///
    /// The first append through a new handle checks the file against what was read or
    /// written (identity, length, last bytes) and then cuts a torn tail off; every append
    /// checks that the file is still at the path with the length this writer left, and after
    /// the write that it still is the file at the path. A mismatch is
    /// [`SessionError::ChangedOnDisk`] and nothing is acknowledged. A failed write is rolled
    /// back to the previous length, if what it left is only its own bytes, so no partial
    /// line stays behind. `turn_end` asks for an fsync under [`FsyncPolicy::OnTurnEnd`],
    /// which runs in the background: the append returns once the line is written. A
    /// background fsync that failed since the last call is reported instead of appending
    /// (nothing is written), so the caller learns that lines it was told were appended may
    /// not survive a machine crash.
    ///
    /// Returns where `line` starts in the file.
    pub(crate) fn append(&mut self, line: &[u8], turn_end: bool) -> Result<usize, SessionError> {
        self.report_background_error()?;
        if self.is_written() {
            self.ensure_locked()?;
        }
        let path = &self.path;
        let State::Open {
            handle,
            len,
            seen,
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
        let handle = match handle {
            Some(h) => {
                check_handle(&h.file, h.id, path, Some(*len))?;
                h
            }
            None => {
                let file = open_seen(path, seen)?;
                if seen.len() != *len {
                    // Exactly the torn tail `seen` holds, checked just now.
                    file.set_len(*len).map_err(|e| io("cut torn line", e))?;
                }
                handle.insert(Handle {
                    file,
                    id: seen.id(),
                })
            }
        };
        let mut buf = Vec::with_capacity(line.len() + 1);
        if *needs_newline {
            buf.push(b'\n');
        }
        buf.extend_from_slice(line);
        if let Err(e) = (&handle.file).write_all(&buf) {
            // Take a partial line back so the file keeps ending on a whole line, but only our
            // own bytes: whatever else follows was written by someone else.
            if !matches!(take_back(&handle.file, *len, &buf), Ok(true)) {
                tracing::warn!(path = %path.display(), "a failed append may have left a partial line that could not be taken back");
            }
            return Err(io("append", e));
        }
        // A deletion or replacement that raced with the write: the line is in a file that is
        // no longer the session's, so it must not be acknowledged.
        check_handle(&handle.file, handle.id, path, None)?;
        let start = usize::try_from(*len)
            .unwrap_or(usize::MAX)
            .saturating_add(buf.len() - line.len());
        *len += buf.len() as u64;
        *needs_newline = false;
        match self.fsync {
            FsyncPolicy::Always => handle.file.sync_data().map_err(|e| io("fsync", e))?,
            // The line is in the page cache already, safe from a process crash; the fsync
            // only guards against a machine crash, and waiting for it here would cost the
            // turn end milliseconds (see `syncer`).
            FsyncPolicy::OnTurnEnd if turn_end => self
                .syncer
                .request(&handle.file)
                .map_err(|e| io("start background fsync", e))?,
            FsyncPolicy::OnTurnEnd | FsyncPolicy::Never => {}
        }
        Ok(start)
    }

    /// Returns a background fsync failure not reported yet as an error.
    fn report_background_error(&self) -> Result<(), SessionError> {
        match self.syncer.take_error() {
            Some(e) => Err(SessionError::io(&self.path, "background fsync", e)),
            None => Ok(()),
        }
    }

    /// Replaces the whole file with `content` (header first) through write-temp-then-rename,
    /// under the lock. `expected` is the whole file as this writer read it.
    ///
    /// Refuses when the file is no longer the one read or no longer holds exactly `expected`:
    /// it holds lines this writer has not seen.
    pub(crate) fn rewrite(&mut self, content: &[u8], expected: &[u8]) -> Result<(), SessionError> {
        self.ensure_locked()?;
        let path = &self.path;
        let State::Open { seen, .. } = &self.state else {
            return Err(SessionError::io(
                path,
                "rewrite",
                std::io::Error::other("the session file has not been created yet"),
            ));
        };
        let staged = stage(path, content, self.fsync != FsyncPolicy::Never)
            .map_err(|e| SessionError::io(path, "rewrite", e))?;
        let id = staged.id();
        verify_whole(path, seen.id(), expected)?;
        // The syncer's handle is about to name the replaced file; let it finish with it (a
        // failure stays kept for the next append, sync or close).
        self.syncer.finish();
        staged
            .replace()
            .map_err(|e| SessionError::io(path, "rewrite", e))?;
        let len = content.len() as u64;
        // The rename replaced the file: a descriptor opened before would append to the old one.
        self.state = State::Open {
            handle: None,
            len,
            seen: Seen::new(id, content, len),
            needs_newline: false,
        };
        Ok(())
    }

    /// The whole file as it is now, read under the write lock (taken if not held yet), after
    /// checking that it is exactly the file this writer read and wrote: the same file at the
    /// path, with the length its own appends left (or, before its first append, the length and
    /// last bytes it read). Anything else is [`SessionError::ChangedOnDisk`].
    pub(crate) fn read_verified(&mut self) -> Result<Vec<u8>, SessionError> {
        self.ensure_locked()?;
        let path = &self.path;
        let State::Open {
            handle, len, seen, ..
        } = &self.state
        else {
            return Err(SessionError::io(
                path,
                "read back",
                std::io::Error::other("the session file has not been created yet"),
            ));
        };
        let now = read_file(path)?.ok_or_else(|| SessionError::ChangedOnDisk {
            path: path.clone(),
            what: "it was deleted or moved away".to_owned(),
        })?;
        match handle {
            Some(h) => {
                check_handle(&h.file, h.id, path, Some(*len))?;
                // The read went through a handle of its own: the file it read must be the one
                // appended to, with exactly the bytes those appends left.
                if h.id.is_some() && now.id != h.id {
                    return Err(SessionError::ChangedOnDisk {
                        path: path.clone(),
                        what: "another file was put in its place".to_owned(),
                    });
                }
                if now.bytes.len() as u64 != *len {
                    return Err(SessionError::ChangedOnDisk {
                        path: path.clone(),
                        what: format!(
                            "{len} bytes after this session's last write, {} now: another writer changed it",
                            now.bytes.len()
                        ),
                    });
                }
            }
            None => seen.check_content(now.id, &now.bytes, path)?,
        }
        Ok(now.bytes)
    }

    /// Syncs per policy and releases the write lock, removing its file, reporting what fails
    /// (a background fsync failure included).
    ///
    /// The background fsync thread is joined first, so it never runs without the lock.
    pub(crate) fn close(&mut self) -> Result<(), SessionError> {
        let synced = self.sync();
        let released = self.release_lock();
        synced.and(released)
    }

    /// Releases the write lock as dropping the writer would (the background fsync in flight is
    /// waited for first; lines appended since the last turn end are not synced), keeping the
    /// append handle for [`Writer::resume`]. A later write takes the lock again.
    pub(crate) fn release_lock(&mut self) -> Result<(), SessionError> {
        self.syncer.finish();
        self.lock.take().map_or(Ok(()), WriteLock::release)
    }

    /// Takes up the file again under `lock` after [`Writer::release_lock`]: when it is still
    /// the file this writer appends through, at the path, with exactly the length its own
    /// writes left and no background fsync failure to report, keeps the lock and returns a
    /// second handle to read it through. Otherwise (nothing written through a handle yet,
    /// another writer appended, cut, replaced or deleted it) gives the lock back.
    pub(crate) fn resume(
        &mut self,
        lock: WriteLock,
        fsync: FsyncPolicy,
        lock_timeout: Duration,
    ) -> Result<File, WriteLock> {
        let State::Open {
            handle: Some(handle),
            len,
            ..
        } = &self.state
        else {
            return Err(lock);
        };
        if self.lock.is_some()
            || self.syncer.has_error()
            || check_handle(&handle.file, handle.id, &self.path, Some(*len)).is_err()
        {
            return Err(lock);
        }
        let Ok(reader) = handle.file.try_clone() else {
            return Err(lock);
        };
        self.lock = Some(lock);
        self.fsync = fsync;
        self.lock_timeout = lock_timeout;
        Ok(reader)
    }

    /// Forces appended lines to stable storage and returns once they are there (no-op before
    /// the first append or under [`FsyncPolicy::Never`]).
    ///
    /// Waits for the background fsync in flight, reports its failure if it failed (or one
    /// not reported yet), then fsyncs here: that covers every line written, turn end or not.
    pub(crate) fn sync(&mut self) -> Result<(), SessionError> {
        // Joined even under `Never` (where it never starts) so `close` can rely on it.
        self.syncer.finish();
        let background = self.report_background_error();
        // Synced even after a background failure: what can still be made durable should be.
        let synced = match &self.state {
            State::Open {
                handle: Some(h), ..
            } if self.fsync != FsyncPolicy::Never => h
                .file
                .sync_data()
                .map_err(|e| SessionError::io(&self.path, "fsync", e)),
            _ => Ok(()),
        };
        background.and(synced)
    }
}

impl Drop for Writer {
    /// Joins the background fsync thread while the lock is still held (the fields, the lock
    /// among them, are dropped after this), waiting for the fsync in flight, so the fsync a
    /// turn end asked for is done before another writer can get the file. Unlike
    /// [`Writer::close`] it does not fsync lines appended after the last turn end, and a
    /// failure can only be logged.
    fn drop(&mut self) {
        self.syncer.finish();
        if let Some(e) = self.syncer.take_error() {
            tracing::warn!(path = %self.path.display(), error = %e, "background fsync of the session file failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::lock::lock_path_for;

    /// A written file (header line only) with the given policy, lock not taken yet.
    fn writer(fsync: FsyncPolicy) -> (tempfile::TempDir, Writer) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut w = Writer::unwritten(path, fsync, Duration::from_secs(1), false);
        w.create(b"{\"type\":\"session\"}\n").unwrap();
        (dir, w)
    }

    fn completed(w: &Writer) -> u64 {
        w.syncer.hooks().completed.load(Ordering::SeqCst)
    }

    #[test]
    fn only_a_turn_end_under_on_turn_end_starts_the_background_fsync() {
        let (_dir, mut w) = writer(FsyncPolicy::OnTurnEnd);
        w.append(b"a\n", false).unwrap();
        assert_eq!(completed(&w), 0);
        w.append(b"b\n", true).unwrap();
        w.sync().unwrap();
        assert_eq!(completed(&w), 1);
        for fsync in [FsyncPolicy::Always, FsyncPolicy::Never] {
            let (_dir, mut w) = writer(fsync);
            w.append(b"a\n", true).unwrap();
            w.close().unwrap();
            assert_eq!(completed(&w), 0, "{fsync}");
        }
    }

    #[test]
    fn close_waits_for_the_turn_end_fsync_before_releasing_the_lock() {
        let (_dir, mut w) = writer(FsyncPolicy::OnTurnEnd);
        let hooks = w.syncer.hooks();
        hooks.delay_ms.store(100, Ordering::SeqCst);
        w.append(b"turn end\n", true).unwrap();
        // The append did not wait for the slow fsync.
        assert_eq!(hooks.completed.load(Ordering::SeqCst), 0);
        let lock_path = lock_path_for(w.path());
        assert!(lock_path.exists());
        w.close().unwrap();
        assert_eq!(hooks.completed.load(Ordering::SeqCst), 1);
        assert!(!lock_path.exists());
    }

    #[test]
    fn drop_waits_for_the_turn_end_fsync_too() {
        let (_dir, mut w) = writer(FsyncPolicy::OnTurnEnd);
        let hooks = w.syncer.hooks();
        hooks.delay_ms.store(100, Ordering::SeqCst);
        w.append(b"turn end\n", true).unwrap();
        let lock_path = lock_path_for(w.path());
        drop(w);
        assert_eq!(hooks.completed.load(Ordering::SeqCst), 1);
        assert!(!lock_path.exists());
    }

    #[test]
    fn a_failed_background_fsync_is_reported_by_the_next_append_which_writes_nothing() {
        let (_dir, mut w) = writer(FsyncPolicy::OnTurnEnd);
        w.syncer.hooks().fail_next.store(true, Ordering::SeqCst);
        w.append(b"a\n", true).unwrap();
        // Let the thread run its (failing) fsync; a rewrite would, too.
        w.syncer.finish();
        let before = std::fs::read(w.path()).unwrap();
        let err = w.append(b"b\n", false).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("background fsync failed"), "{text}");
        assert!(text.contains("injected fsync failure"), "{text}");
        assert_eq!(std::fs::read(w.path()).unwrap(), before);
        // Reported once; the session goes on.
        w.append(b"b\n", true).unwrap();
        w.close().unwrap();
        assert!(std::fs::read(w.path()).unwrap().ends_with(b"a\nb\n"));
    }

    #[test]
    fn a_failed_background_fsync_is_reported_by_sync_and_by_close() {
        let (_dir, mut w) = writer(FsyncPolicy::OnTurnEnd);
        w.syncer.hooks().fail_next.store(true, Ordering::SeqCst);
        w.append(b"a\n", true).unwrap();
        // `sync` waits for the fsync in flight, so the failure cannot slip past it.
        let err = w.sync().unwrap_err();
        assert!(err.to_string().contains("injected fsync failure"), "{err}");
        w.sync().unwrap();

        w.syncer.hooks().fail_next.store(true, Ordering::SeqCst);
        w.append(b"b\n", true).unwrap();
        let lock_path = lock_path_for(w.path());
        let err = w.close().unwrap_err();
        assert!(err.to_string().contains("injected fsync failure"), "{err}");
        // The lock is released all the same.
        assert!(!lock_path.exists());
    }

    #[test]
    fn a_rewrite_refuses_content_changed_behind_its_back_and_writes_nothing() {
        let (_dir, mut w) = writer(FsyncPolicy::Never);
        let read = std::fs::read(w.path()).unwrap();
        // Same length, other bytes, same file: only the content tells.
        let edited = b"{\"type\":\"Session\"}\n";
        assert_eq!(edited.len(), read.len());
        std::fs::write(w.path(), edited).unwrap();
        let err = w
            .rewrite(b"{\"type\":\"session\"}\nr\n", &read)
            .unwrap_err();
        assert!(
            matches!(&err, SessionError::ChangedOnDisk { what, .. } if what == "its content is not the one read, though its length is the same"),
            "{err:?}"
        );
        assert_eq!(std::fs::read(w.path()).unwrap(), edited);
        let names: Vec<_> = std::fs::read_dir(w.path().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    }

    #[test]
    fn a_rewrite_hands_the_syncer_the_new_file() {
        let (_dir, mut w) = writer(FsyncPolicy::OnTurnEnd);
        w.append(b"a\n", true).unwrap();
        let before = std::fs::read(w.path()).unwrap();
        w.rewrite(b"{\"type\":\"session\"}\nr\n", &before).unwrap();
        assert_eq!(completed(&w), 1);
        w.append(b"b\n", true).unwrap();
        w.close().unwrap();
        assert_eq!(completed(&w), 2);
        assert_eq!(
            std::fs::read(w.path()).unwrap(),
            b"{\"type\":\"session\"}\nr\nb\n"
        );
    }
}
