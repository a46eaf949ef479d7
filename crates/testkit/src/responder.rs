//! The hook that lets a scripted server choose its answer per request.

use std::fmt;
use std::sync::Arc;

use super::{RecordedRequest, ScriptedResponse};

/// Chooses the response to one request (after it was recorded).
///
/// [`ScriptedServer`](super::ScriptedServer) answers in script order by default; a responder
/// replaces that order, e.g. to match requests by endpoint and content
/// ([`ProviderScriptServer`](super::ProviderScriptServer)). It is called from the
/// connection's task, so it must not block for long.
pub trait Responder: Send + Sync + 'static {
    /// The response to `request`.
    fn respond(&self, request: &RecordedRequest) -> ScriptedResponse;
}

/// An optional responder that prints as a placeholder, so the server state stays `Debug`
/// without requiring it of every responder.
#[derive(Clone, Default)]
pub(crate) struct ResponderSlot(pub(crate) Option<Arc<dyn Responder>>);

impl fmt::Debug for ResponderSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(_) => f.write_str("Some(<responder>)"),
            None => f.write_str("None"),
        }
    }
}
