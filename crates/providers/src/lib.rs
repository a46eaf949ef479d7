//! `clawloop-providers`: model provider clients for clawloop.
//!
//! This crate will own (SPEC §4): the HTTP transport (one shared reqwest client, SSE and NDJSON
//! framing that survives any split of the byte stream, bounded buffers, idle timeout,
//! cancellation), one module per wire API (`openai-completions`, `openai-responses`,
//! `anthropic-messages`, `google-generative-ai`, `ollama`), the composable stream wrappers, the
//! model catalog, and the scripted provider server used by tests and `cargo xtask conformance`.
//!
//! It depends only on `clawloop-core` and implements core's provider stream trait.
//!
//! # Example
//!
//! The crate is not filled yet; its contract lives in core:
//!
//! ```
//! use clawloop_core::StopReason;
//! assert_eq!(StopReason::ToolUse.as_str(), "toolUse");
//! ```
