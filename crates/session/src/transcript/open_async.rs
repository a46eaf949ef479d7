//! Opening a transcript under its write lock from async code.

use std::path::Path;

use super::Transcript;
use crate::blocking::run_blocking;
use crate::error::SessionError;
use crate::lock::WriteLock;
use crate::options::SessionOptions;

impl Transcript {
    /// [`Transcript::open_locked`] for async callers: the lock is waited for on the Tokio
    /// timer ([`WriteLock::acquire_async`]) and the file is read on the runtime's blocking
    /// pool, so neither blocks a runtime worker thread.
    ///
    /// Must be awaited within a Tokio runtime with its timer enabled.
    pub async fn open_locked_async(
        path: impl AsRef<Path>,
        options: SessionOptions,
    ) -> Result<Self, SessionError> {
        let path = path.as_ref().to_path_buf();
        let lock = WriteLock::acquire_async(&path, options.lock_timeout).await?;
        let target = path.clone();
        run_blocking(&path, move || Self::open_with(target, options, Some(lock))).await
    }
}
