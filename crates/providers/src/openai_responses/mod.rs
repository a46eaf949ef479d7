//! The `openai-responses` API: OpenAI's Responses endpoint (`POST <baseUrl>/responses`) and
//! compatible servers, pi-mono §1.6.
//!
//! Reasoning arrives as output items whose whole JSON (encrypted content included) becomes the
//! thinking block's signature, so the next request can replay it with `store: false`; text
//! blocks remember their message id and phase; tool calls get pi's `call_id|item_id` ids.

mod body;
mod decode;
mod input;
mod request;
pub mod script;
mod stream_error;
mod text_signature;
mod usage;

use std::time::{SystemTime, UNIX_EPOCH};

use clawloop_core::{
    AssistantEventStream, AssistantMessage, Context, LlmStream, Model, StopReason, StreamOptions,
};

pub use decode::{DecodeError, ResponsesDecoder};
pub use input::{SEE_ATTACHED_IMAGE, convert_input, normalize_tool_call_id};
pub use request::{JUICE_ZERO, build_body, build_request, reasoning_effort};
pub use text_signature::{TextSignature, short_hash};

use crate::transport::{CallDiagnostics, HttpTransport, TransportError};
use body::{BodyReader, Failure};

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
        let initial = AssistantMessage::for_model(model, now_ms());
        let diagnostics = CallDiagnostics::new();
        let report = diagnostics.clone();
        let transport = self.transport.clone();
        let prices = model.cost;
        let cancel = options.cancel;
        let stream = async_stream::stream! {
            let mut decoder = ResponsesDecoder::new(initial, prices);
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
