//! `clawloop-subscribe`: the subscription state machine over agent events.
//!
//! This crate will own (SPEC §6): the `<think>`/`<final>` tag filter, the block chunker, block
//! replies, tool metas and the last tool error, messaging-tool dedupe, usage accumulation and the
//! compaction-retry wait. It is synchronous and does no I/O.
//!
//! It depends only on `clawloop-core`.
//!
//! # Example
//!
//! The crate is not filled yet; the events it consumes come from core:
//!
//! ```
//! use clawloop_core::StopReason;
//! assert_eq!(StopReason::Length.as_str(), "length");
//! ```
