//! The errors of opening and writing a session file.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Reading or writing the file failed.
    #[error("session file {}: {action} failed: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done (`read`, `append`, `rewrite`, …).
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The file has content but no valid session header; it is left untouched.
    #[error(
        "{} is not a session file ({reason}); refusing to open it, the file was not modified",
        path.display()
    )]
    NotASession {
        /// The file.
        path: PathBuf,
        /// What is wrong with its first line.
        reason: String,
    },
    /// The file changed on disk behind this session's back — another writer created,
    /// appended to, cut or rewrote it, or it was deleted, moved away or replaced by another
    /// file — so writing now could destroy someone else's lines or write into a file that is
    /// no longer the session's. Nothing was written; reopen the session to go on.
    #[error(
        "session file {} changed on disk since it was opened ({what}); not writing to it",
        path.display()
    )]
    ChangedOnDisk {
        /// The file.
        path: PathBuf,
        /// What was found.
        what: String,
    },
    /// An operation named an entry id that is not in the session (pi's exact wording).
    #[error("Entry {0} not found")]
    EntryNotFound(String),
    /// An entry could not be serialized (a non-string map key in extension data, say).
    #[error("cannot serialize session entry: {0}")]
    Serialize(#[from] serde_json::Error),
    /// Another writer held the file's write lock for longer than the caller would wait.
    #[error(
        "{} is locked by {}; gave up after waiting {:.1} s (lock file {})",
        path.display(),
        crate::lock::describe_holder(holder.as_ref()),
        waited.as_secs_f64(),
        lock_path.display()
    )]
    Locked {
        /// The locked file (a session file or `sessions.json`).
        path: PathBuf,
        /// Its lock file.
        lock_path: PathBuf,
        /// The holder as recorded in the lock file; `None` if it has not recorded itself.
        holder: Option<crate::lock::LockHolder>,
        /// How long the caller waited.
        waited: Duration,
    },
    /// `sessions.json` exists but is not a JSON object of session records; it is left
    /// untouched.
    #[error(
        "{} is not a session store ({reason}); refusing to use it, the file was not modified",
        path.display()
    )]
    InvalidStore {
        /// The store file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A store record cannot be read as a session record, so it cannot be updated.
    #[error("session store entry {key:?} is unusable: {reason}")]
    InvalidStoreEntry {
        /// Its session key.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No store record has this session key.
    #[error("no session with key {0:?}")]
    UnknownSessionKey(String),
    /// A session id prefix matches more than one session.
    #[error("session id prefix {prefix:?} is ambiguous: it matches {}", matches.join(", "))]
    AmbiguousSessionId {
        /// The prefix looked up.
        prefix: String,
        /// The session ids it matches.
        matches: Vec<String>,
    },
    /// A name used as a file or directory name (agent id, session id) could escape its
    /// directory or is empty.
    #[error("invalid {what} {value:?}: {reason}")]
    InvalidName {
        /// `agent id` or `session id`.
        what: &'static str,
        /// The name.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl SessionError {
    /// An I/O error on `path` while doing `action`.
    pub(crate) fn io(path: impl Into<PathBuf>, action: &'static str, source: io::Error) -> Self {
        SessionError::Io {
            path: path.into(),
            action,
            source,
        }
    }
}
