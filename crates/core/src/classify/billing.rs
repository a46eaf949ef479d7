//! The 402 rules (reference §15.4, `classify402`): a payment-required error is billing unless
//! its text says it is a temporary or periodic limit.

use crate::FailoverReason;

use super::js_regex::{contains_any, js_regexes, js_trim};
use super::patterns::is_rate_limit_error_message;

js_regexes! {
    pub(crate) RAW_402_MARKER_RE = (r#"["']?(?:status|code)["']?\s*[:=]\s*402\b|\bhttp\s*402\b|\berror(?:\s+code)?\s*[:=]?\s*402\b|\b(?:got|returned|received)\s+(?:a\s+)?402\b|^\s*402\s+payment required\b|^\s*402\s+.*used up your points\b"#, "i");
    LEADING_402_WRAPPER_RE = (r"^(?:error[:\s-]+)?(?:(?:http\s*)?402(?:\s+payment required)?|payment required)(?:[:\s-]+|$)", "i");
}

const BILLING_402_HINTS: [&str; 7] = [
    "insufficient credits",
    "insufficient quota",
    "credit balance",
    "insufficient balance",
    "plans & billing",
    "add more credits",
    "top up",
];
const BILLING_402_PLAN_HINTS: [&str; 4] = [
    "upgrade your plan",
    "upgrade plan",
    "current plan",
    "subscription",
];
const PERIODIC_402_HINTS: [&str; 3] = ["daily", "weekly", "monthly"];
const RETRYABLE_402_RETRY_HINTS: [&str; 4] = ["try again", "retry", "temporary", "cooldown"];
const RETRYABLE_402_LIMIT_HINTS: [&str; 3] = ["usage limit", "rate limit", "organization usage"];
const RETRYABLE_402_SCOPED_HINTS: [&str; 2] = ["organization", "workspace"];
const RETRYABLE_402_SCOPED_RESULT_HINTS: [&str; 4] =
    ["billing period", "exceeded", "reached", "exhausted"];

fn has_explicit_402_billing_signal(text: &str) -> bool {
    contains_any(text, &BILLING_402_HINTS)
        || (contains_any(text, &BILLING_402_PLAN_HINTS) && text.contains("limit"))
        || text.contains("billing hard limit")
        || text.contains("hard limit reached")
        || (text.contains("maximum allowed") && text.contains("limit"))
}

fn has_quota_refresh_window_signal(text: &str) -> bool {
    text.contains("subscription quota limit")
        && (text.contains("automatic quota refresh") || text.contains("rolling time window"))
}

fn has_retryable_402_transient_signal(text: &str) -> bool {
    let periodic = contains_any(text, &PERIODIC_402_HINTS);
    let spend_limit = text.contains("spend limit") || text.contains("spending limit");
    let scoped = contains_any(text, &RETRYABLE_402_SCOPED_HINTS);
    (contains_any(text, &RETRYABLE_402_RETRY_HINTS)
        && contains_any(text, &RETRYABLE_402_LIMIT_HINTS))
        || (periodic && (text.contains("usage limit") || spend_limit))
        || (periodic && text.contains("limit") && text.contains("reset"))
        || (scoped
            && text.contains("limit")
            && (spend_limit || contains_any(text, &RETRYABLE_402_SCOPED_RESULT_HINTS)))
}

/// `classify402`: billing or rate limit for a payment-required (402) message.
///
/// The text is lowercased and a leading `402 Payment Required` / `HTTP 402:` / `payment
/// required` wrapper is stripped. Then: empty → billing; `subscription quota limit` with an
/// automatic refresh or rolling window → rate limit; explicit billing wording (credits,
/// balance, top up, plan + limit, hard limit) → billing; the rate-limit list → rate limit;
/// retryable or periodic limit wording → rate limit; otherwise billing.
pub fn classify_402(message: &str) -> FailoverReason {
    let lower = js_trim(message).to_lowercase();
    let normalized = js_trim(&LEADING_402_WRAPPER_RE.replace(&lower, "")).to_owned();
    if normalized.is_empty() {
        return FailoverReason::Billing;
    }
    if has_quota_refresh_window_signal(&normalized) {
        return FailoverReason::RateLimit;
    }
    if has_explicit_402_billing_signal(&normalized) {
        return FailoverReason::Billing;
    }
    if is_rate_limit_error_message(&normalized) || has_retryable_402_transient_signal(&normalized) {
        return FailoverReason::RateLimit;
    }
    FailoverReason::Billing
}

/// `classifyFailoverReasonFrom402Text`: [`classify_402`] when the text carries a raw 402 marker
/// (`status: 402`, `HTTP 402`, `error code 402`, `got a 402`, `402 Payment Required`, …).
pub fn classify_402_text(raw: &str) -> Option<FailoverReason> {
    RAW_402_MARKER_RE.is_match(raw).then(|| classify_402(raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailoverReason::{Billing, RateLimit};
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert_eq!(force_all_regexes(), 2);
    }

    #[test]
    fn classify_402_vectors() {
        let cases = [
            ("", Billing),
            ("402 Payment Required", Billing),
            ("Payment required", Billing),
            ("402 Payment Required: insufficient credits", Billing),
            (
                "Your organization usage limit was reached, try again later",
                RateLimit,
            ),
            (
                "402: subscription quota limit reached; automatic quota refresh in 5h",
                RateLimit,
            ),
            ("402: You have reached your daily usage limit", RateLimit),
            ("402: monthly spend limit reached", RateLimit),
            ("402: weekly limit, resets on Monday", RateLimit),
            ("402: workspace spend limit exceeded", RateLimit),
            (
                "402: organization limit exhausted for this billing period",
                RateLimit,
            ),
            ("402: upgrade your plan to raise the limit", Billing),
            ("402: billing hard limit reached", Billing),
            ("402: maximum allowed usage limit", Billing),
            ("402: rate limit exceeded", RateLimit),
            ("402: something odd", Billing),
        ];
        let got: Vec<_> = cases.iter().map(|(m, _)| (*m, classify_402(m))).collect();
        assert_eq!(got, cases.to_vec());
    }

    #[test]
    fn raw_402_marker() {
        let cases = [
            (r#"{"status": 402}"#, Some(Billing)),
            ("HTTP 402 from upstream", Some(Billing)),
            ("error code: 402", Some(Billing)),
            ("upstream returned a 402", Some(Billing)),
            ("402 Payment Required", Some(Billing)),
            ("402 you have used up your points", Some(Billing)),
            ("4020 things", None),
            ("payment required", None),
            ("402", None),
        ];
        let got: Vec<_> = cases
            .iter()
            .map(|(m, _)| (*m, classify_402_text(m)))
            .collect();
        assert_eq!(got, cases.to_vec());
    }
}
