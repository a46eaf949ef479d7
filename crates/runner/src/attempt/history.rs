//! The replayed history of an attempt (reference §6 items 8 and 10): the session crate's
//! replay pipeline under the provider's transcript policy, and the live tool-result context
//! guard as the loop's context transform (reference §10.3).

use std::borrow::Cow;

use clawloop_core::message::AgentMessage;
use clawloop_core::model::Model;
use clawloop_session::transforms::{
    ReplayHistoryOptions, TranscriptPolicy, guard_tool_result_context,
    history_limit_from_session_key, prepare_replay_history, resolve_transcript_policy,
};

use crate::agent::{ContextTransform, TransformError};

/// The transcript policy for `model`.
pub fn transcript_policy(model: &Model) -> TranscriptPolicy {
    resolve_transcript_policy(&model.provider, model.api.as_str(), &model.id)
}

/// The messages the attempt replays to `model`.
pub fn prepare_history(
    messages: &[AgentMessage],
    model: &Model,
    tool_names: &[String],
    session_key: Option<&str>,
    now_ms: u64,
) -> Vec<AgentMessage> {
    let options = ReplayHistoryOptions {
        policy: transcript_policy(model),
        allowed_tool_names: Some(tool_names),
        history_limit: session_key
            .and_then(|key| history_limit_from_session_key(key, &serde_json::Map::new())),
        now_ms,
    };
    prepare_replay_history(messages, &options)
}

/// The live tool-result context guard before every model call of the tool loop: oversized tool
/// results are cut for the request, and a context that still cannot fit fails the call with
/// the overflow text the run loop's overflow chain recognizes.
#[derive(Debug, Clone, Copy)]
pub struct ToolResultContextGuard {
    /// The model's context window in tokens.
    pub context_window_tokens: u64,
}

impl ContextTransform for ToolResultContextGuard {
    fn transform(
        &self,
        messages: &[AgentMessage],
    ) -> Result<Option<Vec<AgentMessage>>, TransformError> {
        match guard_tool_result_context(messages, self.context_window_tokens) {
            Ok(Cow::Borrowed(_)) => Ok(None),
            Ok(Cow::Owned(guarded)) => Ok(Some(guarded)),
            Err(overflow) => Err(TransformError {
                message: overflow.to_string(),
            }),
        }
    }
}
