//! Cooldown windows: how long a failed profile rests, and whether it is resting now
//! (reference §13.4, SPEC §8.5 for the schedule).
//!
//! Two lanes: ordinary failures put a profile in **cooldown** for a step of the configured
//! schedule; `billing` and `auth_permanent` **disable** it for a doubling backoff. Both are
//! plain functions of the stored stats and a time.

use clawloop_core::FailoverReason;
use clawloop_core::auth_store::{AuthProfiles, AuthState, ProfileUsageStats};

use super::config::CooldownsConfig;
use super::provider::{find_for_provider, is_cooldown_bypassed, provider_key};

const MS_PER_MINUTE: f64 = 60_000.0;
const MS_PER_HOUR: f64 = 3_600_000.0;
/// The disabled lane never backs off less than a minute, whatever the config says.
const MIN_DISABLED_BACKOFF_MS: f64 = 60_000.0;
/// The disabled lane stops doubling after this many doublings.
const MAX_DISABLED_DOUBLINGS: u32 = 10;

/// Which window a failure reason opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// `cooldownUntil`, from the schedule.
    Cooldown,
    /// `disabledUntil`, from the doubling backoff of this reason.
    Disabled,
}

/// The lane of a failure reason: billing and permanent auth failures disable the profile;
/// everything else cools it down.
pub fn lane_of(reason: FailoverReason) -> Lane {
    match reason {
        FailoverReason::Billing | FailoverReason::AuthPermanent => Lane::Disabled,
        FailoverReason::Auth
        | FailoverReason::Format
        | FailoverReason::Overloaded
        | FailoverReason::RateLimit
        | FailoverReason::Timeout
        | FailoverReason::ModelNotFound
        | FailoverReason::SessionExpired
        | FailoverReason::Unknown => Lane::Cooldown,
    }
}

/// The cooldown settings resolved for one provider, in milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct CooldownPolicy {
    /// Cooldown after the 1st, 2nd, … failure; the last step repeats. Never empty.
    pub schedule_ms: Vec<u64>,
    /// Billing backoff base.
    pub billing_backoff_ms: f64,
    /// Billing backoff cap.
    pub billing_max_ms: f64,
    /// auth_permanent backoff base.
    pub auth_permanent_backoff_ms: f64,
    /// auth_permanent backoff cap.
    pub auth_permanent_max_ms: f64,
    /// Failures older than this restart the count.
    pub failure_window_ms: f64,
}

impl CooldownPolicy {
    /// The policy for `provider` (its `billingBackoffHoursByProvider` entry wins).
    pub fn for_provider(config: &CooldownsConfig, provider: &str) -> Self {
        let billing_hours = find_for_provider(
            &config.billing_backoff_hours_by_provider,
            &provider_key(provider),
        )
        .copied()
        .unwrap_or(config.billing_backoff_hours);
        CooldownPolicy {
            schedule_ms: config.schedule_ms.clone(),
            billing_backoff_ms: billing_hours * MS_PER_HOUR,
            billing_max_ms: config.billing_max_hours * MS_PER_HOUR,
            auth_permanent_backoff_ms: config.auth_permanent_backoff_minutes * MS_PER_MINUTE,
            auth_permanent_max_ms: config.auth_permanent_max_minutes * MS_PER_MINUTE,
            failure_window_ms: config.failure_window_hours * MS_PER_HOUR,
        }
    }

    /// The cooldown after a failure that brought the count to `error_count`:
    /// `scheduleMs[min(errorCount, len) - 1]` (a count of 0 reads as 1).
    pub fn cooldown_ms(&self, error_count: u32) -> f64 {
        let steps = self.schedule_ms.len();
        let n = usize::try_from(error_count.max(1)).unwrap_or(usize::MAX);
        // An empty schedule cannot come from the config (it is refused there); a hand-built
        // policy without steps falls back to the seed's first step rather than panicking.
        let ms = self
            .schedule_ms
            .get(n.min(steps).saturating_sub(1))
            .copied()
            .unwrap_or(super::config::DEFAULT_SCHEDULE_MS[0]);
        // Milliseconds stay far below 2^53, so the conversion is exact.
        #[allow(clippy::cast_precision_loss)]
        let ms = ms as f64;
        ms
    }

    /// The disabled window for the `count`-th failure of a disabled-lane reason:
    /// `min(max, max(60 s, base) · 2^min(count − 1, 10))`. `None` for cooldown-lane reasons.
    pub fn disabled_ms(&self, reason: FailoverReason, count: u32) -> Option<f64> {
        if lane_of(reason) != Lane::Disabled {
            return None;
        }
        // `lane_of` puts exactly billing and permanent auth failures in the disabled lane.
        let (base, max) = if reason == FailoverReason::Billing {
            (self.billing_backoff_ms, self.billing_max_ms)
        } else {
            (self.auth_permanent_backoff_ms, self.auth_permanent_max_ms)
        };
        let base = base.max(MIN_DISABLED_BACKOFF_MS);
        let max = max.max(base);
        let doublings = count.max(1).saturating_sub(1).min(MAX_DISABLED_DOUBLINGS);
        Some(max.min(base * f64::from(1_u32 << doublings)))
    }
}

