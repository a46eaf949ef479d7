//! Everything that can go wrong between sending a request and the last byte of its stream.

use super::{FrameError, HttpError};

/// `errorMessage` of a cancelled request (pi's text).
pub const ABORTED_MESSAGE: &str = "Request was aborted";

/// A transport failure. Its `Display` is the `errorMessage` the terminal `error` event gets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The provider answered with a non-2xx status.
    #[error("{}", .0.message())]
    Http(Box<HttpError>),
    /// The request could not be sent or the connection failed before a response arrived.
    #[error("Connection error: {0}")]
    Connect(String),
    /// Reading the response body failed (connection reset, malformed chunked encoding, …).
    #[error("Error reading the response stream: {0}")]
    Body(String),
    /// The byte stream could not be framed into events.
    #[error("{0}")]
    Frame(#[from] FrameError),
    /// The cancellation token fired; the connection was dropped.
    #[error("{ABORTED_MESSAGE}")]
    Aborted,
}

impl TransportError {
    /// The HTTP error, when the failure is a non-2xx response.
    pub fn http(&self) -> Option<&HttpError> {
        match self {
            TransportError::Http(e) => Some(e),
            _ => None,
        }
    }

    /// A reqwest error with its source chain, which holds the useful part ("connection
    /// refused", "dns error") that reqwest's own message leaves out.
    pub(crate) fn describe(error: &reqwest::Error) -> String {
        let mut text = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            let cause_text = cause.to_string();
            if !text.contains(&cause_text) {
                text.push_str(": ");
                text.push_str(&cause_text);
            }
            source = cause.source();
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(TransportError::Aborted.to_string(), "Request was aborted");
    }
}
