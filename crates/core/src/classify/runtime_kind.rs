//! `classifyProviderRuntimeFailureKind` (reference §15.6): the failure family the user-facing
//! copy is chosen by.

use serde::{Deserialize, Serialize};

use crate::FailoverReason;

use super::html_page::is_html_error_body;
use super::http_status::parse_leading_http_status;
use super::js_regex::{js_regexes, js_trim, lower_trim};
use super::overflow::is_context_overflow_error;
use super::patterns::{is_timeout_error_message, matches_format_error_pattern};
use super::signal::{
    FailoverClassification, FailoverSignal, classify_failover_reason, classify_failover_signal,
    infer_signal_status,
};

js_regexes! {
    OAUTH_REFRESH_FAILED_RE = (r"oauth token refresh failed", "i");
    AUTH_SCOPE_HINT_RE = (r"\b(?:missing|required|requires|insufficient)\s+(?:the\s+following\s+)?scopes?\b|\bmissing\s+scope\b", "i");
    AUTH_SCOPE_NAME_RE = (r"\b(?:api\.responses\.write|model\.request)\b", "i");
    OPENAI_CODEX_RE = (r"\bopenai\s+codex\b", "i");
    CODEX_SCOPES_RE = (r"\bcodex\b.*\bscopes?\b", "i");
    PROXY_ERROR_RE = (r"\bproxyconnect\b|\bhttps?_proxy\b|\b407\b|\bproxy authentication required\b|\btunnel connection failed\b|\bconnect tunnel\b|\bsocks proxy\b|\bproxy error\b", "i");
    DNS_ERROR_RE = (r"\benotfound\b|\beai_again\b|\bgetaddrinfo\b|\bno such host\b|\bdns\b", "i");
    INTERRUPTED_NETWORK_ERROR_RE = (r"\beconnrefused\b|\beconnreset\b|\beconnaborted\b|\benetreset\b|\behostunreach\b|\behostdown\b|\benetunreach\b|\bepipe\b|\bsocket hang up\b|\bconnection refused\b|\bconnection reset\b|\bconnection aborted\b|\bnetwork is unreachable\b|\bhost is unreachable\b|\bfetch failed\b|\bconnection error\b|\bnetwork request failed\b", "i");
    REPLAY_INVALID_RE = (r"\bprevious_response_id\b.*\b(?:invalid|unknown|not found|does not exist|expired|mismatch)\b|\btool_(?:use|call)\.(?:input|arguments)\b.*\b(?:missing|required)\b|\bincorrect role information\b|\broles must alternate\b", "i");
    SANDBOX_BLOCKED_RE = (r"\bapproval is required\b|\bapproval timed out\b|\bapproval was denied\b|\bblocked by sandbox\b|\bsandbox\b.*\b(?:blocked|denied|forbidden|disabled|not allowed)\b", "i");
    EXEC_DENIED_RE = (r"^exec denied \(([^)]*)\):(?:\s*([\s\S]*))?$", "i");
}

/// The failure family of a provider error (`ProviderRuntimeFailureKind`, OpenClaw 2026.4.12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderRuntimeFailureKind {
    /// An OAuth token refresh failed (`OAuth token refresh failed …`).
    AuthRefresh,
    /// An OpenAI Codex token lacks required scopes (401/403 or a scope hint).
    AuthScope,
    /// A 403 answered with an HTML page.
    #[serde(rename = "auth_html_403")]
    AuthHtml403,
    /// A proxy or tunnel blocked the request (407, `proxyconnect`, `socks proxy`, …).
    Proxy,
    /// The signal classifies as a rate limit.
    RateLimit,
    /// DNS resolution failed (`ENOTFOUND`, `EAI_AGAIN`, `getaddrinfo`, …).
    Dns,
    /// An approval or sandbox policy blocked the action.
    SandboxBlocked,
    /// The replayed history or a previous response id is invalid.
    ReplayInvalid,
    /// The provider rejected the request schema or tool payload.
    Schema,
    /// A timeout, an overload or an interrupted connection.
    Timeout,
    /// None of the above.
    Unknown,
}

