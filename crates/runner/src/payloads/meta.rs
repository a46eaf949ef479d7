//! The run result's `meta` (SPEC §8.4, reference §4.7 steps 1 and 6, seed 002): duration, the
//! agent meta with usage, abort and stop reason, pending client tool calls, the error of an
//! error return, liveness and replay safety. Serialized in OpenClaw's camelCase shape.

use clawloop_core::StopReason;
use clawloop_subscribe::{LivenessState, extract_assistant_text};
use clawloop_tools::client_tools::PendingToolCall;
use serde::{Serialize, Serializer};

use super::incomplete_turn::TerminalSignals;
use super::liveness::{liveness_state_name, resolve_liveness, resolve_replay_invalid};
use super::run_usage::RunUsage;
use super::usage::NormalizedUsage;
use crate::attempt::AttemptResult;

/// `meta.agentMeta`: which session, provider and model answered, and what the run consumed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentMeta {
    /// The session the run used.
    pub session_id: String,
    /// The provider of the last answer.
    pub provider: String,
    /// The model of the last answer.
    pub model: String,
    /// Usage summed over every attempt, total from the latest call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<NormalizedUsage>,
    /// The latest model call's usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_call_usage: Option<NormalizedUsage>,
    /// The latest call's prompt tokens (input + cache read + cache write).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Compactions during the run; present only when there were some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_count: Option<u32>,
}

impl AgentMeta {
    /// The agent meta after `attempt`, the run's last: provider and model from its last
    /// assistant message when it names them, else the run's; usage from `usage`, which has
    /// recorded every attempt; `compaction_count` (the run's, in-attempt and explicit
    /// compactions together) only when above 0.
    pub fn new(
        attempt: &AttemptResult,
        provider: &str,
        model_id: &str,
        usage: &RunUsage,
        compaction_count: u32,
    ) -> Self {
        let last = attempt.last_assistant.as_ref();
        let named = |field: Option<&String>, fallback: &str| {
            field
                .filter(|s| !s.trim().is_empty())
                .map_or_else(|| fallback.to_owned(), Clone::clone)
        };
        AgentMeta {
            session_id: attempt.session_id_used.clone(),
            provider: named(last.map(|a| &a.provider), provider),
            model: named(last.map(|a| &a.model), model_id),
            usage: usage.usage(),
            last_call_usage: usage.last_call_usage(),
            prompt_tokens: usage.prompt_tokens(),
            compaction_count: (compaction_count > 0).then_some(compaction_count),
        }
    }
}

/// Why a run ended with an error payload (`meta.error.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunErrorKind {
    /// The context overflowed and recovery gave up.
    ContextOverflow,
    /// The overflow came from a failed compaction.
    CompactionFailure,
    /// The provider refused the order of the roles.
    RoleOrdering,
    /// An image was too large for the model.
    ImageSize,
    /// The run loop hit its iteration limit.
    RetryLimit,
    /// The model kept calling tools past the turn's tool-round limit.
    ToolRoundLimit,
    /// The prompt alone does not fit the model's context window.
    PromptTooLarge,
}

/// `meta.error`: the kind and the underlying message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunError {
    /// The kind.
    pub kind: RunErrorKind,
    /// The error text that decided it.
    pub message: String,
}

/// `meta.stopReason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStopReason {
    /// A client (hosted) tool was called: the client answers it (`tool_calls`).
    ToolCalls,
    /// The agent yielded the turn (`end_turn`).
    EndTurn,
    /// The last assistant message's stop reason (`stop`, `toolUse`, …).
    Assistant(StopReason),
}

impl RunStopReason {
    /// The wire text.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStopReason::ToolCalls => "tool_calls",
            RunStopReason::EndTurn => "end_turn",
            RunStopReason::Assistant(reason) => reason.as_str(),
        }
    }
}

impl Serialize for RunStopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// `tool_calls` when a client tool was called, `end_turn` when the agent yielded, otherwise
/// the last assistant message's stop reason.
pub fn run_stop_reason(attempt: &AttemptResult, yield_detected: bool) -> Option<RunStopReason> {
    if attempt.client_tool_called() {
        Some(RunStopReason::ToolCalls)
    } else if yield_detected {
        Some(RunStopReason::EndTurn)
    } else {
        attempt
            .last_assistant
            .as_ref()
            .map(|a| RunStopReason::Assistant(a.stop_reason))
    }
}

/// The run result's `meta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunMeta {
    /// Wall time of the run in ms.
    pub duration_ms: u64,
    /// Session, provider, model and usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_meta: Option<AgentMeta>,
    /// The run was aborted.
    pub aborted: bool,
    /// The last assistant message's visible text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_assistant_visible_text: Option<String>,
    /// Replaying the run would be unsafe.
    pub replay_invalid: bool,
    /// How the run left the session.
    #[serde(serialize_with = "serialize_liveness")]
    pub liveness_state: LivenessState,
    /// Why the run stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<RunStopReason>,
    /// Client tool calls for the client to answer (`id` of 9 hex digits, `name`, `arguments`
    /// as JSON text).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending_tool_calls: Vec<PendingToolCall>,
    /// The error of an error return.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
}

impl RunMeta {
    /// The meta of a run that reached the terminal step (reference §4.7 step 6) with
    /// `payload_count` payloads: liveness and replay safety resolved, the stop reason and the
    /// pending client tool calls of `attempt`.
    pub fn terminal(
        attempt: &AttemptResult,
        agent_meta: AgentMeta,
        duration_ms: u64,
        payload_count: usize,
        signals: &TerminalSignals,
        incomplete_turn: bool,
    ) -> Self {
        RunMeta {
            duration_ms,
            agent_meta: Some(agent_meta),
            aborted: signals.aborted,
            final_assistant_visible_text: attempt
                .last_assistant
                .as_ref()
                .map(extract_assistant_text)
                .filter(|t| !t.is_empty()),
            replay_invalid: resolve_replay_invalid(attempt, incomplete_turn),
            liveness_state: resolve_liveness(attempt, payload_count, signals, incomplete_turn),
            stop_reason: run_stop_reason(attempt, signals.yield_detected),
            pending_tool_calls: attempt.pending_tool_calls.clone(),
            error: None,
        }
    }

    /// The meta of an error return (context overflow, role ordering, image size, retry
    /// limit): liveness `blocked`, the error's kind and message.
    pub fn error(
        attempt: &AttemptResult,
        agent_meta: AgentMeta,
        duration_ms: u64,
        kind: RunErrorKind,
        message: impl Into<String>,
    ) -> Self {
        RunMeta {
            duration_ms,
            agent_meta: Some(agent_meta),
            aborted: attempt.aborted,
            final_assistant_visible_text: None,
            replay_invalid: resolve_replay_invalid(attempt, false),
            liveness_state: LivenessState::Blocked,
            stop_reason: None,
            pending_tool_calls: Vec::new(),
            error: Some(RunError {
                kind,
                message: message.into(),
            }),
        }
    }
}

fn serialize_liveness<S: Serializer>(
    state: &LivenessState,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(liveness_state_name(*state))
}
