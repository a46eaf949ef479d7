//! How one candidate's failure is handled, and the errors the fallback chain ends with
//! (reference §14, §15.1).

use clawloop_core::auth_store::AuthStoreError;
use clawloop_core::classify::{
    FailoverClassification, FailoverSignal, classify_failover_signal,
    is_likely_context_overflow_error, is_timeout_error_message,
};
use clawloop_core::{FailoverError, FailoverReason};

use super::candidates::ModelCandidate;
use crate::auth::cooldown::CooldownEnd;

/// Why one candidate's run failed, as the run loop reports it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CandidateError {
    /// A classified failure: another profile or model may do better. Boxed: the error is
    /// large and most results carry none.
    #[error("{0}")]
    Failover(Box<FailoverError>),
    /// The user aborted the run. Never fallen back on. A run cut short by a timeout is no
    /// user abort: report it as a [`CandidateError::Failover`] with reason `timeout`, which
    /// falls back like any other failure.
    #[error("the run was aborted")]
    Aborted,
    /// Any other failure, with its message; the chain classifies the text itself.
    #[error("{0}")]
    Other(String),
}

impl From<FailoverError> for CandidateError {
    fn from(error: FailoverError) -> Self {
        CandidateError::Failover(Box::new(error))
    }
}

impl CandidateError {
    /// The failover reason, for a [`CandidateError::Failover`].
    pub fn failover_reason(&self) -> Option<FailoverReason> {
        match self {
            CandidateError::Failover(error) => Some(error.reason),
            CandidateError::Aborted | CandidateError::Other(_) => None,
        }
    }
}

/// The failover reason of an unclassified error text (`resolveFailoverReasonFromError` for a
/// plain message): the signal classification (its leading HTTP status, then the text), else
/// `timeout` for a timeout text. A context overflow is no failover reason.
fn reason_of_message(message: &str, provider: &str) -> Option<FailoverReason> {
    let signal = FailoverSignal {
        status: None,
        code: None,
        message,
        provider: Some(provider),
    };
    match classify_failover_signal(&signal) {
        Some(FailoverClassification::Reason(reason)) => Some(reason),
        Some(FailoverClassification::ContextOverflow) | None => {
            is_timeout_error_message(message).then_some(FailoverReason::Timeout)
        }
    }
}

/// `coerceToFailoverError`: an [`CandidateError::Other`] whose text has a failover reason
/// becomes a [`CandidateError::Failover`] for `candidate` (status from the reason); everything
/// else is returned as it is.
pub fn coerce_candidate_error(error: CandidateError, candidate: &ModelCandidate) -> CandidateError {
    match error {
        CandidateError::Other(message) => match reason_of_message(&message, &candidate.provider) {
            Some(reason) => FailoverError::new(message, reason)
                .with_model(candidate.provider.clone(), candidate.model.clone())
                .into(),
            None => CandidateError::Other(message),
        },
        CandidateError::Failover(_) | CandidateError::Aborted => error,
    }
}

/// One candidate that did not answer, as the summary lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct FallbackAttempt {
    /// The candidate's provider.
    pub provider: String,
    /// The candidate's model.
    pub model: String,
    /// The failure text (or the skip text of a resting provider).
    pub error: String,
    /// The failover reason; `unknown` for an error without one.
    pub reason: FailoverReason,
    /// The HTTP status, when known.
    pub status: Option<u16>,
    /// The provider or transport error code, when known.
    pub code: Option<String>,
}

impl FallbackAttempt {
    /// A candidate skipped because its provider rests.
    pub fn skipped(candidate: &ModelCandidate, error: String, reason: FailoverReason) -> Self {
        FallbackAttempt {
            provider: candidate.provider.clone(),
            model: candidate.model.clone(),
            error,
            reason,
            status: None,
            code: None,
        }
    }

