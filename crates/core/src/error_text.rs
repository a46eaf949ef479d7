//! User-facing error copy: `formatAssistantErrorText` (reference §16) and the exact runner and
//! turn texts of SPEC §9. OpenClaw's product name is replaced by `clawloop`.

use crate::StopReason;
use crate::classify::js_regex::{js_regexes, js_trim, lower_trim, utf16_len};
use crate::classify::truncate_raw_error_text;
use crate::classify::{
    FailoverSignal, ProviderRuntimeFailureKind, classify_provider_runtime_failure_kind,
    format_raw_assistant_error_for_ui, is_billing_error_message, is_cloudflare_or_html_error_page,
    is_context_overflow_error, is_invalid_streaming_event_order_error, is_missing_tool_input_error,
    is_overloaded_error_message, is_rate_limit_error_message, is_raw_api_error_payload,
    is_reasoning_constraint_error, is_role_ordering_error_for_copy, is_timeout_error_message,
    parse_api_error_info, parse_leading_http_status,
};
use crate::js_number::format_js_number;

js_regexes! {
    INVALID_REQUEST_RE = (r#""type":"invalid_request_error".*?"message":"([^"]+)""#, "");
    ERROR_PREFIX_RE = (r"^(?:error|(?:[a-z][\w-]*\s+)?api\s*error|openai\s*error|anthropic\s*error|gateway\s*error|codex\s*error|request failed|failed|exception)(?:\s+\d{3})?[:\s-]+", "i");
    RATE_LIMIT_SPECIFIC_HINT_RE = (r"\bmin(ute)?s?\b|\bhours?\b|\bseconds?\b|\btry again in\b|\breset\b|\bplan\b|\bquota\b", "i");
    HTML_START_RE = (r"^(?:<!doctype\s+html\b|<html\b)", "i");
    ECONNREFUSED_RE = (r"\beconnrefused\b", "i");
    INTERRUPTED_RE = (r"\beconnreset\b|\beconnaborted\b|\benetreset\b|\bepipe\b", "i");
    DNS_RE = (r"\benotfound\b|\beai_again\b", "i");
    UNREACHABLE_RE = (r"\benetunreach\b|\behostunreach\b|\behostdown\b", "i");
    ENOSPC_RE = (r"\benospc\b", "i");
}

// --- SPEC §9, runner level --------------------------------------------------------------------

/// Runner-level copy when the context overflow could not be recovered.
pub const CONTEXT_OVERFLOW_TEXT: &str = "Context overflow: prompt too large for the model.";
/// Runner-level (and assistant-error) copy for a role-ordering rejection.
pub const ROLE_ORDERING_TEXT: &str = "Message ordering conflict - please try again. If this persists, use /new to start a fresh session.";
/// Runner-level copy when the retry loop hit its limit.
pub const RETRY_LIMIT_TEXT: &str = "Request failed after repeated internal retries. Please try again, or use /new to start a fresh session.";

/// Runner-level copy for an image over the provider's size limit:
/// `Image too large for the model (max <N>MB). Please compress or resize the image and try again.`
/// The ` (max <N>MB)` part only when the provider named a (finite) limit.
pub fn image_too_large_text(max_mb: Option<f64>) -> String {
    let hint = max_mb
        .filter(|mb| mb.is_finite())
        .map(|mb| format!(" (max {}MB)", format_js_number(mb)))
        .unwrap_or_default();
    format!(
        "Image too large for the model{hint}. Please compress or resize the image and try again."
    )
}

// --- SPEC §9, turn level ----------------------------------------------------------------------

/// Turn-level copy for a context overflow.
pub const TURN_CONTEXT_OVERFLOW_TEXT: &str = "⚠️ Context overflow — prompt too large for this model. Try a shorter message or a larger-context model.";
/// Turn-level copy for a role-ordering conflict.
pub const TURN_ROLE_ORDERING_TEXT: &str = "⚠️ Message ordering conflict - please try again. If this persists, use /new to start a fresh session.";
/// Turn-level copy after the session was reset because of a compaction failure.
pub const TURN_CONTEXT_LIMIT_RESET_TEXT: &str = "⚠️ Context limit exceeded. I've reset our conversation to start fresh - please try again.\n\nTo prevent this, increase your compaction buffer by setting `agents.defaults.compaction.reserveTokensFloor` to 4000 or higher in your config.";

/// Turn-level copy for any other failure before a reply:
/// `⚠️ Agent failed before reply: <message without trailing period>.\nLogs: clawloop logs --follow`.
pub fn agent_failed_before_reply_text(message: &str) -> String {
    let trimmed = message.trim_end();
    let without_period = trimmed.strip_suffix('.').unwrap_or(trimmed);
    format!("⚠️ Agent failed before reply: {without_period}.\nLogs: clawloop logs --follow")
}

// --- run loop and turn copy (reference §4, §16, §21) -------------------------------------------

/// Payload when an idle timeout ended the run before any reply (reference §4.7).
pub const IDLE_TIMEOUT_TEXT: &str = "The model did not produce a response before the LLM idle timeout. Please try again, or increase `agents.defaults.llm.idleTimeoutSeconds` in your config (set to 0 to disable).";
/// Payload when the whole-run timeout ended the run before any reply (reference §4.7).
pub const RUN_TIMEOUT_TEXT: &str = "Request timed out before a response was generated. Please try again, or increase `agents.defaults.timeoutSeconds` in your config.";
/// Error payload after the partial reply an idle timeout cut short (clawloop: a timeout is a
/// failure even when some text arrived).
pub const IDLE_TIMEOUT_PARTIAL_TEXT: &str = "The model stopped responding before finishing its reply (LLM idle timeout), so the reply is incomplete. Please try again, or increase `agents.defaults.llm.idleTimeoutSeconds` in your config (set to 0 to disable).";
/// Error payload after the partial reply the whole-run timeout cut short.
pub const RUN_TIMEOUT_PARTIAL_TEXT: &str = "Request timed out before the reply was complete, so the reply is incomplete. Please try again, or increase `agents.defaults.timeoutSeconds` in your config.";
/// Payload for a turn that ended without any reply (reference §4.7 step 4).
pub const INCOMPLETE_TURN_TEXT: &str = "⚠️ Agent couldn't generate a response. Please try again.";
/// Payload for a turn that ended without any reply after tools with side effects ran.
pub const INCOMPLETE_TURN_SIDE_EFFECTS_TEXT: &str = "⚠️ Agent couldn't generate a response. Note: some tool actions may have already been executed — please verify before retrying.";
/// Turn-level copy for a rate limit with no known cooldown expiry (reference §21 step 3).
pub const ALL_MODELS_RATE_LIMITED_TEXT: &str =
    "⚠️ All models are temporarily rate-limited. Please try again in a few minutes.";

/// The error that ends a run loop at its iteration limit (reference §4.8):
/// `Exceeded retry limit after N attempts (max=M).`
pub fn retry_limit_error_message(attempts: u32, max: u32) -> String {
    format!("Exceeded retry limit after {attempts} attempts (max={max}).")
}

/// The error when every auth profile of `provider` is cooling down or unusable (reference §4.1).
pub fn no_available_auth_profile_message(provider: &str) -> String {
    format!("No available auth profile for {provider} (all in cooldown or unavailable).")
}

/// The error when the user locked a profile that does not exist for `provider`.
pub fn auth_profile_not_configured_message(profile_id: &str, provider: &str) -> String {
    format!("Auth profile \"{profile_id}\" is not configured for {provider}.")
}

/// The error when no key could be resolved for `provider` (reference §4.1).
pub fn no_api_key_resolved_message(provider: &str, mode: &str) -> String {
    format!("No API key resolved for provider \"{provider}\" (auth mode: {mode}).")
}

/// Turn-level rate-limit copy with a countdown to the soonest cooldown expiry (OpenClaw's
/// `buildRateLimitCooldownMessage`): seconds up to a minute, then whole minutes rounded up; no
/// known future expiry gives [`ALL_MODELS_RATE_LIMITED_TEXT`].
pub fn rate_limit_countdown_text(soonest_expiry_ms: Option<u64>, now_ms: u64) -> String {
    match soonest_expiry_ms {
        Some(expiry) if expiry > now_ms => {
            let secs_left = (expiry - now_ms).div_ceil(1000).max(1);
            if secs_left <= 60 {
                format!("⚠️ Rate-limited — ready in ~{secs_left}s. Please wait a moment.")
            } else {
                let mins_left = secs_left.div_ceil(60);
                format!("⚠️ Rate-limited — ready in ~{mins_left} min. Please try again shortly.")
            }
        }
        _ => ALL_MODELS_RATE_LIMITED_TEXT.to_owned(),
    }
}

// --- reference §16 ----------------------------------------------------------------------------

/// Copy for an errored message without any error text.
pub const UNKNOWN_ERROR_TEXT: &str = "LLM request failed with an unknown error.";
/// Copy for an OAuth refresh failure.
pub const AUTH_REFRESH_TEXT: &str =
    "Authentication refresh failed. Re-authenticate this provider and try again.";
/// Copy for a Codex token missing scopes.
pub const AUTH_SCOPE_TEXT: &str = "Authentication is missing the required OpenAI Codex scopes. Re-run OpenAI/Codex login and try again.";
/// Copy for an HTML 403.
pub const AUTH_HTML_403_TEXT: &str = "Authentication failed with an HTML 403 response from the provider. Re-authenticate and verify your provider account access.";
/// Copy for a proxy failure.
pub const PROXY_TEXT: &str =
    "LLM request failed: proxy or tunnel configuration blocked the provider request.";
/// Assistant-error copy for a context overflow.
pub const CONTEXT_OVERFLOW_ERROR_TEXT: &str = "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.";
/// Copy for a reasoning-constraint error.
pub const REASONING_REQUIRED_TEXT: &str = "Reasoning is required for this model endpoint. Use /think minimal (or any non-off level) and try again.";
/// Copy for an invalid stream event order.
pub const INVALID_STREAM_TEXT: &str =
    "LLM request failed: provider returned an invalid streaming response. Please try again.";
/// Copy for a replayed tool call without input.
pub const MISSING_TOOL_INPUT_TEXT: &str = "Session history looks corrupted (tool call input missing). Use /new to start a fresh session. If this keeps happening, reset the session or delete the corrupted session transcript.";
/// Generic rate-limit copy.
pub const RATE_LIMIT_TEXT: &str = "⚠️ API rate limit reached. Please try again later.";
/// Overloaded copy.
pub const OVERLOADED_TEXT: &str =
    "The AI service is temporarily overloaded. Please try again in a moment.";
/// Timeout copy.
pub const TIMEOUT_TEXT: &str = "LLM request timed out.";
/// Billing copy without a provider.
pub const BILLING_TEXT: &str = "⚠️ API provider returned a billing error — your API key has run out of credits or has an insufficient balance. Check your provider's billing dashboard and top up or switch to a different API key.";
/// Copy for a rejected request schema or tool payload.
pub const SCHEMA_TEXT: &str =
    "LLM request failed: provider rejected the request schema or tool payload.";
/// Copy for an invalid replay state.
pub const REPLAY_INVALID_TEXT: &str =
    "Session history or replay state is invalid. Use /new to start a fresh session and try again.";
/// Copy for a full disk.
pub const DISK_FULL_TEXT: &str = "clawloop could not write local session data because the disk is full. Free some disk space and try again.";
/// Transport copy: connection refused.
pub const CONNECTION_REFUSED_TEXT: &str =
    "LLM request failed: connection refused by the provider endpoint.";
/// Transport copy: connection interrupted.
pub const CONNECTION_INTERRUPTED_TEXT: &str =
    "LLM request failed: network connection was interrupted.";
/// Transport copy: DNS failure.
pub const DNS_FAILED_TEXT: &str =
    "LLM request failed: DNS lookup for the provider endpoint failed.";
/// Transport copy: unreachable endpoint.
pub const UNREACHABLE_TEXT: &str =
    "LLM request failed: the provider endpoint is unreachable from this host.";
/// Transport copy: generic network error.
pub const NETWORK_ERROR_TEXT: &str = "LLM request failed: network connection error.";

/// `copy` naming the URL the raw transport error names (the providers crate puts the request
/// URL there), so a user sees which of their endpoints failed: in place of "the provider
/// endpoint", else after the copy. The query, fragment and user info are dropped again here,
/// since the raw text may come from elsewhere and they may hold a key.
fn name_endpoint(copy: &str, raw: &str) -> String {
    let Some(url) = endpoint_in(raw) else {
        return copy.to_owned();
    };
    if copy.contains("the provider endpoint") {
        copy.replace("the provider endpoint", url)
    } else {
        format!("{} ({url}).", copy.trim_end_matches('.'))
    }
}

/// The first `http(s)://` URL in `raw`, up to its query, fragment or a delimiter, when it has
/// no user info.
fn endpoint_in(raw: &str) -> Option<&str> {
    let start = raw.find("http://").or_else(|| raw.find("https://"))?;
    let rest = &raw[start..];
    let end = rest
        .find(|c: char| {
            c.is_whitespace() || matches!(c, '?' | '#' | ')' | '(' | ',' | '"' | '\'' | '>')
        })
        .unwrap_or(rest.len());
    let url = rest[..end].trim_end_matches([':', '.', ';']);
    let authority = url.split("://").nth(1)?.split('/').next()?;
    (!authority.is_empty() && !authority.contains('@')).then_some(url)
}

/// Longest provider rate-limit line shown verbatim.
const MAX_PROVIDER_RATE_LIMIT_CHARS: usize = 300;

/// Provider and model the errored message came from.
#[derive(Debug, Clone, Copy, Default)]
pub struct ErrorTextContext<'a> {
    /// Provider id (names the provider in the billing copy; scopes some classification rules).
    pub provider: Option<&'a str>,
    /// Model id (named in the billing copy next to the provider).
    pub model: Option<&'a str>,
}

