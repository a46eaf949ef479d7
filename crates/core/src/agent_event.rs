//! Agent events: what a run reports while it works (pi-mono §2.2 and the agent-session events
//! of §3.4). Serialized, they are the CLI's `--json` output, in pi's shapes and key order.
//!
//! Messages are behind [`Arc`] so an event can be fanned out to several subscribers without
//! copying the conversation.

use std::sync::Arc;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::message::{AgentMessage, AssistantMessage, ToolResultMessage};
use crate::stream_event::{AssistantMessageEvent, PiEvent};
use crate::tool::AgentToolResult;

/// Why an automatic compaction started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// The context passed the compaction threshold.
    Threshold,
    /// The model rejected the context as too long.
    Overflow,
}

/// A finished compaction (pi's `CompactionResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary that replaces the compacted history.
    pub summary: String,
    /// The first session entry kept after the summary.
    pub first_kept_entry_id: String,
    /// Context tokens before compaction.
    pub tokens_before: u64,
    /// Compaction details (`{readFiles, modifiedFiles}` for pi's own summaries).
    #[serde(
        default,
        deserialize_with = "crate::message::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One event of an agent run, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum AgentEvent {
    /// A run starts.
    AgentStart,
    /// A run ended.
    AgentEnd {
        /// Every message added during the run.
        messages: Arc<[AgentMessage]>,
    },
    /// A turn (one model call and its tool calls) starts.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        /// The turn's assistant message.
        message: Arc<AgentMessage>,
        /// The results of its tool calls.
        tool_results: Arc<[ToolResultMessage]>,
    },
    /// A message starts (user, assistant, tool result, custom…).
    MessageStart {
        /// The message (for an assistant: as started).
        message: Arc<AgentMessage>,
    },
    /// An assistant message grew.
    ///
    /// `message` is the message so far. pi always includes it; a producer may leave it out on
    /// hot paths, because copying the whole message per delta would make streaming quadratic.
    /// Consumers that need it apply the events to an
    /// [`AssistantMessageBuilder`](crate::stream_event::AssistantMessageBuilder), and
    /// [`message_update_to_pi_json`] writes pi's exact line from such a builder's message.
    MessageUpdate {
        /// The stream event behind the update (no `partial`; see [`crate::stream_event`]).
        assistant_message_event: AssistantMessageEvent,
        /// The message so far, when the producer includes it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<Arc<AgentMessage>>,
    },
    /// A message is complete.
    MessageEnd {
        /// The final message.
        message: Arc<AgentMessage>,
    },
    /// A tool call starts.
    ToolExecutionStart {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The call's arguments.
        args: Value,
    },
    /// A tool reported progress.
    ToolExecutionUpdate {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The call's arguments.
        args: Value,
        /// The partial result.
        partial_result: AgentToolResult,
    },
    /// A tool call ended.
    ToolExecutionEnd {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The result.
        result: AgentToolResult,
        /// Whether the call failed.
        is_error: bool,
    },
    /// Automatic compaction starts.
    AutoCompactionStart {
        /// Why.
        reason: CompactionReason,
    },
    /// Automatic compaction ended.
    AutoCompactionEnd {
        /// The compaction, when one was made.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<CompactionResult>,
        /// Whether it was cancelled.
        #[serde(default)]
        aborted: bool,
        /// Whether the failed request is retried on the compacted context.
        will_retry: bool,
        /// Why it failed, if it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
    },
    /// An automatic retry after a transient error is scheduled.
    AutoRetryStart {
        /// 1-based attempt number.
        attempt: u32,
        /// Maximum attempts.
        max_attempts: u32,
        /// Delay before the retry.
        delay_ms: u64,
        /// The error being retried.
        error_message: String,
    },
    /// Automatic retrying ended.
    AutoRetryEnd {
        /// Whether a retry succeeded.
        success: bool,
        /// The last attempt number.
        attempt: u32,
        /// The error that ended retrying, on failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
}

