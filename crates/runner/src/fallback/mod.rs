//! Model fallback (`run_with_model_fallback`, SPEC §8.6, reference §14): run a turn on the
//! first model of a chain that answers, skipping providers whose auth profiles all rest.
//!
//! * [`candidates`] — which models, in what order;
//! * [`cooldown`] — skip, attempt or probe a candidate whose provider rests;
//! * [`probe_slot`] — the one transient cooldown probe per provider and run;
//! * [`throttle`] — the cross-run probe throttle ([`ProbeThrottle`], owned by the runtime);
//! * [`error`] — per-candidate error handling and the errors the chain ends with;
//! * [`auth_facts`] — what the chain reads from the auth store.
//!
//! The decisions are pure functions over plain data; [`run_with_model_fallback`] applies them
//! to the store, the throttle and the caller's run.

pub mod auth_facts;
pub mod candidates;
pub mod cooldown;
pub mod error;
pub mod probe_slot;
pub mod throttle;

use std::future::Future;
use std::path::Path;

use clawloop_core::FailoverReason;

pub use candidates::{
    DEFAULT_MODEL, DEFAULT_PROVIDER, ModelCandidate, resolve_fallback_candidates,
};
pub use cooldown::{CooldownDecision, CooldownInput, PROBE_MARGIN_MS, resolve_cooldown_decision};
pub use error::{
    CandidateError, CandidateErrorAction, FallbackAttempt, FallbackError, FallbackSummaryError,
    PassedOn, classify_candidate_error, coerce_candidate_error,
};
pub use probe_slot::ProbeSlots;
pub use throttle::{
    MAX_PROBE_KEYS, MIN_PROBE_INTERVAL_MS, PROBE_STATE_TTL_MS, ProbeKey, ProbeThrottle,
};

use crate::auth::AuthProfileManager;
use crate::auth::cooldown::CooldownEnd;
use auth_facts::{read_provider_cooldown, read_soonest_expiry};
use probe_slot::{allows_cooldown_probe, is_transient_cooldown_reason};

/// What the chain tells the run of one candidate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Every profile of the provider rests for a reason that may have cleared (rate limit,
    /// overload, timeout, unknown, billing): the run loop may try a resting profile instead of
    /// failing over at once.
    pub allow_transient_cooldown_probe: bool,
}

/// The candidate that answered.
#[derive(Debug, Clone, PartialEq)]
pub struct FallbackSuccess<T> {
    /// What the run returned.
    pub result: T,
    /// The provider that answered.
    pub provider: String,
    /// The model that answered.
    pub model: String,
    /// The candidates before it that failed or were skipped.
    pub attempts: Vec<FallbackAttempt>,
}

/// The warning after a later candidate answered because an earlier model was not found:
/// `Model "<p/m>" not found. Fell back to "<p/m>".` (the first not-found attempt is named).
pub fn model_not_found_warning(
    attempts: &[FallbackAttempt],
    answered: &ModelCandidate,
) -> Option<String> {
    let missing = attempts
        .iter()
        .find(|a| a.reason == FailoverReason::ModelNotFound)?;
    Some(format!(
        "Model \"{}/{}\" not found. Fell back to \"{}/{}\".",
        printable(&missing.provider),
        printable(&missing.model),
        printable(&answered.provider),
        printable(&answered.model),
    ))
}

/// The record of a candidate skipped because its provider rests; every skip is logged, so a
/// user can tell why a model was not tried.
fn skipped(candidate: &ModelCandidate, error: String, reason: FailoverReason) -> FallbackAttempt {
    tracing::info!(
        provider = %candidate.provider,
        model = %candidate.model,
        %reason,
        "model fallback: skipping candidate: {error}"
    );
    FallbackAttempt::skipped(candidate, error, reason)
}

