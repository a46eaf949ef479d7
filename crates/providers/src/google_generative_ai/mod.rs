//! The `google-generative-ai` API: Gemini's `streamGenerateContent?alt=sse` (pi-mono §1.8,
//! pi's `google.ts` + `google-shared.ts`).
//!
//! Thought parts (`thought: true`) become thinking blocks; `thoughtSignature`s are kept on the
//! block they arrived with (text, thinking or tool call) and replayed only to the same model;
//! function calls arrive whole and without ids, so ids are made up as pi does; usage comes from
//! the cumulative `usageMetadata`.

mod array_framer;
mod call_id;
mod decode;
mod finish_reason;
mod messages;
mod request;
pub mod script;
mod thinking;
mod usage;

use std::time::{SystemTime, UNIX_EPOCH};

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StopReason, StreamOptions,
};

pub use array_framer::{ArrayFrameError, JsonArrayFramer};
pub use call_id::CallIdSource;
pub use decode::{ChunkDecoder, DecodeError, error_event_message};
pub use finish_reason::{FinishOutcome, map_finish_reason};
pub use messages::{
    SEE_ATTACHED_IMAGE, SKIP_THOUGHT_SIGNATURE, TOOL_RESULT_IMAGE, convert_messages,
    is_valid_thought_signature, normalize_tool_call_id, requires_tool_call_id,
};
pub use request::{build_body, build_request, stream_url};
pub use thinking::thinking_config;
pub use usage::UsageMetadata;

use crate::transport::{
    CallDiagnostics, FrameError, HttpTransport, ResponseBody, SseEvent, SseFramer, TransportError,
};

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
        let initial = AssistantMessage::for_model(model, now_ms());
        let diagnostics = CallDiagnostics::new();
        let report = diagnostics.clone();
        let transport = self.transport.clone();
        let prices = model.cost;
        let cancel = options.cancel;
        let stream = async_stream::stream! {
            let mut decoder = ChunkDecoder::new(initial, prices);
            let mut out = Vec::new();
            let body = match transport.send(request, &cancel).await {
                Ok(body) => body,
                Err(error) => {
                    report.record(&error);
                    decoder.fail(reason_of(&error), error.to_string(), &mut out);
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
                    decoder.fail(reason_of(&error), error.to_string(), &mut out);
                }
                Err(Failure::Decode(message)) => decoder.fail(StopReason::Error, message, &mut out),
            }
            for event in out { yield event; }
        };
        (Box::pin(stream), diagnostics)
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

impl From<ArrayFrameError> for Failure {
    fn from(e: ArrayFrameError) -> Self {
        match e {
            ArrayFrameError::Frame(frame) => frame.into(),
            ArrayFrameError::NotJson => Failure::Decode(e.to_string()),
        }
    }
}

/// How the 2xx body is read: server-sent events (`alt=sse`, what clawloop asks for), or the
/// JSON array Google streams without `alt=sse` (answered by some proxies).
enum Format {
    Sse {
        framer: SseFramer,
        frames: Vec<SseEvent>,
    },
    JsonArray {
        framer: JsonArrayFramer,
        elements: Vec<String>,
    },
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
            Format::JsonArray {
                framer: JsonArrayFramer::new(limit),
                elements: Vec::new(),
            }
        } else {
            Format::Sse {
                framer: SseFramer::new(limit),
                frames: Vec::new(),
            }
        };
        BodyReader { body, format }
    }

    /// Reads and decodes one chunk; `Ok(true)` when the body is over.
    async fn step(
        &mut self,
        decoder: &mut ChunkDecoder,
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
            Format::Sse { framer, frames } => {
                // Events completed before a framing error in the same read are
                // decoded first, so the outcome does not depend on read splits.
                let framed = match &chunk {
                    Some(bytes) => framer.feed(bytes, frames),
                    None => framer.finish(frames),
                };
                for frame in frames.drain(..) {
                    if frame.event == "error" {
                        return Err(Failure::Decode(error_event_message(&frame.data)));
                    }
                    decoder
                        .on_data(&frame.data, out)
                        .map_err(|e| Failure::Decode(e.0))?;
                }
                framed?;
            }
            Format::JsonArray { framer, elements } => {
                // Likewise for array elements completed before a framing error.
                let framed = match &chunk {
                    Some(bytes) => framer.feed(bytes, elements),
                    None => framer.finish(elements),
                };
                for element in elements.drain(..) {
                    decoder
                        .on_data(&element, out)
                        .map_err(|e| Failure::Decode(e.0))?;
                }
                framed?;
            }
        }
        Ok(chunk.is_none())
    }
}
