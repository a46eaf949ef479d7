//! The `openai-completions` API: OpenAI Chat Completions and every compatible server (Ollama's
//! `/v1`, vLLM, llama.cpp, LM Studio, OpenRouter, Groq, xAI, DeepSeek, …), pi-mono §1.5.

mod compat;
mod decode;
mod messages;
mod request;
mod usage;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StopReason, StreamOptions,
};

pub use compat::{MaxTokensField, OpenAiCompat, ThinkingFormat};
pub use decode::{ChunkDecoder, DecodeError};
pub use messages::{convert_messages, normalize_tool_call_id};
pub use request::{build_body, build_request};

use crate::stream_driver::{Frame, WireDecoder, now_ms, stream_call};
use crate::transport::{CallDiagnostics, HttpTransport};

/// Streams Chat Completions calls over a shared [`HttpTransport`].
#[derive(Debug, Clone)]
pub struct OpenAiCompletions {
    transport: HttpTransport,
}

impl OpenAiCompletions {
    /// A provider using `transport` (share one transport per runtime).
    pub fn new(transport: HttpTransport) -> Self {
        OpenAiCompletions { transport }
    }

    /// Like [`LlmStream::stream`], plus a handle that holds the transport failure (HTTP
    /// status, `retry-after`, request id) once the stream has ended with an error.
    pub fn stream_with_diagnostics(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> (AssistantEventStream, CallDiagnostics) {
        let compat = OpenAiCompat::for_model(model);
        let body = build_body(model, context, &options, &compat);
        let request = build_request(model, &options, &body);
        let decoder = ChunkDecoder::new(AssistantMessage::for_model(model, now_ms()), model.cost);
        stream_call(&self.transport, request, options.cancel, decoder)
    }
}

impl LlmStream for OpenAiCompletions {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        self.stream_with_diagnostics(model, context, options).0
    }
}

/// Chat Completions chunks (or one non-streaming completion, from a server that ignored
/// `stream: true`) on the shared stream loop.
impl WireDecoder for ChunkDecoder {
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
            Frame::Sse(event) if event.event == "error" => {
                Err(decode::error_event_message(event.data))
            }
            Frame::Sse(event) => self.on_data(event.data, out).map_err(|e| e.0),
            Frame::Json(data) => self.on_data(data, out).map_err(|e| e.0),
            Frame::Document(body) => {
                self.on_data(body, out).map_err(|e| e.0)?;
                if self.is_complete() {
                    Ok(())
                } else {
                    Err("Unexpected JSON response: no choices or finish reason".to_owned())
                }
            }
        }
    }

    /// Nothing follows `[DONE]`.
    #[inline]
    fn is_terminal(&self) -> bool {
        self.saw_done()
    }

    fn finish(self, out: &mut Vec<AssistantMessageEvent>) {
        ChunkDecoder::finish(self, out);
    }

    fn fail(self, reason: StopReason, message: String, out: &mut Vec<AssistantMessageEvent>) {
        ChunkDecoder::fail(self, reason, message, out);
    }
}
