//! `clawloop-runner`: the embedded agent runner.
//!
//! This crate will own (SPEC §8): the agent loop and agent session (persistence, auto
//! compaction), the attempt, the run loop (lanes, auth profiles, overflow chain, thinking
//! fallback), model fallback, the turn with fallback, compaction, the system prompt, skills,
//! registries, hooks and CLI-backend providers. It holds every other part as `Arc<dyn …>`.
//!
//! # Example
//!
//! The crate is not filled yet; its failure decisions are built on core's classification:
//!
//! ```
//! use clawloop_core::FailoverReason;
//! assert_eq!(FailoverReason::RateLimit.as_str(), "rate_limit");
//! ```

pub mod agent;
pub mod attempt;
pub mod auth;
pub mod cli_backend;
pub mod compaction;
pub mod config;
pub mod fallback;
pub mod hooks;
pub mod lanes;
pub mod payloads;
pub mod prompt;
pub mod registry;
pub mod run;
pub mod runtime;
pub mod subagent;
pub mod turn;