/// Control characters removed: ids come from config and sessions and end up in a log line.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// Runs `run` on each candidate in turn until one answers (reference §14).
///
/// Before a candidate runs, its provider's profiles are read (`auth.order(provider, None,
/// Some(model))`); when there are some and all rest for this model, [`resolve_cooldown_decision`]
/// skips it (recording the skip text as its attempt) or lets it run, marking a probe in
/// `throttle` (keyed by `agent_dir` and provider) when it is the primary's due probe. A
/// candidate attempted during a cooldown for a transient reason or billing runs with
/// [`RunOptions::allow_transient_cooldown_probe`]; a provider gets one transient probe per
/// call, a second model of it is skipped with `Provider <p> is in cooldown (probe already
/// attempted this run)` unless the probe failed for a reason that keeps the slot.
///
/// A failed candidate's error goes through [`classify_candidate_error`]: a user abort, a
/// likely context overflow, or an unrecognized error on the last candidate end the chain at
/// once; anything else is recorded and the next candidate runs. When none answers, a single
/// recorded failure is returned as it was ([`PassedOn::OnlyFailure`]); otherwise
/// [`FallbackSummaryError`] with the soonest cooldown expiry re-read from the store.
///
/// Store reads run on tokio's blocking pool; call this from a tokio runtime.
pub async fn run_with_model_fallback<T, F, Fut>(
    candidates: &[ModelCandidate],
    auth: &AuthProfileManager,
    agent_dir: &Path,
    throttle: &ProbeThrottle,
    mut run: F,
) -> Result<FallbackSuccess<T>, FallbackError>
where
    F: FnMut(ModelCandidate, RunOptions) -> Fut,
    Fut: Future<Output = Result<T, CandidateError>>,
{
    let has_fallback_candidates = candidates.len() > 1;
    let requested = candidates.first();
    let mut attempts: Vec<FallbackAttempt> = Vec::new();
    let mut last_error: Option<(ModelCandidate, CandidateError)> = None;
    let mut slots = ProbeSlots::new();
    let mut cooling_down: Option<CooldownEnd> = None;

    for (index, candidate) in candidates.iter().enumerate() {
        let is_last = index + 1 == candidates.len();
        let place = ChainPlace {
            is_primary: index == 0,
            requested: requested == Some(candidate),
            has_fallback_candidates,
        };
        let (options, transient_probe) =
            match cooldown_gate(candidate, place, auth, agent_dir, throttle, &slots).await? {
                Gate::Run {
                    options,
                    transient_probe,
                } => (options, transient_probe),
                Gate::Skip { attempt, resting } => {
                    attempts.push(attempt);
                    cooling_down = sooner(cooling_down, resting);
                    continue;
                }
            };

        let error = match run(candidate.clone(), options).await {
            Ok(result) => {
                if index > 0
                    && let Some(warning) = model_not_found_warning(&attempts, candidate)
                {
                    tracing::warn!("{warning}");
                }
                return Ok(FallbackSuccess {
                    result,
                    provider: candidate.provider.clone(),
                    model: candidate.model.clone(),
                    attempts,
                });
            }
            Err(error) => error,
        };

        let action = classify_candidate_error(error, candidate, is_last);
        if transient_probe {
            slots.record_failure(&candidate.provider, action.failover_reason());
        }
        if let Some(end) = record_failure(action, candidate, &mut attempts, &mut last_error) {
            return Err(end);
        }
    }

    if attempts.len() <= 1
        && let Some((candidate, error)) = last_error
    {
        return Err(FallbackError::Candidate {
            provider: candidate.provider,
            model: candidate.model,
            why: PassedOn::OnlyFailure,
            error,
        });
    }

    let soonest = soonest_expiry(candidates, auth, throttle).await;
    let mut summary = FallbackSummaryError::new(
        attempts,
        candidates.len(),
        soonest,
        last_error.map(|(_, error)| error),
    );
    summary.cooling_down = cooling_down;
    Err(FallbackError::Summary(summary))
}

/// Carries out a failed candidate's [`CandidateErrorAction`]: the chain's end (an abort, or an
/// error passed on as it is), or the attempt recorded and the chain going on (`None`).
fn record_failure(
    action: CandidateErrorAction,
    candidate: &ModelCandidate,
    attempts: &mut Vec<FallbackAttempt>,
    last_error: &mut Option<(ModelCandidate, CandidateError)>,
) -> Option<FallbackError> {
    match action {
        CandidateErrorAction::Abort => Some(FallbackError::Aborted {
            provider: candidate.provider.clone(),
            model: candidate.model.clone(),
        }),
        CandidateErrorAction::PassOn { why, error } => Some(FallbackError::Candidate {
            provider: candidate.provider.clone(),
            model: candidate.model.clone(),
            why,
            error,
        }),
        CandidateErrorAction::Record { attempt, error } => {
            tracing::info!(
                provider = %candidate.provider,
                model = %candidate.model,
                reason = %attempt.reason,
                "model fallback: candidate failed: {}",
                attempt.error
            );
            attempts.push(attempt);
            *last_error = Some((candidate.clone(), error));
            None
        }
    }
}

