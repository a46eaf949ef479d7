//! Tool calls that arrive whole, not streamed (Gemini `functionCall` parts, Ollama
//! `tool_calls`): pi reports each as start, the arguments JSON as one delta, and end.

use clawloop_core::message::ToolCall;
use clawloop_core::stream_event::parse_streaming_json;
use std::collections::HashSet;

use clawloop_core::AssistantMessageEvent as Event;
use serde_json::{Map, Value};

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

/// The three events of a whole call at `content_index`.
pub(crate) fn whole_tool_call_events(
    content_index: usize,
    id: String,
    name: String,
    arguments: Value,
    thought_signature: Option<String>,
) -> [Event; 3] {
    let start = Event::ToolcallStart {
        content_index,
        id: id.clone(),
        tool_name: name.clone(),
    };
    let delta = Event::ToolcallDelta {
        content_index,
        delta: arguments.to_string(),
    };
    let mut tool_call = ToolCall::new(id, name, arguments);
    tool_call.thought_signature = thought_signature;
    let end = Event::ToolcallEnd {
        content_index,
        tool_call: Some(tool_call),
    };
    [start, delta, end]
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
    fn a_whole_call_is_start_delta_end() {
        let [start, delta, end] =
            whole_tool_call_events(2, "c1".into(), "read".into(), json!({"path": "a"}), None);
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
