//! Tool calls that arrive whole, not streamed (Gemini `functionCall` parts, Ollama
//! `tool_calls`): pi reports each as start, the arguments JSON as one delta, and end.

use clawloop_core::message::ToolCall;
use clawloop_core::stream_event::parse_streaming_json;
use std::collections::HashSet;

use clawloop_core::AssistantMessageEvent as Event;
use serde_json::{Map, Value};

use crate::tool_arguments::{refusal, too_large};

/// The call's arguments as an object: an object as it is, a JSON string parsed leniently,
/// anything else (absent, a non-object, unparsable text) as `{}`.
pub(crate) fn object_arguments(raw: Option<Value>) -> Value {
    match raw {
        Some(object @ Value::Object(_)) => object,
        Some(Value::String(text)) => match parse_streaming_json(&text) {
            object @ Value::Object(_) => object,
            _ => Value::Object(Map::new()),
        },
        _ => Value::Object(Map::new()),
    }
}

/// The call's id: the provided one unless empty or already `taken` by an earlier call of the
/// message, else `fresh()`; the id returned is added to `taken`. A set rather than a search
/// over the message's calls, which made a message of many calls quadratic.
pub(crate) fn unique_id(
    taken: &mut HashSet<String>,
    provided: Option<String>,
    fresh: impl FnOnce() -> String,
) -> String {
    let id = match provided.filter(|id| !id.is_empty()) {
        Some(id) if !taken.contains(&id) => id,
        _ => fresh(),
    };
    taken.insert(id.clone());
    id
}

/// The events of a whole call at `content_index`: start, the arguments as one delta, end.
/// Arguments past [`MAX_TOOL_CALL_ARGUMENT_BYTES`](crate::MAX_TOOL_CALL_ARGUMENT_BYTES) are
/// not forwarded: the call ends refused, without a delta.
pub(crate) fn whole_tool_call_events(
    content_index: usize,
    id: String,
    name: String,
    arguments: Value,
    thought_signature: Option<String>,
) -> Vec<Event> {
    let start = Event::ToolcallStart {
        content_index,
        id: id.clone(),
        tool_name: name.clone(),
    };
    let text = arguments.to_string();
    let (delta, mut tool_call) = if too_large(text.len()) {
        (None, ToolCall::refused(id, name, refusal(text.len())))
    } else {
        let delta = Event::ToolcallDelta {
            content_index,
            delta: text,
        };
        (Some(delta), ToolCall::new(id, name, arguments))
    };
    tool_call.thought_signature = thought_signature;
    let end = Event::ToolcallEnd {
        content_index,
        tool_call: Some(tool_call),
    };
    std::iter::once(start).chain(delta).chain([end]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn arguments_become_an_object() {
        let actual = [
            Some(json!({"a": 1})),
            Some(json!("{\"a\": 1")),
            Some(json!("not json")),
            Some(json!([1])),
            None,
        ]
        .map(object_arguments);
        assert_eq!(
            actual,
            [
                json!({"a": 1}),
                json!({"a": 1}),
                json!({}),
                json!({}),
                json!({})
            ]
        );
    }

    #[test]
    fn a_whole_call_past_the_bound_is_refused_without_a_delta() {
        let big = "x".repeat(crate::MAX_TOOL_CALL_ARGUMENT_BYTES);
        let events = whole_tool_call_events(
            0,
            "c1".into(),
            "write".into(),
            json!({"content": big}),
            None,
        );
        let size = crate::MAX_TOOL_CALL_ARGUMENT_BYTES + 14;
        assert_eq!(
            events,
            [
                Event::ToolcallStart {
                    content_index: 0,
                    id: "c1".into(),
                    tool_name: "write".into(),
                },
                Event::ToolcallEnd {
                    content_index: 0,
                    tool_call: Some(ToolCall::refused("c1", "write", refusal(size))),
                }
            ]
        );
    }

    #[test]
    fn a_whole_call_is_start_delta_end() {
        let events =
            whole_tool_call_events(2, "c1".into(), "read".into(), json!({"path": "a"}), None);
        let [start, delta, end] =
            <[Event; 3]>::try_from(events).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            start,
            Event::ToolcallStart {
                content_index: 2,
                id: "c1".into(),
                tool_name: "read".into(),
            }
        );
        assert_eq!(
            delta,
            Event::ToolcallDelta {
                content_index: 2,
                delta: "{\"path\":\"a\"}".into(),
            }
        );
        assert_eq!(
            end,
            Event::ToolcallEnd {
                content_index: 2,
                tool_call: Some(ToolCall::new("c1", "read", json!({"path": "a"}))),
            }
        );
    }
}
