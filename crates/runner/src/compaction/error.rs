//! Why a compaction did not happen.

use clawloop_session::SessionError;

/// A compaction that failed. The texts are pi's (`Already compacted`, `Nothing to compact
/// (session too small)`, `Compaction cancelled`, `Summarization failed: …`, `Turn prefix
/// summarization failed: …`) and OpenClaw's safety timeout.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// The last entry of the branch already is a compaction.
    #[error("Already compacted")]
    AlreadyCompacted,
    /// The branch has no entry to keep or summarize.
    #[error("Nothing to compact (session too small)")]
    NothingToCompact,
    /// The caller cancelled the compaction.
    #[error("Compaction cancelled")]
    Cancelled,
    /// The history summary request failed; carries the model's error message.
    #[error("Summarization failed: {0}")]
    SummarizationFailed(String),
    /// The split-turn prefix summary request failed; carries the model's error message.
    #[error("Turn prefix summarization failed: {0}")]
    TurnPrefixSummarizationFailed(String),
    /// The whole compaction ran longer than its safety timeout.
    #[error("Compaction timed out after {timeout_ms}ms")]
    TimedOut {
        /// The timeout that expired, in milliseconds.
        timeout_ms: u128,
    },
    /// The summary could not be appended to the session file.
    #[error("Compaction summary could not be saved: {0}")]
    Session(#[from] SessionError),
}
