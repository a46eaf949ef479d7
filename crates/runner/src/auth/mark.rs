//! What the runner records after using a profile (reference §13.5): failures open or extend
//! the count toward a window, successes reset it, expired windows are cleared.
//!
//! Each function changes an [`AuthState`] in place and says whether it changed anything, so a
//! store update can skip the write when nothing did.

use clawloop_core::FailoverReason;
use clawloop_core::auth_store::{AuthProfiles, AuthState, ProfileUsageStats};
use indexmap::IndexMap;

use super::config::AuthConfig;
use super::cooldown::{CooldownPolicy, Lane, lane_of, unusable_until, valid_time};
use super::provider::{is_cooldown_bypassed, provider_key};

/// A window that is still running is kept as it is, so retries inside it cannot push the
/// recovery further out; otherwise the new end applies.
fn keep_active_or(existing: Option<f64>, now_ms: f64, recomputed: f64) -> f64 {
    match existing {
        Some(until) if until.is_finite() && until > now_ms => until,
        Some(_) | None => recomputed,
    }
}

/// The stats after one more failure of `reason` at `now_ms` (`computeNextProfileUsageStats`).
///
/// * The count restarts when the last failure is older than the failure window, or when the
///   previous window has already ended (so an expired cooldown does not escalate the next).
/// * `errorCount` counts after this failure; the cooldown is the schedule step for it.
/// * Billing and auth_permanent set `disabledUntil` from their own count instead.
/// * An active window is never moved. Inside it the reason becomes the latest one, and the
///   model scope widens to every model when another model fails, when a rate limit names no
///   model, or when the reason is not a rate limit.
pub fn next_failure_stats(
    existing: &ProfileUsageStats,
    now_ms: f64,
    reason: FailoverReason,
    policy: &CooldownPolicy,
    model: Option<&str>,
) -> ProfileUsageStats {
    let model = model.filter(|m| !m.is_empty());
    let window_expired = valid_time(existing.last_failure_at)
        .is_some_and(|at| now_ms - at > policy.failure_window_ms);
    let previous_window_over = unusable_until(existing).is_some_and(|until| now_ms >= until);
    let restart = window_expired || previous_window_over;

    let error_count = if restart {
        0
    } else {
        existing.error_count.unwrap_or(0)
    }
    .saturating_add(1);
    let mut failure_counts = if restart {
        IndexMap::new()
    } else {
        existing.failure_counts.clone().unwrap_or_default()
    };
    let reason_count = failure_counts.entry(reason).or_insert(0);
    *reason_count = reason_count.saturating_add(1);
    let reason_count = *reason_count;

    let mut next = existing.clone();
    next.error_count = Some(error_count);
    next.failure_counts = Some(failure_counts);
    next.last_failure_at = Some(now_ms);

    match lane_of(reason) {
        Lane::Disabled => {
            let backoff = policy
                .disabled_ms(reason, reason_count)
                .unwrap_or_else(|| policy.cooldown_ms(error_count));
            next.disabled_until = Some(keep_active_or(
                existing.disabled_until,
                now_ms,
                now_ms + backoff,
            ));
            next.disabled_reason = Some(reason);
        }
        Lane::Cooldown => {
            let backoff = policy.cooldown_ms(error_count);
            next.cooldown_until = Some(keep_active_or(
                existing.cooldown_until,
                now_ms,
                now_ms + backoff,
            ));
            let window_active = existing.cooldown_until.is_some_and(|until| until > now_ms);
            next.cooldown_reason = Some(reason);
            next.cooldown_model = if !scopes_to_model(reason) {
                None
            } else if window_active {
                // Kept only while the same model keeps failing; another model, or a failure
                // that names no model, widens the window to every model.
                let scoped = existing.cooldown_model.as_deref().filter(|m| !m.is_empty());
                match (scoped, model) {
                    (Some(scoped), Some(model)) if scoped == model => Some(scoped.to_owned()),
                    (Some(_) | None, Some(_) | None) => None,
                }
            } else {
                model.map(str::to_owned)
            };
        }
    }
    next
}

/// Whether a failure of this reason is about one model rather than the account: only rate
/// limits are (a quota per model); everything else rests the profile for every model.
fn scopes_to_model(reason: FailoverReason) -> bool {
    match reason {
        FailoverReason::RateLimit => true,
        FailoverReason::Auth
        | FailoverReason::AuthPermanent
        | FailoverReason::Billing
        | FailoverReason::Format
        | FailoverReason::Overloaded
        | FailoverReason::Timeout
        | FailoverReason::ModelNotFound
        | FailoverReason::SessionExpired
        | FailoverReason::Unknown => false,
    }
}

