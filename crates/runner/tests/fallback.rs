//! Model fallback through the public API: scripted candidate runs over a real file auth store
//! in a temp dir, with a manual clock (reference §14, SPEC §8.6).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::future::{Ready, ready};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clawloop_core::clock::ManualClock;
use clawloop_core::{FailoverError, FailoverReason};
use clawloop_runner::auth::{AuthConfig, AuthProfileManager, FileAuthStore};
use clawloop_runner::fallback::{
    CandidateError, FallbackAttempt, FallbackError, FallbackSuccess, ModelCandidate, PassedOn,
    ProbeKey, ProbeThrottle, RunOptions, model_not_found_warning, run_with_model_fallback,
};
use pretty_assertions::assert_eq;
use serde_json::json;

const NOW: u64 = 1_700_000_000_000;

struct Harness {
    _dir: tempfile::TempDir,
    agent_dir: PathBuf,
    clock: ManualClock,
    auth: AuthProfileManager,
    throttle: ProbeThrottle,
}

/// An agent dir with api-key profiles `acme:a`, `acme:b` and `bolt:a`; `cat` has none.
fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let agent_dir = dir.path().join("agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let profiles = json!({
        "version": 1,
        "profiles": {
            "acme:a": {"type": "api_key", "provider": "acme", "key": "ka"},
            "acme:b": {"type": "api_key", "provider": "acme", "key": "kb"},
            "bolt:a": {"type": "api_key", "provider": "bolt", "key": "kc"}
        }
    });
    std::fs::write(
        agent_dir.join("auth-profiles.json"),
        serde_json::to_string_pretty(&profiles).unwrap(),
    )
    .unwrap();
    let clock = ManualClock::new(NOW);
    let auth = AuthProfileManager::new(
        Arc::new(FileAuthStore::new(&agent_dir)),
        Arc::new(AuthConfig::default()),
        Arc::new(clock.clone()),
    );
    let throttle = ProbeThrottle::new(Arc::new(clock.clone()));
    Harness {
        _dir: dir,
        agent_dir,
        clock,
        auth,
        throttle,
    }
}

fn candidates(keys: &[&str]) -> Vec<ModelCandidate> {
    keys.iter()
        .map(|k| {
            let (p, m) = k.split_once('/').unwrap();
            ModelCandidate::new(p, m)
        })
        .collect()
}

type Outcome = Result<String, CandidateError>;
type Calls = Arc<Mutex<Vec<(String, bool)>>>;

/// A run that answers each candidate as scripted and records `(p/m, allow probe)` per call.
fn scripted(
    outcomes: &[(&str, Outcome)],
) -> (
    Calls,
    impl FnMut(ModelCandidate, RunOptions) -> Ready<Outcome>,
) {
    let script: HashMap<String, Outcome> = outcomes
        .iter()
        .map(|(k, o)| ((*k).to_owned(), o.clone()))
        .collect();
    let calls: Calls = Arc::default();
    let seen = calls.clone();
    let run = move |candidate: ModelCandidate, options: RunOptions| {
        seen.lock()
            .unwrap()
            .push((candidate.key(), options.allow_transient_cooldown_probe));
        ready(
            script
                .get(&candidate.key())
                .cloned()
                .unwrap_or_else(|| panic!("unscripted candidate {}", candidate.key())),
        )
    };
    (calls, run)
}

fn failover(message: &str, reason: FailoverReason) -> CandidateError {
    FailoverError::new(message, reason).into()
}

fn calls_of(calls: &Calls) -> Vec<(String, bool)> {
    calls.lock().unwrap().clone()
}

fn call(key: &str, probe: bool) -> (String, bool) {
    (key.to_owned(), probe)
}

fn failed(key: &str, error: &str, reason: FailoverReason, status: Option<u16>) -> FallbackAttempt {
    let (provider, model) = key.split_once('/').unwrap();
    FallbackAttempt {
        provider: provider.to_owned(),
        model: model.to_owned(),
        error: error.to_owned(),
        reason,
        status,
        code: None,
    }
}

async fn go(
    h: &Harness,
    chain: &[&str],
    outcomes: &[(&str, Outcome)],
) -> (
    Result<FallbackSuccess<String>, FallbackError>,
    Vec<(String, bool)>,
) {
    let (calls, run) = scripted(outcomes);
    let result =
        run_with_model_fallback(&candidates(chain), &h.auth, &h.agent_dir, &h.throttle, run).await;
    (result, calls_of(&calls))
}

