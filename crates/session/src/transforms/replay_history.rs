//! The whole history pipeline of an attempt (reference openclaw-runner §6 item 10, SPEC §8.3
//! phase C), so the runner turns a session's context into what is replayed with one call.

use clawloop_core::message::AgentMessage;

use super::history_limit::limit_history_turns;
use super::sanitize::{SanitizeOptions, sanitize_session_history, validate_replay_turns};
use super::tool_pairing::{ErroredAssistantPolicy, ToolPairingOptions, repair_tool_pairing};
use super::transcript_policy::TranscriptPolicy;

/// Options of [`prepare_replay_history`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplayHistoryOptions<'a> {
    /// The provider's policy, usually [`super::resolve_transcript_policy`]'s.
    pub policy: TranscriptPolicy,
    /// The tools the run offers; replayed calls of other tools are removed. `None` allows
    /// every well-formed name.
    pub allowed_tool_names: Option<&'a [String]>,
    /// The user turns to keep ([`limit_history_turns`]; `None` or 0: all), usually
    /// [`super::history_limit_from_session_key`]'s.
    pub history_limit: Option<u64>,
    /// Timestamp of inserted messages (synthetic results, the bootstrap turn), Unix ms.
    pub now_ms: u64,
}

/// A session's messages as they are replayed to the model, in OpenClaw's order:
///
/// 1. [`sanitize_session_history`] with the policy;
/// 2. [`validate_replay_turns`] (Gemini, then Anthropic turn validation, as the policy says);
/// 3. [`limit_history_turns`] to the history limit;
/// 4. tool-call/result pairing repaired once more when the policy repairs pairing (the limit
///    can cut an assistant message away from its results), failed tool-calling turns keeping
///    no results ([`ErroredAssistantPolicy::Drop`]).
///
/// OpenClaw also filters heartbeat exchanges between steps 2 and 3; that depends on the
/// agent's heartbeat configuration and stays with the runner.
///
/// ```
/// use clawloop_core::message::{AgentMessage, AssistantMessage, ContentBlock, UserMessage};
/// use clawloop_session::transforms::{
///     ReplayHistoryOptions, prepare_replay_history, resolve_transcript_policy,
/// };
///
/// let answer = |t: &str| {
///     let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", 0);
///     a.content.push(ContentBlock::text(t));
///     AgentMessage::from(a)
/// };
/// let history = vec![
///     UserMessage::text("one", 0).into(),
///     answer("1"),
///     UserMessage::text("two", 0).into(),
///     UserMessage::text("two again", 0).into(),
///     answer("2"),
/// ];
/// let options = ReplayHistoryOptions {
///     policy: resolve_transcript_policy("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
///     history_limit: Some(1),
///     ..ReplayHistoryOptions::default()
/// };
/// let texts: Vec<String> = prepare_replay_history(&history, &options).iter().map(AgentMessage::text).collect();
/// // Anthropic turn validation merged the two user turns, so one turn is both.
/// assert_eq!(texts, ["two\ntwo again", "2"]);
/// ```
pub fn prepare_replay_history(
    messages: &[AgentMessage],
    options: &ReplayHistoryOptions<'_>,
) -> Vec<AgentMessage> {
    let policy = options.policy;
    let sanitized = sanitize_session_history(
        messages,
        &SanitizeOptions {
            policy,
            allowed_tool_names: options.allowed_tool_names,
            now_ms: options.now_ms,
        },
    );
    let validated = validate_replay_turns(&sanitized, &policy);
    let limited = limit_history_turns(&validated, options.history_limit);
    if !policy.repair_tool_use_result_pairing {
        return limited.to_vec();
    }
    let pairing = ToolPairingOptions {
        errored_assistant: ErroredAssistantPolicy::Drop,
        missing_result_text: None,
        now_ms: options.now_ms,
    };
    repair_tool_pairing(limited, &pairing).messages
}
