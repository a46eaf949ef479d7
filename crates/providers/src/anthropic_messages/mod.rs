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
pub mod script;
mod stop_reason;
mod thinking;
mod tools;
mod usage;

use std::time::{SystemTime, UNIX_EPOCH};

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

use crate::transport::{
    CallDiagnostics, FrameError, HttpTransport, ResponseBody, SseEventRef, SseFramer,
    TransportError,
};

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
        let tool_names: Vec<String> = context.tools.iter().map(|t| t.name.clone()).collect();
        let initial = AssistantMessage::for_model(model, now_ms());
        let diagnostics = CallDiagnostics::new();
        let report = diagnostics.clone();
        let transport = self.transport.clone();
        let prices = model.cost;
        let cancel = options.cancel;
        let stream = async_stream::stream! {
            let mut decoder = EventDecoder::new(initial, prices);
            if oauth {
                decoder = decoder.with_tool_names(tool_names);
            }
            let mut out = Vec::new();
            let body = match transport.send(request, &cancel).await {
                Ok(body) => body,
                Err(error) => {
                    report.record(&error);
                    decoder.fail(reason_of(&error), failure_message(&error), &mut out);
                    for event in out { yield event; }
                    return;
                }
            };
            yield decoder.start();
            let mut reader = BodyReader::new(body, &transport);
            let result = loop {
                match reader.step(&mut decoder, &mut out).await {
                    Ok(true) => break Ok(()),
                    Ok(false) => {
                        for event in out.drain(..) {
                            yield event;
                        }
                    }
                    Err(failure) => break Err(failure),
                }
            };
            match result {
                Ok(()) => decoder.finish(&mut out),
                Err(Failure::Transport(error)) => {
                    report.record(&error);
                    decoder.fail(reason_of(&error), failure_message(&error), &mut out);
                }
                Err(Failure::Decode(message)) => decoder.fail(StopReason::Error, message, &mut out),
            }
            for event in out { yield event; }
        };
        (Box::pin(stream), diagnostics)
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

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn reason_of(error: &TransportError) -> StopReason {
    if matches!(error, TransportError::Aborted) {
        StopReason::Aborted
    } else {
        StopReason::Error
    }
}

/// `errorMessage` for a transport failure: HTTP errors as the Anthropic SDK words them, the
/// rest as the transport does.
fn failure_message(error: &TransportError) -> String {
    match error.http() {
        Some(http) => http_error_message(http),
        None => error.to_string(),
    }
}

/// A stream-ending failure after the response head.
enum Failure {
    Transport(TransportError),
    Decode(String),
}

impl From<TransportError> for Failure {
    fn from(e: TransportError) -> Self {
        Failure::Transport(e)
    }
}

impl From<FrameError> for Failure {
    fn from(e: FrameError) -> Self {
        Failure::Transport(TransportError::Frame(e))
    }
}

/// How the 2xx body is read: an event stream, or one JSON message from a proxy that ignored
/// `stream: true`.
enum Format {
    Sse { framer: SseFramer },
    Json { bytes: Vec<u8>, limit: usize },
}

/// Reads the body one chunk per [`BodyReader::step`], so events reach the consumer as soon as
/// their bytes arrive.
struct BodyReader {
    body: ResponseBody,
    format: Format,
}

impl BodyReader {
    fn new(body: ResponseBody, transport: &HttpTransport) -> Self {
        let limit = transport.config().max_event_bytes;
        let json = body
            .content_type()
            .is_some_and(|t| t.to_ascii_lowercase().starts_with("application/json"));
        let format = if json {
            Format::Json {
                bytes: Vec::new(),
                limit,
            }
        } else {
            Format::Sse {
                framer: SseFramer::new(limit),
            }
        };
        BodyReader { body, format }
    }

    /// Reads and decodes one chunk; `Ok(true)` when the stream is over.
    async fn step(
        &mut self,
        decoder: &mut EventDecoder,
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<bool, Failure> {
        if self
            .body
            .content_type()
            .is_some_and(|t| t.to_ascii_lowercase().contains("html"))
        {
            return Err(Failure::Decode(format!(
                "{} Unexpected HTML page instead of an event stream",
                self.body.status()
            )));
        }
        let chunk = self.body.next_chunk().await?;
        match &mut self.format {
            Format::Sse { framer } => {
                // Each event is decoded as soon as it is framed, borrowed from the framer's
                // buffers (issue 3 bench), so events completed before a framing error in the
                // same read are decoded first and the outcome does not depend on read splits.
                let mut on_event = |frame: SseEventRef<'_>| {
                    if decoder.saw_message_stop() {
                        return Ok(());
                    }
                    decoder
                        .on_event(frame.event, frame.data, out)
                        .map_err(|e| Failure::Decode(e.0))
                };
                let framed = match &chunk {
                    Some(bytes) => framer.feed_with(bytes, &mut on_event),
                    None => framer.finish_with(&mut on_event),
                };
                if decoder.saw_message_stop() {
                    // Nothing follows `message_stop`; close now rather than wait.
                    self.body.close();
                    return Ok(true);
                }
                framed?;
                Ok(chunk.is_none())
            }
            Format::Json { bytes, limit } => {
                if let Some(chunk) = chunk {
                    if bytes.len() + chunk.len() > *limit {
                        return Err(FrameError::TooLarge { limit: *limit }.into());
                    }
                    bytes.extend_from_slice(&chunk);
                    return Ok(false);
                }
                let text = std::str::from_utf8(bytes).map_err(|_| FrameError::InvalidUtf8)?;
                decoder
                    .on_message(text, out)
                    .map_err(|e| Failure::Decode(e.0))?;
                Ok(true)
            }
        }
    }
}
