//! The `openai-responses` API: OpenAI's Responses endpoint (`POST <baseUrl>/responses`) and
//! compatible servers, pi-mono §1.6.
//!
//! Reasoning arrives as output items whose whole JSON (encrypted content included) becomes the
//! thinking block's signature, so the next request can replay it with `store: false`; text
//! blocks remember their message id and phase; tool calls get pi's `call_id|item_id` ids.

mod decode;
mod input;
mod request;
mod stream_error;
mod text_signature;
mod usage;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StopReason, StreamOptions,
};

pub use decode::{DecodeError, ResponsesDecoder};
pub use input::{SEE_ATTACHED_IMAGE, convert_input, normalize_tool_call_id};
pub use request::{JUICE_ZERO, build_body, build_request, reasoning_effort};
pub use text_signature::{TextSignature, short_hash};

use crate::stream_driver::{Frame, WireDecoder, now_ms, stream_call};
use crate::transport::{CallDiagnostics, HttpTransport};

/// Streams Responses calls over a shared [`HttpTransport`].
#[derive(Debug, Clone)]
pub struct OpenAiResponses {
    transport: HttpTransport,
}

impl OpenAiResponses {
    /// A provider using `transport` (share one transport per runtime).
    pub fn new(transport: HttpTransport) -> Self {
        OpenAiResponses { transport }
    }

    /// Like [`LlmStream::stream`], plus a handle that holds the transport failure (HTTP
    /// status, `retry-after`, request id) once the stream has ended with an error.
    pub fn stream_with_diagnostics(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> (AssistantEventStream, CallDiagnostics) {
        let body = build_body(model, context, &options);
        let request = build_request(model, &options, &body);
        let decoder =
            ResponsesDecoder::new(AssistantMessage::for_model(model, now_ms()), model.cost);
        stream_call(&self.transport, request, options.cancel, decoder)
    }
}

impl LlmStream for OpenAiResponses {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        self.stream_with_diagnostics(model, context, options).0
    }
}

/// Responses events (or one JSON response, from a server that ignored `stream: true`) on the
/// shared stream loop.
impl WireDecoder for ResponsesDecoder {
    fn start(&self) -> AssistantMessageEvent {
        ResponsesDecoder::start(self)
    }

    // Called once per frame: inlined into the framer loop.
    #[inline(always)]
    fn decode(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<(), String> {
        let decoded = match frame {
            Frame::Sse(event) => self.on_data(event.event, event.data, out),
            // An unnamed event: the payload's `type` decides.
            Frame::Json(data) => self.on_data("", data, out),
            Frame::Document(body) => self.on_response(body, out),
        };
        decoded.map_err(|e| e.0)
    }

    /// Nothing follows the terminal event; some servers keep the connection open after it
    /// (pi's codex test pins this), so the body is closed then.
    #[inline]
    fn is_terminal(&self) -> bool {
        self.is_complete()
    }

    fn finish(self, out: &mut Vec<AssistantMessageEvent>) {
        ResponsesDecoder::finish(self, out);
    }

    fn fail(self, reason: StopReason, message: String, out: &mut Vec<AssistantMessageEvent>) {
        ResponsesDecoder::fail(self, reason, message, out);
    }
}
