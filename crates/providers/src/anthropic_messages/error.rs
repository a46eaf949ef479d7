//! `errorMessage` texts as pi gets them from the Anthropic SDK.
//!
//! The SDK does not dig the message out of Anthropic's error body: it writes
//! `"<status> <body as compact JSON>"`, e.g.
//! `400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: …"}}`.
//! OpenClaw's classification and error copy read that JSON (`"type":"overloaded_error"`,
//! `"type":"invalid_request_error".*"message"`), so the same text is produced here.

use serde_json::Value;

use crate::transport::HttpError;

/// The SDK's message for an error payload: a top-level string `message` when there is one
/// (some proxies), else the whole payload as compact JSON.
fn payload_message(json: &Value) -> String {
    match json.get("message") {
        Some(Value::String(message)) => message.clone(),
        Some(message) if !message.is_null() => message.to_string(),
        _ => json.to_string(),
    }
}

/// `errorMessage` of a non-2xx response: `"<status> <compact JSON body>"` for a JSON body;
/// otherwise the transport's text (`"<status> <body>"`, the title of an HTML page, or
/// `"<status> status code (no body)"`).
pub fn http_error_message(error: &HttpError) -> String {
    match serde_json::from_str::<Value>(error.body.trim()) {
        Ok(json) if !error.body_truncated => format!("{} {}", error.status, payload_message(&json)),
        _ => error.message(),
    }
}

/// `errorMessage` of an in-stream `error` event: the payload as compact JSON (the SDK raises
/// it without a status), or the data itself when it is not JSON.
pub fn stream_error_message(data: &str) -> String {
    let data = data.trim();
    match serde_json::from_str::<Value>(data) {
        Ok(json) => payload_message(&json),
        Err(_) if data.is_empty() => "Provider sent an error event".to_owned(),
        Err(_) => data.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderMap;

    fn http(status: u16, body: &str) -> HttpError {
        HttpError::new(status, &HeaderMap::new(), body.as_bytes(), None)
    }

    #[test]
    fn http_errors_carry_status_and_compact_json() {
        assert_eq!(
            http_error_message(&http(
                400,
                r#"{"error": {"message": "bad", "type": "invalid_request_error"}, "type": "error"}"#
            )),
            r#"400 {"error":{"message":"bad","type":"invalid_request_error"},"type":"error"}"#
        );
        assert_eq!(
            http_error_message(&http(502, r#"{"message":"upstream down"}"#)),
            "502 upstream down"
        );
        assert_eq!(http_error_message(&http(500, "oops\n")), "500 oops");
        assert_eq!(
            http_error_message(&http(401, "")),
            "401 status code (no body)"
        );
    }

    #[test]
    fn stream_errors() {
        assert_eq!(
            stream_error_message(
                r#"{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"}    }"#
            ),
            r#"{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"}}"#
        );
        assert_eq!(stream_error_message(" boom "), "boom");
        assert_eq!(stream_error_message(""), "Provider sent an error event");
    }
}
