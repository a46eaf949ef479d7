//! The replay-history sanitation chain (reference openclaw-runner §9, OpenClaw 2026.4
//! `sanitizeSessionHistory` and `validateReplayTurns`): what a session's messages go through
//! before they are replayed to a model.

use clawloop_core::message::AgentMessage;

use super::google_turn_ordering::sanitize_google_turn_ordering;
use super::images::sanitize_session_messages_images;
use super::inter_session::annotate_inter_session_user_messages;
use super::openai_reasoning::{
    downgrade_openai_function_call_reasoning_pairs, downgrade_openai_reasoning_blocks,
};
use super::stale_usage::strip_stale_assistant_usage_before_latest_compaction;
use super::thinking::drop_thinking_blocks;
use super::tool_call_inputs::sanitize_tool_call_inputs;
use super::tool_pairing::{ErroredAssistantPolicy, ToolPairingOptions, repair_tool_pairing};
use super::transcript_policy::TranscriptPolicy;
use super::turn_validation::{validate_anthropic_turns, validate_gemini_turns};

/// Options of [`sanitize_session_history`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SanitizeOptions<'a> {
    /// The provider's transcript policy.
    pub policy: TranscriptPolicy,
    /// The tools the run offers; replayed calls of other tools are removed. `None` (or no
    /// usable name) allows every well-formed name.
    pub allowed_tool_names: Option<&'a [String]>,
    /// Timestamp of inserted messages (synthetic results, the bootstrap turn), Unix ms.
    pub now_ms: u64,
}

/// The replay-history chain, in OpenClaw's order:
///
/// 1. inter-session user messages annotated ([`annotate_inter_session_user_messages`]);
/// 2. images and blank blocks sanitized ([`sanitize_session_messages_images`]);
/// 3. reasoning dropped when the policy says so ([`drop_thinking_blocks`]);
/// 4. unusable tool calls removed ([`sanitize_tool_call_inputs`]);
/// 5. for the OpenAI Responses APIs ([`TranscriptPolicy::downgrade_openai_reasoning`]):
///    pairing repaired first (when the policy repairs pairing), so displaced results sit
///    next to their call, then dangling reasoning items and unpaired `fc_…` call ids
///    downgraded ([`downgrade_openai_reasoning_blocks`],
///    [`downgrade_openai_function_call_reasoning_pairs`]); for every other API, tool-call/result
///    pairing repaired when the policy says so, failed tool-calling assistant turns dropped
///    ([`repair_tool_pairing`] with [`ErroredAssistantPolicy::Drop`]);
/// 6. `details` removed from tool results ([`strip_tool_result_details`]);
/// 7. usage from before the latest compaction zeroed
///    ([`strip_stale_assistant_usage_before_latest_compaction`]);
/// 8. a bootstrap user turn put first when the policy says so and the history starts with
///    the assistant ([`sanitize_google_turn_ordering`]).
///
/// Not here (OpenClaw runs them in the same function): tool-call id rewriting, which the
/// provider layer does per request ([`TranscriptPolicy::tool_call_id_mode`]), provider plugin
/// hooks and the `model-snapshot` custom entry, which needs the session itself.
pub fn sanitize_session_history(
    messages: &[AgentMessage],
    options: &SanitizeOptions<'_>,
) -> Vec<AgentMessage> {
    let policy = options.policy;
    let annotated = annotate_inter_session_user_messages(messages);
    let images = sanitize_session_messages_images(&annotated, policy.sanitize_mode);
    let thinking = if policy.drop_thinking_blocks {
        drop_thinking_blocks(&images)
    } else {
        images
    };
    let calls = sanitize_tool_call_inputs(&thinking, options.allowed_tool_names).messages;
    let responses = policy.downgrade_openai_reasoning;
    let repair = |messages: Vec<AgentMessage>| {
        let pairing = ToolPairingOptions {
            errored_assistant: ErroredAssistantPolicy::Drop,
            missing_result_text: None,
            now_ms: options.now_ms,
        };
        repair_tool_pairing(&messages, &pairing).messages
    };
    let paired = if responses {
        // The `fc_` downgrade renames a call and the results right after it, so displaced
        // results are put back next to their call first.
        let repaired = if policy.repair_tool_use_result_pairing {
            repair(calls)
        } else {
            calls
        };
        downgrade_openai_function_call_reasoning_pairs(&downgrade_openai_reasoning_blocks(
            &repaired,
        ))
    } else if policy.repair_tool_use_result_pairing {
        repair(calls)
    } else {
        calls
    };
    let details = strip_tool_result_details(&paired);
    let usage = strip_stale_assistant_usage_before_latest_compaction(&details);
    if policy.apply_google_turn_ordering {
        sanitize_google_turn_ordering(&usage, options.now_ms)
    } else {
        usage
    }
}

/// Tool results without their `details` (UI data that is never sent to a model).
pub fn strip_tool_result_details(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    messages
        .iter()
        .map(|message| match message {
            AgentMessage::ToolResult(r) if r.details.is_some() => {
                let mut r = r.clone();
                r.details = None;
                AgentMessage::ToolResult(r)
            }
            _ => message.clone(),
        })
        .collect()
}