/// `formatBillingErrorMessage`: the billing copy, naming `provider (model)` when known.
pub fn format_billing_error_message(provider: Option<&str>, model: Option<&str>) -> String {
    let provider = provider.map(str::trim).filter(|p| !p.is_empty());
    let model = model.map(str::trim).filter(|m| !m.is_empty());
    match (provider, model) {
        (Some(p), Some(m)) => billing_text_for(&format!("{p} ({m})"), p),
        (Some(p), None) => billing_text_for(p, p),
        (None, _) => BILLING_TEXT.to_owned(),
    }
}

fn billing_text_for(label: &str, provider: &str) -> String {
    format!(
        "⚠️ {label} returned a billing error — your API key has run out of credits or has an insufficient balance. Check your {provider} billing dashboard and top up or switch to a different API key."
    )
}

/// `extractProviderRateLimitMessage`: the provider's own rate-limit line (`⚠️ <text>`) when it
/// mentions a time, a reset, a plan or a quota, is at most 300 units long and is neither JSON
/// nor HTML.
fn provider_rate_limit_message(raw: &str) -> Option<String> {
    let without_prefix_owned = ERROR_PREFIX_RE.replace(raw, "");
    let without_prefix = js_trim(&without_prefix_owned);
    let info = parse_api_error_info(raw).or_else(|| parse_api_error_info(without_prefix));
    let candidate = match info.and_then(|i| i.message) {
        Some(message) => message,
        None => parse_leading_http_status(without_prefix)
            .map(|s| s.rest)
            .filter(|rest| !rest.is_empty())
            .unwrap_or(without_prefix)
            .to_owned(),
    };
    if candidate.is_empty() || !RATE_LIMIT_SPECIFIC_HINT_RE.is_match(&candidate) {
        return None;
    }
    if is_cloudflare_or_html_error_page(without_prefix) {
        return None;
    }
    let trimmed = js_trim(&candidate);
    if utf16_len(trimmed) > MAX_PROVIDER_RATE_LIMIT_CHARS
        || trimmed.starts_with('{')
        || HTML_START_RE.is_match(trimmed)
    {
        return None;
    }
    Some(format!("⚠️ {trimmed}"))
}

