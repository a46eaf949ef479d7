//! A non-2xx HTTP response, kept as data for classification and retry decisions.

use clawloop_core::ErrorDiagnostics;
use clawloop_core::classify::HTML_ERROR_PAGE_MARKER;
use reqwest::header::HeaderMap;
use serde_json::Value;

use super::text::truncate_at_char_boundary;

/// How much of an error body is kept (char-boundary safe).
pub const MAX_ERROR_BODY_BYTES: usize = 4096;

/// Request-id headers, most specific first (OpenAI, Anthropic, generic, AWS, Cloudflare).
const REQUEST_ID_HEADERS: [&str; 5] = [
    "x-request-id",
    "request-id",
    "x-goog-request-id",
    "x-amzn-requestid",
    "cf-ray",
];

/// A provider answered with a non-2xx status.
///
/// The runner reads `status` and `retry_after_ms` for its policy (the provider itself never
/// retries); [`HttpError::message`] is the `errorMessage` of the terminal `error` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError {
    /// The HTTP status code.
    pub status: u16,
    /// `retry-after-ms` / `retry-after`, in ms.
    pub retry_after_ms: Option<u64>,
    /// The request id the provider assigned, for support tickets and logs.
    pub request_id: Option<String>,
    /// The response `content-type`, if any.
    pub content_type: Option<String>,
    /// The body, lossily decoded and cut to [`MAX_ERROR_BODY_BYTES`].
    pub body: String,
    /// Whether `body` was cut.
    pub body_truncated: bool,
    /// The provider's error code from a JSON body (see [`json_error_code`]).
    pub error_code: Option<String>,
}

impl HttpError {
    /// Builds the error from the response head and the (already bounded) body bytes.
    pub fn new(status: u16, headers: &HeaderMap, body: &[u8], retry_after_ms: Option<u64>) -> Self {
        let text = String::from_utf8_lossy(body);
        let kept = truncate_at_char_boundary(&text, MAX_ERROR_BODY_BYTES);
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let error_code = serde_json::from_str::<Value>(text.trim())
            .ok()
            .and_then(|json| json_error_code(&json, status));
        HttpError {
            status,
            retry_after_ms,
            request_id: REQUEST_ID_HEADERS.iter().find_map(|name| header(name)),
            content_type: header("content-type"),
            body_truncated: kept.len() < text.len(),
            body: kept.to_owned(),
            error_code,
        }
    }

    /// The failure as data, for the failed message's
    /// [`error_diagnostics`](clawloop_core::AssistantMessage::error_diagnostics).
    pub fn diagnostics(&self) -> ErrorDiagnostics {
        ErrorDiagnostics {
            http_status: Some(self.status),
            retry_after_ms: self.retry_after_ms,
            request_id: self.request_id.clone(),
            error_code: self.error_code.clone(),
        }
    }

    /// The provider's own message: `error.message` of a JSON body (OpenAI, Anthropic, Google
    /// and most compatible servers), a string `error`, a top-level `message` or `detail`; for
    /// HTML pages the `<title>`; for other text the text itself. `None` for an empty body.
    pub fn provider_message(&self) -> Option<String> {
        let body = self.body.trim();
        if body.is_empty() {
            return None;
        }
        if let Ok(json) = serde_json::from_str::<Value>(body) {
            return Some(json_error_message(&json).unwrap_or_else(|| body.to_owned()));
        }
        if looks_like_html(body, self.content_type.as_deref()) {
            let title = html_title(body).unwrap_or_default();
            // Titles usually repeat the status ("502 Bad Gateway"); the message starts with it.
            let title = title
                .strip_prefix(&self.status.to_string())
                .map_or(title.as_str(), str::trim_start);
            let title = if title.is_empty() {
                reqwest::StatusCode::from_u16(self.status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("error")
            } else {
                title
            };
            return Some(format!("{title} {HTML_ERROR_PAGE_MARKER}"));
        }
        Some(body.to_owned())
    }

    /// `errorMessage` as the OpenAI SDK writes it: `"<status> <provider message>"`, or
    /// `"<status> status code (no body)"` (a form pi's overflow check recognizes for 400/413).
    pub fn message(&self) -> String {
        match self.provider_message() {
            Some(message) => format!("{} {message}", self.status),
            None => format!("{} status code (no body)", self.status),
        }
    }
}

/// The provider's error code in a JSON error body: of the error object (`error`, or the body
/// itself; Google sometimes wraps it in a one-element array) the first of a string `code`
/// (OpenAI: `rate_limit_exceeded`), a numeric `code` other than the HTTP `status` (Z.ai's
/// `1311`), a string `status` (Google: `RESOURCE_EXHAUSTED`) and a string `type` other than
/// `error` (Anthropic: `overloaded_error`).
pub fn json_error_code(json: &Value, status: u16) -> Option<String> {
    let json = match json {
        Value::Array(items) => items.first()?,
        other => other,
    };
    let object = match json.get("error") {
        Some(error @ Value::Object(_)) => error,
        _ => json,
    };
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty() && *s != "error")
            .map(str::to_owned)
    };
    let numeric_code = || {
        object
            .get("code")
            .and_then(Value::as_u64)
            .filter(|code| *code != u64::from(status))
            .map(|code| code.to_string())
    };
    text("code")
        .or_else(numeric_code)
        .or_else(|| text("status"))
        .or_else(|| text("type"))
}

