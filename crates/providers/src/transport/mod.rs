//! HTTP transport shared by every wire API: one client per runtime, one request per call,
//! typed HTTP errors, bounded SSE / NDJSON / JSON-array framing and cancellation (the idle
//! timeout is the [`IdleWatchdog`](crate::wrappers::IdleWatchdog)'s).

mod client;
mod clients;
mod config;
mod diagnostics;
mod error;
mod frame_error;
mod http_error;
mod json_array;
mod ndjson;
mod retry_after;
mod sse;
mod text;

pub use client::{HttpRequest, HttpTransport, ResponseBody};
pub use config::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_EVENT_BYTES, MAX_ERROR_BODY_READ_BYTES, TransportConfig,
};
pub use diagnostics::CallDiagnostics;
pub use error::{ABORTED_MESSAGE, TransportError};
pub use frame_error::FrameError;
pub use http_error::{HttpError, MAX_ERROR_BODY_BYTES, json_error_code, json_error_message};
pub use json_array::{ArrayFrameError, JsonArrayFramer};
pub use ndjson::NdjsonFramer;
pub use retry_after::retry_after_ms;
pub use sse::{SseEvent, SseEventRef, SseFramer};
pub use text::truncate_at_char_boundary;