/// Records a failure of `profile_id` (`markAuthProfileFailure`). A missing profile and the
/// profiles of providers that never cool down are left alone.
///
/// OpenClaw first probes ChatGPT's usage endpoint for `openai-codex` rate limits to size the
/// window; clawloop makes no such call (no traffic to chatgpt.com) and uses the schedule.
pub fn mark_failure(
    config: &AuthConfig,
    profiles: &AuthProfiles,
    state: &mut AuthState,
    profile_id: &str,
    reason: FailoverReason,
    model: Option<&str>,
    now_ms: f64,
) -> bool {
    let Some(provider) = profiles.get(profile_id).and_then(|c| c.provider()) else {
        return false;
    };
    if is_cooldown_bypassed(provider) {
        return false;
    }
    let policy = CooldownPolicy::for_provider(&config.cooldowns, provider);
    let existing = state.stats(profile_id).cloned().unwrap_or_default();
    let next = next_failure_stats(&existing, now_ms, reason, &policy, model);
    *state.stats_mut(profile_id) = next;
    true
}

/// `markAuthProfileCooldown`: a failure with reason `unknown`.
pub fn mark_cooldown(
    config: &AuthConfig,
    profiles: &AuthProfiles,
    state: &mut AuthState,
    profile_id: &str,
    now_ms: f64,
) -> bool {
    mark_failure(
        config,
        profiles,
        state,
        profile_id,
        FailoverReason::Unknown,
        None,
        now_ms,
    )
}

/// The stats with every window and counter cleared; `lastUsed`, `lastFailureAt` and unknown
/// fields stay.
fn reset(existing: Option<&ProfileUsageStats>) -> ProfileUsageStats {
    let mut stats = existing.cloned().unwrap_or_default();
    stats.error_count = Some(0);
    stats.cooldown_until = None;
    stats.cooldown_reason = None;
    stats.cooldown_model = None;
    stats.disabled_until = None;
    stats.disabled_reason = None;
    stats.failure_counts = None;
    stats
}

/// Records a successful use (`markAuthProfileUsed`): counters and windows reset, `lastUsed`
/// set, which sends the profile to the back of its round-robin group.
pub fn mark_used(
    profiles: &AuthProfiles,
    state: &mut AuthState,
    profile_id: &str,
    now_ms: f64,
) -> bool {
    if profiles
        .get(profile_id)
        .and_then(|c| c.provider())
        .is_none()
    {
        return false;
    }
    let mut stats = reset(state.stats(profile_id));
    stats.last_used = Some(now_ms);
    *state.stats_mut(profile_id) = stats;
    true
}

/// Records the profile as the provider's last good one (`markAuthProfileGood`), when the
/// profile belongs to `provider`. It changes no counter or window.
pub fn mark_good(
    profiles: &AuthProfiles,
    state: &mut AuthState,
    provider: &str,
    profile_id: &str,
) -> bool {
    let key = provider_key(provider);
    let belongs = profiles
        .get(profile_id)
        .and_then(|c| c.provider())
        .is_some_and(|p| provider_key(p) == key);
    if !belongs {
        return false;
    }
    let last_good = state.last_good.get_or_insert_with(IndexMap::new);
    if last_good.get(&key).map(String::as_str) == Some(profile_id) {
        return false;
    }
    last_good.insert(key, profile_id.to_owned());
    true
}

/// A manual reset of one profile (`clearAuthProfileCooldown`).
pub fn clear_cooldown(state: &mut AuthState, profile_id: &str) -> bool {
    let Some(existing) = state.stats(profile_id) else {
        return false;
    };
    let stats = reset(Some(existing));
    *state.stats_mut(profile_id) = stats;
    true
}

