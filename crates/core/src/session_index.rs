//! The session-store seam (SPEC §1): which transcript continues a session key. The runner holds
//! it as `Arc<dyn SessionIndex>`; `clawloop-session`'s `SessionStore` (`sessions.json`)
//! implements it, and an embedder can keep the mapping anywhere else (a database, a chat
//! platform's thread table).

use std::path::PathBuf;

use crate::tool::BoxFuture;

/// The transcript a session key currently continues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionBinding {
    /// The key (`main`, `agent:main:telegram:dm:123`, …).
    pub session_key: String,
    /// The session id (the transcript header's id).
    pub session_id: String,
    /// The transcript file.
    pub session_file: PathBuf,
    /// Whether the binding was created by this call.
    pub created: bool,
    /// The model and thinking level the user chose for this session, which its turns keep
    /// until the user changes them (pi's behaviour).
    pub overrides: SessionOverrides,
}

/// What the user chose for a session (OpenClaw's `providerOverride`, `modelOverride` and
/// `thinkingLevel` session fields). A fallback model that answered is no choice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionOverrides {
    /// The provider of the chosen model.
    pub provider: Option<String>,
    /// The chosen model id.
    pub model: Option<String>,
    /// The chosen thinking level (`off`, `high`, …).
    pub thinking_level: Option<String>,
}

/// What a finished turn records for its key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionTurnRecord {
    /// Provider of the model that answered.
    pub provider: Option<String>,
    /// Model that answered.
    pub model: Option<String>,
    /// Input tokens of the turn.
    pub input_tokens: Option<u64>,
    /// Output tokens of the turn.
    pub output_tokens: Option<u64>,
    /// Tokens in the context after the turn.
    pub total_tokens: Option<u64>,
    /// The context window the session ran with.
    pub context_tokens: Option<u64>,
    /// Compactions the turn completed.
    pub compactions: u32,
    /// Messages in the session's context after the turn (stored so a listing never has to
    /// open the transcript); `None` leaves the stored count as it was.
    pub message_count: Option<u64>,
    /// When the turn ended, ms since the epoch.
    pub updated_at: u64,
    /// What the turn's request chose explicitly; `None` fields leave the stored choice.
    pub overrides: SessionOverrides,
}

/// A session index failure, with the store's own description.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SessionIndexError {
    /// What went wrong, naming the store and the key.
    pub message: String,
}

/// Maps session keys to transcripts. Implementations must not block the async runtime (do file
/// work on a blocking pool) and must keep the mapping consistent across processes.
pub trait SessionIndex: Send + Sync {
    /// The transcript `session_key` continues, created (with a new session id) when the key is
    /// new.
    fn bind<'a>(
        &'a self,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<SessionBinding, SessionIndexError>>;

    /// Starts a new transcript for `session_key` (`/new`, the session-reset hook); the old
    /// transcript is kept.
    fn reset<'a>(
        &'a self,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<SessionBinding, SessionIndexError>>;

    /// Records a finished turn.
    fn record_turn<'a>(
        &'a self,
        session_key: &'a str,
        record: SessionTurnRecord,
    ) -> BoxFuture<'a, Result<(), SessionIndexError>>;

    /// Forgets `session_key` and deletes its transcript (a finished subagent with cleanup
    /// `delete`). Returns whether the key was known. An index that cannot delete keeps the
    /// default, which refuses with an error naming the key.
    fn delete<'a>(
        &'a self,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<bool, SessionIndexError>> {
        Box::pin(std::future::ready(Err(SessionIndexError {
            message: format!(
                "this session index cannot delete sessions (session key {session_key:?} kept)"
            ),
        })))
    }
}