    /// A candidate that ran and failed with `error` (`describeFailoverError`).
    pub fn failed(candidate: &ModelCandidate, error: &CandidateError) -> Self {
        let (reason, status, code) = match error {
            CandidateError::Failover(e) => (e.reason, e.status, e.code.clone()),
            CandidateError::Aborted | CandidateError::Other(_) => {
                (FailoverReason::Unknown, None, None)
            }
        };
        FallbackAttempt {
            provider: candidate.provider.clone(),
            model: candidate.model.clone(),
            error: error.to_string(),
            reason,
            status,
            code,
        }
    }

    /// `<provider>/<model>: <error> (<reason>)`.
    pub fn summary_line(&self) -> String {
        format!(
            "{}/{}: {} ({})",
            self.provider, self.model, self.error, self.reason
        )
    }
}

/// Every candidate failed or was skipped (OpenClaw's `FallbackSummaryError`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct FallbackSummaryError {
    /// `All models failed (<n>): <p/m>: <error> (<reason>) | …`.
    pub message: String,
    /// Each candidate's outcome, in chain order.
    pub attempts: Vec<FallbackAttempt>,
    /// When the first profile of any candidate is usable again, in ms since the epoch, re-read
    /// from the store after the last attempt (the turn's rate-limit countdown).
    pub soonest_cooldown_expiry: Option<f64>,
    /// The last error a candidate's run returned (the cause), if any ran.
    pub last_error: Option<CandidateError>,
    /// Of the candidates skipped because every profile of their provider rests, the profile
    /// usable again first: the fact behind a "cooling down until" message.
    pub cooling_down: Option<CooldownEnd>,
}

impl FallbackSummaryError {
    /// The summary of `attempts` over a chain of `candidate_count` models. The count shown is
    /// the number of attempts, or of candidates when nothing was recorded (then the list reads
    /// `unknown`).
    pub fn new(
        attempts: Vec<FallbackAttempt>,
        candidate_count: usize,
        soonest_cooldown_expiry: Option<f64>,
        last_error: Option<CandidateError>,
    ) -> Self {
        let count = if attempts.is_empty() {
            candidate_count
        } else {
            attempts.len()
        };
        let list = if attempts.is_empty() {
            "unknown".to_owned()
        } else {
            attempts
                .iter()
                .map(FallbackAttempt::summary_line)
                .collect::<Vec<_>>()
                .join(" | ")
        };
        FallbackSummaryError {
            message: format!("All models failed ({count}): {list}"),
            attempts,
            soonest_cooldown_expiry,
            last_error,
            cooling_down: None,
        }
    }
}

/// Why a candidate's own error ends the chain unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassedOn {
    /// A likely context overflow: compaction is the inner loop's job, and another model (maybe
    /// with a smaller window) would fail worse.
    ContextOverflow,
    /// An error with no failover reason on the last candidate.
    Unrecognized,
    /// The only recorded failure of the chain.
    OnlyFailure,
}

/// How a fallback run ended without an answer.
#[derive(Debug, thiserror::Error)]
pub enum FallbackError {
    /// The user aborted the run on this candidate; no other was tried.
    #[error("the run on {provider}/{model} was aborted")]
    Aborted {
        /// The candidate's provider.
        provider: String,
        /// The candidate's model.
        model: String,
    },
    /// A candidate's own error, unchanged (`why` says which rule passed it on).
    #[error("{error}")]
    Candidate {
        /// The candidate's provider.
        provider: String,
        /// The candidate's model.
        model: String,
        /// Which rule passed the error on.
        why: PassedOn,
        /// The error (classified when its text has a failover reason).
        error: CandidateError,
    },
    /// Every candidate failed or was skipped.
    #[error("{0}")]
    Summary(FallbackSummaryError),
    /// The auth store could not be read for a cooldown decision.
    #[error("model fallback could not check the auth profiles of {provider}: {source}")]
    AuthStore {
        /// The provider whose profiles were being read.
        provider: String,
        /// The store's error.
        source: AuthStoreError,
    },
}