/// A stored time that counts: finite and positive (OpenClaw ignores 0, negatives, NaN).
pub fn valid_time(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite() && *v > 0.0)
}

/// True while `until` is a valid time after `now_ms`.
pub fn is_active_window(until: Option<f64>, now_ms: f64) -> bool {
    valid_time(until).is_some_and(|u| now_ms < u)
}

/// The later of the cooldown and disabled ends (`resolveProfileUnusableUntil`).
pub fn unusable_until(stats: &ProfileUsageStats) -> Option<f64> {
    match (
        valid_time(stats.cooldown_until),
        valid_time(stats.disabled_until),
    ) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// A rate-limit cooldown recorded for another model does not stop `for_model`, unless a
/// profile-wide disable is active too.
fn bypasses_model_scope(stats: &ProfileUsageStats, now_ms: f64, for_model: Option<&str>) -> bool {
    // An empty model name is no model (JS truthiness), as is a missing one.
    let Some(model) = for_model.filter(|m| !m.is_empty()) else {
        return false;
    };
    stats.cooldown_reason == Some(FailoverReason::RateLimit)
        && stats
            .cooldown_model
            .as_deref()
            .is_some_and(|scoped| !scoped.is_empty() && scoped != model)
        && !is_active_window(stats.disabled_until, now_ms)
}

/// Whether a profile is resting at `now_ms` (`isProfileInCooldown`). With `for_model`, a
/// rate-limit cooldown scoped to another model does not count; without it, any active window
/// does. Profiles of OpenRouter and Kilocode never rest.
pub fn is_profile_in_cooldown(
    profiles: &AuthProfiles,
    state: &AuthState,
    profile_id: &str,
    now_ms: f64,
    for_model: Option<&str>,
) -> bool {
    if profiles
        .get(profile_id)
        .and_then(|c| c.provider())
        .is_some_and(is_cooldown_bypassed)
    {
        return false;
    }
    let Some(stats) = state.stats(profile_id) else {
        return false;
    };
    if bypasses_model_scope(stats, now_ms, for_model) {
        return false;
    }
    unusable_until(stats).is_some_and(|until| now_ms < until)
}

/// The earliest time one of `profile_ids` becomes usable again (`getSoonestCooldownExpiry`);
/// `None` when none has a window. Rate-limit cooldowns scoped to another model are skipped;
/// among those scoped to `for_model` the latest counts. The result may lie in the past.
pub fn soonest_cooldown_expiry(
    state: &AuthState,
    profile_ids: &[String],
    now_ms: f64,
    for_model: Option<&str>,
) -> Option<f64> {
    soonest_window_end(state, profile_ids, now_ms, for_model).map(|(_, until)| until)
}

/// The profile of a resting provider that is usable again first, and when: what a user who
/// wants to go on now needs to know (or clear).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CooldownEnd {
    /// The profile id.
    pub profile_id: String,
    /// When its window ends, in ms since the epoch.
    pub until_ms: u64,
}

/// The profile whose window ends at [`soonest_cooldown_expiry`], when that end is still
/// ahead of `now_ms`; `None` when none rests.
pub fn soonest_cooldown_end(
    state: &AuthState,
    profile_ids: &[String],
    now_ms: f64,
    for_model: Option<&str>,
) -> Option<CooldownEnd> {
    let (id, until) = soonest_window_end(state, profile_ids, now_ms, for_model)?;
    (until > now_ms).then(|| CooldownEnd {
        profile_id: id.clone(),
        // A valid store time is a positive integral number of ms, far below 2^53.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        until_ms: until as u64,
    })
}

