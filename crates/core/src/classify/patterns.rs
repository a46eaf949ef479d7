//! The message pattern lists of `failover-matches.ts` (reference §15.4).
//!
//! Matching trims and lowercases the text. Substring patterns are `contains` checks; regex
//! patterns are tested against the lowercased text.

use std::sync::LazyLock;

use regex::Regex;

use super::js_regex::{js_regexes, lower_trim, utf16_len};

js_regexes! {
    PERIODIC_USAGE_LIMIT_RE = (r"\b(?:daily|weekly|monthly)(?:\/(?:daily|weekly|monthly))* (?:usage )?limit(?:s)?(?: (?:exhausted|reached|exceeded))?\b", "i");
    API_KEY_REVOKED_RE = (r"api[_ ]?key[_ ]?(?:revoked|deactivated|deleted)", "i");
    INVALID_API_KEY_RE = (r"invalid[_ ]?api[_ ]?key", "");
    COULD_NOT_AUTHENTICATE_RE = (r"could not (?:authenticate|validate).*(?:api[_ ]?key|credentials)", "i");
    MISSING_SCOPES_RE = (r"missing scopes?:", "i");
    STATUS_401_RE = (r"\b401\b", "");
    STATUS_403_RE = (r"\b403\b", "");
    FAILED_TO_TOKEN_RE = (r"\bfailed to (?:extract|parse|validate|decode)\b.*\btoken\b", "");
    pub(crate) ZAI_BILLING_CODE_1311_RE = (r#""code"\s*:\s*1311\b"#, "");
    ZAI_AUTH_CODE_1113_RE = (r#""code"\s*:\s*1113\b"#, "");
    RATE_LIMIT_RE = (r"rate[_ ]limit|too many requests|429", "");
    TOO_MANY_REQUESTS_RE = (r"too many (?:concurrent )?requests", "i");
    THROTTLING_RE = (r"throttling(?:exception)?", "i");
    pub(crate) TPM_RE = (r"\btpm\b", "i");
    OVERLOADED_ERROR_RE = (r#"overloaded_error|"type"\s*:\s*"overloaded_error""#, "i");
    SERVICE_UNAVAILABLE_OVERLOAD_RE = (r"service[_ ]unavailable.*(?:overload|capacity|high[_ ]demand)|(?:overload|capacity|high[_ ]demand).*service[_ ]unavailable", "i");
    ECONN_RE = (r"\beconn(?:refused|reset|aborted)\b", "i");
    ENETUNREACH_RE = (r"\benetunreach\b", "i");
    EHOSTUNREACH_RE = (r"\behostunreach\b", "i");
    EHOSTDOWN_RE = (r"\behostdown\b", "i");
    ENETRESET_RE = (r"\benetreset\b", "i");
    ETIMEDOUT_RE = (r"\betimedout\b", "i");
    ESOCKETTIMEDOUT_RE = (r"\besockettimedout\b", "i");
    EPIPE_RE = (r"\bepipe\b", "i");
    ENOTFOUND_RE = (r"\benotfound\b", "i");
    EAI_AGAIN_RE = (r"\beai_again\b", "i");
    WITHOUT_SENDING_CHUNKS_RE = (r"without sending (?:any )?chunks?", "i");
    STOP_REASON_RE = (r"\bstop reason:\s*(?:abort|error|malformed_response|network_error)\b", "i");
    REASON_RE = (r"\breason:\s*(?:abort|error|malformed_response|network_error)\b", "i");
    UNHANDLED_STOP_REASON_RE = (r"\bunhandled stop reason:\s*(?:abort|error|malformed_response|network_error)\b", "i");
    OPERATION_ABORTED_RE = (r"\boperation was aborted\b", "i");
    STREAM_CLOSED_RE = (r"\bstream (?:was )?(?:closed|aborted)\b", "i");
    BILLING_402_RE = (r#"["']?(?:status|code)["']?\s*[:=]\s*402\b|\bhttp\s*402\b|\berror(?:\s+code)?\s*[:=]?\s*402\b|\b(?:got|returned|received)\s+(?:a\s+)?402\b|^\s*402\s+payment"#, "i");
    INSUFFICIENT_QUOTA_RE = (r"insufficient[_ ]quota", "i");
    REQUIRES_MORE_CREDITS_RE = (r"requires?\s+more\s+credits", "i");
    OUT_OF_EXTRA_USAGE_RE = (r"out of extra usage", "i");
    DRAW_FROM_EXTRA_USAGE_RE = (r"draw from your extra usage", "i");
    EXTRA_USAGE_REQUIRED_RE = (r"extra usage is required(?: for long context requests)?", "i");
    TOOL_CALL_ID_MUST_BE_RE = (r"tool call id was.*must be", "i");
    BILLING_ERROR_HEAD_RE = (r"^(?:error[:\s-]+)?billing(?:\s+error)?(?:[:\s-]+|$)|^(?:error[:\s-]+)?(?:credit balance|insufficient credits?|payment required|http\s*402\b)", "i");
    BILLING_ERROR_HARD_402_RE = (r#"["']?(?:status|code)["']?\s*[:=]\s*402\b|\bhttp\s*402\b|\berror(?:\s+code)?\s*[:=]?\s*402\b|^\s*402\s+payment"#, "i");
}

/// One entry of a pattern list: a substring or a regex.
#[derive(Clone, Copy)]
pub(crate) enum Pattern {
    /// Matches when the lowercased text contains this (lowercase) string.
    Sub(&'static str),
    /// Matches when the regex finds a match in the lowercased text.
    Re(&'static LazyLock<Regex>),
}

impl Pattern {
    fn matches(self, lower: &str) -> bool {
        match self {
            Pattern::Sub(s) => lower.contains(s),
            Pattern::Re(re) => re.is_match(lower),
        }
    }
}

use Pattern::{Re, Sub};

static AUTH_PERMANENT: [Pattern; 5] = [
    Re(&API_KEY_REVOKED_RE),
    Sub("key has been disabled"),
    Sub("key has been revoked"),
    Sub("account has been deactivated"),
    Sub("not allowed for this organization"),
];

static AUTH: [Pattern; 22] = [
    // ambiguous
    Re(&INVALID_API_KEY_RE),
    Re(&COULD_NOT_AUTHENTICATE_RE),
    Sub("permission_error"),
    // common
    Sub("incorrect api key"),
    Sub("invalid token"),
    Sub("authentication"),
    Sub("re-authenticate"),
    Sub("oauth token refresh failed"),
    Sub("unauthorized"),
    Sub("forbidden"),
    Sub("access denied"),
    Sub("insufficient permissions"),
    Sub("insufficient permission"),
    Re(&MISSING_SCOPES_RE),
    Sub("expired"),
    Sub("token has expired"),
    Re(&STATUS_401_RE),
    Re(&STATUS_403_RE),
    Sub("no credentials found"),
    Sub("no api key found"),
    Re(&FAILED_TO_TOKEN_RE),
    // Z.ai
    Re(&ZAI_AUTH_CODE_1113_RE),
];

static RATE_LIMIT: [Pattern; 16] = [
    Re(&RATE_LIMIT_RE),
    Re(&TOO_MANY_REQUESTS_RE),
    Re(&THROTTLING_RE),
    Sub("model_cooldown"),
    Sub("exceeded your current quota"),
    Sub("resource has been exhausted"),
    Sub("quota exceeded"),
    Sub("resource_exhausted"),
    Sub("throttlingexception"),
    Sub("throttling_exception"),
    Sub("throttled"),
    Sub("throttling"),
    Sub("usage limit"),
    Re(&TPM_RE),
    Sub("tokens per minute"),
    Sub("tokens per day"),
];

static OVERLOADED: [Pattern; 4] = [
    Re(&OVERLOADED_ERROR_RE),
    Sub("overloaded"),
    Re(&SERVICE_UNAVAILABLE_OVERLOAD_RE),
    Sub("high demand"),
];

static SERVER_ERROR: [Pattern; 11] = [
    Sub("an error occurred while processing"),
    Sub("internal server error"),
    Sub("internal_error"),
    Sub("server_error"),
    Sub("service temporarily unavailable"),
    Sub("service_unavailable"),
    Sub("bad gateway"),
    Sub("gateway timeout"),
    Sub("upstream error"),
    Sub("upstream connect error"),
    Sub("connection reset"),
];

static TIMEOUT: [Pattern; 26] = [
    Sub("timeout"),
    Sub("timed out"),
    Sub("service unavailable"),
    Sub("deadline exceeded"),
    Sub("context deadline exceeded"),
    Sub("connection error"),
    Sub("network error"),
    Sub("network request failed"),
    Sub("fetch failed"),
    Sub("socket hang up"),
    Re(&ECONN_RE),
    Re(&ENETUNREACH_RE),
    Re(&EHOSTUNREACH_RE),
    Re(&EHOSTDOWN_RE),
    Re(&ENETRESET_RE),
    Re(&ETIMEDOUT_RE),
    Re(&ESOCKETTIMEDOUT_RE),
    Re(&EPIPE_RE),
    Re(&ENOTFOUND_RE),
    Re(&EAI_AGAIN_RE),
    Re(&WITHOUT_SENDING_CHUNKS_RE),
    Re(&STOP_REASON_RE),
    Re(&REASON_RE),
    Re(&UNHANDLED_STOP_REASON_RE),
    Re(&OPERATION_ABORTED_RE),
    Re(&STREAM_CLOSED_RE),
];

static BILLING: [Pattern; 13] = [
    Re(&BILLING_402_RE),
    Sub("payment required"),
    Sub("insufficient credits"),
    Re(&INSUFFICIENT_QUOTA_RE),
    Sub("credit balance"),
    Sub("plans & billing"),
    Sub("insufficient balance"),
    Sub("insufficient usd or diem balance"),
    Re(&REQUIRES_MORE_CREDITS_RE),
    Re(&OUT_OF_EXTRA_USAGE_RE),
    Re(&DRAW_FROM_EXTRA_USAGE_RE),
    Re(&EXTRA_USAGE_REQUIRED_RE),
    Re(&ZAI_BILLING_CODE_1311_RE),
];

static FORMAT: [Pattern; 6] = [
    Sub("string should match pattern"),
    Sub("tool_use.id"),
    Sub("tool_use_id"),
    Sub("messages.1.content.1.tool_use.id"),
    Sub("invalid request format"),
    Re(&TOOL_CALL_ID_MUST_BE_RE),
];

/// Longer texts only count as billing through the hard 402 regex or the Z.ai 1311 code.
const BILLING_ERROR_MAX_LENGTH: usize = 512;

fn matches_patterns(raw: &str, patterns: &[Pattern]) -> bool {
    if raw.is_empty() {
        return false;
    }
    let lower = lower_trim(raw);
    patterns.iter().any(|p| p.matches(&lower))
}

/// `isRateLimitErrorMessage`: the rate-limit list (`rate limit`, `429`, `quota exceeded`,
/// `resource_exhausted`, `throttl…`, `usage limit`, `tpm`, …).
pub fn is_rate_limit_error_message(raw: &str) -> bool {
    matches_patterns(raw, &RATE_LIMIT)
}

/// `isOverloadedErrorMessage`: `overloaded_error`, `overloaded`, `high demand`, or
/// `service unavailable` together with overload/capacity wording.
pub fn is_overloaded_error_message(raw: &str) -> bool {
    matches_patterns(raw, &OVERLOADED)
}

/// `isServerErrorMessage`: `internal server error`, `bad gateway`, `upstream error`, ….
pub fn is_server_error_message(raw: &str) -> bool {
    matches_patterns(raw, &SERVER_ERROR)
}

/// `isTimeoutErrorMessage`: timeouts, network failures, errno names and abnormal stream
/// ends (`stop reason: abort`, `stream closed`, …).
pub fn is_timeout_error_message(raw: &str) -> bool {
    matches_patterns(raw, &TIMEOUT)
}

/// `isAuthPermanentErrorMessage`: revoked, deleted or disabled keys and deactivated accounts.
pub fn is_auth_permanent_error_message(raw: &str) -> bool {
    matches_patterns(raw, &AUTH_PERMANENT)
}

/// `isAuthErrorMessage`: invalid keys, `unauthorized`, `forbidden`, `expired`, `401`/`403`,
/// missing credentials, Z.ai code 1113, ….
pub fn is_auth_error_message(raw: &str) -> bool {
    matches_patterns(raw, &AUTH)
}

/// `matchesFormatErrorPattern`: malformed-request wording (`tool_use_id`, `invalid request
/// format`, …).
pub fn matches_format_error_pattern(raw: &str) -> bool {
    matches_patterns(raw, &FORMAT)
}

/// `isPeriodicUsageLimitErrorMessage`: `daily/weekly/monthly (usage) limit(s)`.
pub fn is_periodic_usage_limit_error_message(raw: &str) -> bool {
    PERIODIC_USAGE_LIMIT_RE.is_match(raw)
}

/// `isBillingErrorMessage` (reference §15.4 billing list): a 402 marker, `payment required`,
/// `insufficient credits`, `credit balance`, extra-usage wording, Z.ai 1311, or a billing head
/// (`billing error: …`) with `upgrade|credits|payment|plan`. Texts longer than 512 UTF-16 units
/// only count through the hard 402 regex or the 1311 code.
pub fn is_billing_error_message(raw: &str) -> bool {
    let value = lower_trim(raw);
    if value.is_empty() {
        return false;
    }
    if utf16_len(raw) > BILLING_ERROR_MAX_LENGTH {
        return BILLING_ERROR_HARD_402_RE.is_match(&value)
            || ZAI_BILLING_CODE_1311_RE.is_match(&value);
    }
    if BILLING.iter().any(|p| p.matches(&value)) {
        return true;
    }
    if !BILLING_ERROR_HEAD_RE.is_match(raw) {
        return false;
    }
    ["upgrade", "credits", "payment", "plan"]
        .iter()
        .any(|hint| value.contains(hint))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 41);
    }

    /// Columns: rate limit, overloaded, server error, timeout, billing, auth permanent, auth,
    /// format, periodic usage limit. Every row was computed with OpenClaw 2026.4.12's
    /// `failover-matches.ts`, including the 512-unit billing rule rows at the end.
    #[test]
    fn pattern_lists_match_openclaw() {
        let rows: Vec<(String, [bool; 9])> = vec![
            (
                "rate_limit_error".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "Rate limit reached".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "Too many requests".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "too many concurrent requests".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "HTTP 429".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "ThrottlingException".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "Throttled".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "throttling_exception".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "model_cooldown".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "You exceeded your current quota".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "Resource has been exhausted".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "quota exceeded".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "RESOURCE_EXHAUSTED".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "usage limit".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "TPM limit".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "tokens per minute".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "tokens per day".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "overloaded_error".to_owned(),
                [false, true, false, false, false, false, false, false, false],
            ),
            (
                r#""type": "overloaded_error""#.to_owned(),
                [false, true, false, false, false, false, false, false, false],
            ),
            (
                "Overloaded".to_owned(),
                [false, true, false, false, false, false, false, false, false],
            ),
            (
                "service unavailable: at capacity".to_owned(),
                [false, true, false, true, false, false, false, false, false],
            ),
            (
                "high demand, service_unavailable".to_owned(),
                [false, true, true, false, false, false, false, false, false],
            ),
            (
                "high demand".to_owned(),
                [false, true, false, false, false, false, false, false, false],
            ),
            (
                "an error occurred while processing".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "Internal Server Error".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "internal_error".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "server_error".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "service temporarily unavailable".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "service_unavailable".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "bad gateway".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "gateway timeout".to_owned(),
                [false, false, true, true, false, false, false, false, false],
            ),
            (
                "upstream error".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "upstream connect error".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "connection reset".to_owned(),
                [false, false, true, false, false, false, false, false, false],
            ),
            (
                "timeout".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "timed out".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "Service Unavailable".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "deadline exceeded".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "connection error".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "network error".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "network request failed".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "fetch failed".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "socket hang up".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ECONNREFUSED".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "econnreset".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ECONNABORTED".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ENETUNREACH".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "EHOSTUNREACH".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "EHOSTDOWN".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ENETRESET".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ETIMEDOUT".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ESOCKETTIMEDOUT".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "EPIPE".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ENOTFOUND".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "EAI_AGAIN".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "ended without sending any chunks".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "without sending chunk".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "stop reason: abort".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "reason: malformed_response".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "unhandled stop reason: network_error".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "The operation was aborted".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "stream was closed".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                "stream aborted".to_owned(),
                [false, false, false, true, false, false, false, false, false],
            ),
            (
                r#"{"status": 402}"#.to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "http 402".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "error code 402".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "received a 402".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "402 payment".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "Payment Required".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "insufficient credits".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "insufficient_quota".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "Insufficient quota".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "credit balance".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "Plans & Billing".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "insufficient balance".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "Insufficient USD or Diem balance".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "requires more credits".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "require more credits".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "You're out of extra usage".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "draw from your extra usage".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "Extra usage is required for long context requests".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                r#""code": 1311"#.to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "billing error: upgrade".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "Billing: credits".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "error - billing - payment".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "billing".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "insufficient credit plan".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "http 402 upgrade".to_owned(),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                "api key revoked".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "api_key_deleted".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "apikeydeactivated".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "key has been disabled".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "key has been revoked".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "account has been deactivated".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "not allowed for this organization".to_owned(),
                [false, false, false, false, false, true, false, false, false],
            ),
            (
                "invalid_api_key".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "Invalid API Key".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "invalidapikey".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "could not authenticate with your api key".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "could not validate credentials".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "permission_error".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "incorrect api key".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "invalid token".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "Authentication failed".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "re-authenticate".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "oauth token refresh failed".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "Unauthorized".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "Forbidden".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "access denied".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "insufficient permissions".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "insufficient permission".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "missing scopes: x".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "missing scope: y".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "expired".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "token has expired".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "401".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "error 403".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "no credentials found".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "no api key found".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "failed to parse the token".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "failed to decode JWT token".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                r#""code":1113"#.to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                "string should match pattern".to_owned(),
                [false, false, false, false, false, false, false, true, false],
            ),
            (
                "tool_use.id".to_owned(),
                [false, false, false, false, false, false, false, true, false],
            ),
            (
                "tool_use_id".to_owned(),
                [false, false, false, false, false, false, false, true, false],
            ),
            (
                "invalid request format".to_owned(),
                [false, false, false, false, false, false, false, true, false],
            ),
            (
                "tool call id was abc but must be xyz".to_owned(),
                [false, false, false, false, false, false, false, true, false],
            ),
            (
                "daily limit".to_owned(),
                [false, false, false, false, false, false, false, false, true],
            ),
            (
                "weekly usage limit reached".to_owned(),
                [true, false, false, false, false, false, false, false, true],
            ),
            (
                "monthly limits exceeded".to_owned(),
                [false, false, false, false, false, false, false, false, true],
            ),
            (
                "daily/weekly limit".to_owned(),
                [false, false, false, false, false, false, false, false, true],
            ),
            (
                "weekly usage limits exhausted".to_owned(),
                [true, false, false, false, false, false, false, false, true],
            ),
            (
                "dailylimit".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "   ".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "hello world".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "4290 apples".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "x429y".to_owned(),
                [true, false, false, false, false, false, false, false, false],
            ),
            (
                "1401".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "a401b".to_owned(),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                "é401".to_owned(),
                [false, false, false, false, false, false, true, false, false],
            ),
            (
                format!("{}{}", "billing error ", "y".repeat(600)),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                format!("{}{}", "payment required ", "z".repeat(600)),
                [
                    false, false, false, false, false, false, false, false, false,
                ],
            ),
            (
                format!("{}{}", "{\"code\":1311} ", "a".repeat(600)),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                format!("{}{}", "402 Payment Required ", "b".repeat(600)),
                [false, false, false, false, true, false, false, false, false],
            ),
            (
                format!("{}{}", "http 402 ", "c".repeat(600)),
                [false, false, false, false, true, false, false, false, false],
            ),
        ];
        let got: Vec<(String, [bool; 9])> = rows
            .iter()
            .map(|(m, _)| {
                (
                    m.clone(),
                    [
                        is_rate_limit_error_message(m),
                        is_overloaded_error_message(m),
                        is_server_error_message(m),
                        is_timeout_error_message(m),
                        is_billing_error_message(m),
                        is_auth_permanent_error_message(m),
                        is_auth_error_message(m),
                        matches_format_error_pattern(m),
                        is_periodic_usage_limit_error_message(m),
                    ],
                )
            })
            .collect();
        assert_eq!(got, rows);
    }
}