/// Turn validation for the provider (OpenClaw `validateReplayTurns` without plugin hooks):
/// [`validate_gemini_turns`], then [`validate_anthropic_turns`], each when the policy asks.
pub fn validate_replay_turns(
    messages: &[AgentMessage],
    policy: &TranscriptPolicy,
) -> Vec<AgentMessage> {
    let gemini = if policy.validate_gemini_turns {
        validate_gemini_turns(messages)
    } else {
        messages.to_vec()
    };
    if policy.validate_anthropic_turns {
        validate_anthropic_turns(&gemini)
    } else {
        gemini
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::StopReason;
    use clawloop_core::Usage;
    use clawloop_core::message::{
        AssistantMessage, CompactionSummaryMessage, ContentBlock, ThinkingContent, ToolCall,
        ToolResultMessage, UserContent, UserMessage,
    };
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::transforms::{
        GOOGLE_TURN_ORDER_BOOTSTRAP_TEXT, MISSING_TOOL_RESULT_TEXT, SanitizeMode,
    };

    fn assistant(blocks: Vec<ContentBlock>, stop: StopReason, ts: u64) -> AssistantMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", ts);
        m.content = blocks;
        m.stop_reason = stop;
        m.usage = Usage {
            input: 3,
            total_tokens: 3,
            ..Usage::default()
        };
        m
    }

    fn thinking() -> ContentBlock {
        ContentBlock::Thinking(ThinkingContent {
            thinking: "hm".into(),
            ..ThinkingContent::default()
        })
    }

    fn call(id: &str, name: &str) -> ContentBlock {
        ContentBlock::ToolCall(ToolCall::new(id, name, json!({})))
    }

    /// One transcript that gives every step of the chain something to do.
    fn transcript() -> Vec<AgentMessage> {
        let mut inter = UserMessage::text("from b", 1);
        inter
            .extra
            .insert("provenance".into(), json!({"kind": "inter_session"}));
        let mut with_details = ToolResultMessage::text("c1", "read", "file", false, 4);
        with_details.details = Some(json!({"bytes": 4}));
        vec![
            assistant(vec![ContentBlock::text("delivered")], StopReason::Stop, 0).into(),
            inter.into(),
            assistant(
                vec![
                    thinking(),
                    ContentBlock::text(" "),
                    call("c1", "read"),
                    call("c2", "bad name"),
                ],
                StopReason::ToolUse,
                3,
            )
            .into(),
            with_details.into(),
            AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: "s".into(),
                timestamp: 5,
                ..CompactionSummaryMessage::default()
            }),
            assistant(vec![call("c3", "exec")], StopReason::ToolUse, 6).into(),
            assistant(vec![call("c4", "exec")], StopReason::Error, 7).into(),
            UserMessage::text("again", 8).into(),
        ]
    }

    #[test]
    fn full_chain() {
        let policy = TranscriptPolicy {
            sanitize_mode: SanitizeMode::Full,
            drop_thinking_blocks: true,
            repair_tool_use_result_pairing: true,
            apply_google_turn_ordering: true,
            ..TranscriptPolicy::default()
        };
        let out = sanitize_session_history(
            &transcript(),
            &SanitizeOptions {
                policy,
                allowed_tool_names: None,
                now_ms: 42,
            },
        );
        let mut delivered = assistant(vec![ContentBlock::text("delivered")], StopReason::Stop, 0);
        delivered.usage = Usage::default();
        let mut inter = UserMessage::text("[Inter-session message]\nfrom b", 1);
        inter
            .extra
            .insert("provenance".into(), json!({"kind": "inter_session"}));
        let mut calling = assistant(vec![call("c1", "read")], StopReason::ToolUse, 3);
        calling.usage = Usage::default();
        let want: Vec<AgentMessage> = vec![
            AgentMessage::User(UserMessage {
                content: UserContent::Text(GOOGLE_TURN_ORDER_BOOTSTRAP_TEXT.into()),
                timestamp: 42,
                extra: Default::default(),
            }),
            delivered.into(),
            inter.into(),
            calling.into(),
            ToolResultMessage::text("c1", "read", "file", false, 4).into(),
            transcript()[4].clone(),
            assistant(vec![call("c3", "exec")], StopReason::ToolUse, 6).into(),
            ToolResultMessage::text("c3", "exec", MISSING_TOOL_RESULT_TEXT, true, 42).into(),
            // The failed call stays (OpenClaw 2026.4 keeps it); it just gets no result.
            transcript()[6].clone(),
            UserMessage::text("again", 8).into(),
        ];
        assert_eq!(out, want);
    }

    #[test]
    fn policy_off_keeps_thinking_pairing_and_order() {
        let out = sanitize_session_history(&transcript(), &SanitizeOptions::default());
        assert_eq!(out.len(), transcript().len());
        let AgentMessage::Assistant(a) = &out[2] else {
            panic!("not an assistant message")
        };
        assert_eq!(a.content, vec![thinking(), call("c1", "read")]);
    }

    #[test]
    fn replay_turn_validation_follows_policy() {
        let a = |t: &str| {
            AgentMessage::from(assistant(vec![ContentBlock::text(t)], StopReason::Stop, 0))
        };
        let u = |t: &str| AgentMessage::from(UserMessage::text(t, 0));
        let input = vec![u("1"), u("2"), a("x"), a("y")];
        let both = TranscriptPolicy {
            validate_gemini_turns: true,
            validate_anthropic_turns: true,
            ..TranscriptPolicy::default()
        };
        let out = validate_replay_turns(&input, &both);
        let texts: Vec<String> = out.iter().map(AgentMessage::text).collect();
        assert_eq!(texts, ["1\n2", "x\ny"]);
        assert_eq!(
            validate_replay_turns(&input, &TranscriptPolicy::default()),
            input
        );
    }
}