#[tokio::test]
async fn a_failover_error_falls_back_to_the_next_model() {
    let h = harness();
    let (result, calls) = go(
        &h,
        &["acme/m1", "bolt/b1"],
        &[
            (
                "acme/m1",
                Err(failover("429 Too Many Requests", FailoverReason::RateLimit)),
            ),
            ("bolt/b1", Ok("Bonjour.".to_owned())),
        ],
    )
    .await;
    assert_eq!(
        result.unwrap(),
        FallbackSuccess {
            result: "Bonjour.".to_owned(),
            provider: "bolt".to_owned(),
            model: "b1".to_owned(),
            attempts: vec![failed(
                "acme/m1",
                "429 Too Many Requests",
                FailoverReason::RateLimit,
                Some(429)
            )],
        }
    );
    assert_eq!(calls, [call("acme/m1", false), call("bolt/b1", false)]);
}

#[tokio::test]
async fn an_unrecognized_error_before_the_last_model_is_recorded_as_unknown() {
    let h = harness();
    let (result, calls) = go(
        &h,
        &["acme/m1", "bolt/b1"],
        &[
            (
                "acme/m1",
                Err(CandidateError::Other("socket gremlins".into())),
            ),
            ("bolt/b1", Ok("ok".to_owned())),
        ],
    )
    .await;
    let success = result.unwrap();
    assert_eq!(
        success.attempts,
        [failed(
            "acme/m1",
            "socket gremlins",
            FailoverReason::Unknown,
            None
        )]
    );
    assert_eq!(calls.len(), 2);
}

#[tokio::test]
async fn a_user_abort_is_returned_without_trying_the_next_model() {
    let h = harness();
    let (result, calls) = go(
        &h,
        &["acme/m1", "bolt/b1"],
        &[
            ("acme/m1", Err(CandidateError::Aborted)),
            ("bolt/b1", Ok("never".to_owned())),
        ],
    )
    .await;
    let error = result.unwrap_err();
    assert!(
        matches!(&error, FallbackError::Aborted { provider, model } if provider == "acme" && model == "m1"),
        "{error:?}"
    );
    assert_eq!(calls, [call("acme/m1", false)]);
}

#[tokio::test]
async fn a_context_overflow_is_returned_without_trying_the_next_model() {
    let h = harness();
    let text = "400 prompt is too long: 277403 tokens > 200000 maximum";
    let (result, calls) = go(
        &h,
        &["acme/m1", "bolt/b1"],
        &[
            ("acme/m1", Err(CandidateError::Other(text.into()))),
            ("bolt/b1", Ok("never".to_owned())),
        ],
    )
    .await;
    let error = result.unwrap_err();
    assert_eq!(error.to_string(), text);
    assert!(
        matches!(
            &error,
            FallbackError::Candidate { why: PassedOn::ContextOverflow, provider, .. } if provider == "acme"
        ),
        "{error:?}"
    );
    assert_eq!(calls, [call("acme/m1", false)]);
}

#[tokio::test]
async fn an_unrecognized_error_on_the_last_model_is_returned_raw() {
    let h = harness();
    let (result, calls) = go(
        &h,
        &["acme/m1", "bolt/b1"],
        &[
            (
                "acme/m1",
                Err(failover("overloaded", FailoverReason::Overloaded)),
            ),
            (
                "bolt/b1",
                Err(CandidateError::Other("socket gremlins".into())),
            ),
        ],
    )
    .await;
    match result.unwrap_err() {
        FallbackError::Candidate {
            provider,
            model,
            why,
            error,
        } => {
            assert_eq!(
                (provider.as_str(), model.as_str(), why, error),
                (
                    "bolt",
                    "b1",
                    PassedOn::Unrecognized,
                    CandidateError::Other("socket gremlins".into())
                )
            );
        }
        other => panic!("expected the raw error, got {other:?}"),
    }
    assert_eq!(calls.len(), 2);
}

#[tokio::test]
async fn a_single_failure_is_returned_as_it_was_classified() {
    let h = harness();
    let (result, _) = go(
        &h,
        &["acme/m1"],
        &[(
            "acme/m1",
            Err(CandidateError::Other("429 Too Many Requests".into())),
        )],
    )
    .await;
    match result.unwrap_err() {
        FallbackError::Candidate { why, error, .. } => {
            assert_eq!(why, PassedOn::OnlyFailure);
            assert_eq!(
                error,
                CandidateError::from(
                    FailoverError::new("429 Too Many Requests", FailoverReason::RateLimit)
                        .with_model("acme", "m1")
                )
            );
        }
        other => panic!("expected the single failure, got {other:?}"),
    }
}

