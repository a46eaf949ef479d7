//! Stream-function wrappers (SPEC §4): composable layers around any
//! [`LlmStream`](clawloop_core::LlmStream), each itself an `LlmStream`, so they stack like
//! middleware without a framework.
//!
//! | layer | what it changes |
//! |---|---|
//! | [`DropThinkingBlocks`] | removes thinking blocks from the replayed context |
//! | [`SanitizeToolCallIds`] | rewrites tool-call ids for strict providers, calls and results alike |
//! | [`TrimToolCallNames`] | trims whitespace around tool names in the response |
//! | [`RepairToolCallArguments`] | turns malformed argument JSON into an object when it can |
//! | [`LogPayloads`] | appends one redacted JSONL record per request |
//! | [`IdleWatchdog`] | ends a silent stream with OpenClaw's idle-timeout error |
//!
//! OpenClaw stacks them, innermost to outermost, as: provider → drop thinking → tool-call-id
//! sanitization → trim names → argument repair → payload logger → idle watchdog. Here the
//! payload logger records the context *it* is given, so to log exactly what reaches the provider
//! (as OpenClaw's does through `onPayload`) put it innermost, right around the provider.
//! [`stream_for_model`](crate::stream_for_model) builds that stack from a run's
//! [`StreamSettings`](crate::StreamSettings).
//!
//! The [`IdleWatchdog`] is the only idle timer; the HTTP transport has none. Every layer
//! passes a failed call's message on whole, so its
//! [`error_diagnostics`](clawloop_core::AssistantMessage::error_diagnostics) (HTTP status,
//! `retry-after`, request id, error code) reach the caller through any stack.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//!
//! use clawloop_core::provider::stream_of;
//! use clawloop_core::{Context, LlmStream, Model, StreamOptions};
//! use clawloop_providers::wrappers::StreamLayers;
//!
//! let provider: Arc<dyn LlmStream> =
//!     Arc::new(|_: &Model, _: &Context, _: StreamOptions| stream_of(Vec::new()));
//! let stacked = provider
//!     .drop_thinking_blocks()
//!     .sanitize_tool_call_ids(None)
//!     .trim_tool_call_names()
//!     .repair_tool_call_arguments()
//!     .idle_watchdog(Some(Duration::from_secs(120)));
//! # let _ = stacked;
//! ```

mod drop_thinking;
mod idle_watchdog;
mod layers;
mod map_events;
mod payload_logger;
pub mod redact;
mod redact_key_in_errors;
mod repair_arguments;
mod short_hash;
mod timestamp;
mod tool_call_ids;
mod trim_tool_names;

pub use drop_thinking::{DropThinkingBlocks, drop_thinking_blocks};
pub use idle_watchdog::{DEFAULT_IDLE_TIMEOUT, IdleWatchdog};
pub use layers::StreamLayers;
pub use payload_logger::{LogPayloads, PayloadLogger};
pub use redact_key_in_errors::{MIN_REDACTED_KEY_LEN, redact_key_in_errors};
pub use repair_arguments::{RepairToolCallArguments, repair_tool_arguments};
pub use short_hash::short_hash;
pub use tool_call_ids::{SanitizeToolCallIds, ToolCallIdMap, ToolCallIdMode};
pub use trim_tool_names::{TrimToolCallNames, trim_tool_name};
