//! Failover reasons and the error that carries one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why a model call failed, in terms the runner acts on (rotate a profile, cool it down, fall
/// back to another model). Reference `openclaw-runner.md` §15.1.
///
/// Serialized in snake_case (`rate_limit`, `auth_permanent`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailoverReason {
    /// The credentials were rejected (may recover after re-authentication).
    Auth,
    /// The credentials are revoked, deactivated or otherwise permanently unusable.
    AuthPermanent,
    /// The request was malformed for this provider.
    Format,
    /// The provider is overloaded.
    Overloaded,
    /// The caller hit a rate limit or quota window.
    RateLimit,
    /// The account is out of credits or over a billing limit.
    Billing,
    /// The request timed out or the connection failed.
    Timeout,
    /// The model does not exist (or is no longer served).
    ModelNotFound,
    /// A CLI backend's session expired or is unknown.
    SessionExpired,
    /// A failure that is a failover but fits no other reason.
    Unknown,
}

impl FailoverReason {
    /// Every reason, in declaration order.
    pub const ALL: [FailoverReason; 10] = [
        FailoverReason::Auth,
        FailoverReason::AuthPermanent,
        FailoverReason::Format,
        FailoverReason::Overloaded,
        FailoverReason::RateLimit,
        FailoverReason::Billing,
        FailoverReason::Timeout,
        FailoverReason::ModelNotFound,
        FailoverReason::SessionExpired,
        FailoverReason::Unknown,
    ];

    /// The wire name, e.g. `"rate_limit"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailoverReason::Auth => "auth",
            FailoverReason::AuthPermanent => "auth_permanent",
            FailoverReason::Format => "format",
            FailoverReason::Overloaded => "overloaded",
            FailoverReason::RateLimit => "rate_limit",
            FailoverReason::Billing => "billing",
            FailoverReason::Timeout => "timeout",
            FailoverReason::ModelNotFound => "model_not_found",
            FailoverReason::SessionExpired => "session_expired",
            FailoverReason::Unknown => "unknown",
        }
    }

    /// The HTTP status that stands for this reason (`resolveFailoverStatus`): billing 402,
    /// rate_limit 429, overloaded 503, auth 401, auth_permanent 403, timeout 408, format 400,
    /// model_not_found 404, session_expired 410, unknown none.
    pub fn status(self) -> Option<u16> {
        match self {
            FailoverReason::Billing => Some(402),
            FailoverReason::RateLimit => Some(429),
            FailoverReason::Overloaded => Some(503),
            FailoverReason::Auth => Some(401),
            FailoverReason::AuthPermanent => Some(403),
            FailoverReason::Timeout => Some(408),
            FailoverReason::Format => Some(400),
            FailoverReason::ModelNotFound => Some(404),
            FailoverReason::SessionExpired => Some(410),
            FailoverReason::Unknown => None,
        }
    }
}

impl fmt::Display for FailoverReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text given to [`FailoverReason::from_str`] is not a failover reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown failover reason {0:?}")]
pub struct UnknownFailoverReason(pub String);

impl FromStr for FailoverReason {
    type Err = UnknownFailoverReason;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FailoverReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownFailoverReason(s.to_owned()))
    }
}

/// A model call failed in a way that should move the runner to another auth profile or model
/// (OpenClaw's `FailoverError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct FailoverError {
    /// The human-readable failure, as the provider or runner phrased it.
    pub message: String,
    /// The classified reason.
    pub reason: FailoverReason,
    /// The provider id the call was made to, when known.
    pub provider: Option<String>,
    /// The model id the call was made for, when known.
    pub model: Option<String>,
    /// The auth profile used, when known.
    pub profile_id: Option<String>,
    /// The HTTP status; defaults to [`FailoverReason::status`] when not given.
    pub status: Option<u16>,
    /// A provider or transport error code (`RESOURCE_EXHAUSTED`, `ECONNRESET`, …).
    pub code: Option<String>,
}

impl FailoverError {
    /// A failover error with the given message and reason; the status follows the reason.
    pub fn new(message: impl Into<String>, reason: FailoverReason) -> Self {
        FailoverError {
            message: message.into(),
            reason,
            provider: None,
            model: None,
            profile_id: None,
            status: reason.status(),
            code: None,
        }
    }

    /// Sets the provider and model the failing call was made for.
    pub fn with_model(mut self, provider: impl Into<String>, model: impl Into<String>) -> Self {
        self.provider = Some(provider.into());
        self.model = Some(model.into());
        self
    }

    /// Sets the auth profile the failing call used.
    pub fn with_profile(mut self, profile_id: impl Into<String>) -> Self {
        self.profile_id = Some(profile_id.into());
        self
    }

    /// Overrides the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Sets the provider or transport error code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn status_mapping_matches_reference_table() {
        let table: Vec<(FailoverReason, Option<u16>)> = FailoverReason::ALL
            .iter()
            .map(|r| (*r, r.status()))
            .collect();
        assert_eq!(
            table,
            vec![
                (FailoverReason::Auth, Some(401)),
                (FailoverReason::AuthPermanent, Some(403)),
                (FailoverReason::Format, Some(400)),
                (FailoverReason::Overloaded, Some(503)),
                (FailoverReason::RateLimit, Some(429)),
                (FailoverReason::Billing, Some(402)),
                (FailoverReason::Timeout, Some(408)),
                (FailoverReason::ModelNotFound, Some(404)),
                (FailoverReason::SessionExpired, Some(410)),
                (FailoverReason::Unknown, None),
            ]
        );
    }

    #[test]
    fn names_round_trip_through_serde_and_from_str() {
        for reason in FailoverReason::ALL {
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(json, format!("\"{}\"", reason.as_str()));
            assert_eq!(reason.as_str().parse::<FailoverReason>().unwrap(), reason);
        }
        assert!("ratelimit".parse::<FailoverReason>().is_err());
    }

    #[test]
    fn error_status_follows_reason_unless_overridden() {
        let err = FailoverError::new("slow down", FailoverReason::RateLimit)
            .with_model("openai", "gpt-5");
        assert_eq!(err.status, Some(429));
        assert_eq!(err.to_string(), "slow down");
        assert_eq!(err.with_status(503).status, Some(503));
    }
}