/// `formatRateLimitOrOverloadedErrorCopy`: the provider's rate-limit line or the generic
/// rate-limit copy for a rate limit; the overloaded copy for an overload.
pub fn format_rate_limit_or_overloaded_copy(raw: &str) -> Option<String> {
    if is_rate_limit_error_message(raw) {
        return Some(
            provider_rate_limit_message(raw).unwrap_or_else(|| RATE_LIMIT_TEXT.to_owned()),
        );
    }
    is_overloaded_error_message(raw).then(|| OVERLOADED_TEXT.to_owned())
}

/// `formatTransportErrorCopy`: connection refused, interrupted, DNS, unreachable, or generic
/// network-error copy.
pub fn format_transport_error_copy(raw: &str) -> Option<&'static str> {
    if raw.is_empty() {
        return None;
    }
    let lower = lower_trim(raw);
    let has = |s: &str| lower.contains(s);
    if ECONNREFUSED_RE.is_match(raw) || has("connection refused") || has("actively refused") {
        Some(CONNECTION_REFUSED_TEXT)
    } else if INTERRUPTED_RE.is_match(raw)
        || has("socket hang up")
        || has("connection reset")
        || has("connection aborted")
    {
        Some(CONNECTION_INTERRUPTED_TEXT)
    } else if DNS_RE.is_match(raw) || has("getaddrinfo") || has("no such host") || has("dns") {
        Some(DNS_FAILED_TEXT)
    } else if UNREACHABLE_RE.is_match(raw)
        || has("network is unreachable")
        || has("host is unreachable")
    {
        Some(UNREACHABLE_TEXT)
    } else if has("fetch failed") || has("connection error") || has("network request failed") {
        Some(NETWORK_ERROR_TEXT)
    } else {
        None
    }
}

