//! `classifyFailoverSignal` (reference §15.2) and the message classification (§15.3).

use crate::FailoverReason;

use super::billing::{classify_402, classify_402_text};
use super::helpers::{parse_image_dimension_error, parse_image_size_error};
use super::http_status::{is_transient_http_error, parse_leading_http_status};
use super::js_regex::{js_regexes, js_trim, lower_trim};
use super::model_not_found::{
    is_cli_session_expired_error_message, is_model_not_found_error_message,
};
use super::overflow::is_context_overflow_error;
use super::patterns::{
    is_auth_error_message, is_auth_permanent_error_message, is_billing_error_message,
    is_overloaded_error_message, is_periodic_usage_limit_error_message,
    is_rate_limit_error_message, is_server_error_message, is_timeout_error_message,
    matches_format_error_pattern,
};

js_regexes! {
    OPENROUTER_KEY_LIMIT_RE = (r"\bkey\s+limit\s*(?:exceeded|reached|hit)\b", "i");
    API_ERROR_TRANSIENT_SIGNALS_RE = (r"internal server error|overload|temporarily unavailable|service unavailable|unknown error|server error|bad gateway|gateway timeout|upstream error|backend error|try again later|temporarily.+unable|unexpected error", "i");
    THROTTLING_EXCEPTION_RE = (r"\bthrottlingexception\b", "i");
    CONCURRENCY_LIMIT_RE = (r"\bconcurrency limit(?: has been)? reached\b", "i");
    WORKERS_AI_QUOTA_RE = (r"\bworkers_ai\b.*\bquota limit exceeded\b", "i");
    MODEL_NOT_READY_RE = (r"\bmodelnotreadyexception\b", "i");
    MODEL_DEACTIVATED_RE = (r"model(?:_is)?_deactivated|model has been deactivated", "i");
}

/// What is known about a failed model call: HTTP status, error code, message and provider.
#[derive(Debug, Clone, Copy, Default)]
pub struct FailoverSignal<'a> {
    /// The HTTP status, when the error carried one. Without it, a leading status of the
    /// trimmed message (`429 Too Many Requests`) is used.
    pub status: Option<u16>,
    /// A provider or transport error code (`RESOURCE_EXHAUSTED`, `ECONNRESET`, …).
    pub code: Option<&'a str>,
    /// The error message (may be empty).
    pub message: &'a str,
    /// The provider id the call was made to (some rules are provider-scoped: `anthropic`,
    /// `openrouter`).
    pub provider: Option<&'a str>,
}

/// The outcome of [`classify_failover_signal`]: a failover reason, or a context overflow
/// (which is not a failover reason: the runner compacts instead of failing over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailoverClassification {
    /// A failover reason.
    Reason(FailoverReason),
    /// The prompt does not fit the model's context window.
    ContextOverflow,
}

impl FailoverClassification {
    /// The failover reason, or `None` for a context overflow.
    pub fn reason(self) -> Option<FailoverReason> {
        match self {
            FailoverClassification::Reason(reason) => Some(reason),
            FailoverClassification::ContextOverflow => None,
        }
    }
}

/// `inferSignalStatus`: the explicit status, else the leading HTTP status of the trimmed
/// message.
pub fn infer_signal_status(signal: &FailoverSignal<'_>) -> Option<u16> {
    signal
        .status
        .or_else(|| parse_leading_http_status(js_trim(signal.message)).map(|s| s.code))
}

/// `classifyFailoverReasonFromCode`: the reason an error code stands for (reference §15.2 step
/// 3): throttling and quota codes → rate limit, `OVERLOADED(_ERROR)` → overloaded, socket and
/// DNS errno names → timeout. Case-insensitive; other codes give `None`.
pub fn failover_reason_from_code(code: &str) -> Option<FailoverReason> {
    let normalized = js_trim(code).to_uppercase();
    match normalized.as_str() {
        "RESOURCE_EXHAUSTED"
        | "RATE_LIMIT"
        | "RATE_LIMITED"
        | "RATE_LIMIT_EXCEEDED"
        | "TOO_MANY_REQUESTS"
        | "THROTTLED"
        | "THROTTLING"
        | "THROTTLINGEXCEPTION"
        | "THROTTLING_EXCEPTION" => Some(FailoverReason::RateLimit),
        "OVERLOADED" | "OVERLOADED_ERROR" => Some(FailoverReason::Overloaded),
        "ETIMEDOUT" | "ESOCKETTIMEDOUT" | "ECONNRESET" | "ECONNABORTED" | "ECONNREFUSED"
        | "ENETUNREACH" | "EHOSTUNREACH" | "EHOSTDOWN" | "ENETRESET" | "EPIPE" | "EAI_AGAIN" => {
            Some(FailoverReason::Timeout)
        }
        _ => None,
    }
}

