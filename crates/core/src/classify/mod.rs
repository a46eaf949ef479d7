//! Error classification (reference `openclaw-runner.md` §15, pi-mono §1.10).
//!
//! Pure functions over provider error text, HTTP status and error codes: failover reasons,
//! context overflow, transient HTTP errors, role ordering, image errors and more.

mod billing;
mod helpers;
mod overflow;
mod patterns;
mod pi_overflow;
mod signal;

pub use billing::{classify_402, is_billing_error_message};
pub use helpers::{
    classify_provider_runtime_failure_kind, extract_observed_overflow_token_count,
    is_missing_tool_input_error, is_role_ordering_error, is_role_ordering_error_for_copy,
    is_transient_http_error, parse_image_dimension_error, parse_image_size_error,
    parse_leading_http_status, ImageDimensionError, ImageSizeError, LeadingHttpStatus,
    ProviderRuntimeFailureKind,
};
pub use overflow::{
    is_compaction_failure_error, is_context_overflow_error, is_likely_context_overflow_error,
    is_reasoning_constraint_error,
};
pub use pi_overflow::{is_context_overflow, matches_pi_overflow_pattern};
pub use signal::{
    classify_failover_reason, classify_failover_signal, failover_reason_from_signal,
    FailoverClassification, FailoverSignal,
};