/// `formatDiskSpaceErrorCopy`: `ENOSPC`, `no space left on device` or `disk full`.
pub fn format_disk_space_copy(raw: &str) -> Option<&'static str> {
    let lower = lower_trim(raw);
    (ENOSPC_RE.is_match(raw)
        || lower.contains("no space left on device")
        || lower.contains("disk full"))
    .then_some(DISK_FULL_TEXT)
}

/// Words whose presence after a leading 4xx/5xx status makes text "HTTP-ish".
const HTTP_ERROR_HINTS: [&str; 15] = [
    "error",
    "bad request",
    "not found",
    "unauthorized",
    "forbidden",
    "internal server",
    "service unavailable",
    "gateway",
    "rate limit",
    "overloaded",
    "timeout",
    "timed out",
    "invalid",
    "too many requests",
    "permission",
];

/// `isLikelyHttpErrorText`: a Cloudflare/HTML error page, or a leading status ≥ 400 followed by
/// error wording.
pub fn is_likely_http_error_text(raw: &str) -> bool {
    if is_cloudflare_or_html_error_page(raw) {
        return true;
    }
    let Some(status) = parse_leading_http_status(raw) else {
        return false;
    };
    if status.code < 400 {
        return false;
    }
    let message = lower_trim(status.rest);
    HTTP_ERROR_HINTS.iter().any(|hint| message.contains(hint))
}

