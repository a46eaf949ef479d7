//! How the runner calls the lifecycle hooks of `clawloop_core::hooks` (SPEC §8.9, reference
//! §23): decision hooks are awaited and a failure only warns; observers are fire-and-forget.
//!
//! Where each hook is called:
//! * `before_model_resolve`, then the legacy `before_agent_start`: once per run, before the
//!   model is resolved ([`resolve_model_override`]); the legacy answer is kept for the prompt
//!   ([`AgentStartOnce`]).
//! * `before_prompt_build`: in the attempt, before the system prompt is built.
//! * `llm_input`: in the attempt, just before the prompt is sent.
//! * `before_tool_call` / `after_tool_call`: around each tool call (the tools crate's adapter,
//!   failures only warn: [`WarnOnFailure`]).
//! * `before_compaction` / `after_compaction`: around every compaction ([`compact_observed`]).
//! * `agent_end`, then `llm_output`: after the attempt's prompt, in OpenClaw's order.

mod agent_start_once;
mod compaction;
mod model_override;
mod observe;
mod tool_calls;

pub use agent_start_once::AgentStartOnce;
pub use compaction::compact_observed;
pub use model_override::{RunStartHooks, merge_model_override, resolve_model_override};
pub use observe::{HookObserver, ObserverEvent};
pub use tool_calls::WarnOnFailure;