impl AgentEvent {
    /// The wire `type`, e.g. `"message_update"`.
    pub fn type_name(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::AgentEnd { .. } => "agent_end",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
            AgentEvent::AutoCompactionStart { .. } => "auto_compaction_start",
            AgentEvent::AutoCompactionEnd { .. } => "auto_compaction_end",
            AgentEvent::AutoRetryStart { .. } => "auto_retry_start",
            AgentEvent::AutoRetryEnd { .. } => "auto_retry_end",
        }
    }
}

/// pi's exact `message_update` line: the stream event with `partial`, then `message`, both
/// being `partial` (the assistant message built so far, this event included).
pub fn message_update_to_pi_json(
    event: &AssistantMessageEvent,
    partial: &AssistantMessage,
) -> Result<String, serde_json::Error> {
    struct Line<'a>(PiEvent<'a>);

    impl Serialize for Line<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut map = s.serialize_map(Some(3))?;
            map.serialize_entry("type", "message_update")?;
            map.serialize_entry("assistantMessageEvent", &self.0)?;
            map.serialize_entry("message", self.0.partial)?;
            map.end()
        }
    }

    serde_json::to_string(&Line(PiEvent { event, partial }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StopReason;
    use crate::message::{ContentBlock, UserMessage};
    use crate::model::Api;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn assistant() -> AssistantMessage {
        let mut m = AssistantMessage::empty(Api::OpenaiCompletions, "openai", "gpt-5", 7);
        m.content = vec![ContentBlock::text("hi")];
        m
    }

    #[test]
    fn events_serialize_like_pi() {
        let user = Arc::new(AgentMessage::User(UserMessage::text("q", 1)));
        let user_json = serde_json::to_string(&user).unwrap();
        let result = crate::message::ToolResultMessage::text("c1", "ls", "a.txt", false, 2);
        let result_json = serde_json::to_string(&result).unwrap();
        let cases = [
            (AgentEvent::AgentStart, r#"{"type":"agent_start"}"#.to_owned()),
            (AgentEvent::TurnStart, r#"{"type":"turn_start"}"#.to_owned()),
            (AgentEvent::MessageStart { message: user.clone() }, format!(r#"{{"type":"message_start","message":{user_json}}}"#)),
            (
                AgentEvent::AgentEnd { messages: vec![(*user).clone()].into() },
                format!(r#"{{"type":"agent_end","messages":[{user_json}]}}"#),
            ),
            (
                AgentEvent::TurnEnd { message: user.clone(), tool_results: vec![result.clone()].into() },
                format!(r#"{{"type":"turn_end","message":{user_json},"toolResults":[{result_json}]}}"#),
            ),
            (
                AgentEvent::MessageUpdate {
                    assistant_message_event: AssistantMessageEvent::TextDelta { content_index: 0, delta: "hi".into() },
                    message: None,
                },
                r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"hi"}}"#.to_owned(),
            ),
            (
                AgentEvent::ToolExecutionStart { tool_call_id: "c1".into(), tool_name: "ls".into(), args: json!({"path": "."}) },
                r#"{"type":"tool_execution_start","toolCallId":"c1","toolName":"ls","args":{"path":"."}}"#.to_owned(),
            ),
            (
                AgentEvent::ToolExecutionUpdate {
                    tool_call_id: "c1".into(),
                    tool_name: "ls".into(),
                    args: json!({}),
                    partial_result: AgentToolResult::text("…"),
                },
                r#"{"type":"tool_execution_update","toolCallId":"c1","toolName":"ls","args":{},"partialResult":{"content":[{"type":"text","text":"…"}],"details":{}}}"#.to_owned(),
            ),
            (
                AgentEvent::ToolExecutionEnd {
                    tool_call_id: "c1".into(),
                    tool_name: "ls".into(),
                    result: AgentToolResult::text("a.txt"),
                    is_error: false,
                },
                r#"{"type":"tool_execution_end","toolCallId":"c1","toolName":"ls","result":{"content":[{"type":"text","text":"a.txt"}],"details":{}},"isError":false}"#.to_owned(),
            ),
            (
                AgentEvent::AutoCompactionStart { reason: CompactionReason::Overflow },
                r#"{"type":"auto_compaction_start","reason":"overflow"}"#.to_owned(),
            ),
            (
                AgentEvent::AutoCompactionEnd {
                    result: Some(CompactionResult {
                        summary: "S".into(),
                        first_kept_entry_id: "abcd1234".into(),
                        tokens_before: 150_000,
                        details: Some(json!({"readFiles": [], "modifiedFiles": []})),
                        extra: Map::new(),
                    }),
                    aborted: false,
                    will_retry: true,
                    error_message: None,
                },
                r#"{"type":"auto_compaction_end","result":{"summary":"S","firstKeptEntryId":"abcd1234","tokensBefore":150000,"details":{"readFiles":[],"modifiedFiles":[]}},"aborted":false,"willRetry":true}"#.to_owned(),
            ),
            (
                AgentEvent::AutoCompactionEnd {
                    result: None,
                    aborted: false,
                    will_retry: false,
                    error_message: Some("Auto-compaction failed: x".into()),
                },
                r#"{"type":"auto_compaction_end","aborted":false,"willRetry":false,"errorMessage":"Auto-compaction failed: x"}"#.to_owned(),
            ),
            (
                AgentEvent::AutoRetryStart { attempt: 1, max_attempts: 3, delay_ms: 2000, error_message: "429".into() },
                r#"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"429"}"#.to_owned(),
            ),
            (
                AgentEvent::AutoRetryEnd { success: false, attempt: 3, final_error: Some("Retry cancelled".into()) },
                r#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"Retry cancelled"}"#.to_owned(),
            ),
            (
                AgentEvent::AutoRetryEnd { success: true, attempt: 1, final_error: None },
                r#"{"type":"auto_retry_end","success":true,"attempt":1}"#.to_owned(),
            ),
        ];
        for (event, json) in cases {
            assert_eq!(
                serde_json::to_string(&event).unwrap(),
                json,
                "{}",
                event.type_name()
            );
            assert_eq!(
                serde_json::from_str::<AgentEvent>(&json).unwrap(),
                event,
                "{}",
                event.type_name()
            );
        }
    }

    #[test]
    fn reads_the_lenient_subscribe_shapes() {
        let update: AgentEvent = serde_json::from_value(json!({
            "type": "message_update",
            "message": {"role": "assistant", "content": [], "api": "x", "provider": "p", "model": "m",
                        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                        "stopReason": "stop", "timestamp": 0},
            "assistantMessageEvent": {"type": "text_delta", "delta": "Hel"}
        }))
        .unwrap();
        let AgentEvent::MessageUpdate {
            assistant_message_event,
            message,
        } = update
        else {
            panic!("not an update")
        };
        assert_eq!(
            assistant_message_event,
            AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "Hel".into()
            }
        );
        assert_eq!(
            message.map(|m| m.role().to_owned()),
            Some("assistant".to_owned())
        );

        let end: AgentEvent = serde_json::from_value(json!({
            "type": "auto_compaction_end", "willRetry": true,
            "result": {"summary": "S1", "firstKeptEntryId": "abcd1234", "tokensBefore": 150000}
        }))
        .unwrap();
        assert!(matches!(
            end,
            AgentEvent::AutoCompactionEnd {
                aborted: false,
                will_retry: true,
                result: Some(_),
                ..
            }
        ));
        assert!(serde_json::from_value::<AgentEvent>(json!({"type": "agent_end"})).is_err());
        assert!(serde_json::from_value::<AgentEvent>(json!({"type": "mystery"})).is_err());
    }

    #[test]
    fn message_update_pi_line_carries_partial_twice() {
        let partial = assistant();
        let partial_json = serde_json::to_string(&partial).unwrap();
        let event = AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: "hi".into(),
        };
        assert_eq!(
            message_update_to_pi_json(&event, &partial).unwrap(),
            format!(
                r#"{{"type":"message_update","assistantMessageEvent":{{"type":"text_delta","contentIndex":0,"delta":"hi","partial":{partial_json}}},"message":{partial_json}}}"#
            )
        );
        let done = AssistantMessageEvent::Done {
            reason: StopReason::Stop,
            message: Box::new(partial.clone()),
        };
        assert!(
            message_update_to_pi_json(&done, &partial)
                .unwrap()
                .contains(r#""reason":"stop""#)
        );
    }
}