impl FallbackError {
    /// The failover reason of a passed-on classified error.
    pub fn failover_reason(&self) -> Option<FailoverReason> {
        match self {
            FallbackError::Candidate { error, .. } => error.failover_reason(),
            FallbackError::Aborted { .. }
            | FallbackError::Summary(_)
            | FallbackError::AuthStore { .. } => None,
        }
    }
}

/// What the chain does with one candidate's error.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateErrorAction {
    /// A user abort: end the chain at once.
    Abort,
    /// End the chain with this error, unchanged.
    PassOn {
        /// Which rule.
        why: PassedOn,
        /// The error (classified when its text has a failover reason).
        error: CandidateError,
    },
    /// Record the attempt and try the next candidate.
    Record {
        /// The summary entry.
        attempt: FallbackAttempt,
        /// The error (classified when its text has a failover reason), kept as the chain's last.
        error: CandidateError,
    },
}

impl CandidateErrorAction {
    /// The failover reason of the (classified) error; `None` for an abort or an error without
    /// one.
    pub fn failover_reason(&self) -> Option<FailoverReason> {
        match self {
            CandidateErrorAction::Abort => None,
            CandidateErrorAction::PassOn { error, .. }
            | CandidateErrorAction::Record { error, .. } => error.failover_reason(),
        }
    }
}

