//! The handle a running embedded run registers so others can steer, abort or inspect it
//! (reference §3: `queueMessage` → steer, `isStreaming`, `isCompacting`, `abort`).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clawloop_core::message::AgentMessage;
use tokio_util::sync::CancellationToken;

use crate::agent::MessageQueues;

/// Reads a piece of live run state (for example the subscription's compacting flag).
pub type StateProbe = Arc<dyn Fn() -> bool + Send + Sync>;

struct HandleInner {
    run_id: Option<String>,
    queues: MessageQueues,
    cancel: CancellationToken,
    streaming: AtomicBool,
    compacting: AtomicBool,
    streaming_probe: Option<StateProbe>,
    compacting_probe: Option<StateProbe>,
}

/// One run's handle. Clones are the same handle: the registry compares handles by identity,
/// so a late clear from an old run never removes a newer run registered under the same id.
#[derive(Clone)]
pub struct RunHandle {
    inner: Arc<HandleInner>,
}

impl fmt::Debug for RunHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunHandle")
            .field("run_id", &self.inner.run_id)
            .field("streaming", &self.is_streaming())
            .field("compacting", &self.is_compacting())
            .field("aborted", &self.inner.cancel.is_cancelled())
            .finish()
    }
}

/// Builds a [`RunHandle`].
pub struct RunHandleBuilder {
    run_id: Option<String>,
    queues: MessageQueues,
    cancel: CancellationToken,
    streaming_probe: Option<StateProbe>,
    compacting_probe: Option<StateProbe>,
}

impl fmt::Debug for RunHandleBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunHandleBuilder")
            .field("run_id", &self.run_id)
            .field("streaming_probe", &self.streaming_probe.is_some())
            .field("compacting_probe", &self.compacting_probe.is_some())
            .finish()
    }
}

impl RunHandleBuilder {
    /// The run's id (kept for logs and lookups).
    pub fn run_id(mut self, run_id: impl Into<String>) -> Self {
        self.run_id = Some(run_id.into());
        self
    }

    /// Reads "streaming" from live state instead of the handle's own flag.
    pub fn streaming_probe(mut self, probe: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.streaming_probe = Some(Arc::new(probe));
        self
    }

    /// Reads "compacting" from live state (the subscription's flag) instead of the handle's
    /// own flag.
    pub fn compacting_probe(mut self, probe: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        self.compacting_probe = Some(Arc::new(probe));
        self
    }

    /// The handle.
    pub fn build(self) -> RunHandle {
        RunHandle {
            inner: Arc::new(HandleInner {
                run_id: self.run_id,
                queues: self.queues,
                cancel: self.cancel,
                streaming: AtomicBool::new(false),
                compacting: AtomicBool::new(false),
                streaming_probe: self.streaming_probe,
                compacting_probe: self.compacting_probe,
            }),
        }
    }
}

impl RunHandle {
    /// A handle over the run's steering queues and its abort token; neither streaming nor
    /// compacting until told.
    pub fn new(queues: MessageQueues, cancel: CancellationToken) -> Self {
        RunHandle::builder(queues, cancel).build()
    }

    /// A builder for a handle with a run id or live state probes.
    pub fn builder(queues: MessageQueues, cancel: CancellationToken) -> RunHandleBuilder {
        RunHandleBuilder {
            run_id: None,
            queues,
            cancel,
            streaming_probe: None,
            compacting_probe: None,
        }
    }

    /// The run's id, when it was given one.
    pub fn run_id(&self) -> Option<&str> {
        self.inner.run_id.as_deref()
    }

    /// The run's steering and follow-up queues.
    pub fn queues(&self) -> &MessageQueues {
        &self.inner.queues
    }

    /// The token that aborts the run.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.inner.cancel
    }

    /// Whether the run is streaming (its agent loop is running a prompt).
    pub fn is_streaming(&self) -> bool {
        match &self.inner.streaming_probe {
            Some(probe) => probe(),
            None => self.inner.streaming.load(Ordering::SeqCst),
        }
    }

    /// Whether the run is compacting its transcript.
    pub fn is_compacting(&self) -> bool {
        match &self.inner.compacting_probe {
            Some(probe) => probe(),
            None => self.inner.compacting.load(Ordering::SeqCst),
        }
    }

    /// Sets the streaming flag (ignored when a streaming probe was given).
    pub fn set_streaming(&self, streaming: bool) {
        self.inner.streaming.store(streaming, Ordering::SeqCst);
    }

    /// Sets the compacting flag (ignored when a compacting probe was given).
    pub fn set_compacting(&self, compacting: bool) {
        self.inner.compacting.store(compacting, Ordering::SeqCst);
    }

    /// Steers the run: the message is delivered after the current tool calls, before the next
    /// model call (pi's `steer`).
    pub fn queue_message(&self, message: AgentMessage) {
        self.inner.queues.steer(message);
    }

    /// Aborts the run.
    pub fn abort(&self) {
        self.inner.cancel.cancel();
    }

    /// Whether the run was aborted.
    pub fn is_aborted(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    /// Whether `other` is this very handle (a clone of it), not just an equal-looking one.
    pub fn same_as(&self, other: &RunHandle) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
