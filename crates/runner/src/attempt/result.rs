//! What one attempt gave (OpenClaw's `EmbeddedRunAttemptResult`, seed 003, reference §6): the
//! plain data the run loop's decision tables read.

use clawloop_core::message::{AgentMessage, AssistantMessage};
use clawloop_subscribe::SubscriptionReport;
use clawloop_tools::client_tools::PendingToolCall;

use crate::prompt::SystemPromptReport;

/// Where a prompt error came from (OpenClaw `promptErrorSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptErrorSource {
    /// Sending the prompt failed (the session could not be opened or written, a hook refused).
    Prompt,
    /// The wait for compaction was aborted.
    Compaction,
    /// The preemptive overflow check refused the prompt before sending it.
    Precheck,
}

/// A failure before or around the prompt, as opposed to an errored assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptError {
    /// The error text.
    pub message: String,
    /// Where it came from.
    pub source: PromptErrorSource,
}

/// The outcome of one attempt with one model and one auth profile.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AttemptResult {
    /// The run was aborted (by the caller or a timeout).
    pub aborted: bool,
    /// The run timed out (overall or idle).
    pub timed_out: bool,
    /// The timeout was the LLM idle timeout.
    pub idle_timed_out: bool,
    /// The overall timeout fired while a compaction was running.
    pub timed_out_during_compaction: bool,
    /// A failure outside the model's reply.
    pub prompt_error: Option<PromptError>,
    /// The session the attempt ran in.
    pub session_id_used: String,
    /// What the system prompt was made of.
    pub system_prompt_report: Option<SystemPromptReport>,
    /// The conversation after the attempt.
    pub messages_snapshot: Vec<AgentMessage>,
    /// What the subscription collected: reply texts, tool outcomes, messaging-tool sends,
    /// usage, delivered block keys, side effects and liveness.
    pub subscription: SubscriptionReport,
    /// The last assistant message of the attempt.
    pub last_assistant: Option<AssistantMessage>,
    /// Compactions made during the attempt.
    pub compaction_count: u32,
    /// Client (hosted) tool calls that ended the run, for the client to answer.
    pub pending_tool_calls: Vec<PendingToolCall>,
    /// The limit, when the model asked for tools past the turn's tool-round limit.
    pub tool_round_limit: Option<u32>,
}

impl AttemptResult {
    /// Whether a client tool call ended the attempt.
    pub fn client_tool_called(&self) -> bool {
        !self.pending_tool_calls.is_empty()
    }
}
