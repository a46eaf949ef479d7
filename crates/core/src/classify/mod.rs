//! Error classification (reference `openclaw-runner.md` §15, pi-mono §1.10).
//!
//! Pure functions over provider error text, HTTP status and error codes, re-created from
//! OpenClaw 2026.4.12 (`pi-embedded-helpers/errors.ts`, `failover-matches.ts`,
//! `provider-error-patterns.ts`, `live-model-errors.ts`, `shared/assistant-error-format.ts`):
//!
//! * [`classify_failover_signal`] and friends: the failover reason of a failed call (§15.2,
//!   §15.3), with the 402 rules in [`classify_402`];
//! * [`is_context_overflow_error`], [`is_likely_context_overflow_error`],
//!   [`is_compaction_failure_error`] (§15.5) for the runner's overflow chain, and pi's own
//!   [`is_context_overflow`] (pi-mono §1.10) for the agent session and providers;
//! * the §15.6 helpers: transient HTTP errors, role ordering, image errors, the observed
//!   overflow token count, missing tool input, [`classify_provider_runtime_failure_kind`];
//! * raw provider payload parsing and UI formatting ([`format_raw_assistant_error_for_ui`]).
//!
//! Regexes are the reference's JavaScript patterns, translated to keep JavaScript's meaning
//! of `\b`, `\d`, `\s` and `.` (see `js_regex`). Text lengths follow JavaScript's UTF-16
//! `length` where the reference compares lengths (the 512-unit billing rule, the 600-unit cut).

pub(crate) mod js_regex;

mod api_error;
mod billing;
mod helpers;
mod html_page;
mod http_status;
mod idle_timeout;
mod model_not_found;
mod overflow;
mod patterns;
mod pi_overflow;
mod runtime_kind;
mod signal;

