//! What the scripted server answers to one request.

use std::time::Duration;

/// How the body is cut into writes (each write is flushed on its own, so the client sees the
/// pieces as separate reads unless they are coalesced in the network stack).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Chunking {
    /// The whole body in one write.
    #[default]
    Whole,
    /// Pieces of this many bytes (the last may be shorter); `Fixed(1)` is one byte per write.
    Fixed(usize),
    /// Cut at these byte offsets (ascending; out-of-range offsets are ignored).
    At(Vec<usize>),
}

impl Chunking {
    /// The body cut into pieces.
    pub fn split<'a>(&self, body: &'a [u8]) -> Vec<&'a [u8]> {
        match self {
            Chunking::Whole => vec![body],
            Chunking::Fixed(size) => body.chunks((*size).max(1)).collect(),
            Chunking::At(cuts) => {
                let mut pieces = Vec::with_capacity(cuts.len() + 1);
                let mut start = 0;
                for &cut in cuts {
                    if cut > start && cut < body.len() {
                        pieces.push(&body[start..cut]);
                        start = cut;
                    }
                }
                pieces.push(&body[start..]);
                pieces
            }
        }
    }
}

/// A pause in the body: after `after_chunks` pieces, wait `duration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stall {
    /// Pieces written before the pause (0: before the first body byte).
    pub after_chunks: usize,
    /// How long to wait.
    pub duration: Duration,
}

/// One scripted HTTP response.
///
/// The body is sent with chunked transfer encoding and `connection: close`, as streaming APIs
/// do, so a dropped connection looks to the client like a real mid-stream failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptedResponse {
    /// HTTP status.
    pub status: u16,
    /// Response headers (`content-type` defaults to `text/event-stream` for 2xx and
    /// `application/json` otherwise when absent).
    pub headers: Vec<(String, String)>,
    /// The body bytes (any bytes: invalid UTF-8 and truncated JSON are allowed on purpose).
    pub body: Vec<u8>,
    /// How the body is cut into writes.
    pub chunking: Chunking,
    /// Wait before each piece after the first.
    pub chunk_delay: Duration,
    /// An optional pause.
    pub stall: Option<Stall>,
    /// Close the connection after this many pieces, without finishing the chunked body.
    pub drop_after_chunks: Option<usize>,
}

impl ScriptedResponse {
    /// A 2xx event stream with `body`, written whole.
    pub fn sse(body: impl Into<Vec<u8>>) -> Self {
        ScriptedResponse {
            status: 200,
            headers: Vec::new(),
            body: body.into(),
            chunking: Chunking::Whole,
            chunk_delay: Duration::ZERO,
            stall: None,
            drop_after_chunks: None,
        }
    }

    /// A response with `status` and `body`.
    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Self {
        ScriptedResponse {
            status,
            ..ScriptedResponse::sse(body)
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets the chunking.
    pub fn chunked(mut self, chunking: Chunking) -> Self {
        self.chunking = chunking;
        self
    }

    /// Sets the delay between pieces.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.chunk_delay = delay;
        self
    }

    /// Pauses for `duration` after `after_chunks` pieces.
    pub fn stall(mut self, after_chunks: usize, duration: Duration) -> Self {
        self.stall = Some(Stall {
            after_chunks,
            duration,
        });
        self
    }

    /// Drops the connection after `chunks` pieces.
    pub fn drop_after(mut self, chunks: usize) -> Self {
        self.drop_after_chunks = Some(chunks);
        self
    }

    /// The `content-type` to add when the script sets none.
    pub(crate) fn default_content_type(&self) -> Option<&str> {
        let explicit = self
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str());
        match explicit {
            Some(_) => None,
            None if (200..300).contains(&self.status) => Some("text/event-stream"),
            None => Some("application/json"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits() {
        let body = b"abcdef";
        assert_eq!(Chunking::Whole.split(body), vec![&b"abcdef"[..]]);
        assert_eq!(Chunking::Fixed(4).split(body), vec![&b"abcd"[..], b"ef"]);
        assert_eq!(
            Chunking::At(vec![0, 2, 2, 5, 9]).split(body),
            vec![&b"ab"[..], b"cde", b"f"]
        );
    }
}
