//! The `ollama` API: Ollama's native `POST /api/chat` with NDJSON streaming.
//!
//! pi has no native Ollama API (it reaches Ollama through `openai-completions` at `/v1`);
//! OpenClaw adds one because the native endpoint streams thinking and honours `num_ctx`. This
//! follows Ollama's documented chat format and maps it into pi's message model the way
//! `openai-completions` does: `prompt_eval_count` → `input`, `eval_count` → `output`, tool calls
//! (whole, with object arguments) → tool-call blocks, `done_reason: "length"` → `length`.

mod call_id;
mod decode;
mod done_reason;
mod messages;
mod request;
mod usage;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StopReason, StreamOptions,
};

pub use call_id::CallIdSource;
pub use decode::{ChunkDecoder, DecodeError};
pub use done_reason::map_done_reason;
pub use messages::{ATTACHED_IMAGES, SEE_ATTACHED_IMAGE, convert_messages};
pub use request::{DEFAULT_BASE_URL, build_body, build_request, chat_url};
pub use usage::OllamaCounts;

use crate::stream_driver::{Frame, Framing, WireDecoder, now_ms, stream_call};
use crate::transport::{CallDiagnostics, HttpTransport};

/// Streams Ollama chat calls over a shared [`HttpTransport`].
#[derive(Debug, Clone)]
pub struct Ollama {
    transport: HttpTransport,
}

impl Ollama {
    /// A provider using `transport` (share one transport per runtime).
    pub fn new(transport: HttpTransport) -> Self {
        Ollama { transport }
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

impl LlmStream for Ollama {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        self.stream_with_diagnostics(model, context, options).0
    }
}

/// Ollama's NDJSON lines on the shared stream loop. A non-streaming answer (one JSON object
/// on one line) reads the same way.
impl WireDecoder for ChunkDecoder {
    fn framing(_content_type: Option<&str>) -> Framing {
        Framing::Ndjson
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
        let line = match frame {
            Frame::Sse(event) => event.data,
            Frame::Json(line) | Frame::Document(line) => line,
        };
        self.on_line(line, out).map_err(|e| e.0)
    }

    /// Nothing follows the `done` line.
    #[inline]
    fn is_terminal(&self) -> bool {
        self.is_done()
    }

    fn finish(self, out: &mut Vec<AssistantMessageEvent>) {
        ChunkDecoder::finish(self, out);
    }

    fn fail(self, reason: StopReason, message: String, out: &mut Vec<AssistantMessageEvent>) {
        ChunkDecoder::fail(self, reason, message, out);
    }
}
