//! Transport settings.

use std::time::Duration;

/// Default idle timeout between stream reads (OpenClaw's default LLM idle timeout).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// Default limit for one SSE event or NDJSON line (16 MiB).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Default connect timeout.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How much of an error response body is read before the connection is dropped; more than
/// is kept, so the JSON of a slightly long error still parses.
pub const MAX_ERROR_BODY_READ_BYTES: usize = 64 * 1024;

/// Settings of an [`HttpTransport`](super::HttpTransport).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportConfig {
    /// Longest wait for the response head and then between two reads of the body; `None`
    /// disables it (config `idleTimeoutSeconds = 0`).
    pub idle_timeout: Option<Duration>,
    /// Largest single SSE event / NDJSON line; a bigger one fails the stream.
    pub max_event_bytes: usize,
    /// TCP + TLS connect timeout.
    pub connect_timeout: Duration,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }
}