/// The one walk behind [`soonest_cooldown_expiry`] and [`soonest_cooldown_end`]: the profile
/// whose window ends first, and that end (the latest counting among windows scoped to
/// `for_model`).
fn soonest_window_end<'a>(
    state: &AuthState,
    profile_ids: &'a [String],
    now_ms: f64,
    for_model: Option<&str>,
) -> Option<(&'a String, f64)> {
    let mut soonest: Option<(&String, f64)> = None;
    let mut latest_same_model: Option<(&String, f64)> = None;
    for id in profile_ids {
        let Some(stats) = state.stats(id) else {
            continue;
        };
        if bypasses_model_scope(stats, now_ms, for_model) {
            continue;
        }
        let Some(until) = unusable_until(stats) else {
            continue;
        };
        let scoped_to_this_model = for_model.filter(|m| !m.is_empty()).is_some_and(|m| {
            stats.cooldown_reason == Some(FailoverReason::RateLimit)
                && stats.cooldown_model.as_deref() == Some(m)
                && !is_active_window(stats.disabled_until, now_ms)
        });
        if scoped_to_this_model {
            if latest_same_model.is_none_or(|(_, latest)| until > latest) {
                latest_same_model = Some((id, until));
            }
        } else if soonest.is_none_or(|(_, first)| until < first) {
            soonest = Some((id, until));
        }
    }
    match (soonest, latest_same_model) {
        (Some(a), Some(b)) => Some(if b.1 < a.1 { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const NOW: f64 = 1_700_000_000_000.0;

    fn policy() -> CooldownPolicy {
        CooldownPolicy::for_provider(&CooldownsConfig::default(), "openai")
    }

    #[test]
    fn schedule_steps_cap_at_the_last() {
        let p = policy();
        let steps: Vec<f64> = (0..=5).map(|n| p.cooldown_ms(n)).collect();
        assert_eq!(
            steps,
            vec![
                10_000.0, 10_000.0, 60_000.0, 300_000.0, 300_000.0, 300_000.0
            ]
        );
        let custom = CooldownPolicy {
            schedule_ms: vec![2_000, 7_000],
            ..p
        };
        assert_eq!(custom.cooldown_ms(3), 7_000.0);
    }

    #[test]
    fn disabled_lane_doubles_to_the_cap() {
        let p = policy();
        let hours = |n| p.disabled_ms(FailoverReason::Billing, n).unwrap() / MS_PER_HOUR;
        assert_eq!(
            (1..=5).map(hours).collect::<Vec<_>>(),
            vec![5.0, 10.0, 20.0, 24.0, 24.0]
        );
        let minutes = |n| p.disabled_ms(FailoverReason::AuthPermanent, n).unwrap() / MS_PER_MINUTE;
        assert_eq!(
            (1..=4).map(minutes).collect::<Vec<_>>(),
            vec![10.0, 20.0, 40.0, 60.0]
        );
        assert_eq!(p.disabled_ms(FailoverReason::RateLimit, 1), None);
        // The base never goes under a minute; the cap never under the base.
        let tiny = CooldownPolicy {
            billing_backoff_ms: 1.0,
            billing_max_ms: 2.0,
            ..p.clone()
        };
        assert_eq!(tiny.disabled_ms(FailoverReason::Billing, 3), Some(60_000.0));
        assert_eq!(
            p.disabled_ms(FailoverReason::Billing, u32::MAX),
            Some(24.0 * MS_PER_HOUR)
        );
    }

    #[test]
    fn per_provider_billing_override() {
        let mut config = CooldownsConfig::default();
        config
            .billing_backoff_hours_by_provider
            .insert("Anthropic".into(), 2.0);
        assert_eq!(
            CooldownPolicy::for_provider(&config, "anthropic").billing_backoff_ms,
            2.0 * MS_PER_HOUR
        );
        assert_eq!(
            CooldownPolicy::for_provider(&config, "openai").billing_backoff_ms,
            5.0 * MS_PER_HOUR
        );
    }

    fn stats(value: serde_json::Value) -> ProfileUsageStats {
        serde_json::from_value(value).unwrap()
    }

    fn state(entries: serde_json::Value) -> (AuthProfiles, AuthState) {
        let mut profiles = serde_json::Map::new();
        let mut usage = serde_json::Map::new();
        for (id, s) in entries.as_object().unwrap() {
            let provider = id.split(':').next().unwrap();
            profiles.insert(
                id.clone(),
                json!({"type": "api_key", "provider": provider, "key": "k"}),
            );
            usage.insert(id.clone(), s.clone());
        }
        (
            serde_json::from_value(json!({"profiles": profiles})).unwrap(),
            serde_json::from_value(json!({"usageStats": usage})).unwrap(),
        )
    }

    #[test]
    fn unusable_until_takes_the_later_valid_time() {
        assert_eq!(
            unusable_until(&stats(json!({"cooldownUntil": 5, "disabledUntil": 9}))),
            Some(9.0)
        );
        assert_eq!(
            unusable_until(&stats(json!({"cooldownUntil": 0, "disabledUntil": -1}))),
            None
        );
        assert_eq!(
            unusable_until(&stats(json!({"cooldownUntil": 7}))),
            Some(7.0)
        );
    }

    #[test]
    fn in_cooldown_vectors() {
        let (profiles, state) = state(json!({
            "openai:future": {"cooldownUntil": NOW + 1.0},
            "openai:past": {"cooldownUntil": NOW - 1.0},
            "openai:disabled": {"cooldownUntil": NOW - 1.0, "disabledUntil": NOW + 1.0},
            "openrouter:x": {"cooldownUntil": NOW + 1.0},
            "kilocode:x": {"disabledUntil": NOW + 1.0},
            "openai:scoped": {"cooldownUntil": NOW + 1.0, "cooldownReason": "rate_limit", "cooldownModel": "m1"},
            "openai:scoped-disabled": {"cooldownUntil": NOW + 1.0, "cooldownReason": "rate_limit",
                "cooldownModel": "m1", "disabledUntil": NOW + 1.0},
            "openai:scoped-other-reason": {"cooldownUntil": NOW + 1.0, "cooldownReason": "overloaded", "cooldownModel": "m1"}
        }));
        let check = |id: &str, model: Option<&str>| {
            is_profile_in_cooldown(&profiles, &state, id, NOW, model)
        };
        assert!(check("openai:future", None));
        assert!(!check("openai:past", None));
        assert!(check("openai:disabled", None));
        assert!(!check("openrouter:x", None));
        assert!(!check("kilocode:x", None));
        assert!(check("openai:scoped", None));
        assert!(check("openai:scoped", Some("m1")));
        assert!(!check("openai:scoped", Some("m2")));
        assert!(check("openai:scoped-disabled", Some("m2")));
        assert!(check("openai:scoped-other-reason", Some("m2")));
        assert!(!check("openai:none", None));
    }

    #[test]
    fn soonest_expiry_vectors() {
        let (_, state) = state(json!({
            "a:1": {"cooldownUntil": NOW + 5_000.0},
            "a:2": {"cooldownUntil": NOW + 2_000.0},
            "a:past": {"cooldownUntil": NOW - 9_000.0},
            "a:invalid": {"cooldownUntil": 0},
            "a:other-model": {"cooldownUntil": NOW + 1_000.0, "cooldownReason": "rate_limit", "cooldownModel": "m2"},
            "a:disabled-other-model": {"cooldownUntil": NOW + 1_500.0, "cooldownReason": "rate_limit",
                "cooldownModel": "m2", "disabledUntil": NOW + 500.0}
        }));
        let ids = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(soonest_cooldown_expiry(&state, &ids(&[]), NOW, None), None);
        assert_eq!(
            soonest_cooldown_expiry(&state, &ids(&["a:1", "a:2"]), NOW, None),
            Some(NOW + 2_000.0)
        );
        assert_eq!(
            soonest_cooldown_expiry(&state, &ids(&["a:1", "a:past"]), NOW, None),
            Some(NOW - 9_000.0)
        );
        assert_eq!(
            soonest_cooldown_expiry(&state, &ids(&["a:invalid"]), NOW, None),
            None
        );
        assert_eq!(
            soonest_cooldown_expiry(&state, &ids(&["a:1", "a:other-model"]), NOW, Some("m1")),
            Some(NOW + 5_000.0)
        );
        assert_eq!(
            soonest_cooldown_expiry(
                &state,
                &ids(&["a:1", "a:disabled-other-model"]),
                NOW,
                Some("m1")
            ),
            Some(NOW + 1_500.0)
        );
    }

    #[test]
    fn the_cooldown_end_names_the_resting_profile_usable_first() {
        let (_, state) = state(json!({
            "a:1": {"cooldownUntil": NOW + 5_000.0},
            "a:2": {"cooldownUntil": NOW + 2_000.0, "disabledUntil": NOW + 9_000.0},
            "a:3": {"cooldownUntil": NOW + 3_000.0},
            "a:past": {"cooldownUntil": NOW - 9_000.0},
            "a:other-model": {"cooldownUntil": NOW + 1_000.0, "cooldownReason": "rate_limit", "cooldownModel": "m2"}
        }));
        let end = |list: &[&str], model: Option<&str>| {
            let ids: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
            soonest_cooldown_end(&state, &ids, NOW, model).map(|e| (e.profile_id, e.until_ms))
        };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let at = |offset: f64| (NOW + offset) as u64;
        type Want = Option<(String, u64)>;
        let table: [(&[&str], Option<&str>, Want); 5] = [
            (&[], None, None),
            (&["a:past"], None, None),
            (
                &["a:1", "a:2", "a:3"],
                None,
                Some(("a:3".to_owned(), at(3_000.0))),
            ),
            (
                &["a:1", "a:other-model"],
                Some("m1"),
                Some(("a:1".to_owned(), at(5_000.0))),
            ),
            (
                &["a:1", "a:other-model"],
                None,
                Some(("a:other-model".to_owned(), at(1_000.0))),
            ),
        ];
        for (ids, model, want) in table {
            assert_eq!(end(ids, model), want, "{ids:?} {model:?}");
        }
    }
}