/// `formatAssistantErrorText` (reference §16): the user-facing copy for an errored assistant
/// message. `None` when the message did not error and has no error text.
///
/// The text is `error_message` trimmed; empty gives [`UNKNOWN_ERROR_TEXT`]. Otherwise the first
/// match wins: disk full; auth refresh; auth scope; HTML 403; proxy; context overflow; reasoning
/// required; invalid stream order; role ordering (wide regex); missing tool input; an
/// `invalid_request_error` payload (`LLM request rejected: <message>`); rate limit or overload;
/// transport errors; timeout; billing; schema; replay invalid; HTTP-ish text or raw API JSON
/// ([`format_raw_assistant_error_for_ui`]); else the text cut at 600 units.
///
/// The sandbox tool-policy rewrite of unknown-tool errors (§16 step 1) needs a sandboxed session
/// and never applies here.
pub fn format_assistant_error_text(
    stop_reason: StopReason,
    error_message: Option<&str>,
    ctx: &ErrorTextContext<'_>,
) -> Option<String> {
    let raw = js_trim(error_message.unwrap_or(""));
    if raw.is_empty() {
        return (stop_reason == StopReason::Error).then(|| UNKNOWN_ERROR_TEXT.to_owned());
    }
    let kind = classify_provider_runtime_failure_kind(&FailoverSignal {
        status: parse_leading_http_status(raw).map(|s| s.code),
        code: None,
        message: raw,
        provider: ctx.provider,
    });
    let fixed = |s: &str| Some(s.to_owned());
    if let Some(copy) = format_disk_space_copy(raw) {
        return fixed(copy);
    }
    match kind {
        ProviderRuntimeFailureKind::AuthRefresh => return fixed(AUTH_REFRESH_TEXT),
        ProviderRuntimeFailureKind::AuthScope => return fixed(AUTH_SCOPE_TEXT),
        ProviderRuntimeFailureKind::AuthHtml403 => return fixed(AUTH_HTML_403_TEXT),
        ProviderRuntimeFailureKind::Proxy => return fixed(PROXY_TEXT),
        ProviderRuntimeFailureKind::RateLimit
        | ProviderRuntimeFailureKind::Dns
        | ProviderRuntimeFailureKind::SandboxBlocked
        | ProviderRuntimeFailureKind::ReplayInvalid
        | ProviderRuntimeFailureKind::Schema
        | ProviderRuntimeFailureKind::Timeout
        | ProviderRuntimeFailureKind::Unknown => {}
    }
    if is_context_overflow_error(raw) {
        return fixed(CONTEXT_OVERFLOW_ERROR_TEXT);
    }
    if is_reasoning_constraint_error(raw) {
        return fixed(REASONING_REQUIRED_TEXT);
    }
    if is_invalid_streaming_event_order_error(raw) {
        return fixed(INVALID_STREAM_TEXT);
    }
    if is_role_ordering_error_for_copy(raw) {
        return fixed(ROLE_ORDERING_TEXT);
    }
    if is_missing_tool_input_error(raw) {
        return fixed(MISSING_TOOL_INPUT_TEXT);
    }
    if let Some(m) = INVALID_REQUEST_RE.captures(raw).and_then(|c| c.get(1)) {
        return Some(format!("LLM request rejected: {}", m.as_str()));
    }
    if let Some(copy) = format_rate_limit_or_overloaded_copy(raw) {
        return Some(copy);
    }
    if let Some(copy) = format_transport_error_copy(raw) {
        return Some(name_endpoint(copy, raw));
    }
    if is_timeout_error_message(raw) {
        return fixed(TIMEOUT_TEXT);
    }
    if is_billing_error_message(raw) {
        return Some(format_billing_error_message(ctx.provider, ctx.model));
    }
    if kind == ProviderRuntimeFailureKind::Schema {
        return fixed(SCHEMA_TEXT);
    }
    if kind == ProviderRuntimeFailureKind::ReplayInvalid {
        return fixed(REPLAY_INVALID_TEXT);
    }
    if is_likely_http_error_text(raw) || is_raw_api_error_payload(raw) {
        return Some(format_raw_assistant_error_for_ui(raw));
    }
    Some(truncate_raw_error_text(raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Message, provider, model, expected copy.
    type CopyRow<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);

    #[test]
    fn rate_limit_countdown_rounds_up_to_seconds_then_minutes() {
        let now = 1_700_000_000_000;
        let rows: [(Option<u64>, &str); 7] = [
            (None, ALL_MODELS_RATE_LIMITED_TEXT),
            (Some(now), ALL_MODELS_RATE_LIMITED_TEXT),
            (Some(now - 5), ALL_MODELS_RATE_LIMITED_TEXT),
            (
                Some(now + 1),
                "⚠️ Rate-limited — ready in ~1s. Please wait a moment.",
            ),
            (
                Some(now + 22_001),
                "⚠️ Rate-limited — ready in ~23s. Please wait a moment.",
            ),
            (
                Some(now + 60_000),
                "⚠️ Rate-limited — ready in ~60s. Please wait a moment.",
            ),
            (
                Some(now + 120_001),
                "⚠️ Rate-limited — ready in ~3 min. Please try again shortly.",
            ),
        ];
        for (expiry, expected) in rows {
            assert_eq!(
                rate_limit_countdown_text(expiry, now),
                expected,
                "{expiry:?}"
            );
        }
    }

    #[test]
    fn run_loop_messages_name_their_values() {
        assert_eq!(
            retry_limit_error_message(32, 32),
            "Exceeded retry limit after 32 attempts (max=32)."
        );
        assert_eq!(
            no_available_auth_profile_message("openai"),
            "No available auth profile for openai (all in cooldown or unavailable)."
        );
        assert_eq!(
            auth_profile_not_configured_message("openai:x", "openai"),
            "Auth profile \"openai:x\" is not configured for openai."
        );
        assert_eq!(
            no_api_key_resolved_message("acme", "api_key"),
            "No API key resolved for provider \"acme\" (auth mode: api_key)."
        );
    }

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 9);
    }

    /// Every row was computed with OpenClaw 2026.4.12's `formatAssistantErrorText` for an
    /// errored message (`OpenClaw` replaced by `clawloop`).
    #[test]
    fn copy_matches_openclaw() {
        let rows: Vec<CopyRow<'_>> = vec![
            (
                "",
                None,
                None,
                Some("LLM request failed with an unknown error."),
            ),
            (
                "   ",
                None,
                None,
                Some("LLM request failed with an unknown error."),
            ),
            (
                "unknown tool: sessions_send",
                None,
                None,
                Some("unknown tool: sessions_send"),
            ),
            (
                "ENOSPC: no space left on device, write",
                None,
                None,
                Some(
                    "clawloop could not write local session data because the disk is full. Free some disk space and try again.",
                ),
            ),
            (
                "Disk full while saving",
                None,
                None,
                Some(
                    "clawloop could not write local session data because the disk is full. Free some disk space and try again.",
                ),
            ),
            (
                "OAuth token refresh failed for openai-codex: invalid_grant",
                None,
                None,
                Some("Authentication refresh failed. Re-authenticate this provider and try again."),
            ),
            (
                "401 Unauthorized: Your OpenAI Codex token is missing required scopes api.responses.write",
                None,
                None,
                Some(
                    "Authentication is missing the required OpenAI Codex scopes. Re-run OpenAI/Codex login and try again.",
                ),
            ),
            (
                "Missing scopes: model.request",
                Some("openai-codex"),
                None,
                Some(
                    "Authentication is missing the required OpenAI Codex scopes. Re-run OpenAI/Codex login and try again.",
                ),
            ),
            (
                "403 <!DOCTYPE html><html><body>Forbidden</body></html>",
                None,
                None,
                Some(
                    "Authentication failed with an HTML 403 response from the provider. Re-authenticate and verify your provider account access.",
                ),
            ),
            (
                "407 Proxy Authentication Required",
                None,
                None,
                Some(
                    "LLM request failed: proxy or tunnel configuration blocked the provider request.",
                ),
            ),
            (
                "proxyconnect tcp: dial tcp 127.0.0.1:8080: connect: connection refused",
                None,
                None,
                Some(
                    "LLM request failed: proxy or tunnel configuration blocked the provider request.",
                ),
            ),
            (
                "prompt is too long: 277403 tokens > 200000 maximum",
                None,
                None,
                Some(
                    "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.",
                ),
            ),
            (
                "400 Reasoning is mandatory for this endpoint and cannot be disabled.",
                None,
                None,
                Some(
                    "Reasoning is required for this model endpoint. Use /think minimal (or any non-off level) and try again.",
                ),
            ),
            (
                "Unexpected event order, got message_start before receiving message_stop",
                None,
                None,
                Some(
                    "LLM request failed: provider returned an invalid streaming response. Please try again.",
                ),
            ),
            (
                r#"messages: roles must alternate between "user" and "assistant""#,
                None,
                None,
                Some(
                    "Message ordering conflict - please try again. If this persists, use /new to start a fresh session.",
                ),
            ),
            (
                "400 Bad Request: invalid role sequence",
                None,
                None,
                Some(
                    "Message ordering conflict - please try again. If this persists, use /new to start a fresh session.",
                ),
            ),
            (
                "messages.3.content.1.tool_use.input: Field required",
                None,
                None,
                Some(
                    "Session history looks corrupted (tool call input missing). Use /new to start a fresh session. If this keeps happening, reset the session or delete the corrupted session transcript.",
                ),
            ),
            (
                r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 999999 > 64000"}}"#,
                None,
                None,
                Some("LLM request rejected: max_tokens: 999999 > 64000"),
            ),
            (
                "429 Too Many Requests",
                None,
                None,
                Some("⚠️ API rate limit reached. Please try again later."),
            ),
            (
                "Rate limit reached for gpt-4 in organization org-abc on requests per min. Please try again in 6s.",
                None,
                None,
                Some(
                    "⚠️ Rate limit reached for gpt-4 in organization org-abc on requests per min. Please try again in 6s.",
                ),
            ),
            (
                r#"{"type":"error","error":{"type":"rate_limit_error","message":"Rate limit: 10 rpm; try again in 2 minutes"}}"#,
                None,
                None,
                Some("⚠️ Rate limit: 10 rpm; try again in 2 minutes"),
            ),
            (
                "Error: You exceeded your current quota, please check your plan and billing details.",
                None,
                None,
                Some(
                    "⚠️ You exceeded your current quota, please check your plan and billing details.",
                ),
            ),
            (
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                None,
                None,
                Some("The AI service is temporarily overloaded. Please try again in a moment."),
            ),
            (
                "connect ECONNREFUSED 127.0.0.1:443",
                None,
                None,
                Some("LLM request failed: connection refused by the provider endpoint."),
            ),
            (
                "read ECONNRESET",
                None,
                None,
                Some("LLM request failed: network connection was interrupted."),
            ),
            (
                "getaddrinfo ENOTFOUND api.openai.com",
                None,
                None,
                Some("LLM request failed: DNS lookup for the provider endpoint failed."),
            ),
            (
                "connect EHOSTUNREACH 10.0.0.1:443",
                None,
                None,
                Some("LLM request failed: the provider endpoint is unreachable from this host."),
            ),
            (
                "fetch failed",
                None,
                None,
                Some("LLM request failed: network connection error."),
            ),
            (
                "Request timed out.",
                None,
                None,
                Some("LLM request timed out."),
            ),
            (
                "402 Payment Required",
                None,
                None,
                Some(
                    "⚠️ API provider returned a billing error — your API key has run out of credits or has an insufficient balance. Check your provider's billing dashboard and top up or switch to a different API key.",
                ),
            ),
            (
                "insufficient balance",
                Some("openai"),
                Some("gpt-5"),
                Some(
                    "⚠️ openai (gpt-5) returned a billing error — your API key has run out of credits or has an insufficient balance. Check your openai billing dashboard and top up or switch to a different API key.",
                ),
            ),
            (
                "insufficient balance",
                Some("openai"),
                None,
                Some(
                    "⚠️ openai returned a billing error — your API key has run out of credits or has an insufficient balance. Check your openai billing dashboard and top up or switch to a different API key.",
                ),
            ),
            (
                "insufficient balance",
                None,
                Some("gpt-5"),
                Some(
                    "⚠️ API provider returned a billing error — your API key has run out of credits or has an insufficient balance. Check your provider's billing dashboard and top up or switch to a different API key.",
                ),
            ),
            (
                "string should match pattern '^[a-zA-Z0-9_-]+$'",
                None,
                None,
                Some("LLM request failed: provider rejected the request schema or tool payload."),
            ),
            (
                "previous_response_id resp_123 not found",
                None,
                None,
                Some(
                    "Session history or replay state is invalid. Use /new to start a fresh session and try again.",
                ),
            ),
            (
                "401 Unauthorized: Incorrect API key provided",
                None,
                None,
                Some("HTTP 401: Unauthorized: Incorrect API key provided"),
            ),
            (
                "503 Service Unavailable",
                None,
                None,
                Some("LLM request timed out."),
            ),
            (
                "521 <!DOCTYPE html><html><head><title>Web server is down</title></head></html>",
                None,
                None,
                Some(
                    "The AI service is temporarily unavailable (HTTP 521). Please try again in a moment.",
                ),
            ),
            (
                "502 <!doctype html><html><body>Bad gateway</body></html>",
                None,
                None,
                Some(
                    "The AI service is temporarily unavailable (HTTP 502). Please try again in a moment.",
                ),
            ),
            (
                r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
                None,
                None,
                Some("LLM error api_error: Internal server error"),
            ),
            (
                r#"{"error":{"message":"Something odd","type":"weird_error"}}"#,
                None,
                None,
                Some("LLM error weird_error: Something odd"),
            ),
            (
                r#"404 {"error":{"message":"nope","type":"not_found"}}"#,
                None,
                None,
                Some("HTTP 404 not_found: nope"),
            ),
            ("something weird", None, None, Some("something weird")),
            (
                "exec denied (allowlist-miss): rm -rf /",
                None,
                None,
                Some("exec denied (allowlist-miss): rm -rf /"),
            ),
            (
                "DNS lookup failed",
                None,
                None,
                Some("LLM request failed: DNS lookup for the provider endpoint failed."),
            ),
            // clawloop: the providers crate names the request URL, and the copy names it too.
            (
                "Connection error: error sending request for url (http://127.0.0.1:1/v1/chat/completions): client error (Connect): tcp connect error: Connection refused (os error 111)",
                None,
                None,
                Some(
                    "LLM request failed: connection refused by http://127.0.0.1:1/v1/chat/completions.",
                ),
            ),
            (
                "Connection error: error sending request for url (https://nope.invalid/v1?key=sk-1): dns error: failed to lookup address information",
                None,
                None,
                Some("LLM request failed: DNS lookup for https://nope.invalid/v1 failed."),
            ),
            (
                "Error reading the response stream: connection reset by https://h.example/v1/responses",
                None,
                None,
                Some(
                    "LLM request failed: network connection was interrupted (https://h.example/v1/responses).",
                ),
            ),
            (
                "connection refused by https://user:pw@h.example/v1",
                None,
                None,
                Some("LLM request failed: connection refused by the provider endpoint."),
            ),
        ];
        let texts: Vec<Option<String>> = rows
            .iter()
            .map(|&(message, provider, model, _)| {
                format_assistant_error_text(
                    StopReason::Error,
                    Some(message),
                    &ErrorTextContext { provider, model },
                )
            })
            .collect();
        let got: Vec<CopyRow<'_>> = rows
            .iter()
            .zip(&texts)
            .map(|(&(message, provider, model, _), text)| {
                (message, provider, model, text.as_deref())
            })
            .collect();
        assert_eq!(got, rows);
    }

    #[test]
    fn long_text_is_cut_at_600_units() {
        let long = "x".repeat(700);
        let text = format_assistant_error_text(
            StopReason::Error,
            Some(&long),
            &ErrorTextContext::default(),
        );
        assert_eq!(text, Some(format!("{}…", "x".repeat(600))));
        let emoji = format!("a{}", "😀".repeat(400));
        let text = format_assistant_error_text(
            StopReason::Error,
            Some(&emoji),
            &ErrorTextContext::default(),
        );
        // 1 + 299 * 2 = 599 units; the 300th emoji would split at 600.
        assert_eq!(text, Some(format!("a{}…", "😀".repeat(299))));
    }

    #[test]
    fn stop_reason_only_matters_without_text() {
        let ctx = ErrorTextContext::default();
        assert_eq!(
            format_assistant_error_text(StopReason::Stop, None, &ctx),
            None
        );
        assert_eq!(
            format_assistant_error_text(StopReason::Aborted, Some("  "), &ctx),
            None
        );
        assert_eq!(
            format_assistant_error_text(StopReason::Error, None, &ctx),
            Some(UNKNOWN_ERROR_TEXT.to_owned())
        );
        assert_eq!(
            format_assistant_error_text(StopReason::Stop, Some("429 Too Many Requests"), &ctx),
            Some(RATE_LIMIT_TEXT.to_owned())
        );
    }

    #[test]
    fn billing_copy_variants() {
        assert_eq!(format_billing_error_message(None, None), BILLING_TEXT);
        assert_eq!(
            format_billing_error_message(Some("  "), Some("m")),
            BILLING_TEXT
        );
        assert_eq!(
            format_billing_error_message(Some(" anthropic "), Some(" claude ")),
            "⚠️ anthropic (claude) returned a billing error — your API key has run out of credits or has an insufficient balance. Check your anthropic billing dashboard and top up or switch to a different API key."
        );
    }

    #[test]
    fn spec_section_9_texts() {
        assert_eq!(
            CONTEXT_OVERFLOW_TEXT,
            "Context overflow: prompt too large for the model."
        );
        assert_eq!(
            ROLE_ORDERING_TEXT,
            "Message ordering conflict - please try again. If this persists, use /new to start a fresh session."
        );
        assert_eq!(
            image_too_large_text(Some(5.0)),
            "Image too large for the model (max 5MB). Please compress or resize the image and try again."
        );
        assert_eq!(
            image_too_large_text(Some(3.75)),
            "Image too large for the model (max 3.75MB). Please compress or resize the image and try again."
        );
        assert_eq!(
            image_too_large_text(None),
            "Image too large for the model. Please compress or resize the image and try again."
        );
        assert_eq!(
            RETRY_LIMIT_TEXT,
            "Request failed after repeated internal retries. Please try again, or use /new to start a fresh session."
        );
        assert_eq!(
            TURN_CONTEXT_OVERFLOW_TEXT,
            "⚠️ Context overflow — prompt too large for this model. Try a shorter message or a larger-context model."
        );
        assert_eq!(TURN_ROLE_ORDERING_TEXT, format!("⚠️ {ROLE_ORDERING_TEXT}"));
        assert!(TURN_CONTEXT_LIMIT_RESET_TEXT.contains("\n\nTo prevent this"));
        assert_eq!(
            agent_failed_before_reply_text("boom."),
            "⚠️ Agent failed before reply: boom.\nLogs: clawloop logs --follow"
        );
        assert_eq!(
            agent_failed_before_reply_text("boom"),
            "⚠️ Agent failed before reply: boom.\nLogs: clawloop logs --follow"
        );
    }

    #[test]
    fn http_ish_detection() {
        let cases = [
            ("401 Unauthorized", true),
            ("404 not found", true),
            ("500 oops", false),
            ("200 error", false),
            ("522", true),
            ("no status error", false),
        ];
        for (raw, expected) in cases {
            assert_eq!(is_likely_http_error_text(raw), expected, "{raw}");
        }
    }
}
