//! The `google-generative-ai` API: Gemini's `streamGenerateContent?alt=sse` (pi-mono §1.8,
//! pi's `google.ts` + `google-shared.ts`).
//!
//! Thought parts (`thought: true`) become thinking blocks; `thoughtSignature`s are kept on the
//! block they arrived with (text, thinking or tool call) and replayed only to the same model;
//! function calls arrive whole and without ids, so ids are made up as pi does; usage comes from
//! the cumulative `usageMetadata`.

mod call_id;
mod decode;
mod error;
mod finish_reason;
mod messages;
mod request;
mod thinking;
mod usage;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StopReason, StreamOptions,
};

pub use call_id::CallIdSource;
pub use decode::{ChunkDecoder, DecodeError, error_event_message};
pub use error::http_error_message;
pub use finish_reason::{FinishOutcome, map_finish_reason};
pub use messages::{
    SEE_ATTACHED_IMAGE, SKIP_THOUGHT_SIGNATURE, TOOL_RESULT_IMAGE, convert_messages,
    is_valid_thought_signature, normalize_tool_call_id, requires_tool_call_id,
};
pub use request::{build_body, build_request, stream_url};
pub use thinking::thinking_config;
pub use usage::UsageMetadata;
// The framer for streams without `alt=sse` lives with the transport's other framers.
pub use crate::transport::{ArrayFrameError, JsonArrayFramer};

use crate::stream_driver::{Frame, Framing, WireDecoder, is_json, now_ms, stream_call};
use crate::transport::{CallDiagnostics, HttpTransport, TransportError};

/// Streams Gemini calls over a shared [`HttpTransport`].
#[derive(Debug, Clone)]
pub struct GoogleGenerativeAi {
    transport: HttpTransport,
}

impl GoogleGenerativeAi {
    /// A provider using `transport` (share one transport per runtime).
    pub fn new(transport: HttpTransport) -> Self {
        GoogleGenerativeAi { transport }
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
        let decoder = ChunkDecoder::new(AssistantMessage::for_model(model, now_ms()), model.cost);
        stream_call(&self.transport, request, options.cancel, decoder)
    }
}

impl LlmStream for GoogleGenerativeAi {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        self.stream_with_diagnostics(model, context, options).0
    }
}

/// Gemini chunks on the shared stream loop: server-sent events (`alt=sse`, what clawloop asks
/// for), or the JSON array Google streams without `alt=sse` (answered by some proxies).
impl WireDecoder for ChunkDecoder {
    fn framing(content_type: Option<&str>) -> Framing {
        if is_json(content_type) {
            Framing::JsonArray
        } else {
            Framing::Sse
        }
    }

    fn start(&self) -> AssistantMessageEvent {
        ChunkDecoder::start(self)
    }

    // Called once per frame: inlined into the framer loop.
    #[inline(always)]
    fn decode(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<(), String> {
        match frame {
            Frame::Sse(event) if event.event == "error" => Err(error_event_message(event.data)),
            Frame::Sse(event) => self.on_data(event.data, out).map_err(|e| e.0),
            Frame::Json(data) | Frame::Document(data) => self.on_data(data, out).map_err(|e| e.0),
        }
    }

    /// Gemini marks no end of stream: the body is read to its end.
    #[inline]
    fn is_terminal(&self) -> bool {
        false
    }

    fn finish(self, out: &mut Vec<AssistantMessageEvent>) {
        ChunkDecoder::finish(self, out);
    }

    fn fail(self, reason: StopReason, message: String, out: &mut Vec<AssistantMessageEvent>) {
        ChunkDecoder::fail(self, reason, message, out);
    }

    /// HTTP errors keep Google's status name (`400 INVALID_ARGUMENT: …`), the rest as the
    /// transport words them.
    fn transport_error_message(error: &TransportError) -> String {
        match error.http() {
            Some(http) => http_error_message(http),
            None => error.to_string(),
        }
    }
}