/// `isProvider`: the trimmed, lowercased provider id contains `needle`.
fn is_provider(provider: Option<&str>, needle: &str) -> bool {
    provider
        .map(lower_trim)
        .is_some_and(|p| !p.is_empty() && p.contains(needle))
}

/// `isJsonApiInternalServerError`: a JSON `"type":"api_error"` payload with a transient signal
/// that is not billing or auth.
fn is_json_api_internal_server_error(raw: &str) -> bool {
    if !lower_trim(raw).contains("\"type\":\"api_error\"") {
        return false;
    }
    if is_billing_error_message(raw)
        || is_auth_error_message(raw)
        || is_auth_permanent_error_message(raw)
    {
        return false;
    }
    API_ERROR_TRANSIENT_SIGNALS_RE.is_match(raw)
}

/// `classifyProviderSpecificError` (legacy fallback patterns; OpenClaw's plugin hook is not
/// modeled): Bedrock throttling and not-ready, concurrency limits, Workers AI quota, Groq
/// deactivated models.
fn classify_provider_specific_error(raw: &str) -> Option<FailoverReason> {
    if THROTTLING_EXCEPTION_RE.is_match(raw)
        || CONCURRENCY_LIMIT_RE.is_match(raw)
        || WORKERS_AI_QUOTA_RE.is_match(raw)
    {
        Some(FailoverReason::RateLimit)
    } else if MODEL_NOT_READY_RE.is_match(raw) {
        Some(FailoverReason::Overloaded)
    } else if MODEL_DEACTIVATED_RE.is_match(raw) {
        Some(FailoverReason::ModelNotFound)
    } else {
        None
    }
}

/// `classifyFailoverClassificationFromMessage` (reference §15.3), in order: image errors →
/// none; CLI session expired; model not found; context overflow; raw 402 marker; OpenRouter
/// key limit; periodic usage limit; rate limit; overloaded; transient HTTP status; billing;
/// auth permanent; auth; provider-scoped unknown errors; server errors; JSON `api_error`;
/// format; timeout; provider-specific patterns.
pub fn classify_failover_message(
    raw: &str,
    provider: Option<&str>,
) -> Option<FailoverClassification> {
    use FailoverClassification::{ContextOverflow, Reason};
    use FailoverReason as R;
    if parse_image_dimension_error(raw).is_some() || parse_image_size_error(raw).is_some() {
        return None;
    }
    if is_cli_session_expired_error_message(raw) {
        return Some(Reason(R::SessionExpired));
    }
    if is_model_not_found_error_message(raw) {
        return Some(Reason(R::ModelNotFound));
    }
    if is_context_overflow_error(raw) {
        return Some(ContextOverflow);
    }
    if let Some(reason) = classify_402_text(raw) {
        return Some(Reason(reason));
    }
    if is_provider(provider, "openrouter") && OPENROUTER_KEY_LIMIT_RE.is_match(raw) {
        return Some(Reason(R::Billing));
    }
    if is_periodic_usage_limit_error_message(raw) {
        return Some(Reason(if is_billing_error_message(raw) {
            R::Billing
        } else {
            R::RateLimit
        }));
    }
    if is_rate_limit_error_message(raw) {
        return Some(Reason(R::RateLimit));
    }
    if is_overloaded_error_message(raw) {
        return Some(Reason(R::Overloaded));
    }
    if is_transient_http_error(raw) {
        let code = parse_leading_http_status(js_trim(raw)).map(|s| s.code);
        return Some(Reason(if code == Some(529) {
            R::Overloaded
        } else {
            R::Timeout
        }));
    }
    if is_billing_error_message(raw) {
        return Some(Reason(R::Billing));
    }
    if is_auth_permanent_error_message(raw) {
        return Some(Reason(R::AuthPermanent));
    }
    if is_auth_error_message(raw) {
        return Some(Reason(R::Auth));
    }
    let lower = lower_trim(raw);
    if is_provider(provider, "anthropic") && lower.contains("an unknown error occurred") {
        return Some(Reason(R::Timeout));
    }
    if is_provider(provider, "openrouter") && lower.contains("provider returned error") {
        return Some(Reason(R::Timeout));
    }
    if is_server_error_message(raw) || is_json_api_internal_server_error(raw) {
        return Some(Reason(R::Timeout));
    }
    if is_cloud_code_assist_format_error(raw) {
        return Some(Reason(R::Format));
    }
    if is_timeout_error_message(raw) {
        return Some(Reason(R::Timeout));
    }
    classify_provider_specific_error(raw).map(Reason)
}

