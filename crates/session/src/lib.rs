//! `clawloop-session`: every byte of conversation state on disk.
//!
//! This crate will own (SPEC §5): the pi v3 JSONL transcript (entry tree, context rebuild,
//! v1→v2→v3 migrations), crash-safe appends, the per-session write lock, the `sessions.json`
//! session store, and the pure transcript transforms (history limit, sanitation, tool-call
//! pairing repair, Anthropic/Gemini turn validation, tool-result truncation).
//!
//! It depends only on `clawloop-core`.
//!
//! # Example
//!
//! The crate is not filled yet; the messages it stores come from core:
//!
//! ```
//! use clawloop_core::StopReason;
//! assert_eq!(StopReason::Stop.as_str(), "stop");
//! ```
