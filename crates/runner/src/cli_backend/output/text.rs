//! Reading text and session ids out of CLI JSON records (OpenClaw's `collectCliText`,
//! `pickCliSessionId`, `unwrapNestedCliResultText`).

use serde_json::{Map, Value};

/// The text of a JSON value: a string itself; an array's parts joined; for an object its
/// `response`, `text`, `result` or `content` string, its `content` array, or its `message`.
/// Recursion is bounded by serde_json's nesting limit on the parsed input.
pub(crate) fn collect_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(collect_text).collect(),
        Value::Object(map) => collect_object_text(map),
        _ => String::new(),
    }
}

pub(crate) fn collect_object_text(map: &Map<String, Value>) -> String {
    for key in ["response", "text", "result", "content"] {
        if let Some(Value::String(s)) = map.get(key) {
            return s.clone();
        }
    }
    if let Some(Value::Array(items)) = map.get("content") {
        return items.iter().map(collect_text).collect();
    }
    if let Some(message @ Value::Object(_)) = map.get("message") {
        return collect_text(message);
    }
    String::new()
}

/// The text of one record, looking first at its `message`, `content`, `result` and
/// `response` fields, then at the record itself.
pub(crate) fn record_text(record: &Map<String, Value>) -> String {
    for key in ["message", "content", "result", "response"] {
        if let Some(value) = record.get(key) {
            let text = collect_text(value);
            if !text.is_empty() {
                return text;
            }
        }
    }
    collect_object_text(record)
}

/// The first non-blank string among `fields`, trimmed.
pub(crate) fn pick_session_id(record: &Map<String, Value>, fields: &[String]) -> Option<String> {
    fields.iter().find_map(|field| match record.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        _ => None,
    })
}

/// Claude may wrap a result in repeated `{"type":"result","result":"…"}` JSON strings; peel
/// up to 8 layers.
pub(crate) fn unwrap_nested_result(raw: &str) -> String {
    let mut text = raw.to_owned();
    for _ in 0..8 {
        let trimmed = text.trim();
        if !trimmed.starts_with('{') {
            break;
        }
        match serde_json::from_str::<Value>(trimmed) {
            Ok(Value::Object(map)) if map.get("type").and_then(Value::as_str) == Some("result") => {
                match map.get("result") {
                    Some(Value::String(inner)) => text = inner.clone(),
                    _ => break,
                }
            }
            _ => break,
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn text_is_found_where_clis_put_it() {
        let record = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(record_text(&record(json!({"result": "hi"}))), "hi");
        assert_eq!(
            record_text(&record(
                json!({"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}})
            )),
            "ab"
        );
        assert_eq!(
            record_text(&record(json!({"response": "r", "text": "t"}))),
            "r"
        );
        assert_eq!(record_text(&record(json!({"text": "t"}))), "t");
        assert_eq!(record_text(&record(json!({"n": 1}))), "");
    }

    #[test]
    fn nested_results_unwrap() {
        let wrapped = json!({"type": "result", "result": json!({"type": "result", "result": "deep"}).to_string()}).to_string();
        assert_eq!(unwrap_nested_result(&wrapped), "deep");
        assert_eq!(unwrap_nested_result("{not json"), "{not json");
        assert_eq!(
            unwrap_nested_result("{\"type\":\"other\"}"),
            "{\"type\":\"other\"}"
        );
    }
}