/// `isCloudCodeAssistFormatError`: the format list matches and it is not an image-dimension
/// error.
pub fn is_cloud_code_assist_format_error(raw: &str) -> bool {
    parse_image_dimension_error(raw).is_none() && matches_format_error_pattern(raw)
}

/// `classifyFailoverClassificationFromHttpStatus`: the status table of reference §15.2.
fn classify_from_http_status(
    status: Option<u16>,
    message: &str,
    from_message: Option<FailoverClassification>,
) -> Option<FailoverClassification> {
    use FailoverClassification::{ContextOverflow, Reason};
    use FailoverReason as R;
    let status = status?;
    let message_reason = from_message.and_then(FailoverClassification::reason);
    let keeps_message_reason = matches!(
        message_reason,
        Some(R::SessionExpired | R::Billing | R::AuthPermanent | R::Auth)
    );
    match status {
        402 => Some(Reason(if message.is_empty() {
            R::Billing
        } else {
            classify_402(message)
        })),
        429 => Some(Reason(R::RateLimit)),
        401 | 403 => {
            if !message.is_empty() && is_auth_permanent_error_message(message) {
                Some(Reason(R::AuthPermanent))
            } else if message_reason == Some(R::Billing) {
                Some(Reason(R::Billing))
            } else {
                Some(Reason(R::Auth))
            }
        }
        408 => Some(Reason(R::Timeout)),
        410 => {
            if keeps_message_reason {
                from_message
            } else {
                Some(Reason(R::Timeout))
            }
        }
        404 => {
            if from_message == Some(ContextOverflow) || keeps_message_reason {
                from_message
            } else {
                Some(Reason(R::ModelNotFound))
            }
        }
        499 | 503 => {
            if message_reason == Some(R::Overloaded) {
                from_message
            } else {
                Some(Reason(R::Timeout))
            }
        }
        500 | 502 | 504 => Some(Reason(R::Timeout)),
        529 => Some(Reason(R::Overloaded)),
        400 | 422 => from_message.or(Some(Reason(R::Format))),
        _ => None,
    }
}

/// `classifyFailoverSignal` (reference §15.2): the status (explicit, else the message's leading
/// status) decides when the status table gives a result; then the error code; then the message
/// classification (§15.3). `None` means "not a failover".
pub fn classify_failover_signal(signal: &FailoverSignal<'_>) -> Option<FailoverClassification> {
    let status = infer_signal_status(signal);
    let from_message = if signal.message.is_empty() {
        None
    } else {
        classify_failover_message(signal.message, signal.provider)
    };
    classify_from_http_status(status, signal.message, from_message)
        .or_else(|| {
            signal
                .code
                .and_then(failover_reason_from_code)
                .map(FailoverClassification::Reason)
        })
        .or(from_message)
}

/// The failover reason of a signal; a context overflow or no classification gives `None`.
pub fn failover_reason_from_signal(signal: &FailoverSignal<'_>) -> Option<FailoverReason> {
    classify_failover_signal(signal).and_then(FailoverClassification::reason)
}

/// `classifyFailoverReason(raw, {provider})` (reference §15.3 last paragraph): the reason of the
/// signal made of `raw`'s leading HTTP status, `raw` itself and the provider.
pub fn classify_failover_reason(raw: &str, provider: Option<&str>) -> Option<FailoverReason> {
    failover_reason_from_signal(&FailoverSignal {
        status: parse_leading_http_status(js_trim(raw)).map(|s| s.code),
        code: None,
        message: raw,
        provider,
    })
}

