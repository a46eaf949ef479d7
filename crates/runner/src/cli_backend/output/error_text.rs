//! The error a failed CLI reported, read from its JSON output (OpenClaw's
//! `extractCliErrorMessage`): a nested `error.message`, `is_error: true` with a `result`, an
//! assistant text starting `API Error:`, or a `type: "error"` record.

use serde_json::{Map, Value};

use super::records::json_records;
use super::text::{collect_text, record_text};

/// The last explicit error among the JSON records of `raw`.
pub(crate) fn extract_cli_error_message(raw: &str) -> Option<String> {
    json_records(raw)
        .iter()
        .map(explicit_error)
        .rfind(|text| !text.is_empty())
}

fn nested_error_message(record: &Map<String, Value>) -> Option<String> {
    if let Some(Value::Object(inner)) = record.get("error")
        && let Some(message) = nested_error_message(inner)
    {
        return Some(message);
    }
    for key in ["message", "error"] {
        if let Some(Value::String(s)) = record.get(key)
            && !s.trim().is_empty()
        {
            return Some(s.trim().to_owned());
        }
    }
    None
}

/// A message that is itself JSON (`{"error":{"message":…}}`) is unwrapped once.
fn unwrap_error_text(raw: &str) -> String {
    let trimmed = raw.trim();
    json_records(trimmed)
        .iter()
        .find_map(nested_error_message)
        .unwrap_or_else(|| trimmed.to_owned())
}

fn explicit_error(record: &Map<String, Value>) -> String {
    if let Some(nested) = nested_error_message(record) {
        return unwrap_error_text(&nested);
    }
    if record.get("is_error") == Some(&Value::Bool(true))
        && let Some(Value::String(result)) = record.get("result")
    {
        return unwrap_error_text(result);
    }
    match record.get("type").and_then(Value::as_str) {
        Some("assistant") => {
            let text = record.get("message").map(collect_text).unwrap_or_default();
            let head = text.trim_start();
            let starts_api_error = head
                .get(..10)
                .is_some_and(|prefix| prefix.eq_ignore_ascii_case("api error:"));
            if starts_api_error {
                unwrap_error_text(&text)
            } else {
                String::new()
            }
        }
        Some("error") => unwrap_error_text(&record_text(record)),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn explicit_errors_are_found() {
        let cases = [
            (
                r#"{"type":"error","error":{"message":"rate limit exceeded"}}"#,
                Some("rate limit exceeded"),
            ),
            (
                r#"{"type":"result","is_error":true,"result":"API Error: 401 {\"error\":{\"message\":\"bad key\"}}"}"#,
                Some("bad key"),
            ),
            (
                r#"{"type":"result","is_error":true,"result":"{\"error\":{\"message\":\"bad key\"}}"}"#,
                Some("bad key"),
            ),
            (
                r#"{"type":"assistant","message":{"content":[{"type":"text","text":"API Error: overloaded"}]}}"#,
                Some("API Error: overloaded"),
            ),
            (
                r#"{"type":"assistant","message":{"content":[{"type":"text","text":"all fine"}]}}"#,
                None,
            ),
            ("plain words", None),
            ("", None),
        ];
        for (raw, expected) in cases {
            assert_eq!(extract_cli_error_message(raw).as_deref(), expected, "{raw}");
        }
    }
}
