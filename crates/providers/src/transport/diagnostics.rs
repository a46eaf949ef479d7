//! What a finished call leaves behind besides its events.

use std::sync::{Arc, Mutex, PoisonError};

use super::TransportError;

/// A handle filled by a stream while it runs: the transport failure that ended it, if any
/// (cheap to clone; all clones see the same slot).
///
/// Only the concrete clients' `stream_with_diagnostics` hand it out. The same data reaches
/// whoever holds an `Arc<dyn LlmStream>` on the failed message itself
/// ([`error_diagnostics`](clawloop_core::AssistantMessage::error_diagnostics)), which every
/// wrapper passes on; this handle additionally keeps the whole [`TransportError`] (body text,
/// content type, non-HTTP failures).
#[derive(Debug, Clone, Default)]
pub struct CallDiagnostics {
    failure: Arc<Mutex<Option<TransportError>>>,
}

impl CallDiagnostics {
    /// An empty handle.
    pub fn new() -> Self {
        Self::default()
    }

    /// The failure that ended the call, once the stream has delivered its `error` event.
    pub fn failure(&self) -> Option<TransportError> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `retry-after` of an HTTP failure, in ms.
    pub fn retry_after_ms(&self) -> Option<u64> {
        self.failure()
            .and_then(|f| f.http().and_then(|h| h.retry_after_ms))
    }

    /// The HTTP status of an HTTP failure.
    pub fn http_status(&self) -> Option<u16> {
        self.failure().and_then(|f| f.http().map(|h| h.status))
    }

    pub(crate) fn record(&self, error: &TransportError) {
        *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(error.clone());
    }
}
