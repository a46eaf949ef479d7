//! What a finished run hands back (SPEC §8.4, reference §4.7, §7, §20): the reply payloads, the
//! terminal texts, liveness and the result `meta`.
//!
//! Every function here is pure over plain data — an [`AttemptResult`](crate::attempt::AttemptResult)
//! and the run state — so the run loop calls them in OpenClaw's order at its terminal step:
//!
//! 1. [`build_run_payloads`] (reference §7): the error payload, reasoning, answer texts with
//!    their directives, the tool-error warning, silent replies dropped.
//! 2. [`timeout_payload`] when a timeout produced nothing, else [`incomplete_turn_payload`]
//!    when the turn ended without an answer (reference §4.7 steps 3–4).
//! 3. [`resolve_liveness`] and [`resolve_replay_invalid`] (step 7), then [`RunMeta`] with its
//!    [`AgentMeta`], whose usage comes from a [`RunUsage`] fed every attempt (reference §20).
//!
//! Payloads already delivered while streaming (block replies, messaging-tool sends) are dropped
//! later, at delivery, by [`drop_delivered_payloads`]: the run counts the payloads it built,
//! and a reply the user already saw streamed is still a reply, not an incomplete turn.

mod build;
mod delivered;
mod error_filter;
mod incomplete_turn;
mod liveness;
mod meta;
mod reply_payload;
mod run_usage;
mod timeout;
mod tool_error_warning;
mod usage;

pub use build::{PayloadInput, build_run_payloads};
pub use delivered::{DeliveredEvidence, drop_delivered_payloads};
pub use incomplete_turn::{TerminalSignals, incomplete_turn_payload, incomplete_turn_text};
pub use liveness::{liveness_state_name, resolve_liveness, resolve_replay_invalid};
pub use meta::{AgentMeta, RunError, RunErrorKind, RunMeta, RunStopReason, run_stop_reason};
pub use reply_payload::ReplyPayload;
pub use run_usage::RunUsage;
pub use timeout::{partial_timeout_payload, timeout_payload};
pub use usage::{NormalizedUsage, derive_prompt_tokens};
