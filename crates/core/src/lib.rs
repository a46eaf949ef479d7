//! `clawloop-core`: the shared vocabulary of clawloop.
//!
//! Everything the other crates exchange lives here and depends on no other workspace crate:
//! the message model (serde-compatible with pi's JSON), provider stream events and agent events,
//! [`Usage`], [`StopReason`], [`ThinkLevel`], [`FailoverReason`] and the whole error
//! classification, context-window resolution, token estimation, the [`Clock`](clock::Clock)
//! and the traits the other crates implement.
//!
//! # Example
//!
//! Classifying a provider error string:
//!
//! ```
//! use clawloop_core::classify::{classify_failover_reason, is_context_overflow_error};
//! use clawloop_core::FailoverReason;
//!
//! assert_eq!(
//!     classify_failover_reason("429 Too Many Requests", None),
//!     Some(FailoverReason::RateLimit)
//! );
//! assert!(is_context_overflow_error("prompt is too long: 277403 tokens > 200000 maximum"));
//! ```

// --- shared enums and numbers -------------------------------------------------------------
pub mod failover;
pub mod js_number;
pub mod js_text;
pub mod stop_reason;
pub mod think_level;
pub mod usage;
pub mod usage_totals;

pub use failover::{FailoverError, FailoverReason};
pub use stop_reason::StopReason;
pub use think_level::ThinkLevel;
pub use usage::{Cost, ModelCost, Usage};
pub use usage_totals::{RunUsage, UsageTotals};

// --- message model, events, traits (section A) --------------------------------------------
pub mod agent_event;
pub mod approval;
pub mod auth_store;
pub mod clock;
pub mod error_diagnostics;
pub mod hooks;
pub mod message;
pub mod model;
pub mod provider;
pub mod redacted_debug;
pub mod sandbox;
pub mod session_index;
pub mod stream_event;
pub mod thinking_blocks;
pub mod tokens;
pub mod tool;
pub mod tool_choice;
// section A re-exports below this line
pub use agent_event::{AgentEvent, CompactionReason, CompactionResult};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error_diagnostics::ErrorDiagnostics;
pub use hooks::{Hooks, NoHooks};
pub use message::{
    AgentMessage, AssistantMessage, ContentBlock, ImageContent, Message, TextContent,
    ThinkingContent, ToolCall, ToolResultMessage, UserContent, UserMessage, convert_to_llm,
};
pub use model::{Api, Context, Model, StreamOptions, ToolDefinition};
pub use provider::{AssistantEventStream, LlmStream};
pub use stream_event::{AssistantMessageBuilder, AssistantMessageEvent};
pub use tool::{AgentToolResult, BoxFuture, Tool, ToolContext, ToolError, ToolResult};
pub use tool_choice::ToolChoice;

// --- classification, thinking fallback, context window (section B) ------------------------
pub mod classify;
pub mod context_window;
pub mod error_text;
// section B re-exports below this line
pub use classify::{
    FailoverClassification, FailoverSignal, ProviderRuntimeFailureKind, classify_402,
    classify_failover_reason, classify_failover_signal, classify_provider_runtime_failure_kind,
    failover_reason_from_signal, is_context_overflow, is_context_overflow_error,
    is_likely_context_overflow_error, is_role_ordering_error, is_transient_http_error,
};
pub use context_window::{
    CONTEXT_WINDOW_HARD_MIN_TOKENS, CONTEXT_WINDOW_WARN_BELOW_TOKENS, ContextWindowGuard,
    ContextWindowInfo, ContextWindowSource, ContextWindowSources, DEFAULT_CONTEXT_TOKENS,
    evaluate_context_window_guard, resolve_context_window_info,
};
pub use error_text::{ErrorTextContext, format_assistant_error_text};
pub use think_level::{
    UnknownThinkLevel, normalize_think_level, pick_fallback_thinking_level, thinking_budget,
};