/// Per-candidate error handling (reference §14), in order:
///
/// 1. a user abort ends the chain;
/// 2. a likely context overflow ends the chain with the error;
/// 3. an error whose text has no failover reason ends the chain, raw, on the last candidate;
/// 4. anything else is recorded (reason `unknown` when it has none) and the chain goes on.
///
/// `error` is classified first ([`coerce_candidate_error`]).
pub fn classify_candidate_error(
    error: CandidateError,
    candidate: &ModelCandidate,
    is_last: bool,
) -> CandidateErrorAction {
    let error = coerce_candidate_error(error, candidate);
    let message = match &error {
        CandidateError::Aborted => return CandidateErrorAction::Abort,
        CandidateError::Failover(e) => e.message.as_str(),
        CandidateError::Other(message) => message.as_str(),
    };
    if is_likely_context_overflow_error(message) {
        return CandidateErrorAction::PassOn {
            why: PassedOn::ContextOverflow,
            error,
        };
    }
    match error {
        CandidateError::Other(_) if is_last => CandidateErrorAction::PassOn {
            why: PassedOn::Unrecognized,
            error,
        },
        CandidateError::Failover(_) | CandidateError::Other(_) | CandidateError::Aborted => {
            CandidateErrorAction::Record {
                attempt: FallbackAttempt::failed(candidate, &error),
                error,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn acme() -> ModelCandidate {
        ModelCandidate::new("acme", "m1")
    }

    fn failover(message: &str, reason: FailoverReason) -> CandidateError {
        FailoverError::new(message, reason)
            .with_model("acme", "m1")
            .into()
    }

    fn attempt(error: &str, reason: FailoverReason, status: Option<u16>) -> FallbackAttempt {
        FallbackAttempt {
            provider: "acme".to_owned(),
            model: "m1".to_owned(),
            error: error.to_owned(),
            reason,
            status,
            code: None,
        }
    }

    #[test]
    fn coercion_table() {
        let cases: Vec<(&str, CandidateError, CandidateError)> = vec![
            (
                "a leading status classifies",
                CandidateError::Other("429 Too Many Requests".into()),
                failover("429 Too Many Requests", FailoverReason::RateLimit),
            ),
            (
                "a billing text classifies",
                CandidateError::Other("insufficient credits".into()),
                failover("insufficient credits", FailoverReason::Billing),
            ),
            (
                "a timeout text classifies as timeout",
                CandidateError::Other("request timed out".into()),
                failover("request timed out", FailoverReason::Timeout),
            ),
            (
                "an unrelated text stays raw",
                CandidateError::Other("disk quota went sideways".into()),
                CandidateError::Other("disk quota went sideways".into()),
            ),
            (
                "a failover error is kept as it is",
                FailoverError::new("x", FailoverReason::Format).into(),
                FailoverError::new("x", FailoverReason::Format).into(),
            ),
            (
                "an abort is kept",
                CandidateError::Aborted,
                CandidateError::Aborted,
            ),
        ];
        for (name, input, want) in cases {
            assert_eq!(coerce_candidate_error(input, &acme()), want, "{name}");
        }
    }

    #[test]
    fn action_table() {
        let overflow = "prompt is too long: 277403 tokens > 200000 maximum";
        let cases: Vec<(&str, CandidateError, bool, CandidateErrorAction)> = vec![
            (
                "abort, not last",
                CandidateError::Aborted,
                false,
                CandidateErrorAction::Abort,
            ),
            (
                "abort, last",
                CandidateError::Aborted,
                true,
                CandidateErrorAction::Abort,
            ),
            (
                "overflow text",
                CandidateError::Other(overflow.into()),
                false,
                CandidateErrorAction::PassOn {
                    why: PassedOn::ContextOverflow,
                    error: CandidateError::Other(overflow.into()),
                },
            ),
            (
                "overflow inside a failover error",
                failover(overflow, FailoverReason::Format),
                false,
                CandidateErrorAction::PassOn {
                    why: PassedOn::ContextOverflow,
                    error: failover(overflow, FailoverReason::Format),
                },
            ),
            (
                "unrecognized, last",
                CandidateError::Other("socket gremlins".into()),
                true,
                CandidateErrorAction::PassOn {
                    why: PassedOn::Unrecognized,
                    error: CandidateError::Other("socket gremlins".into()),
                },
            ),
            (
                "unrecognized, not last: recorded as unknown",
                CandidateError::Other("socket gremlins".into()),
                false,
                CandidateErrorAction::Record {
                    attempt: attempt("socket gremlins", FailoverReason::Unknown, None),
                    error: CandidateError::Other("socket gremlins".into()),
                },
            ),
            (
                "classified text, last: recorded with the reason's status",
                CandidateError::Other("429 Too Many Requests".into()),
                true,
                CandidateErrorAction::Record {
                    attempt: attempt(
                        "429 Too Many Requests",
                        FailoverReason::RateLimit,
                        Some(429),
                    ),
                    error: failover("429 Too Many Requests", FailoverReason::RateLimit),
                },
            ),
            (
                "failover error keeps its status and code",
                FailoverError::new("overloaded", FailoverReason::Overloaded)
                    .with_status(529)
                    .with_code("overloaded_error")
                    .into(),
                false,
                CandidateErrorAction::Record {
                    attempt: FallbackAttempt {
                        code: Some("overloaded_error".to_owned()),
                        ..attempt("overloaded", FailoverReason::Overloaded, Some(529))
                    },
                    error: FailoverError::new("overloaded", FailoverReason::Overloaded)
                        .with_status(529)
                        .with_code("overloaded_error")
                        .into(),
                },
            ),
        ];
        for (name, error, is_last, want) in cases {
            assert_eq!(
                classify_candidate_error(error, &acme(), is_last),
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn summary_text() {
        let attempts = vec![
            attempt(
                "Provider acme is in cooldown (all profiles unavailable)",
                FailoverReason::RateLimit,
                None,
            ),
            FallbackAttempt {
                provider: "bolt".to_owned(),
                model: "b1".to_owned(),
                ..attempt("401 bad key", FailoverReason::Auth, Some(401))
            },
        ];
        let summary = FallbackSummaryError::new(attempts.clone(), 2, Some(5.0), None);
        assert_eq!(
            summary.to_string(),
            "All models failed (2): acme/m1: Provider acme is in cooldown (all profiles unavailable) (rate_limit) | bolt/b1: 401 bad key (auth)"
        );
        assert_eq!(summary.attempts, attempts);
        assert_eq!(summary.soonest_cooldown_expiry, Some(5.0));
        assert_eq!(
            FallbackSummaryError::new(Vec::new(), 3, None, None).message,
            "All models failed (3): unknown"
        );
    }
}
