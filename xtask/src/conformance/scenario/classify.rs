//! `classify` kind: error classification (reference §15, §16).

use clawloop_core::FailoverReason;
use serde::Deserialize;

/// Input of a `classify` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifyInput {
    /// The error text.
    pub message: String,
    /// HTTP status, when known.
    pub status: Option<f64>,
    /// Provider or transport error code.
    pub code: Option<String>,
    /// Provider id.
    pub provider: Option<String>,
}

/// Expect of a `classify` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClassifyExpect {
    /// Failover reason.
    pub reason: Option<FailoverReason>,
    /// `isContextOverflowError`.
    pub context_overflow: Option<bool>,
    /// `isLikelyContextOverflowError`.
    pub likely_context_overflow: Option<bool>,
    /// `isTransientHttpError`.
    pub transient_http: Option<bool>,
    /// The narrow role-ordering regex.
    pub role_ordering: Option<bool>,
    /// `parseImageSizeError(..).maxMb`.
    pub image_size_mb: Option<f64>,
    /// `extractObservedOverflowTokenCount`.
    pub observed_overflow_tokens: Option<f64>,
    /// `formatAssistantErrorText`.
    pub user_text: Option<String>,
}
