//! Keeping a transcript between turns: a conversation that goes on in one process need not
//! read its whole file again for every turn.

use super::{OpenReport, Transcript};
use crate::blocking::run_blocking;
use crate::entry_list::Source;
use crate::error::SessionError;
use crate::lock::WriteLock;
use crate::options::SessionOptions;

impl Transcript {
    /// Releases the write lock as dropping the transcript would, but keeps the transcript, so
    /// the session can be taken up again by [`Transcript::resume_locked`] without reading the
    /// file again. A write before that takes the lock again, as after [`Transcript::open`].
    pub fn release_lock(&mut self) -> Result<(), SessionError> {
        self.writer.release_lock()
    }

    /// Takes the write lock again and returns what [`Transcript::open_locked`] of the same
    /// path would.
    ///
    /// When the file is still exactly what this transcript last wrote — the file it appends
    /// through, at the path, with the length its own appends left — that is this transcript,
    /// with the leaf back on the last entry, its messages untyped again (read back from the
    /// file when asked for, so a transcript kept for a long conversation holds its tree, not
    /// its history) and an empty [`Transcript::report`]. Otherwise (nothing appended through
    /// it yet, or another writer appended, cut, replaced or deleted the file) the file is
    /// opened anew under the lock.
    pub fn resume_locked(mut self, options: SessionOptions) -> Result<Transcript, SessionError> {
        self.release_lock()?;
        let lock = WriteLock::acquire(self.path(), options.lock_timeout)?;
        self.resume_with(options, lock)
    }

    /// [`Transcript::resume_locked`] for async callers: the lock is waited for on the Tokio
    /// timer and the file checked (or read) on the runtime's blocking pool.
    pub async fn resume_locked_async(
        mut self,
        options: SessionOptions,
    ) -> Result<Transcript, SessionError> {
        let path = self.path().to_path_buf();
        if self.holds_lock() {
            self = run_blocking(&path, move || self.release_lock().map(|()| self)).await?;
        }
        let lock = WriteLock::acquire_async(&path, options.lock_timeout).await?;
        run_blocking(&path, move || self.resume_with(options, lock)).await
    }

    fn resume_with(
        mut self,
        options: SessionOptions,
        lock: WriteLock,
    ) -> Result<Transcript, SessionError> {
        match self
            .writer
            .resume(lock, options.fsync, options.lock_timeout)
        {
            Ok(reader) => {
                self.entries.forget_messages(Source::File(reader));
                self.leaf = self.entries.len().checked_sub(1);
                self.clock = options.clock;
                self.report = OpenReport::default();
                Ok(self)
            }
            Err(lock) => {
                let path = self.path().to_path_buf();
                drop(self);
                Self::open_with(path, options, Some(lock))
            }
        }
    }
}
