//! `subscribe` runner: agent events through the subscription state machine (reference §18,
//! SPEC §6).

use clawloop_core::AgentEvent;
use clawloop_subscribe::{
    BlockReplyBreak, BreakPreference, ChunkingOptions, CollectingSink, ReasoningMode, Subscription,
    SubscriptionOptions, UsageTotals,
};
use serde_json::{Value, json};

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::subscribe::SubscribeOptions;
use crate::conformance::scenario::vocab;
use crate::conformance::scenario::{Case, Spec};
use crate::conformance::shorthand::{expand_message, expand_messages};

/// Runs a `subscribe` case: every event (shorthand messages expanded) through one
/// [`Subscription`] with a recording sink, then the collected state against the expect.
/// `compactionWaitResolved` asks for the compaction-retry wait after the last event.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Subscribe(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Subscribe));
    };
    let mut sub = Subscription::new(options(&input.options), CollectingSink::default());
    for (i, event) in input.events.iter().enumerate() {
        let event = agent_event(&event.0).map_err(|e| format!("input.events[{i}]: {e}"))?;
        sub.handle(&event);
    }
    let wait_resolved = sub.wait_for_compaction_retry().is_resolved();

    let tool_metas: Vec<Value> = sub
        .tool_metas()
        .iter()
        .map(|m| json!({ "toolName": m.tool_name, "meta": m.meta }))
        .collect();
    let last_tool_error = sub
        .last_tool_error()
        .map(|e| json!({ "toolName": e.tool_name, "meta": e.meta, "error": e.error }));
    let actual = json!({
        "blockReplies": sub.sink().block_reply_texts(),
        "assistantTexts": sub.assistant_texts(),
        "partialReplies": sub.sink().partial_replies,
        "toolMetas": tool_metas,
        "lastToolError": last_tool_error,
        "messagingToolSentTexts": sub.messaging_tool_sent_texts(),
        "usage": sub.usage_totals().map(usage_json),
        "compactionCount": sub.compaction_count(),
        "compactionWaitResolved": wait_resolved,
    });
    compare(&case.expect, &actual).map_err(|m| m.to_string())
}

fn options(o: &SubscribeOptions) -> SubscriptionOptions {
    SubscriptionOptions {
        block_reply_break: match o.block_reply_break {
            vocab::BlockReplyBreak::TextEnd => BlockReplyBreak::TextEnd,
            vocab::BlockReplyBreak::MessageEnd => BlockReplyBreak::MessageEnd,
        },
        chunking: o.chunking.as_ref().map(|c| ChunkingOptions {
            min_chars: char_count(c.min_chars),
            max_chars: char_count(c.max_chars),
            break_preference: match c.break_preference {
                vocab::BreakPreference::Paragraph => BreakPreference::Paragraph,
                vocab::BreakPreference::Newline => BreakPreference::Newline,
                vocab::BreakPreference::Sentence => BreakPreference::Sentence,
            },
            flush_on_paragraph: c.flush_on_paragraph.unwrap_or(false),
        }),
        enforce_final_tag: o.enforce_final_tag.unwrap_or(false),
        reasoning_mode: match o.reasoning_level {
            None | Some(vocab::ReasoningLevel::Off) => ReasoningMode::Off,
            Some(vocab::ReasoningLevel::On) => ReasoningMode::On,
            Some(vocab::ReasoningLevel::Stream) => ReasoningMode::Stream,
        },
        block_replies: o.block_replies.unwrap_or(true),
        channel_messaging_tools: Vec::new(),
        ..SubscriptionOptions::default()
    }
}

fn usage_json(u: UsageTotals) -> Value {
    json!({
        "input": u.input,
        "output": u.output,
        "cacheRead": u.cache_read,
        "cacheWrite": u.cache_write,
        "total": u.total,
    })
}

/// Expands the shorthand messages an event may carry, then reads it as a core [`AgentEvent`].
fn agent_event(raw: &Value) -> Result<AgentEvent, String> {
    let mut event = raw.clone();
    if let Value::Object(map) = &mut event {
        for key in ["message"] {
            if let Some(m) = map.get_mut(key) {
                *m = expand_message(m);
            }
        }
        for key in ["messages", "toolResults"] {
            if let Some(Value::Array(list)) = map.get_mut(key) {
                *list = expand_messages(list);
            }
        }
        if let Some(Value::Object(inner)) = map.get_mut("assistantMessageEvent") {
            for key in ["message", "error", "partial"] {
                if let Some(m) = inner.get_mut(key) {
                    *m = expand_message(m);
                }
            }
        }
        // A tool start without arguments has empty ones (pi always sends an object).
        if map.get("type").and_then(Value::as_str) == Some("tool_execution_start") {
            map.entry("args").or_insert_with(|| json!({}));
        }
    }
    serde_json::from_value(event).map_err(|e| format!("not an agent event: {e}"))
}

/// A scenario size as a char count: JS floors numbers; negatives and NaN become 0.
fn char_count(value: f64) -> usize {
    if value.is_finite() && value > 0.0 {
        // Floored and non-negative; saturating float-to-int casts keep huge values at usize::MAX.
        value.floor() as usize
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn shorthand_messages_in_events_are_expanded() {
        let event = agent_event(&json!({
            "type": "message_end",
            "message": {"role": "assistant", "text": "Hi", "usage": {"input": 3}}
        }));
        let Ok(AgentEvent::MessageEnd { message }) = event else {
            panic!("not a message_end: {event:?}");
        };
        assert_eq!(message.text(), "Hi");
        assert_eq!(message.as_assistant().map(|a| a.usage.input), Some(3));

        let update = agent_event(&json!({
            "type": "message_update",
            "message": {"role": "assistant", "text": ""},
            "assistantMessageEvent": {"type": "text_end"}
        }));
        assert!(matches!(update, Ok(AgentEvent::MessageUpdate { .. })));
        assert!(
            agent_event(
                &json!({"type": "tool_execution_start", "toolCallId": "c", "toolName": "t"})
            )
            .is_ok()
        );
        assert!(agent_event(&json!({"type": "nope"})).is_err());
    }
}
