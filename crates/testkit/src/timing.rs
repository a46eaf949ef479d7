//! When the scripted server received each request and finished answering it, for benchmarks
//! that measure a client from the server's side (spawn → first request, tool-result gaps).

use std::time::Instant;

/// The server-side timestamps of one exchange, on the process's monotonic clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExchangeTiming {
    /// The whole request (head and body) had been read.
    pub received: Instant,
    /// The last byte of the response had been written and flushed; `None` when the client
    /// went away before the body was complete.
    pub answered: Option<Instant>,
}
