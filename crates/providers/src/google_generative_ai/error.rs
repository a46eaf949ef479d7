//! `errorMessage` of a failed Gemini request.
//!
//! Google's error body is `{"error": {"code", "message", "status"}}` (sometimes inside a
//! one-element array), where `status` is the canonical code (`INVALID_ARGUMENT`,
//! `RESOURCE_EXHAUSTED`, `UNAVAILABLE`, …). pi gets its text from `@google/genai`, whose
//! error message is the whole body as compact JSON, so the status name is part of it; and
//! OpenClaw's rules read it there: `invalid_argument` together with `maximum number of tokens`
//! is a context overflow (reference §15.5), which the bare message ("The input token count (N)
//! exceeds the maximum number of tokens allowed (M).") is not. The text here keeps the status
//! name and the HTTP status in front, `400 INVALID_ARGUMENT: <message>`, so both the
//! message-only and the status-aware classification see what they see in OpenClaw.

use serde_json::Value;

use crate::transport::HttpError;

/// `errorMessage` of a non-2xx response: `"<HTTP status> <STATUS>: <message>"` for Google's
/// JSON error with a canonical status name that the message does not already contain;
/// otherwise the transport's text (`"<status> <message>"`, the title of an HTML page, or
/// `"<status> status code (no body)"`).
pub fn http_error_message(error: &HttpError) -> String {
    let status_name = serde_json::from_str::<Value>(error.body.trim())
        .ok()
        .and_then(|json| canonical_status(&json));
    match (status_name, error.provider_message()) {
        (Some(name), Some(message)) if !message.contains(&name) => {
            format!("{} {name}: {message}", error.status)
        }
        _ => error.message(),
    }
}

/// `error.status` of a Google error body, when it is a canonical code name
/// (`[A-Z][A-Z_]*`).
fn canonical_status(json: &Value) -> Option<String> {
    let json = match json {
        Value::Array(items) => items.first()?,
        other => other,
    };
    let status = json.get("error")?.get("status")?.as_str()?.trim();
    let canonical = status.starts_with(|c: char| c.is_ascii_uppercase())
        && status.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    canonical.then(|| status.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderMap;

    fn message(status: u16, body: &str) -> String {
        http_error_message(&HttpError::new(
            status,
            &HeaderMap::new(),
            body.as_bytes(),
            None,
        ))
    }

    #[test]
    fn the_status_name_is_kept() {
        assert_eq!(
            message(
                400,
                r#"{"error":{"code":400,"message":"The input token count (5) exceeds the maximum number of tokens allowed (4).","status":"INVALID_ARGUMENT"}}"#
            ),
            "400 INVALID_ARGUMENT: The input token count (5) exceeds the maximum number of tokens allowed (4)."
        );
        assert_eq!(
            message(
                429,
                r#"[{"error":{"code":429,"message":"Quota exceeded.","status":"RESOURCE_EXHAUSTED"}}]"#
            ),
            "429 RESOURCE_EXHAUSTED: Quota exceeded."
        );
    }

    #[test]
    fn other_bodies_keep_the_transport_text() {
        let rows = [
            (
                400,
                r#"{"error":{"code":400,"message":"Status INVALID_ARGUMENT seen","status":"INVALID_ARGUMENT"}}"#,
                "400 Status INVALID_ARGUMENT seen",
            ),
            (
                400,
                r#"{"error":{"code":400,"message":"m","status":"weird status"}}"#,
                "400 m",
            ),
            (500, r#"{"error":{"message":"m"}}"#, "500 m"),
            (503, "", "503 status code (no body)"),
            (502, "upstream died", "502 upstream died"),
        ];
        for (status, body, expected) in rows {
            assert_eq!(message(status, body), expected, "{body}");
        }
    }
}
