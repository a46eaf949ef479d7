//! Raw provider error payloads and their UI formatting (`shared/assistant-error-format.ts`,
//! reference §16 step 19).

use serde_json::{Map, Value};

use super::html_page::is_html_error_body;
use super::http_status::parse_leading_http_status;
use super::js_regex::{js_regexes, js_trim, utf16_len, utf16_prefix};

js_regexes! {
    ERROR_PAYLOAD_PREFIX_RE = (r"^(?:error|(?:[a-z][\w-]*\s+)?api\s*error|apierror|openai\s*error|anthropic\s*error|gateway\s*error|codex\s*error)(?:\s+\d{3})?[:\s-]+", "i");
    HTTP_STATUS_PREFIX_RE = (r"^(?:http\s*)?(\d{3})(?:\s*:\s*|\s+)(.+)$", "i");
    HTTP_PREFIX_INFO_RE = (r"^(\d{3})\s+(.+)$", "s");
}

/// Statuses whose error page is treated as a Cloudflare page whatever its body.
const CLOUDFLARE_HTML_ERROR_CODES: [u16; 7] = [521, 522, 523, 524, 525, 526, 530];

/// Longest raw text shown as is; longer text is cut and ends with `…`.
pub(crate) const MAX_RAW_ERROR_CHARS: usize = 600;

/// The fields of a provider error payload (`parseApiErrorInfo`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiErrorInfo {
    /// The leading HTTP status text (`"400"`) when the payload was prefixed by one.
    pub http_code: Option<String>,
    /// `error.type`, else `error.code`, else the top-level `type`.
    pub error_type: Option<String>,
    /// `error.message`, else the top-level `message`.
    pub message: Option<String>,
    /// `request_id` or `requestId`.
    pub request_id: Option<String>,
}

fn is_error_payload_object(record: &Map<String, Value>) -> bool {
    if record.get("type").and_then(Value::as_str) == Some("error") {
        return true;
    }
    if record.get("request_id").is_some_and(Value::is_string)
        || record.get("requestId").is_some_and(Value::is_string)
    {
        return true;
    }
    if let Some(Value::Object(err)) = record.get("error") {
        return err.get("message").is_some_and(Value::is_string)
            || err.get("type").is_some_and(Value::is_string)
            || err.get("code").is_some_and(Value::is_string);
    }
    false
}

/// `parseApiErrorPayload`: the JSON object of a raw provider error (`{"type":"error",…}`,
/// `{"error":{…}}`, or anything with a `request_id`), also behind a prefix such as
/// `Error: ` or `OpenAI API error 400: `.
pub fn parse_api_error_payload(raw: &str) -> Option<Map<String, Value>> {
    let trimmed = js_trim(raw);
    if trimmed.is_empty() {
        return None;
    }
    let mut candidates = vec![trimmed.to_owned()];
    if ERROR_PAYLOAD_PREFIX_RE.is_match(trimmed) {
        candidates.push(js_trim(&ERROR_PAYLOAD_PREFIX_RE.replace(trimmed, "")).to_owned());
    }
    candidates.into_iter().find_map(|candidate| {
        if !candidate.starts_with('{') || !candidate.ends_with('}') {
            return None;
        }
        match serde_json::from_str::<Value>(&candidate) {
            Ok(Value::Object(map)) if is_error_payload_object(&map) => Some(map),
            _ => None,
        }
    })
}

/// True if the text is a raw provider error payload (`isRawApiErrorPayload`).
pub fn is_raw_api_error_payload(raw: &str) -> bool {
    parse_api_error_payload(raw).is_some()
}

/// `parseApiErrorInfo`: the type, message and request id of a raw error payload, optionally
/// after a leading `NNN ` status.
pub fn parse_api_error_info(raw: &str) -> Option<ApiErrorInfo> {
    let trimmed = js_trim(raw);
    if trimmed.is_empty() {
        return None;
    }
    let mut http_code = None;
    let mut candidate = trimmed;
    if let Some(caps) = HTTP_PREFIX_INFO_RE.captures(candidate)
        && let (Some(code), Some(rest)) = (caps.get(1), caps.get(2))
    {
        http_code = Some(code.as_str().to_owned());
        candidate = js_trim(rest.as_str());
    }
    let payload = parse_api_error_payload(candidate)?;
    let string_field = |map: &Map<String, Value>, key: &str| {
        map.get(key).and_then(Value::as_str).map(str::to_owned)
    };
    let request_id =
        string_field(&payload, "request_id").or_else(|| string_field(&payload, "requestId"));
    let top_type = string_field(&payload, "type");
    let top_message = string_field(&payload, "message");
    let (mut err_type, mut err_message) = (None, None);
    if let Some(Value::Object(err)) = payload.get("error") {
        err_type = string_field(err, "type").or_else(|| string_field(err, "code"));
        err_message = string_field(err, "message");
    }
    Some(ApiErrorInfo {
        http_code,
        error_type: err_type.or(top_type),
        message: err_message.or(top_message),
        request_id,
    })
}

