//! `agents.defaults.compaction.notifyUser`: when a compaction starts during the turn, the
//! user gets the block reply `🧹 Compacting context...` first, as OpenClaw's outer turn loop
//! sends it on the compaction `start` it bridges from the agent events (reference §21).
//! Without the setting the turn's IO is left exactly as the caller gave it.

use std::sync::Arc;

use clawloop_core::agent_event::AgentEvent;
use clawloop_subscribe::{BlockReply, SubscriptionSink};
use clawloop_tools::execute::EventSink;

use crate::attempt::TurnIo;

/// The notice, as OpenClaw words it.
pub const COMPACTION_NOTICE: &str = "🧹 Compacting context...";

/// `io` whose event sink also sends [`COMPACTION_NOTICE`] to its reply sink when a compaction
/// starts, when `notify_user` is set.
pub(crate) fn with_compaction_notice(io: &TurnIo, notify_user: bool) -> TurnIo {
    if !notify_user {
        return io.clone();
    }
    let inner = io.events.clone();
    let replies = io.replies.clone();
    let events: EventSink = Arc::new(move |event: AgentEvent| {
        if matches!(event, AgentEvent::AutoCompactionStart { .. }) {
            replies.clone().on_block_reply(BlockReply {
                text: COMPACTION_NOTICE.to_owned(),
                ..BlockReply::default()
            });
        }
        if let Some(inner) = &inner {
            inner(event);
        }
    });
    TurnIo {
        events: Some(events),
        ..io.clone()
    }
}