/// Clears windows that ended at or before `now_ms` (`clearExpiredCooldowns`). The cooldown
/// (with its reason and model) and the disabled window (with its reason) expire on their own;
/// once nothing is left, the counters restart. `lastFailureAt` stays for the failure window.
pub fn clear_expired_cooldowns(state: &mut AuthState, now_ms: f64) -> bool {
    let Some(usage) = state.usage_stats.as_mut() else {
        return false;
    };
    let mut changed = false;
    for stats in usage.values_mut() {
        let expired = |until: Option<f64>| valid_time(until).is_some_and(|u| now_ms >= u);
        let mut touched = false;
        if expired(stats.cooldown_until) {
            stats.cooldown_until = None;
            stats.cooldown_reason = None;
            stats.cooldown_model = None;
            touched = true;
        }
        if expired(stats.disabled_until) {
            stats.disabled_until = None;
            stats.disabled_reason = None;
            touched = true;
        }
        if touched && unusable_until(stats).is_none() {
            stats.error_count = Some(0);
            stats.failure_counts = None;
        }
        changed |= touched;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    const NOW_MS: u64 = 1_700_000_000_000;
    #[allow(clippy::cast_precision_loss)]
    const NOW: f64 = NOW_MS as f64;
    const HOUR: f64 = 3_600_000.0;

    fn profiles() -> AuthProfiles {
        serde_json::from_value(json!({"profiles": {
            "openai:a": {"type": "api_key", "provider": "openai", "key": "k"},
            "openai:b": {"type": "api_key", "provider": "openai", "key": "k"},
            "openrouter:a": {"type": "api_key", "provider": "openrouter", "key": "k"}
        }}))
        .unwrap()
    }

    fn stats_json(state: &AuthState, id: &str) -> Value {
        serde_json::to_value(state.stats(id)).unwrap()
    }

    fn fail(
        state: &mut AuthState,
        id: &str,
        reason: FailoverReason,
        model: Option<&str>,
        now: f64,
    ) -> bool {
        mark_failure(
            &AuthConfig::default(),
            &profiles(),
            state,
            id,
            reason,
            model,
            now,
        )
    }

    #[test]
    fn schedule_across_expired_windows_restarts() {
        // Each failure after the previous window ended starts over at the first step.
        let mut state = AuthState::default();
        let mut now = NOW;
        for _ in 0..3 {
            fail(&mut state, "openai:a", FailoverReason::Timeout, None, now);
            assert_eq!(
                state.stats("openai:a").unwrap().cooldown_until,
                Some(now + 10_000.0)
            );
            now += 10_000.0;
        }
        assert_eq!(state.stats("openai:a").unwrap().error_count, Some(1));
    }

    #[test]
    fn counts_escalate_while_not_expired() {
        // errorCount kept across calls when each failure comes before the window ends is
        // impossible (the window does not move); stored counts without a window escalate.
        let mut state: AuthState = serde_json::from_value(json!({"usageStats": {"openai:a":
            {"errorCount": 2, "failureCounts": {"unknown": 2}, "lastFailureAt": NOW - 1_000.0}}}))
        .unwrap();
        fail(&mut state, "openai:a", FailoverReason::Unknown, None, NOW);
        assert_eq!(
            stats_json(&state, "openai:a"),
            json!({"errorCount": 3, "failureCounts": {"unknown": 3}, "lastFailureAt": NOW_MS,
                "cooldownUntil": NOW_MS + 300_000, "cooldownReason": "unknown"})
        );
    }

    #[test]
    fn failure_window_resets_counts() {
        let mut state: AuthState = serde_json::from_value(json!({"usageStats": {"openai:a":
            {"errorCount": 5, "failureCounts": {"billing": 5}, "lastFailureAt": NOW - 25.0 * HOUR}}}))
        .unwrap();
        fail(&mut state, "openai:a", FailoverReason::Billing, None, NOW);
        let s = state.stats("openai:a").unwrap();
        assert_eq!(s.error_count, Some(1));
        assert_eq!(s.disabled_until, Some(NOW + 5.0 * HOUR));
    }

    /// The state after `failures` of `profile`, one millisecond apart from `NOW`.
    fn after(profile: &str, failures: &[(FailoverReason, Option<&str>)]) -> AuthState {
        let mut state = AuthState::default();
        for (at, (reason, model)) in (0u32..).zip(failures) {
            fail(&mut state, profile, *reason, *model, NOW + f64::from(at));
        }
        state
    }

    #[test]
    fn active_windows_are_immutable_and_scope_widens() {
        use FailoverReason::{Overloaded, RateLimit};
        let mut state = after(
            "openai:a",
            &[(RateLimit, Some("m1")), (RateLimit, Some("m1"))],
        );
        let s = state.stats("openai:a").unwrap();
        assert_eq!(
            (s.cooldown_until, s.cooldown_model.as_deref(), s.error_count),
            (Some(NOW + 10_000.0), Some("m1"), Some(2))
        );
        fail(&mut state, "openai:a", RateLimit, Some("m2"), NOW + 2.0);
        let s = state.stats("openai:a").unwrap();
        assert_eq!(
            (s.cooldown_until, s.cooldown_model.as_deref()),
            (Some(NOW + 10_000.0), None)
        );

        let state = after("openai:b", &[(RateLimit, Some("m1")), (RateLimit, None)]);
        assert_eq!(state.stats("openai:b").unwrap().cooldown_model, None);

        let state = after(
            "openai:b",
            &[(RateLimit, Some("m1")), (Overloaded, Some("m1"))],
        );
        let s = state.stats("openai:b").unwrap();
        assert_eq!(
            (s.cooldown_reason, s.cooldown_model.as_deref()),
            (Some(Overloaded), None)
        );
        // A new window after a non-rate-limit failure is not scoped.
        let state = after("openai:b", &[(Overloaded, Some("m1"))]);
        assert_eq!(state.stats("openai:b").unwrap().cooldown_model, None);
    }

    #[test]
    fn disabled_window_is_immutable_and_counts_per_reason() {
        let mut state = AuthState::default();
        fail(
            &mut state,
            "openai:a",
            FailoverReason::AuthPermanent,
            None,
            NOW,
        );
        fail(
            &mut state,
            "openai:a",
            FailoverReason::AuthPermanent,
            None,
            NOW + 60_000.0,
        );
        let s = state.stats("openai:a").unwrap();
        assert_eq!(s.disabled_until, Some(NOW + 600_000.0));
        assert_eq!(
            s.failure_counts.as_ref().unwrap()[&FailoverReason::AuthPermanent],
            2
        );
        // After it ends, the count restarts with the window.
        fail(
            &mut state,
            "openai:a",
            FailoverReason::AuthPermanent,
            None,
            NOW + 600_000.0,
        );
        let s = state.stats("openai:a").unwrap();
        assert_eq!(s.disabled_until, Some(NOW + 1_200_000.0));
        assert_eq!(s.error_count, Some(1));
    }

    #[test]
    fn no_ops() {
        let mut state = AuthState::default();
        assert!(!fail(
            &mut state,
            "openai:missing",
            FailoverReason::RateLimit,
            None,
            NOW
        ));
        assert!(!fail(
            &mut state,
            "openrouter:a",
            FailoverReason::RateLimit,
            None,
            NOW
        ));
        assert!(!mark_used(&profiles(), &mut state, "openai:missing", NOW));
        assert!(!mark_good(&profiles(), &mut state, "anthropic", "openai:a"));
        assert!(!clear_cooldown(&mut state, "openai:a"));
        assert!(state.is_empty());
    }

    #[test]
    fn used_good_and_clear() {
        let mut state = AuthState::default();
        fail(&mut state, "openai:a", FailoverReason::Billing, None, NOW);
        assert!(mark_good(&profiles(), &mut state, "OpenAI", "openai:a"));
        assert!(!mark_good(&profiles(), &mut state, "openai", "openai:a"));
        assert_eq!(
            state.last_good.as_ref().unwrap()["openai"],
            "openai:a".to_owned()
        );
        assert!(state.stats("openai:a").unwrap().disabled_until.is_some());
        assert!(mark_used(&profiles(), &mut state, "openai:a", NOW + 5.0));
        assert_eq!(
            stats_json(&state, "openai:a"),
            json!({"lastUsed": NOW_MS + 5, "errorCount": 0, "lastFailureAt": NOW_MS})
        );
        fail(
            &mut state,
            "openai:a",
            FailoverReason::Format,
            None,
            NOW + 6.0,
        );
        assert!(clear_cooldown(&mut state, "openai:a"));
        assert_eq!(
            stats_json(&state, "openai:a"),
            json!({"lastUsed": NOW_MS + 5, "errorCount": 0, "lastFailureAt": NOW_MS + 6})
        );
        assert!(mark_cooldown(
            &AuthConfig::default(),
            &profiles(),
            &mut state,
            "openai:a",
            NOW + 7.0
        ));
        assert_eq!(
            state.stats("openai:a").unwrap().cooldown_reason,
            Some(FailoverReason::Unknown)
        );
    }

    #[test]
    fn clear_expired_vectors() {
        let mut state: AuthState = serde_json::from_value(json!({"usageStats": {
            "exact": {"cooldownUntil": NOW, "cooldownReason": "rate_limit", "cooldownModel": "m",
                "errorCount": 2, "failureCounts": {"rate_limit": 2}, "lastFailureAt": 5},
            "half": {"cooldownUntil": NOW - 1.0, "disabledUntil": NOW + 1.0, "disabledReason": "billing",
                "errorCount": 3},
            "invalid": {"cooldownUntil": 0, "disabledUntil": -5, "errorCount": 4},
            "future": {"cooldownUntil": NOW + 1.0, "errorCount": 1}
        }}))
        .unwrap();
        assert!(clear_expired_cooldowns(&mut state, NOW));
        assert_eq!(
            serde_json::to_value(&state.usage_stats).unwrap(),
            json!({
                "exact": {"errorCount": 0, "lastFailureAt": 5},
                "half": {"errorCount": 3, "disabledUntil": NOW_MS + 1, "disabledReason": "billing"},
                "invalid": {"errorCount": 4, "cooldownUntil": 0, "disabledUntil": -5},
                "future": {"errorCount": 1, "cooldownUntil": NOW_MS + 1}
            })
        );
        assert!(!clear_expired_cooldowns(&mut state, NOW));
    }
}
