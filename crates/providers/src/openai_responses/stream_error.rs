//! `errorMessage` texts for failures reported inside a 200 stream (pi's wording).

use serde_json::Value;

use crate::transport::json_error_message;

/// Text of a `code` field: a string or a number; `None` for `null`, empty or absent.
fn code_text(code: Option<&Value>) -> Option<String> {
    match code? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An `error` event: pi's `Error Code <code>: <message>`. The fields are read at the top level
/// (OpenAI) or inside an `error` object (some compatible servers). Without a code the message
/// stands alone instead of pi's `Error Code null: …`, which only adds noise for classification.
pub fn error_event_message(event: &Value) -> String {
    let nested = event.get("error").filter(|e| e.is_object());
    let field = |name: &str| {
        event
            .get(name)
            .filter(|v| !v.is_null())
            .or_else(|| nested.and_then(|e| e.get(name)))
    };
    let message = match field("message") {
        Some(Value::String(m)) => m.clone(),
        Some(other) => other.to_string(),
        None => json_error_message(event).unwrap_or_else(|| event.to_string()),
    };
    match code_text(field("code")) {
        Some(code) => format!("Error Code {code}: {message}"),
        None => message,
    }
}

/// The data of an `event: error` frame, which may not even be JSON.
pub fn error_frame_message(data: &str) -> String {
    match serde_json::from_str::<Value>(data) {
        Ok(json @ Value::Object(_)) => error_event_message(&json),
        _ if data.trim().is_empty() => "Provider sent an error event".to_owned(),
        _ => data.trim().to_owned(),
    }
}

/// A `response.failed` event, from the response's `error` and `incomplete_details`:
/// `<code>: <message>`, else `incomplete: <reason>`, else pi's "no details" text.
pub fn failed_response_message(
    error: Option<&Value>,
    incomplete_details: Option<&Value>,
) -> String {
    if let Some(error) = error.filter(|e| e.is_object()) {
        let code = code_text(error.get("code")).unwrap_or_else(|| "unknown".to_owned());
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
            .unwrap_or("no message");
        return format!("{code}: {message}");
    }
    match incomplete_details
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
    {
        Some(reason) => format!("incomplete: {reason}"),
        None => "Unknown error (no error details in response)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn error_events() {
        assert_eq!(
            error_event_message(&json!({"type": "error", "code": "rate_limit_exceeded",
                                        "message": "Slow down", "param": null})),
            "Error Code rate_limit_exceeded: Slow down"
        );
        assert_eq!(
            error_event_message(&json!({"type": "error", "code": null, "message": "boom"})),
            "boom"
        );
        assert_eq!(
            error_event_message(&json!({"type": "error",
                                        "error": {"code": "server_error", "message": "oops"}})),
            "Error Code server_error: oops"
        );
        assert_eq!(error_frame_message("upstream died\n"), "upstream died");
        assert_eq!(error_frame_message(""), "Provider sent an error event");
    }

    #[test]
    fn failed_responses() {
        assert_eq!(
            failed_response_message(
                Some(&json!({"code": "server_error", "message": "The server had an error"})),
                None
            ),
            "server_error: The server had an error"
        );
        assert_eq!(
            failed_response_message(
                Some(&Value::Null),
                Some(&json!({"reason": "content_filter"}))
            ),
            "incomplete: content_filter"
        );
        assert_eq!(
            failed_response_message(None, None),
            "Unknown error (no error details in response)"
        );
    }
}
