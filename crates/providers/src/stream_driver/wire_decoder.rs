//! What a wire API contributes to the shared stream loop.

use clawloop_core::{AssistantMessageEvent, StopReason};

use crate::transport::{SseEventRef, TransportError};

/// How a 2xx response body is cut into [`Frame`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-sent events ([`SseFramer`](crate::transport::SseFramer)): each event one
    /// [`Frame::Sse`].
    Sse,
    /// Newline-delimited JSON ([`NdjsonFramer`](crate::transport::NdjsonFramer)): each
    /// non-blank line one [`Frame::Json`].
    Ndjson,
    /// One JSON array streamed element by element
    /// ([`JsonArrayFramer`](crate::transport::JsonArrayFramer)): each element one
    /// [`Frame::Json`].
    JsonArray,
    /// One JSON document from a server that ignored `stream: true`: the whole body, once it
    /// has ended, one [`Frame::Document`].
    Document,
}

impl Framing {
    /// What the body should have been, for the error on an HTML page.
    pub(crate) fn stream_name(self) -> &'static str {
        match self {
            Framing::Ndjson => "an NDJSON stream",
            Framing::Sse | Framing::JsonArray | Framing::Document => "an event stream",
        }
    }
}

/// Whether `content_type` is `application/json` (any case, any parameters).
pub fn is_json(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|t| t.to_ascii_lowercase().starts_with("application/json"))
}

/// One framed piece of a response body, borrowed from the framer's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// One server-sent event.
    Sse(SseEventRef<'a>),
    /// One JSON value: an NDJSON line or an element of a streamed JSON array.
    Json(&'a str),
    /// The whole body of a non-streaming answer.
    Document(&'a str),
}

/// A wire API's stream decoder, as the shared stream loop drives it: framing, one frame at a
/// time, then exactly one of [`finish`](WireDecoder::finish) or [`fail`](WireDecoder::fail).
pub trait WireDecoder: Sized {
    /// How a 2xx body with this `content-type` is framed; by default server-sent events, or
    /// one JSON document for `application/json` (a server that ignored `stream: true`).
    fn framing(content_type: Option<&str>) -> Framing {
        if is_json(content_type) {
            Framing::Document
        } else {
            Framing::Sse
        }
    }

    /// The `start` event, sent once the response head has arrived.
    fn start(&self) -> AssistantMessageEvent;

    /// Decodes one frame; content events are pushed to `out`. An error ends the stream with
    /// the returned text as its `errorMessage`.
    fn decode(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<(), String>;

    /// Whether the stream's terminal frame has been decoded: later frames are not decoded, a
    /// framing error after it does not count, and the body is closed without waiting for
    /// the server to end it.
    fn is_terminal(&self) -> bool;

    /// Ends the stream once the body is over (or its terminal frame was decoded): `done`, or
    /// `error` when the content says the answer is incomplete.
    fn finish(self, out: &mut Vec<AssistantMessageEvent>);

    /// Ends the stream with an `error` event (`reason` is `error` or `aborted`), keeping the
    /// content so far.
    fn fail(self, reason: StopReason, message: String, out: &mut Vec<AssistantMessageEvent>);

    /// The `errorMessage` of a transport failure; by default the error's own text.
    fn transport_error_message(error: &TransportError) -> String {
        error.to_string()
    }
}