/// Where a candidate stands in the chain, for the cooldown decision.
#[derive(Debug, Clone, Copy)]
struct ChainPlace {
    is_primary: bool,
    requested: bool,
    has_fallback_candidates: bool,
}

/// Whether a candidate runs, after its provider's cooldown state.
enum Gate {
    /// Run it with these options; `transient_probe`: a probe of a resting provider whose
    /// failure uses up the provider's probe slot.
    Run {
        options: RunOptions,
        transient_probe: bool,
    },
    /// Skip it: every profile rests (`resting`: until when), or its probe was used already.
    Skip {
        attempt: FallbackAttempt,
        resting: Option<CooldownEnd>,
    },
}

/// Carries out [`resolve_cooldown_decision`] for `candidate`: reads its provider's cooldown
/// state and, when every profile rests, skips it or lets it probe (marking the throttle).
async fn cooldown_gate(
    candidate: &ModelCandidate,
    place: ChainPlace,
    auth: &AuthProfileManager,
    agent_dir: &Path,
    throttle: &ProbeThrottle,
    slots: &ProbeSlots,
) -> Result<Gate, FallbackError> {
    let mut options = RunOptions::default();
    let now = throttle.now_ms();
    // Epoch milliseconds stay far below 2^53, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let now_f = now as f64;
    let cooldown = {
        let owned = candidate.clone();
        auth.blocking(move |m| read_provider_cooldown(m, &owned, now_f))
            .await
            .map_err(|source| FallbackError::AuthStore {
                provider: candidate.provider.clone(),
                source,
            })?
    };
    if !cooldown.all_resting() {
        return Ok(Gate::Run {
            options,
            transient_probe: false,
        });
    }
    let key = ProbeKey::new(agent_dir, &candidate.provider);
    let input = CooldownInput {
        provider: &candidate.provider,
        is_primary: place.is_primary,
        requested_model: place.requested,
        has_fallback_candidates: place.has_fallback_candidates,
        unavailable_reason: cooldown.unavailable_reason,
        soonest_expiry_ms: cooldown.soonest_expiry_ms,
        throttle_open: throttle.is_open(&key, now),
        now_ms: now_f,
    };
    let (reason, mark_probe) = match resolve_cooldown_decision(&input) {
        CooldownDecision::Skip { reason, error } => {
            return Ok(Gate::Skip {
                attempt: skipped(candidate, error, reason),
                resting: cooldown.soonest_end,
            });
        }
        CooldownDecision::Attempt { reason, mark_probe } => (reason, mark_probe),
    };
    if mark_probe {
        throttle.mark(&key, now);
    }
    let mut transient_probe = false;
    if allows_cooldown_probe(reason) {
        let transient = is_transient_cooldown_reason(reason);
        if transient && slots.is_used(&candidate.provider) {
            let error = format!(
                "Provider {} is in cooldown (probe already attempted this run)",
                candidate.provider
            );
            return Ok(Gate::Skip {
                attempt: skipped(candidate, error, reason),
                resting: None,
            });
        }
        options.allow_transient_cooldown_probe = true;
        transient_probe = transient;
    }
    tracing::info!(
        provider = %candidate.provider,
        model = %candidate.model,
        %reason,
        allow_transient_cooldown_probe = options.allow_transient_cooldown_probe,
        "model fallback: trying a candidate whose profiles all rest"
    );
    Ok(Gate::Run {
        options,
        transient_probe,
    })
}

/// The soonest cooldown expiry over every candidate's provider, for the summary's countdown.
async fn soonest_expiry(
    candidates: &[ModelCandidate],
    auth: &AuthProfileManager,
    throttle: &ProbeThrottle,
) -> Option<f64> {
    // Epoch milliseconds stay far below 2^53, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let now_f = throttle.now_ms() as f64;
    let owned: Vec<ModelCandidate> = candidates.to_vec();
    match auth
        .blocking(move |m| read_soonest_expiry(m, &owned, now_f))
        .await
    {
        Ok(soonest) => soonest,
        Err(error) => {
            // The summary matters more than the countdown: report it without an expiry.
            tracing::warn!("model fallback: cannot re-read cooldown expiries: {error}");
            None
        }
    }
}

/// The earlier of two cooldown ends.
fn sooner(a: Option<CooldownEnd>, b: Option<CooldownEnd>) -> Option<CooldownEnd> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.until_ms < a.until_ms { b } else { a }),
        (a, b) => a.or(b),
    }
}
