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
pub mod script;
mod usage;

use std::time::{SystemTime, UNIX_EPOCH};

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

use crate::transport::{
    CallDiagnostics, FrameError, HttpTransport, NdjsonFramer, ResponseBody, TransportError,
};

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

/// Reads the NDJSON body one chunk per [`BodyReader::step`], so events reach the consumer as
/// soon as their bytes arrive. A non-streaming answer (one JSON object on one line) reads the
/// same way.
struct BodyReader {
    body: ResponseBody,
    framer: NdjsonFramer,
    lines: Vec<String>,
}

impl BodyReader {
    fn new(body: ResponseBody, transport: &HttpTransport) -> Self {
        BodyReader {
            body,
            framer: NdjsonFramer::new(transport.config().max_event_bytes),
            lines: Vec::new(),
        }
    }

    /// Reads and decodes one chunk; `Ok(true)` when the stream is over.
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
                "{} Unexpected HTML page instead of an NDJSON stream",
                self.body.status()
            )));
        }
        let chunk = self.body.next_chunk().await?;
        // Lines completed before a framing error in the same read are decoded first, so the
        // outcome does not depend on read splits.
        let framed = match &chunk {
            Some(bytes) => self.framer.feed(bytes, &mut self.lines),
            None => self.framer.finish(&mut self.lines),
        };
        for line in self.lines.drain(..) {
            decoder
                .on_line(&line, out)
                .map_err(|e| Failure::Decode(e.0))?;
            if decoder.is_done() {
                // Nothing follows the `done` line; close now rather than wait for the server.
                self.body.close();
                return Ok(true);
            }
        }
        framed?;
        Ok(chunk.is_none())
    }
}
