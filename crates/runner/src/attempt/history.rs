//! The replayed history of an attempt (reference §6 item 10): the transcript's context through
//! the session crate's sanitation chain, the provider's turn validation, the history limit of
//! the session key, and the pairing repair again (a limit can orphan tool results).

use clawloop_core::message::AgentMessage;
use clawloop_core::model::{Api, Model};
use clawloop_session::transforms::{
    SanitizeOptions, ToolPairingOptions, TranscriptPolicy, history_limit_from_session_key,
    repair_tool_pairing, validate_replay_turns,
};
use clawloop_session::{limit_history_turns, sanitize_session_history};

/// The transcript policy for `model`'s wire API.
pub fn transcript_policy(model: &Model) -> TranscriptPolicy {
    let google = model.api == Api::GoogleGenerativeAi;
    TranscriptPolicy {
        repair_tool_use_result_pairing: true,
        apply_google_turn_ordering: google,
        validate_gemini_turns: google,
        validate_anthropic_turns: model.api == Api::AnthropicMessages,
        ..TranscriptPolicy::default()
    }
}

/// The messages the attempt replays to `model`.
pub fn prepare_history(
    messages: &[AgentMessage],
    model: &Model,
    tool_names: &[String],
    session_key: Option<&str>,
    now_ms: u64,
) -> Vec<AgentMessage> {
    let policy = transcript_policy(model);
    let options = SanitizeOptions { policy, allowed_tool_names: Some(tool_names), now_ms };
    let sanitized = sanitize_session_history(messages, &options);
    let validated = validate_replay_turns(&sanitized, &policy);
    let limit = session_key.and_then(|key| history_limit_from_session_key(key, &serde_json::Map::new()));
    let limited = limit_history_turns(&validated, limit);
    let pairing = ToolPairingOptions { now_ms, ..ToolPairingOptions::default() };
    repair_tool_pairing(limited, &pairing).messages
}
