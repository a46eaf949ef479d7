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
    /// refused", "dns error") that reqwest's own message leaves out. The URL it names is cut
    /// to [`endpoint`]: the text ends up in transcripts, logs and on screen, and a query
    /// string or user info may hold a key.
    pub(crate) fn describe(error: &reqwest::Error) -> String {
        let mut text = error.to_string();
        if let Some(url) = error.url() {
            text = text.replace(url.as_str(), &endpoint(url));
        }
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

/// `url` as a user may see it: scheme, host, port and path, without user info, query or
/// fragment.
pub(crate) fn endpoint(url: &reqwest::Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    // Only URLs that cannot have a host refuse these, and those have no user info to drop.
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_keeps_no_secret() {
        let rows = [
            (
                "http://127.0.0.1:1/v1/chat/completions",
                "http://127.0.0.1:1/v1/chat/completions",
            ),
            (
                "https://u:pw@h.example/v1?key=sk-1#f",
                "https://h.example/v1",
            ),
        ];
        for (url, shown) in rows {
            let parsed = reqwest::Url::parse(url);
            assert_eq!(parsed.map(|u| endpoint(&u)).ok().as_deref(), Some(shown));
        }
    }

    #[tokio::test]
    async fn a_refused_connection_names_the_endpoint_but_not_its_query() {
        let error = reqwest::Client::new()
            .post("http://127.0.0.1:1/v1/chat/completions?key=sk-secret")
            .send()
            .await
            .err();
        let text = error
            .as_ref()
            .map(TransportError::describe)
            .unwrap_or_default();
        assert!(
            text.contains("http://127.0.0.1:1/v1/chat/completions"),
            "{text}"
        );
        assert!(text.to_lowercase().contains("connection refused"), "{text}");
        assert!(!text.contains("sk-secret"), "{text}");
    }

    #[test]
    fn messages() {
        assert_eq!(TransportError::Aborted.to_string(), "Request was aborted");
    }
}
