//! How a turn talks to the outside while it runs: one value handed down the corridor, so
//! every run and attempt of the turn shares the turn's token, sinks and queues. It lives with
//! the attempt, its lowest user, so nothing below the turn imports from `crate::turn`
//! (`turn::TurnIo` re-exports it for embedders).

use clawloop_tools::execute::EventSink;
use tokio_util::sync::CancellationToken;

use super::SharedReplySink;
use crate::agent::MessageQueues;

/// The turn's channels to its caller. Cloning shares them: a clone given to a run or an
/// attempt cancels, reports and steers the same turn.
#[derive(Clone)]
pub struct TurnIo {
    /// Aborts the turn (the user, a caller's deadline).
    pub cancel: CancellationToken,
    /// Every agent event (the CLI's `--json` output, logs), after the subscription.
    pub events: Option<EventSink>,
    /// Block replies, partial replies, reasoning, tool summaries.
    pub replies: SharedReplySink,
    /// Steering and follow-up messages.
    pub queues: MessageQueues,
}

impl Default for TurnIo {
    fn default() -> Self {
        TurnIo {
            cancel: CancellationToken::new(),
            events: None,
            replies: SharedReplySink::discard(),
            queues: MessageQueues::new(),
        }
    }
}