impl ProviderRuntimeFailureKind {
    /// The wire name, e.g. `"auth_html_403"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderRuntimeFailureKind::AuthRefresh => "auth_refresh",
            ProviderRuntimeFailureKind::AuthScope => "auth_scope",
            ProviderRuntimeFailureKind::AuthHtml403 => "auth_html_403",
            ProviderRuntimeFailureKind::Proxy => "proxy",
            ProviderRuntimeFailureKind::RateLimit => "rate_limit",
            ProviderRuntimeFailureKind::Dns => "dns",
            ProviderRuntimeFailureKind::SandboxBlocked => "sandbox_blocked",
            ProviderRuntimeFailureKind::ReplayInvalid => "replay_invalid",
            ProviderRuntimeFailureKind::Schema => "schema",
            ProviderRuntimeFailureKind::Timeout => "timeout",
            ProviderRuntimeFailureKind::Unknown => "unknown",
        }
    }
}

fn is_html_error_response(raw: &str, status: Option<u16>) -> bool {
    let trimmed = js_trim(raw);
    if trimmed.is_empty() {
        return false;
    }
    let leading = parse_leading_http_status(trimmed);
    let Some(inferred) = status.or(leading.map(|s| s.code)) else {
        return false;
    };
    if inferred < 400 {
        return false;
    }
    let rest = leading.map_or(trimmed, |s| s.rest);
    is_html_error_body(rest)
}

fn is_auth_scope_error(raw: &str, status: Option<u16>, provider: Option<&str>) -> bool {
    let codex_context = provider.map(lower_trim).as_deref() == Some("openai-codex")
        || OPENAI_CODEX_RE.is_match(raw)
        || CODEX_SCOPES_RE.is_match(raw);
    if !codex_context {
        return false;
    }
    let has_hint = AUTH_SCOPE_HINT_RE.is_match(raw);
    if !has_hint && !AUTH_SCOPE_NAME_RE.is_match(raw) {
        return false;
    }
    match status.or_else(|| parse_leading_http_status(js_trim(raw)).map(|s| s.code)) {
        None => has_hint,
        Some(code) => code == 401 || code == 403,
    }
}

fn is_replay_invalid(raw: &str) -> bool {
    REPLAY_INVALID_RE.is_match(raw)
}

fn is_schema_error(raw: &str) -> bool {
    if raw.is_empty() || is_replay_invalid(raw) || is_context_overflow_error(raw) {
        return false;
    }
    classify_failover_reason(raw, None) == Some(FailoverReason::Format)
        || matches_format_error_pattern(raw)
}

fn is_timeout_transport_error(raw: &str, status: Option<u16>) -> bool {
    if raw.is_empty() {
        return false;
    }
    is_timeout_error_message(raw)
        || INTERRUPTED_NETWORK_ERROR_RE.is_match(raw)
        || status
            .is_some_and(|s| [408, 499, 500, 502, 503, 504, 521, 522, 523, 524, 529].contains(&s))
}