pub(crate) use api_error::truncate_raw_error as truncate_raw_error_text;
pub use api_error::{
    ApiErrorInfo, format_raw_assistant_error_for_ui, is_cloudflare_or_html_error_page,
    is_raw_api_error_payload, parse_api_error_info, parse_api_error_payload,
};
pub use billing::{classify_402, classify_402_text};
pub use helpers::{
    ImageDimensionError, ImageSizeError, is_function_call_order_error,
    is_invalid_streaming_event_order_error, is_missing_tool_input_error, is_role_ordering_error,
    is_role_ordering_error_for_copy, parse_image_dimension_error, parse_image_size_error,
};
pub use html_page::{HTML_ERROR_PAGE_MARKER, is_html_error_body};
pub use http_status::{
    LeadingHttpStatus, TRANSIENT_HTTP_ERROR_CODES, is_transient_http_error,
    parse_leading_http_status,
};
pub use idle_timeout::{idle_timeout_message, is_idle_timeout_error};
pub use model_not_found::{is_cli_session_expired_error_message, is_model_not_found_error_message};
pub use overflow::{
    extract_observed_overflow_token_count, is_compaction_failure_error, is_context_overflow_error,
    is_likely_context_overflow_error, is_reasoning_constraint_error,
};
pub use patterns::{
    is_auth_error_message, is_auth_permanent_error_message, is_billing_error_message,
    is_overloaded_error_message, is_periodic_usage_limit_error_message,
    is_rate_limit_error_message, is_server_error_message, is_timeout_error_message,
    matches_format_error_pattern,
};
pub use pi_overflow::{is_context_overflow, matches_pi_overflow_pattern};
pub use runtime_kind::{ProviderRuntimeFailureKind, classify_provider_runtime_failure_kind};
pub use signal::{
    FailoverClassification, FailoverSignal, classify_failover_message, classify_failover_reason,
    classify_failover_signal, failover_reason_from_code, failover_reason_from_signal,
    infer_signal_status, is_cloud_code_assist_format_error, is_failover_error_message,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error_text::{ErrorTextContext, format_assistant_error_text};
    use crate::{FailoverReason, StopReason};
    use pretty_assertions::assert_eq;

    /// Everything the conformance `classify` kind reads for one input.
    #[derive(Debug, PartialEq)]
    struct Observed {
        reason: Option<FailoverReason>,
        context_overflow: bool,
        likely_context_overflow: bool,
        transient_http: bool,
        role_ordering: bool,
        image_size_mb: Option<f64>,
        observed_overflow_tokens: Option<u64>,
        user_text: Option<String>,
    }

    fn observe(
        message: &str,
        status: Option<u16>,
        code: Option<&str>,
        provider: Option<&str>,
    ) -> Observed {
        Observed {
            reason: failover_reason_from_signal(&FailoverSignal {
                status,
                code,
                message,
                provider,
            }),
            context_overflow: is_context_overflow_error(message),
            likely_context_overflow: is_likely_context_overflow_error(message),
            transient_http: is_transient_http_error(message),
            role_ordering: is_role_ordering_error(message),
            image_size_mb: parse_image_size_error(message).and_then(|e| e.max_mb),
            observed_overflow_tokens: extract_observed_overflow_token_count(message),
            user_text: format_assistant_error_text(
                StopReason::Error,
                Some(message),
                &ErrorTextContext {
                    provider,
                    model: None,
                },
            ),
        }
    }

    fn plain(reason: Option<FailoverReason>, user_text: &str) -> Observed {
        Observed {
            reason,
            context_overflow: false,
            likely_context_overflow: false,
            transient_http: false,
            role_ordering: false,
            image_size_mb: None,
            observed_overflow_tokens: None,
            user_text: Some(user_text.to_owned()),
        }
    }

    const BILLING: &str = "⚠️ API provider returned a billing error — your API key has run out of credits or has an insufficient balance. Check your provider's billing dashboard and top up or switch to a different API key.";

    #[test]
    fn every_module_regex_compiles() {
        let counts = [
            api_error::force_all_regexes(),
            billing::force_all_regexes(),
            helpers::force_all_regexes(),
            html_page::force_all_regexes(),
            http_status::force_all_regexes(),
            model_not_found::force_all_regexes(),
            overflow::force_all_regexes(),
            patterns::force_all_regexes(),
            pi_overflow::force_all_regexes(),
            runtime_kind::force_all_regexes(),
            signal::force_all_regexes(),
        ];
        assert_eq!(counts.iter().sum::<usize>(), 124);
    }

    /// The public conformance scenarios of kind `classify`, every field.
    #[test]
    fn public_scenarios() {
        use FailoverReason::{Auth, Billing, ModelNotFound, Overloaded, RateLimit, Timeout};
        assert_eq!(
            observe("429 Too Many Requests", None, None, None),
            plain(
                Some(RateLimit),
                "⚠️ API rate limit reached. Please try again later."
            )
        );
        assert_eq!(
            observe(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                None,
                None,
                None
            ),
            plain(
                Some(Overloaded),
                "The AI service is temporarily overloaded. Please try again in a moment."
            )
        );
        assert_eq!(
            observe("402 Payment Required", None, None, None),
            plain(Some(Billing), BILLING)
        );
        assert_eq!(
            observe(
                "401 Unauthorized: Incorrect API key provided",
                None,
                None,
                None
            ),
            plain(
                Some(Auth),
                "HTTP 401: Unauthorized: Incorrect API key provided"
            )
        );
        assert_eq!(
            observe(
                "prompt is too long: 277403 tokens > 200000 maximum",
                None,
                None,
                None
            ),
            Observed {
                context_overflow: true,
                likely_context_overflow: true,
                observed_overflow_tokens: Some(277_403),
                ..plain(
                    None,
                    "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model."
                )
            }
        );
        assert_eq!(
            observe(
                "Let's investigate the context overflow bug",
                None,
                None,
                None
            ),
            Observed {
                likely_context_overflow: true,
                ..plain(None, "Let's investigate the context overflow bug")
            }
        );
        assert_eq!(
            observe("503 Service Unavailable", None, None, None),
            Observed {
                transient_http: true,
                ..plain(Some(Timeout), "LLM request timed out.")
            }
        );
        let ordering = r#"messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row"#;
        assert_eq!(
            observe(ordering, None, None, None),
            Observed {
                role_ordering: true,
                ..plain(
                    None,
                    "Message ordering conflict - please try again. If this persists, use /new to start a fresh session."
                )
            }
        );
        let image = "image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes";
        assert_eq!(
            observe(image, None, None, None),
            Observed {
                image_size_mb: Some(5.0),
                ..plain(None, image)
            }
        );
        assert_eq!(
            observe("Forbidden", Some(403), None, None).reason,
            Some(Auth)
        );
        assert_eq!(
            observe("Unknown model: gpt-9-ultra", None, None, None).reason,
            Some(ModelNotFound)
        );
        assert_eq!(
            observe(
                "insufficient balance",
                None,
                Some("THROTTLING_EXCEPTION"),
                None
            ),
            plain(Some(RateLimit), BILLING)
        );
        assert_eq!(
            observe("name resolution hiccup", None, Some("EAI_AGAIN"), None).reason,
            Some(Timeout)
        );
        assert_eq!(
            observe("upstream said no", None, Some("E_WEIRD_CODE"), None).reason,
            None
        );
        assert_eq!(
            observe(
                "Service temporarily degraded",
                Some(418),
                Some("ECONNREFUSED"),
                None
            )
            .reason,
            Some(Timeout)
        );
        assert_eq!(
            observe("Provider returned error", None, None, Some("openrouter")).reason,
            Some(Timeout)
        );
        assert_eq!(
            observe("Provider returned error", None, None, Some("anthropic")).reason,
            None
        );
    }

    /// Odd inputs never panic and give concrete answers.
    #[test]
    fn odd_inputs() {
        use FailoverReason::{Billing, RateLimit};
        let huge = "a".repeat(100_000);
        assert_eq!(
            observe("", None, None, None),
            Observed {
                user_text: Some("LLM request failed with an unknown error.".into()),
                ..plain(None, "")
            }
        );
        // A bare 402 is billing by status, but its text is not billing wording.
        assert_eq!(
            observe("402", None, None, None),
            plain(Some(Billing), "402")
        );
        assert_eq!(observe("\u{0}", None, None, None), plain(None, "\u{0}"));
        assert_eq!(
            observe("éè 漢字 😀", None, None, None),
            plain(None, "éè 漢字 😀")
        );
        assert_eq!(
            observe("é429 rate", None, None, None).reason,
            Some(RateLimit)
        );
        assert_eq!(observe("٤٢٩ Too Many", None, None, None).reason, None);
        let big = observe(&huge, None, None, None);
        assert_eq!(big.reason, None);
        assert_eq!(big.user_text.map(|t| t.chars().count()), Some(601));
        assert_eq!(
            observe(
                "requested 99999999999999999999999999 tokens",
                None,
                None,
                None
            )
            .observed_overflow_tokens,
            Some(u64::MAX)
        );
        assert_eq!(observe("x", Some(0), Some(""), Some("")).reason, None);
        assert_eq!(
            classify_provider_runtime_failure_kind(&FailoverSignal::default()),
            ProviderRuntimeFailureKind::Unknown
        );
        assert_eq!(parse_image_dimension_error("image dimensions exceed max allowed size: messages.99999999999999999999999.content.1.image").map(|e| e.message_index), Some(Some(usize::MAX)));
    }
}