#[tokio::test]
async fn all_failed_gives_the_summary_with_skip_texts_and_the_soonest_expiry() {
    let h = harness();
    // acme rests for m1 (rate limit, until NOW + 10 s); bolt rests after an auth failure
    // (until NOW + 11 s); the primary's probe was made just now by an earlier run.
    h.auth
        .mark_failure("acme:a", FailoverReason::RateLimit, Some("m1"))
        .unwrap();
    h.auth
        .mark_failure("acme:b", FailoverReason::RateLimit, Some("m1"))
        .unwrap();
    h.clock.set(NOW + 1_000);
    h.auth
        .mark_failure("bolt:a", FailoverReason::Auth, None)
        .unwrap();
    h.clock.set(NOW + 2_000);
    h.throttle
        .mark(&ProbeKey::new(&h.agent_dir, "acme"), NOW + 1_500);

    let (result, calls) = go(
        &h,
        &["acme/m1", "bolt/b1", "cat/c1"],
        &[(
            "cat/c1",
            Err(
                FailoverError::new("The server is overloaded", FailoverReason::Overloaded)
                    .with_status(529)
                    .with_code("overloaded_error")
                    .into(),
            ),
        )],
    )
    .await;
    let FallbackError::Summary(summary) = result.unwrap_err() else {
        panic!("expected the summary");
    };
    assert_eq!(
        summary.to_string(),
        "All models failed (3): \
         acme/m1: Provider acme is in cooldown (all profiles unavailable) (rate_limit) | \
         bolt/b1: Provider bolt has auth issue (skipping all models) (auth) | \
         cat/c1: The server is overloaded (overloaded)"
    );
    assert_eq!(
        summary.attempts[2],
        FallbackAttempt {
            code: Some("overloaded_error".to_owned()),
            ..failed(
                "cat/c1",
                "The server is overloaded",
                FailoverReason::Overloaded,
                Some(529)
            )
        }
    );
    #[allow(clippy::cast_precision_loss)]
    let soonest = (NOW + 10_000) as f64;
    assert_eq!(summary.soonest_cooldown_expiry, Some(soonest));
    assert_eq!(calls, [call("cat/c1", false)]);
}

#[tokio::test]
async fn a_cooldown_for_another_model_does_not_stop_this_one() {
    let h = harness();
    h.auth
        .mark_failure("acme:a", FailoverReason::RateLimit, Some("m2"))
        .unwrap();
    h.auth
        .mark_failure("acme:b", FailoverReason::RateLimit, Some("m2"))
        .unwrap();
    let (result, calls) = go(&h, &["acme/m1"], &[("acme/m1", Ok("ok".to_owned()))]).await;
    assert_eq!(result.unwrap().provider, "acme");
    assert_eq!(calls, [call("acme/m1", false)]);
}

#[tokio::test]
async fn one_transient_probe_per_provider_per_run_and_the_throttle_spans_runs() {
    let h = harness();
    h.auth
        .mark_failure("acme:a", FailoverReason::RateLimit, None)
        .unwrap();
    h.auth
        .mark_failure("acme:b", FailoverReason::RateLimit, None)
        .unwrap();
    let chain = ["acme/m1", "acme/m2", "acme/m3", "cat/c1"];
    let script = [
        (
            "acme/m1",
            Err(failover("429 slow down", FailoverReason::RateLimit)),
        ),
        ("cat/c1", Ok("from cat".to_owned())),
    ];
    let (result, calls) = go(&h, &chain, &script).await;
    let probe_used = "Provider acme is in cooldown (probe already attempted this run)";
    assert_eq!(
        result.unwrap(),
        FallbackSuccess {
            result: "from cat".to_owned(),
            provider: "cat".to_owned(),
            model: "c1".to_owned(),
            attempts: vec![
                failed(
                    "acme/m1",
                    "429 slow down",
                    FailoverReason::RateLimit,
                    Some(429)
                ),
                failed("acme/m2", probe_used, FailoverReason::RateLimit, None),
                failed("acme/m3", probe_used, FailoverReason::RateLimit, None),
            ],
        }
    );
    // The primary ran as the due probe (marked in the throttle); its siblings were skipped.
    assert_eq!(calls, [call("acme/m1", true), call("cat/c1", false)]);
    let key = ProbeKey::new(&h.agent_dir, "acme");
    assert_eq!(h.throttle.last_probe(&key), Some(NOW));

    // A second run 5 s later (profiles still resting): the throttle is closed, so the
    // requested primary is skipped; the probe slot is new, so one sibling gets its probe.
    h.clock.set(NOW + 5_000);
    let (result, calls) = go(
        &h,
        &chain,
        &[
            (
                "acme/m2",
                Err(failover("429 again", FailoverReason::RateLimit)),
            ),
            ("cat/c1", Ok("from cat".to_owned())),
        ],
    )
    .await;
    let attempts = result.unwrap().attempts;
    assert_eq!(
        attempts,
        [
            failed(
                "acme/m1",
                "Provider acme is in cooldown (all profiles unavailable)",
                FailoverReason::RateLimit,
                None
            ),
            failed("acme/m2", "429 again", FailoverReason::RateLimit, Some(429)),
            failed("acme/m3", probe_used, FailoverReason::RateLimit, None),
        ]
    );
    assert_eq!(calls, [call("acme/m2", true), call("cat/c1", false)]);
    assert_eq!(h.throttle.last_probe(&key), Some(NOW));
}

