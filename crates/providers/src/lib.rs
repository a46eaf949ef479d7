//! `clawloop-providers`: model provider clients for clawloop (SPEC §4).
//!
//! * [`transport`]: one shared HTTP client per runtime ([`transport::HttpTransport`]), exactly
//!   one request per call and never a retry, typed HTTP errors (status, `retry-after`, request
//!   id, truncated body), bounded incremental SSE and NDJSON framing that gives the same events
//!   for any split of the byte stream, and cancellation that drops the connection.
//! * [`openai_completions`]: the `openai-completions` wire API (OpenAI Chat Completions and
//!   compatible servers), implementing core's [`LlmStream`](clawloop_core::LlmStream).
//! * [`stream_driver`]: the one stream loop the wire APIs share: a body read chunk by chunk,
//!   framed (SSE, NDJSON, a JSON array or one JSON document) and decoded frame by frame by the
//!   API's [`WireDecoder`](stream_driver::WireDecoder).
//! * [`replay`]: cross-provider replay of earlier messages (pi-mono §1.9), shared by the APIs.
//!
//! * [`dispatch`]: [`stream_for_model`] turns a resolved model, the transport, the API key and
//!   the run's [`StreamSettings`] into the `Arc<dyn LlmStream>` a run calls, with the
//!   [`wrappers`] stacked in OpenClaw's order and the idle watchdog outermost.
//!
//! Every failure of a call arrives as the stream's final `error` event with the content so far
//! kept; the failure as data (HTTP status, `retry-after`, request id, provider error code) is
//! on that failed message's
//! [`error_diagnostics`](clawloop_core::AssistantMessage::error_diagnostics), and with the
//! concrete clients also through [`transport::CallDiagnostics`].
//!
//! The scripted provider server that plays these wire formats in tests lives in the
//! unpublished `clawloop-testkit` crate, not here.
//!
//! # Example
//!
//! Framing an SSE body that arrives in awkward pieces (a `\r\n` and an emoji split across
//! reads) and decoding it into provider events:
//!
//! ```
//! use clawloop_core::{AssistantMessage, AssistantMessageEvent, ModelCost};
//! use clawloop_providers::openai_completions::ChunkDecoder;
//! use clawloop_providers::transport::SseFramer;
//!
//! let body = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi \u{1f99e}\"}}]}\r\n\r\n\
//!             data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\r\n\r\n";
//! let bytes = body.as_bytes();
//! let mut framer = SseFramer::new(16 * 1024 * 1024);
//! let mut frames = Vec::new();
//! for piece in [&bytes[..50], &bytes[50..51], &bytes[51..]] {
//!     framer.feed(piece, &mut frames).unwrap();
//! }
//! framer.finish(&mut frames).unwrap();
//!
//! let initial = AssistantMessage::empty("openai-completions", "openai", "gpt-4o-mini", 0);
//! let mut decoder = ChunkDecoder::new(initial, ModelCost::default());
//! let mut events = Vec::new();
//! for frame in &frames {
//!     decoder.on_data(&frame.data, &mut events).unwrap();
//! }
//! decoder.finish(&mut events);
//! let Some(AssistantMessageEvent::Done { message, .. }) = events.last() else { panic!() };
//! assert_eq!(message.text(), "Hi \u{1f99e}");
//! ```

#![deny(missing_docs)]

pub mod anthropic_messages;
pub mod api_key;
mod call_id;
pub mod catalog;
pub mod dispatch;
pub mod google_generative_ai;
pub mod ollama;
mod open_block;
pub mod openai_completions;
pub mod openai_responses;
pub mod replay;
pub mod stream_driver;
mod surrogates;
mod tool_arguments;
mod tool_choice;
pub use tool_arguments::MAX_TOOL_CALL_ARGUMENT_BYTES;
pub mod transport;
mod usage_count;
mod whole_tool_call;
pub mod wrappers;

pub use anthropic_messages::AnthropicMessages;
pub use dispatch::{StreamSettings, UnknownApi, stream_for_model};
pub use google_generative_ai::GoogleGenerativeAi;
pub use ollama::Ollama;
pub use openai_completions::OpenAiCompletions;
pub use openai_responses::OpenAiResponses;
pub use transport::{CallDiagnostics, HttpTransport, TransportConfig, TransportError};