/// The message of a JSON error body, if it has a recognizable one.
pub fn json_error_message(json: &Value) -> Option<String> {
    // Google sometimes wraps the error object in a one-element array.
    let json = match json {
        Value::Array(items) => items.first()?,
        other => other,
    };
    match json.get("error") {
        Some(Value::String(message)) => return Some(message.clone()),
        Some(error @ Value::Object(_)) => {
            let message = match error.get("message") {
                Some(Value::String(m)) => m.clone(),
                Some(other) => other.to_string(),
                None => error.to_string(),
            };
            // OpenRouter puts the upstream provider's text in `metadata.raw` (pi appends it).
            return Some(
                match error.pointer("/metadata/raw").and_then(Value::as_str) {
                    Some(raw) => format!("{message}\n{raw}"),
                    None => message,
                },
            );
        }
        _ => {}
    }
    ["message", "detail"]
        .iter()
        .find_map(|key| json.get(key).and_then(Value::as_str))
        .map(str::to_owned)
}

fn looks_like_html(body: &str, content_type: Option<&str>) -> bool {
    if content_type.is_some_and(|t| t.to_ascii_lowercase().contains("html")) {
        return true;
    }
    let head = truncate_at_char_boundary(body, 64).to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

fn html_title(body: &str) -> Option<String> {
    let lower = body.to_ascii_lowercase();
    let start = lower.find("<title>")? + "<title>".len();
    let end = start + lower[start..].find("</title>")?;
    // ASCII lowercasing keeps byte offsets, so the indices are valid in `body` too.
    let title = body.get(start..end)?.split_whitespace().collect::<Vec<_>>();
    Some(title.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn error(status: u16, content_type: &'static str, body: &str) -> HttpError {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static(content_type));
        headers.insert("x-request-id", HeaderValue::from_static("req_1"));
        HttpError::new(status, &headers, body.as_bytes(), None)
    }

    #[test]
    fn messages_like_the_openai_sdk() {
        let e = error(
            404,
            "application/json",
            r#"{"error": {"code": "model_not_found", "message": "The model `x` does not exist"}}"#,
        );
        assert_eq!(e.message(), "404 The model `x` does not exist");
        assert_eq!(e.request_id.as_deref(), Some("req_1"));
        assert_eq!(
            error(400, "application/json", "").message(),
            "400 status code (no body)"
        );
        assert_eq!(
            error(500, "text/plain", "upstream exploded\n").message(),
            "500 upstream exploded"
        );
        assert_eq!(
            error(400, "application/json", r#"{"detail":"bad"}"#).message(),
            "400 bad"
        );
        assert_eq!(
            error(
                429,
                "application/json",
                r#"{"error":{"message":"Provider returned error","metadata":{"raw":"quota"}}}"#
            )
            .message(),
            "429 Provider returned error\nquota"
        );
    }

    #[test]
    fn error_codes_of_each_provider_shape() {
        let code = |status: u16, body: &str| error(status, "application/json", body).error_code;
        let rows = [
            (
                429,
                r#"{"error":{"message":"m","type":"requests","code":"rate_limit_exceeded"}}"#,
                Some("rate_limit_exceeded"),
            ),
            (
                400,
                r#"{"error":{"message":"m","type":"invalid_request_error","code":null}}"#,
                Some("invalid_request_error"),
            ),
            (
                429,
                r#"{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}}"#,
                Some("RESOURCE_EXHAUSTED"),
            ),
            (
                400,
                r#"[{"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT"}}]"#,
                Some("INVALID_ARGUMENT"),
            ),
            (
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"m"}}"#,
                Some("overloaded_error"),
            ),
            (
                429,
                r#"{"error":{"code":1311,"message":"m"}}"#,
                Some("1311"),
            ),
            (400, r#"{"error":"plain"}"#, None),
            (
                400,
                r#"{"code":"top_level","message":"m"}"#,
                Some("top_level"),
            ),
            (500, "not json", None),
        ];
        for (status, body, expected) in rows {
            assert_eq!(code(status, body).as_deref(), expected, "{body}");
        }
        let e = error(429, "application/json", rows[0].1);
        assert_eq!(
            e.diagnostics(),
            ErrorDiagnostics {
                http_status: Some(429),
                retry_after_ms: None,
                request_id: Some("req_1".into()),
                error_code: Some("rate_limit_exceeded".into()),
            }
        );
    }

    #[test]
    fn html_pages_and_truncation() {
        let html = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head></html>";
        assert_eq!(
            error(502, "text/html", html).message(),
            "502 Bad Gateway (HTML error page)"
        );
        assert_eq!(
            error(503, "text/html", "<html><body>down</body></html>").message(),
            "503 Service Unavailable (HTML error page)"
        );
        let long = "é".repeat(MAX_ERROR_BODY_BYTES);
        let e = error(500, "text/plain", &long);
        assert!(e.body_truncated);
        assert_eq!(e.body.len(), MAX_ERROR_BODY_BYTES);
        let invalid = HttpError::new(500, &HeaderMap::new(), b"bad \xff bytes", None);
        assert_eq!(invalid.message(), "500 bad \u{fffd} bytes");
    }
}