#[tokio::test]
async fn a_probe_failing_with_model_not_found_keeps_the_slot() {
    let h = harness();
    h.auth
        .mark_failure("acme:a", FailoverReason::Overloaded, None)
        .unwrap();
    h.auth
        .mark_failure("acme:b", FailoverReason::Overloaded, None)
        .unwrap();
    let (result, calls) = go(
        &h,
        &["acme/m1", "acme/m2"],
        &[
            (
                "acme/m1",
                Err(CandidateError::Other("404 model not found: m1".into())),
            ),
            ("acme/m2", Ok("from m2".to_owned())),
        ],
    )
    .await;
    let success = result.unwrap();
    assert_eq!(
        (success.provider.as_str(), success.model.as_str()),
        ("acme", "m2")
    );
    assert_eq!(success.attempts[0].reason, FailoverReason::ModelNotFound);
    assert_eq!(calls, [call("acme/m1", true), call("acme/m2", true)]);
    assert_eq!(
        model_not_found_warning(&success.attempts, &ModelCandidate::new("acme", "m2")).as_deref(),
        Some("Model \"acme/m1\" not found. Fell back to \"acme/m2\".")
    );
}

#[tokio::test]
async fn a_billing_lockout_of_a_single_model_is_probed_once_per_interval() {
    let h = harness();
    h.auth
        .mark_failure("acme:a", FailoverReason::Billing, None)
        .unwrap();
    h.auth
        .mark_failure("acme:b", FailoverReason::Billing, None)
        .unwrap();
    let script = [(
        "acme/m1",
        Err(failover(
            "402 insufficient credits",
            FailoverReason::Billing,
        )),
    )];
    let (result, calls) = go(&h, &["acme/m1"], &script).await;
    assert!(matches!(
        result.unwrap_err(),
        FallbackError::Candidate {
            why: PassedOn::OnlyFailure,
            ..
        }
    ),);
    assert_eq!(calls, [call("acme/m1", true)]);

    // Within the interval the lockout is not probed again.
    h.clock.set(NOW + 29_999);
    let (result, calls) = go(&h, &["acme/m1"], &script).await;
    let FallbackError::Summary(summary) = result.unwrap_err() else {
        panic!("expected the summary");
    };
    assert_eq!(
        summary.message,
        "All models failed (1): acme/m1: Provider acme has billing issue (skipping all models) (billing)"
    );
    assert_eq!(calls, []);

    // Once the interval has passed, it is probed again.
    h.clock.set(NOW + 30_000);
    let (_, calls) = go(&h, &["acme/m1"], &script).await;
    assert_eq!(calls, [call("acme/m1", true)]);
}

#[tokio::test]
async fn an_unreadable_auth_store_is_a_clear_error() {
    let h = harness();
    std::fs::write(h.agent_dir.join("auth-profiles.json"), "{ not json").unwrap();
    let (result, calls) = go(&h, &["acme/m1"], &[("acme/m1", Ok("never".to_owned()))]).await;
    let error = result.unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("model fallback could not check the auth profiles of acme: ")
            && text.contains("auth-profiles.json"),
        "{text}"
    );
    assert_eq!(calls, []);
}

#[tokio::test]
async fn an_empty_chain_fails_with_an_empty_summary() {
    let h = harness();
    let (result, calls) = go(&h, &[], &[]).await;
    let FallbackError::Summary(summary) = result.unwrap_err() else {
        panic!("expected the summary");
    };
    assert_eq!(summary.message, "All models failed (0): unknown");
    assert_eq!(summary.soonest_cooldown_expiry, None);
    assert_eq!(calls, []);
}
