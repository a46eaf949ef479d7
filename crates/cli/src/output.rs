//! How a turn's output reaches the terminal: block replies as they arrive, or every agent
//! event as one JSON line.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clawloop_core::AgentEvent;
use clawloop_subscribe::{BlockReply, SubscriptionSink};

/// Writes each block reply's text to stdout as it arrives.
#[derive(Debug, Clone, Default)]
pub struct StdoutBlocks {
    /// Set once a block was written, so the final reply is not printed a second time.
    pub wrote_any: Arc<AtomicBool>,
}

impl SubscriptionSink for StdoutBlocks {
    fn on_block_reply(&mut self, reply: BlockReply) {
        // Reasoning blocks are not the answer; the default output shows only the answer.
        if reply.is_reasoning || reply.text.is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        // A closed stdout (`| head`) must not abort the turn: the transcript still matters.
        let _ = writeln!(out, "{}", reply.text).and_then(|()| out.flush());
        self.wrote_any.store(true, Ordering::Relaxed);
    }
}

/// Writes one JSON line to stdout; a write or serialization failure drops the line.
pub fn json_line(value: &impl serde::Serialize) {
    if let Ok(line) = serde_json::to_string(value) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    }
}

/// The event sink of `--json`: every agent event as one JSON line.
pub fn json_events() -> Arc<dyn Fn(AgentEvent) + Send + Sync> {
    Arc::new(|event: AgentEvent| json_line(&event))
}
