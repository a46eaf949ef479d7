//! The reply sink an attempt writes to, shared with whoever delivers the replies: the
//! subscription owns its sink, the caller keeps a handle on the same one across attempts.

use std::sync::Arc;

use clawloop_subscribe::sink::{ReasoningUpdate, SubscriptionEvent};
use clawloop_subscribe::{BlockReply, SubscriptionSink, ToolResultReply};
use parking_lot::Mutex;

/// A [`SubscriptionSink`] behind a lock; clones deliver to the same sink.
#[derive(Clone)]
pub struct SharedReplySink {
    inner: Arc<Mutex<dyn SubscriptionSink + Send>>,
}

impl std::fmt::Debug for SharedReplySink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedReplySink").finish_non_exhaustive()
    }
}

impl SharedReplySink {
    /// Shares `sink`.
    pub fn new(sink: impl SubscriptionSink + Send + 'static) -> Self {
        SharedReplySink {
            inner: Arc::new(Mutex::new(sink)),
        }
    }

    /// A sink that drops everything.
    pub fn discard() -> Self {
        SharedReplySink::new(())
    }

    /// Runs `f` on the sink.
    pub fn with<R>(&self, f: impl FnOnce(&mut (dyn SubscriptionSink + Send)) -> R) -> R {
        f(&mut *self.inner.lock())
    }
}

impl SubscriptionSink for SharedReplySink {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.inner.lock().on_block_reply(reply);
    }
    fn on_block_reply_flush(&mut self) {
        self.inner.lock().on_block_reply_flush();
    }
    fn on_partial_reply(&mut self, text: &str) {
        self.inner.lock().on_partial_reply(text);
    }
    fn on_reasoning(&mut self, update: ReasoningUpdate<'_>) {
        self.inner.lock().on_reasoning(update);
    }
    fn on_tool_result(&mut self, reply: ToolResultReply) {
        self.inner.lock().on_tool_result(reply);
    }
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        self.inner.lock().on_agent_event(event);
    }
    fn on_assistant_message_start(&mut self) {
        self.inner.lock().on_assistant_message_start();
    }
}
