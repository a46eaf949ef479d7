//! Transport settings.

use std::time::Duration;

/// Default limit for one SSE event or NDJSON line (16 MiB).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of an error response body is read before the connection is dropped; more than
/// is kept, so the JSON of a slightly long error still parses.
pub const MAX_ERROR_BODY_READ_BYTES: usize = 64 * 1024;

/// Settings of an [`HttpTransport`](super::HttpTransport), shared by every call of a runtime.
///
/// The LLM idle timeout is not among them: it is set per run and timed by the
/// [`IdleWatchdog`](crate::wrappers::IdleWatchdog) around each call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportConfig {
    /// Largest single SSE event / NDJSON line; a bigger one fails the stream.
    pub max_event_bytes: usize,
    /// TCP + TLS connect timeout.
    pub connect_timeout: Duration,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }
}