/// `isFailoverErrorMessage`: [`classify_failover_reason`] finds a reason.
pub fn is_failover_error_message(raw: &str, provider: Option<&str>) -> bool {
    classify_failover_reason(raw, provider).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailoverClassification::{ContextOverflow as CO, Reason as R};
    use FailoverReason::{
        Auth, AuthPermanent, Billing, Format, ModelNotFound, Overloaded, RateLimit, SessionExpired,
        Timeout,
    };
    use pretty_assertions::assert_eq;

    type Row = (
        &'static str,
        Option<u16>,
        Option<&'static str>,
        Option<&'static str>,
        Option<FailoverClassification>,
    );

    /// Every row was computed with OpenClaw 2026.4.12's `classifyFailoverSignal`.
    #[test]
    fn signal_vectors_match_openclaw() {
        let rows: Vec<Row> = vec![
            ("402 Payment Required", None, None, None, Some(R(Billing))),
            (
                "Your organization usage limit was reached, try again later",
                Some(402),
                None,
                None,
                Some(R(RateLimit)),
            ),
            ("429", Some(429), None, None, Some(R(RateLimit))),
            ("Forbidden", Some(403), None, None, Some(R(Auth))),
            ("timeout", Some(408), None, None, Some(R(Timeout))),
            ("gone", Some(410), None, None, Some(R(Timeout))),
            ("closed", Some(499), None, None, Some(R(Timeout))),
            ("boom", Some(500), None, None, Some(R(Timeout))),
            ("bad gateway", Some(502), None, None, Some(R(Timeout))),
            ("unavailable", Some(503), None, None, Some(R(Timeout))),
            ("gateway timeout", Some(504), None, None, Some(R(Timeout))),
            ("bad", Some(400), None, None, Some(R(Format))),
            ("unprocessable", Some(422), None, None, Some(R(Format))),
            ("", Some(521), None, None, None),
            ("", Some(402), None, None, Some(R(Billing))),
            ("", Some(400), None, None, Some(R(Format))),
            (
                "Service Unavailable",
                Some(503),
                None,
                None,
                Some(R(Timeout)),
            ),
            (
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                Some(503),
                None,
                None,
                Some(R(Overloaded)),
            ),
            ("overloaded", Some(499), None, None, Some(R(Overloaded))),
            ("overloaded", Some(529), None, None, Some(R(Overloaded))),
            (
                "API key revoked",
                Some(401),
                None,
                None,
                Some(R(AuthPermanent)),
            ),
            (
                "Key limit exceeded",
                Some(403),
                None,
                Some("openrouter"),
                Some(R(Billing)),
            ),
            ("Key limit exceeded", Some(403), None, None, Some(R(Auth))),
            ("permission_error", Some(403), None, None, Some(R(Auth))),
            (
                "not allowed for this organization",
                Some(403),
                None,
                None,
                Some(R(AuthPermanent)),
            ),
            (
                "insufficient balance",
                Some(401),
                None,
                None,
                Some(R(Billing)),
            ),
            (
                "session expired",
                Some(410),
                None,
                None,
                Some(R(SessionExpired)),
            ),
            ("invalid api key", Some(410), None, None, Some(R(Auth))),
            ("prompt is too long", Some(404), None, None, Some(CO)),
            ("not found", Some(404), None, None, Some(R(ModelNotFound))),
            (
                "insufficient credits",
                Some(404),
                None,
                None,
                Some(R(Billing)),
            ),
            ("rate limit", Some(400), None, None, Some(R(RateLimit))),
            ("prompt is too long", Some(400), None, None, Some(CO)),
            (
                "Service temporarily degraded",
                Some(418),
                Some("ECONNREFUSED"),
                None,
                Some(R(Timeout)),
            ),
            (
                "insufficient balance",
                None,
                Some("THROTTLING_EXCEPTION"),
                None,
                Some(R(RateLimit)),
            ),
            (
                "name resolution hiccup",
                None,
                Some("EAI_AGAIN"),
                None,
                Some(R(Timeout)),
            ),
            ("upstream said no", None, Some("E_WEIRD_CODE"), None, None),
            (
                "aborted",
                None,
                Some("resource_exhausted"),
                None,
                Some(R(RateLimit)),
            ),
            (
                "x",
                None,
                Some(" overloaded_error "),
                None,
                Some(R(Overloaded)),
            ),
            (
                "Provider returned error",
                None,
                None,
                Some("openrouter"),
                Some(R(Timeout)),
            ),
            (
                "Provider returned error",
                None,
                None,
                Some("anthropic"),
                None,
            ),
            (
                "An unknown error occurred",
                None,
                None,
                Some("anthropic"),
                Some(R(Timeout)),
            ),
            (
                "An unknown error occurred",
                None,
                None,
                Some("openai"),
                None,
            ),
            (
                "Key limit exceeded",
                None,
                None,
                Some("OpenRouter"),
                Some(R(Billing)),
            ),
            (
                "image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes",
                None,
                None,
                None,
                None,
            ),
            (
                "image dimensions exceed max allowed size for many-image requests: 2000 pixels",
                None,
                None,
                None,
                None,
            ),
            (
                "Session not found",
                None,
                None,
                None,
                Some(R(SessionExpired)),
            ),
            (
                "Unknown model: gpt-9-ultra",
                None,
                None,
                None,
                Some(R(ModelNotFound)),
            ),
            (
                "prompt is too long: 277403 tokens > 200000 maximum",
                None,
                None,
                None,
                Some(CO),
            ),
            (
                "Context window exceeded: too many tokens per request.",
                None,
                None,
                None,
                None,
            ),
            (
                "You have hit your weekly usage limit",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "daily usage limit reached, upgrade your plan for more credits",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            ("Too many requests", None, None, None, Some(R(RateLimit))),
            ("high demand", None, None, None, Some(R(Overloaded))),
            ("529 Overloaded", None, None, None, Some(R(Overloaded))),
            (
                "503 Service Unavailable",
                None,
                None,
                None,
                Some(R(Timeout)),
            ),
            (
                "Your credit balance is too low",
                None,
                None,
                None,
                Some(R(Billing)),
            ),
            (
                "Your API key has been disabled",
                None,
                None,
                None,
                Some(R(AuthPermanent)),
            ),
            ("invalid api key", None, None, None, Some(R(Auth))),
            (
                r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
                None,
                None,
                None,
                Some(R(Timeout)),
            ),
            ("internal server error", None, None, None, Some(R(Timeout))),
            ("tool_use_id mismatch", None, None, None, Some(R(Format))),
            (
                "Unhandled stop reason: MALFORMED_RESPONSE",
                None,
                None,
                None,
                Some(R(Timeout)),
            ),
            (
                "Unhandled stop reason: MALFORMED_FUNCTION_CALL",
                None,
                None,
                None,
                None,
            ),
            (
                "connect ECONNREFUSED 127.0.0.1:443",
                None,
                None,
                None,
                Some(R(Timeout)),
            ),
            (
                "ThrottlingException: Rate exceeded",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "ModelNotReadyException: model is loading",
                None,
                None,
                None,
                Some(R(Overloaded)),
            ),
            (
                "concurrency limit has been reached",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "workers_ai: quota limit exceeded",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "model_is_deactivated",
                None,
                None,
                None,
                Some(R(ModelNotFound)),
            ),
            (
                r#"{"code":1311,"message":"insufficient balance"}"#,
                None,
                None,
                None,
                Some(R(Billing)),
            ),
            (
                r#"{"code":1113,"message":"auth failed"}"#,
                None,
                None,
                None,
                Some(R(Auth)),
            ),
            ("something weird", None, None, None, None),
            (
                "521 <!DOCTYPE html><html><body>Cloudflare</body></html>",
                None,
                None,
                None,
                Some(R(Timeout)),
            ),
            ("400 insufficient_quota", None, None, None, Some(R(Billing))),
            (
                "This operation was aborted",
                None,
                None,
                None,
                Some(R(Timeout)),
            ),
            ("Request was aborted.", None, None, None, None),
            ("reason: abort", None, None, None, Some(R(Timeout))),
            (
                "Error: 429 Too Many Requests",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "402 You have used up your points",
                None,
                None,
                None,
                Some(R(Billing)),
            ),
            (
                "402 subscription quota limit reached; automatic quota refresh",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "request reached organization TPD rate limit, current: 1000",
                None,
                None,
                None,
                Some(R(RateLimit)),
            ),
            (
                "402 Payment Required: request token limit exceeded for this billing plan",
                None,
                None,
                None,
                Some(R(Billing)),
            ),
        ];
        let got: Vec<Row> = rows
            .iter()
            .map(|&(message, status, code, provider, _)| {
                let signal = FailoverSignal {
                    status,
                    code,
                    message,
                    provider,
                };
                (
                    message,
                    status,
                    code,
                    provider,
                    classify_failover_signal(&signal),
                )
            })
            .collect();
        assert_eq!(got, rows);
    }

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 7);
    }

    #[test]
    fn reason_from_signal_hides_overflow() {
        let overflow = FailoverSignal {
            message: "prompt is too long",
            ..FailoverSignal::default()
        };
        assert_eq!(classify_failover_signal(&overflow), Some(CO));
        assert_eq!(failover_reason_from_signal(&overflow), None);
        assert_eq!(CO.reason(), None);
        assert_eq!(R(Billing).reason(), Some(Billing));
    }

    #[test]
    fn classify_failover_reason_uses_the_leading_status() {
        let cases = [
            ("429 Too Many Requests", None, Some(RateLimit)),
            ("  429 slow down ", None, Some(RateLimit)),
            (
                "401 Unauthorized: Incorrect API key provided",
                None,
                Some(Auth),
            ),
            ("402", None, Some(Billing)),
            ("404 page not found", None, Some(ModelNotFound)),
            ("410 Gone", None, Some(Timeout)),
            ("422 Unprocessable Entity", None, Some(Format)),
            ("521", None, Some(Timeout)),
            ("Key limit exceeded", Some("openrouter"), Some(Billing)),
            ("Key limit exceeded", None, None),
            (
                "Context window exceeded: too many tokens per request.",
                None,
                None,
            ),
            ("", None, None),
        ];
        for (raw, provider, expected) in cases {
            assert_eq!(classify_failover_reason(raw, provider), expected, "{raw}");
            assert_eq!(
                is_failover_error_message(raw, provider),
                expected.is_some(),
                "{raw}"
            );
        }
    }

    #[test]
    fn explicit_status_beats_the_leading_status() {
        let signal = FailoverSignal {
            status: Some(503),
            message: "429 slow",
            ..FailoverSignal::default()
        };
        assert_eq!(infer_signal_status(&signal), Some(503));
        assert_eq!(failover_reason_from_signal(&signal), Some(Timeout));
        let inferred = FailoverSignal {
            message: " HTTP 529 ",
            ..FailoverSignal::default()
        };
        assert_eq!(infer_signal_status(&inferred), Some(529));
    }

    #[test]
    fn code_table() {
        let cases = [
            ("RESOURCE_EXHAUSTED", Some(RateLimit)),
            ("rate_limit", Some(RateLimit)),
            ("RATE_LIMITED", Some(RateLimit)),
            ("RATE_LIMIT_EXCEEDED", Some(RateLimit)),
            ("TOO_MANY_REQUESTS", Some(RateLimit)),
            ("THROTTLED", Some(RateLimit)),
            ("THROTTLING", Some(RateLimit)),
            ("ThrottlingException", Some(RateLimit)),
            ("THROTTLING_EXCEPTION", Some(RateLimit)),
            ("OVERLOADED", Some(Overloaded)),
            (" overloaded_error ", Some(Overloaded)),
            ("ETIMEDOUT", Some(Timeout)),
            ("ESOCKETTIMEDOUT", Some(Timeout)),
            ("ECONNRESET", Some(Timeout)),
            ("ECONNABORTED", Some(Timeout)),
            ("ECONNREFUSED", Some(Timeout)),
            ("ENETUNREACH", Some(Timeout)),
            ("EHOSTUNREACH", Some(Timeout)),
            ("EHOSTDOWN", Some(Timeout)),
            ("ENETRESET", Some(Timeout)),
            ("EPIPE", Some(Timeout)),
            ("eai_again", Some(Timeout)),
            ("ENOTFOUND", None),
            ("E_WEIRD_CODE", None),
            ("", None),
        ];
        for (code, expected) in cases {
            assert_eq!(failover_reason_from_code(code), expected, "{code}");
        }
    }

    #[test]
    fn session_expired_and_auth_variants_survive_410_and_404() {
        let with = |status, message| {
            classify_failover_signal(&FailoverSignal {
                status: Some(status),
                message,
                ..FailoverSignal::default()
            })
        };
        assert_eq!(with(410, "no such session"), Some(R(SessionExpired)));
        assert_eq!(with(410, "API key revoked"), Some(R(AuthPermanent)));
        assert_eq!(with(404, "conversation not found"), Some(R(SessionExpired)));
        assert_eq!(with(404, "unauthorized"), Some(R(Auth)));
        assert_eq!(with(404, "overloaded"), Some(R(ModelNotFound)));
    }
}