/// `isCloudflareOrHtmlErrorPage`: a leading 5xx status that is a Cloudflare status (521–526,
/// 530) or is followed by an HTML document (`<!doctype html …</html>`, or the providers'
/// condensed `<title> (HTML error page)`).
pub fn is_cloudflare_or_html_error_page(raw: &str) -> bool {
    let trimmed = js_trim(raw);
    if trimmed.is_empty() {
        return false;
    }
    let Some(status) = parse_leading_http_status(trimmed) else {
        return false;
    };
    if status.code < 500 {
        return false;
    }
    if CLOUDFLARE_HTML_ERROR_CODES.contains(&status.code) {
        return true;
    }
    status.code < 600 && is_html_error_body(status.rest)
}

/// Cuts text longer than 600 UTF-16 units to its first 600 and appends `…`.
pub(crate) fn truncate_raw_error(text: &str) -> String {
    if utf16_len(text) > MAX_RAW_ERROR_CHARS {
        format!("{}…", utf16_prefix(text, MAX_RAW_ERROR_CHARS))
    } else {
        text.to_owned()
    }
}

/// `formatRawAssistantErrorForUi`: a Cloudflare/HTML 5xx page becomes `The AI service is
/// temporarily unavailable (HTTP NNN). …`; `NNN text` becomes `HTTP NNN: text`; a JSON payload
/// becomes `HTTP NNN type: message` or `LLM error type: message`; anything else is the text,
/// cut at 600 units.
pub fn format_raw_assistant_error_for_ui(raw: &str) -> String {
    let trimmed = js_trim(raw);
    if trimmed.is_empty() {
        return crate::error_text::UNKNOWN_ERROR_TEXT.to_owned();
    }
    if let Some(status) = parse_leading_http_status(trimmed)
        && is_cloudflare_or_html_error_page(trimmed)
    {
        return format!(
            "The AI service is temporarily unavailable (HTTP {}). Please try again in a moment.",
            status.code
        );
    }
    if let Some(caps) = HTTP_STATUS_PREFIX_RE.captures(trimmed)
        && let (Some(code), Some(rest)) = (caps.get(1), caps.get(2))
        && !js_trim(rest.as_str()).starts_with('{')
    {
        return format!("HTTP {}: {}", code.as_str(), js_trim(rest.as_str()));
    }
    if let Some(info) = parse_api_error_info(trimmed)
        && let Some(message) = info.message.filter(|m| !m.is_empty())
    {
        let head = info
            .http_code
            .map_or_else(|| "LLM error".to_owned(), |c| format!("HTTP {c}"));
        let kind = info
            .error_type
            .filter(|t| !t.is_empty())
            .map(|t| format!(" {t}"))
            .unwrap_or_default();
        return format!("{head}{kind}: {message}");
    }
    truncate_raw_error(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 3);
    }

    #[test]
    fn payload_detection() {
        let cases = [
            (
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                true,
            ),
            (
                r#"Error: {"error":{"message":"bad","type":"invalid_request_error"}}"#,
                true,
            ),
            (r#"OpenAI API error 400: {"error":{"code":"x"}}"#, true),
            (r#"{"request_id":"req_1"}"#, true),
            (r#"{"error":"plain string"}"#, false),
            (r#"{"type":"message"}"#, false),
            ("[1,2]", false),
            ("{not json}", false),
            ("", false),
        ];
        for (raw, expected) in cases {
            assert_eq!(is_raw_api_error_payload(raw), expected, "{raw}");
        }
    }

    #[test]
    fn info_fields() {
        let info = parse_api_error_info(
            r#"400 {"type":"error","error":{"code":"bad_thing","message":"Nope"},"request_id":"r1"}"#,
        );
        assert_eq!(
            info,
            Some(ApiErrorInfo {
                http_code: Some("400".into()),
                error_type: Some("bad_thing".into()),
                message: Some("Nope".into()),
                request_id: Some("r1".into()),
            })
        );
    }

    #[test]
    fn raw_ui_formatting() {
        let long = "x".repeat(700);
        let cases: Vec<(&str, String)> = vec![
            ("", "LLM request failed with an unknown error.".into()),
            ("521 <!DOCTYPE html><html>cloudflare</html>", "The AI service is temporarily unavailable (HTTP 521). Please try again in a moment.".into()),
            ("502 <!doctype html><html><body>Bad gateway</body></html>", "The AI service is temporarily unavailable (HTTP 502). Please try again in a moment.".into()),
            // The providers crate's condensed form of the same page.
            ("502 Bad Gateway (HTML error page)", "The AI service is temporarily unavailable (HTTP 502). Please try again in a moment.".into()),
            ("401 Unauthorized: Incorrect API key provided", "HTTP 401: Unauthorized: Incorrect API key provided".into()),
            ("HTTP 404: not found", "HTTP 404: not found".into()),
            (r#"400 {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#, "HTTP 400 invalid_request_error: bad".into()),
            (r#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#, "LLM error api_error: boom".into()),
            (r#"{"error":{"message":"no type"}}"#, "LLM error: no type".into()),
            (&long, format!("{}…", "x".repeat(600))),
        ];
        for (raw, expected) in cases {
            assert_eq!(format_raw_assistant_error_for_ui(raw), expected, "{raw}");
        }
    }
}
