//! The errors of opening and writing a session file.

use std::io;
use std::path::PathBuf;

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
    /// The file changed on disk behind this session's back (another writer created or
    /// appended to it), so writing now could destroy someone else's lines.
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
