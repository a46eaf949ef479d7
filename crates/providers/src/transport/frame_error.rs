//! Why a framer rejected the byte stream.

/// A framing failure: the stream cannot be split into events safely.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// One event (or NDJSON line) grew past the configured limit.
    #[error("stream event exceeds the {limit}-byte limit")]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// An event's payload is not valid UTF-8.
    #[error("stream event is not valid UTF-8")]
    InvalidUtf8,
}
