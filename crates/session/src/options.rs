//! How a transcript is opened.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::clock::{Clock, SystemClock};

use crate::fsync::FsyncPolicy;
use crate::lock::DEFAULT_LOCK_TIMEOUT;

/// Options of [`crate::Transcript::open`].
///
/// `cwd`, `session_id` and `parent_session` only shape the header of a *new* session (a path
/// that does not exist or an empty file); an existing file keeps its own.
#[derive(Clone)]
pub struct SessionOptions {
    /// When appended lines are fsynced (default [`FsyncPolicy::OnTurnEnd`], whose fsync runs
    /// in the background and whose failures are reported by the next append, sync or close;
    /// see there).
    pub fsync: FsyncPolicy,
    /// The clock that stamps entries and new headers.
    pub clock: Arc<dyn Clock>,
    /// Header `cwd` of a new session; default: the process's current directory.
    pub cwd: Option<String>,
    /// Header `id` of a new session; default: a random UUID v4.
    pub session_id: Option<String>,
    /// Header `parentSession` of a new session (the file it was forked from).
    pub parent_session: Option<String>,
    /// How long a write waits for another writer's lock on the file before failing with
    /// [`crate::SessionError::Locked`] (default [`DEFAULT_LOCK_TIMEOUT`]).
    pub lock_timeout: Duration,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            fsync: FsyncPolicy::default(),
            clock: Arc::new(SystemClock),
            cwd: None,
            session_id: None,
            parent_session: None,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
        }
    }
}

impl fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionOptions")
            .field("fsync", &self.fsync)
            .field("now_ms", &self.clock.now_ms())
            .field("cwd", &self.cwd)
            .field("session_id", &self.session_id)
            .field("parent_session", &self.parent_session)
            .field("lock_timeout", &self.lock_timeout)
            .finish()
    }
}
