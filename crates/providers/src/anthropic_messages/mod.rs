//! The `anthropic-messages` API: Anthropic's Messages API and every compatible endpoint
//! (MiniMax, Kimi For Coding, Vercel AI Gateway, OpenCode, GitHub Copilot's Claude models),
//! pi-mono §1.7.
//!
//! * [`build_body`] / [`build_request`]: system blocks and conversation with prompt-cache
//!   markers, tools, adaptive or budget thinking, auth by API key (`x-api-key`), Claude Code
//!   OAuth token or Copilot token.
//! * [`EventDecoder`]: the pure stream decoder (text, thinking with signatures, redacted
//!   thinking, streamed tool arguments, usage with cache reads and writes, stop reasons,
//!   in-stream errors).
//! * [`AnthropicMessages`]: core's [`LlmStream`] over the shared transport, one request per
//!   call.
//! * [`script`]: the scripted server's encoder for this API.

mod auth;
mod cache;
mod claude_code;
mod decode;
mod error;
mod messages;
mod request;
mod stop_reason;
mod thinking;
mod tools;
mod usage;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StopReason, StreamOptions,
};

pub use auth::{
    ANTHROPIC_VERSION, AuthKind, FINE_GRAINED_TOOL_STREAMING_BETA, INTERLEAVED_THINKING_BETA,
};
pub use cache::cache_control;
pub use claude_code::{CLAUDE_CODE_IDENTITY, CLAUDE_CODE_VERSION, is_oauth_token};
pub use decode::{DecodeError, EventDecoder, REDACTED_THINKING};
pub use error::{http_error_message, stream_error_message};
pub use messages::{SEE_ATTACHED_IMAGE, convert_messages, normalize_tool_call_id};
pub use request::{build_body, build_request, messages_url};
pub use stop_reason::map_stop_reason;
pub use thinking::{ThinkingPlan, supports_adaptive_thinking};

use crate::stream_driver::{Frame, WireDecoder, now_ms, stream_call};
use crate::transport::{CallDiagnostics, HttpTransport, TransportError};

/// Streams Messages API calls over a shared [`HttpTransport`].
#[derive(Debug, Clone)]
pub struct AnthropicMessages {
    transport: HttpTransport,
}

impl AnthropicMessages {
    /// A provider using `transport` (share one transport per runtime).
    pub fn new(transport: HttpTransport) -> Self {
        AnthropicMessages { transport }
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
        let request = build_request(model, context, &options, &body);
        let oauth = AuthKind::of(model, options.api_key.as_deref()) == AuthKind::OAuth;
        let mut decoder =
            EventDecoder::new(AssistantMessage::for_model(model, now_ms()), model.cost);
        if oauth {
            decoder =
                decoder.with_tool_names(context.tools.iter().map(|t| t.name.clone()).collect());
        }
        stream_call(&self.transport, request, options.cancel, decoder)
    }
}

impl LlmStream for AnthropicMessages {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        self.stream_with_diagnostics(model, context, options).0
    }
}

/// Messages API events (or one non-streaming message, from a proxy that ignored
/// `stream: true`) on the shared stream loop.
impl WireDecoder for EventDecoder {
    fn start(&self) -> AssistantMessageEvent {
        EventDecoder::start(self)
    }

    // Called once per frame: inlined into the framer loop.
    #[inline(always)]
    fn decode(
        &mut self,
        frame: Frame<'_>,
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<(), String> {
        let decoded = match frame {
            Frame::Sse(event) => self.on_event(event.event, event.data, out),
            // An unnamed event: the payload's `type` decides.
            Frame::Json(data) => self.on_event("", data, out),
            Frame::Document(body) => self.on_message(body, out),
        };
        decoded.map_err(|e| e.0)
    }

    /// Nothing follows `message_stop`.
    #[inline]
    fn is_terminal(&self) -> bool {
        self.saw_message_stop()
    }

    fn finish(self, out: &mut Vec<AssistantMessageEvent>) {
        EventDecoder::finish(self, out);
    }

    fn fail(self, reason: StopReason, message: String, out: &mut Vec<AssistantMessageEvent>) {
        EventDecoder::fail(self, reason, message, out);
    }

    /// HTTP errors as the Anthropic SDK words them, the rest as the transport does.
    fn transport_error_message(error: &TransportError) -> String {
        match error.http() {
            Some(http) => http_error_message(http),
            None => error.to_string(),
        }
    }
}