/// `classifyProviderRuntimeFailureKind` (reference §15.6), in order: auth refresh, Codex auth
/// scope, HTML 403, proxy, rate limit (by [`classify_failover_signal`]), DNS, sandbox blocked,
/// replay invalid, schema, timeout (a timeout/overloaded classification or transport wording
/// or a transient status), unknown. The message is trimmed; the status is the explicit one,
/// else the message's leading status.
pub fn classify_provider_runtime_failure_kind(
    signal: &FailoverSignal<'_>,
) -> ProviderRuntimeFailureKind {
    use ProviderRuntimeFailureKind as K;
    let message = js_trim(signal.message);
    let status = infer_signal_status(&FailoverSignal { message, ..*signal });
    if message.is_empty() && status.is_none() {
        return K::Unknown;
    }
    let has_message = !message.is_empty();
    if has_message && OAUTH_REFRESH_FAILED_RE.is_match(message) {
        return K::AuthRefresh;
    }
    if has_message && is_auth_scope_error(message, status, signal.provider) {
        return K::AuthScope;
    }
    if has_message && status == Some(403) && is_html_error_response(message, status) {
        return K::AuthHtml403;
    }
    if has_message && (status == Some(407) || PROXY_ERROR_RE.is_match(message)) {
        return K::Proxy;
    }
    let classification = classify_failover_signal(&FailoverSignal {
        status,
        message,
        ..*signal
    });
    let reason = classification.and_then(FailoverClassification::reason);
    if reason == Some(FailoverReason::RateLimit) {
        return K::RateLimit;
    }
    if has_message && DNS_ERROR_RE.is_match(message) {
        return K::Dns;
    }
    if has_message && (EXEC_DENIED_RE.is_match(message) || SANDBOX_BLOCKED_RE.is_match(message)) {
        return K::SandboxBlocked;
    }
    if has_message && is_replay_invalid(message) {
        return K::ReplayInvalid;
    }
    if has_message && is_schema_error(message) {
        return K::Schema;
    }
    if matches!(
        reason,
        Some(FailoverReason::Timeout | FailoverReason::Overloaded)
    ) {
        return K::Timeout;
    }
    if is_timeout_transport_error(message, status) {
        return K::Timeout;
    }
    K::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::ProviderRuntimeFailureKind as K;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 11);
    }

    /// Every row was computed with OpenClaw 2026.4.12's `classifyProviderRuntimeFailureKind`.
    #[test]
    fn kinds_match_openclaw() {
        let rows: Vec<(&str, Option<&str>, K)> = vec![
            ("", None, K::Unknown),
            ("   ", None, K::Unknown),
            ("unknown tool: sessions_send", None, K::Unknown),
            ("ENOSPC: no space left on device, write", None, K::Unknown),
            ("Disk full while saving", None, K::Unknown),
            (
                "OAuth token refresh failed for openai-codex: invalid_grant",
                None,
                K::AuthRefresh,
            ),
            (
                "401 Unauthorized: Your OpenAI Codex token is missing required scopes api.responses.write",
                None,
                K::AuthScope,
            ),
            (
                "Missing scopes: model.request",
                Some("openai-codex"),
                K::AuthScope,
            ),
            (
                "403 <!DOCTYPE html><html><body>Forbidden</body></html>",
                None,
                K::AuthHtml403,
            ),
            ("403 Forbidden (HTML error page)", None, K::AuthHtml403),
            ("407 Proxy Authentication Required", None, K::Proxy),
            (
                "proxyconnect tcp: dial tcp 127.0.0.1:8080: connect: connection refused",
                None,
                K::Proxy,
            ),
            (
                "prompt is too long: 277403 tokens > 200000 maximum",
                None,
                K::Unknown,
            ),
            (
                "400 Reasoning is mandatory for this endpoint and cannot be disabled.",
                None,
                K::Schema,
            ),
            (
                "Unexpected event order, got message_start before receiving message_stop",
                None,
                K::Unknown,
            ),
            (
                r#"messages: roles must alternate between "user" and "assistant""#,
                None,
                K::ReplayInvalid,
            ),
            ("400 Bad Request: invalid role sequence", None, K::Schema),
            (
                "messages.3.content.1.tool_use.input: Field required",
                None,
                K::ReplayInvalid,
            ),
            (
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 999999 > 64000"}}"#,
                None,
                K::Unknown,
            ),
            ("429 Too Many Requests", None, K::RateLimit),
            (
                "Rate limit reached for gpt-4 in organization org-abc on requests per min. Please try again in 6s.",
                None,
                K::RateLimit,
            ),
            (
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit: 10 rpm; try again in 2 minutes"}}"#,
                None,
                K::RateLimit,
            ),
            (
                "Error: You exceeded your current quota, please check your plan and billing details.",
                None,
                K::RateLimit,
            ),
            (
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                None,
                K::Timeout,
            ),
            ("connect ECONNREFUSED 127.0.0.1:443", None, K::Timeout),
            ("read ECONNRESET", None, K::Timeout),
            ("getaddrinfo ENOTFOUND api.openai.com", None, K::Dns),
            ("connect EHOSTUNREACH 10.0.0.1:443", None, K::Timeout),
            ("fetch failed", None, K::Timeout),
            ("Request timed out.", None, K::Timeout),
            ("402 Payment Required", None, K::Unknown),
            ("insufficient balance", Some("openai"), K::Unknown),
            ("insufficient balance", Some("openai"), K::Unknown),
            ("insufficient balance", None, K::Unknown),
            (
                "string should match pattern '^[a-zA-Z0-9_-]+$'",
                None,
                K::Schema,
            ),
            (
                "previous_response_id resp_123 not found",
                None,
                K::ReplayInvalid,
            ),
            (
                "401 Unauthorized: Incorrect API key provided",
                None,
                K::Unknown,
            ),
            ("503 Service Unavailable", None, K::Timeout),
            (
                "521 <!DOCTYPE html><html><head><title>Web server is down</title></head></html>",
                None,
                K::Timeout,
            ),
            (
                "502 <!doctype html><html><body>Bad gateway</body></html>",
                None,
                K::Timeout,
            ),
            (
                r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
                None,
                K::Timeout,
            ),
            (
                r#"{"error":{"message":"Something odd","type":"weird_error"}}"#,
                None,
                K::Unknown,
            ),
            (
                r#"404 {"error":{"message":"nope","type":"not_found"}}"#,
                None,
                K::Unknown,
            ),
            ("something weird", None, K::Unknown),
            (
                "exec denied (allowlist-miss): rm -rf /",
                None,
                K::SandboxBlocked,
            ),
            ("DNS lookup failed", None, K::Dns),
        ];
        let got: Vec<(&str, Option<&str>, K)> = rows
            .iter()
            .map(|&(message, provider, _)| {
                let signal = FailoverSignal {
                    message,
                    provider,
                    ..FailoverSignal::default()
                };
                (
                    message,
                    provider,
                    classify_provider_runtime_failure_kind(&signal),
                )
            })
            .collect();
        assert_eq!(got, rows);
    }

    #[test]
    fn explicit_status_and_codex_scope_rules() {
        let kind = |status, message, provider| {
            classify_provider_runtime_failure_kind(&FailoverSignal {
                status,
                code: None,
                message,
                provider,
            })
        };
        assert_eq!(kind(Some(407), "blocked", None), K::Proxy);
        assert_eq!(
            kind(Some(403), "<html><body>x</body></html>", None),
            K::AuthHtml403
        );
        assert_eq!(
            kind(Some(500), "<html><body>x</body></html>", None),
            K::Timeout
        );
        assert_eq!(
            kind(Some(500), "codex scopes missing required scopes", None),
            K::Timeout
        );
        assert_eq!(kind(None, "codex: missing scope", None), K::AuthScope);
        assert_eq!(
            kind(None, "api.responses.write", Some("openai-codex")),
            K::Unknown
        );
        assert_eq!(
            kind(Some(401), "api.responses.write", Some("openai-codex")),
            K::AuthScope
        );
        assert_eq!(kind(Some(503), "", None), K::Timeout);
        assert_eq!(kind(Some(418), "", None), K::Unknown);
        assert_eq!(kind(None, "", None), K::Unknown);
    }

    #[test]
    fn wire_names() {
        let all = [
            (K::AuthRefresh, "auth_refresh"),
            (K::AuthScope, "auth_scope"),
            (K::AuthHtml403, "auth_html_403"),
            (K::Proxy, "proxy"),
            (K::RateLimit, "rate_limit"),
            (K::Dns, "dns"),
            (K::SandboxBlocked, "sandbox_blocked"),
            (K::ReplayInvalid, "replay_invalid"),
            (K::Schema, "schema"),
            (K::Timeout, "timeout"),
            (K::Unknown, "unknown"),
        ];
        for (kind, name) in all {
            assert_eq!(kind.as_str(), name);
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
        }
    }
}
