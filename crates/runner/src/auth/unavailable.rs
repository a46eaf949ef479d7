//! Why every candidate profile is unavailable (`resolveProfilesUnavailableReason`, reference
//! §13.5): the reason the run loop reports when it runs out of profiles.

use clawloop_core::FailoverReason;
use clawloop_core::auth_store::AuthState;

use super::cooldown::is_active_window;

/// A profile whose disabled window is active weighs this much for its disabled reason: an
/// explicit disable is a stronger signal than any count of ordinary failures.
const DISABLED_WEIGHT: u64 = 1_000;

/// The tie-break rank of a reason (lower wins); `None` for a reason that is never reported.
fn priority(reason: FailoverReason) -> Option<u8> {
    match reason {
        FailoverReason::AuthPermanent => Some(0),
        FailoverReason::Auth => Some(1),
        FailoverReason::Billing => Some(2),
        FailoverReason::Format => Some(3),
        FailoverReason::ModelNotFound => Some(4),
        FailoverReason::Overloaded => Some(5),
        FailoverReason::Timeout => Some(6),
        FailoverReason::RateLimit => Some(7),
        FailoverReason::Unknown => Some(8),
        // OpenClaw's failure-reason list has no session_expired: CLI sessions expire, accounts
        // do not, so it says nothing about why a profile is unusable.
        FailoverReason::SessionExpired => None,
    }
}

/// The most likely reason none of `profile_ids` is usable at `now_ms`, or `None` when none has
/// an active window.
///
/// An active disabled window scores 1000 for its reason; otherwise an active cooldown scores
/// each recorded failure count, or 1 for `unknown` when none is recorded. The highest total
/// wins; ties go to the reason listed first in auth_permanent, auth, billing, format,
/// model_not_found, overloaded, timeout, rate_limit, unknown.
pub fn profiles_unavailable_reason(
    state: &AuthState,
    profile_ids: &[String],
    now_ms: f64,
) -> Option<FailoverReason> {
    let mut scores: Vec<(FailoverReason, u64)> = Vec::new();
    let mut add = |reason: FailoverReason, value: u64| {
        if priority(reason).is_none() || value == 0 {
            return;
        }
        match scores.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, total)) => *total = total.saturating_add(value),
            None => scores.push((reason, value)),
        }
    };
    for id in profile_ids {
        let Some(stats) = state.stats(id) else {
            continue;
        };
        if is_active_window(stats.disabled_until, now_ms)
            && let Some(reason) = stats.disabled_reason
            && priority(reason).is_some()
        {
            add(reason, DISABLED_WEIGHT);
            continue;
        }
        if !is_active_window(stats.cooldown_until, now_ms) {
            continue;
        }
        let mut recorded = false;
        for (reason, count) in stats.failure_counts.iter().flatten() {
            if *count > 0 && priority(*reason).is_some() {
                add(*reason, u64::from(*count));
                recorded = true;
            }
        }
        if !recorded {
            add(FailoverReason::Unknown, 1);
        }
    }
    scores
        .into_iter()
        .filter_map(|(reason, score)| priority(reason).map(|rank| (reason, score, rank)))
        .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)))
        .map(|(reason, _, _)| reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: f64 = 1_700_000_000_000.0;

    fn reason(stats: serde_json::Value, ids: &[&str]) -> Option<FailoverReason> {
        let state: AuthState = serde_json::from_value(json!({"usageStats": stats})).unwrap();
        let ids: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
        profiles_unavailable_reason(&state, &ids, NOW)
    }

    #[test]
    fn vectors() {
        let later = NOW + 1_000.0;
        let earlier = NOW - 1_000.0;
        // A disabled reason outweighs counts.
        assert_eq!(
            reason(
                json!({"a": {"disabledUntil": later, "disabledReason": "billing"},
                       "b": {"cooldownUntil": later, "failureCounts": {"rate_limit": 50}}}),
                &["a", "b"]
            ),
            Some(FailoverReason::Billing)
        );
        assert_eq!(
            reason(
                json!({"a": {"disabledUntil": later, "disabledReason": "auth_permanent"}}),
                &["a"]
            ),
            Some(FailoverReason::AuthPermanent)
        );
        // Counts add up across profiles.
        assert_eq!(
            reason(
                json!({"a": {"cooldownUntil": later, "failureCounts": {"rate_limit": 1, "overloaded": 1}},
                       "b": {"cooldownUntil": later, "failureCounts": {"rate_limit": 1}}}),
                &["a", "b"]
            ),
            Some(FailoverReason::RateLimit)
        );
        // Ties go by priority.
        assert_eq!(
            reason(
                json!({"a": {"cooldownUntil": later, "failureCounts": {"rate_limit": 1, "timeout": 1}}}),
                &["a"]
            ),
            Some(FailoverReason::Timeout)
        );
        // No counts: unknown.
        assert_eq!(
            reason(json!({"a": {"cooldownUntil": later}}), &["a"]),
            Some(FailoverReason::Unknown)
        );
        // Nothing active.
        assert_eq!(
            reason(
                json!({"a": {"cooldownUntil": earlier, "failureCounts": {"rate_limit": 3}},
                       "b": {"disabledUntil": earlier, "disabledReason": "billing"}}),
                &["a", "b", "ghost"]
            ),
            None
        );
        // Profiles not asked about do not count.
        assert_eq!(reason(json!({"a": {"cooldownUntil": later}}), &["b"]), None);
        // session_expired never wins; an expired disable falls back to the cooldown counts.
        assert_eq!(
            reason(
                json!({"a": {"cooldownUntil": later, "failureCounts": {"session_expired": 9, "format": 1}},
                       "b": {"disabledUntil": earlier, "disabledReason": "billing", "cooldownUntil": later,
                             "failureCounts": {"billing": 1}}}),
                &["a", "b"]
            ),
            Some(FailoverReason::Billing)
        );
    }
}
