//! The order in which a provider's profiles are tried (reference §13.3,
//! `resolveAuthProfileOrder`).

use clawloop_core::auth_store::{AuthProfiles, AuthState, CredentialType};

use super::config::AuthConfig;
use super::cooldown::{is_profile_in_cooldown, unusable_until};
use super::eligibility::resolve_profile_eligibility;
use super::provider::{find_for_provider, provider_key};

/// The profiles to try for `provider`, best first.
///
/// 1. The base list: the order stored in `auth-state.json`, else config `auth.order` (both
///    looked up by normalized provider), else the config `auth.profiles` of this provider,
///    else every stored profile of this provider in file order.
/// 2. Only eligible profiles stay (§13.2). Drift repair: when none does, profiles are
///    configured, and none of the base ids exists in the store, every eligible stored profile
///    of the provider is used instead. Duplicates go.
/// 3. With an explicit order, its order is kept for available profiles; otherwise available
///    profiles go by type (oauth, token, api_key) then least recently used. Profiles resting
///    at `now_ms` follow, soonest back first. `lastGood` plays no part.
/// 4. `preferred` moves to the front when it is in the list.
///
/// The caller clears expired windows first ([`super::mark::clear_expired_cooldowns`]), as
/// OpenClaw does, so a profile whose window ended competes with fresh counters. `for_model`
/// lets a rate-limit cooldown of another model count as available.
pub fn resolve_profile_order(
    config: &AuthConfig,
    profiles: &AuthProfiles,
    state: &AuthState,
    provider: &str,
    preferred: Option<&str>,
    now_ms: f64,
    for_model: Option<&str>,
) -> Vec<String> {
    let key = provider_key(provider);
    let stored_order = state
        .order
        .as_ref()
        .and_then(|order| find_for_provider(order, &key));
    let explicit_order = stored_order.or_else(|| find_for_provider(&config.order, &key));
    let configured: Vec<String> = config
        .profiles
        .iter()
        .filter(|(_, p)| provider_key(&p.provider) == key)
        .map(|(id, _)| id.clone())
        .collect();
    let stored_for_provider = || -> Vec<String> {
        profiles
            .profiles
            .iter()
            .filter(|(_, c)| c.provider().is_some_and(|p| provider_key(p) == key))
            .map(|(id, _)| id.clone())
            .collect()
    };
    let base: Vec<String> = match explicit_order {
        Some(order) => order.clone(),
        None if !configured.is_empty() => configured.clone(),
        None => stored_for_provider(),
    };
    if base.is_empty() {
        return Vec::new();
    }

    let eligible = |id: &String| {
        resolve_profile_eligibility(config, profiles, provider, id, now_ms).is_eligible()
    };
    let mut candidates: Vec<String> = base.iter().filter(|id| eligible(id)).cloned().collect();
    let all_base_missing = base.iter().all(|id| profiles.get(id).is_none());
    if candidates.is_empty() && !configured.is_empty() && all_base_missing {
        candidates = stored_for_provider()
            .into_iter()
            .filter(|id| eligible(id))
            .collect();
    }
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|id| seen.insert(id.clone()));

    let resting = |id: &String| is_profile_in_cooldown(profiles, state, id, now_ms, for_model);
    let (mut available, mut cooling): (Vec<String>, Vec<String>) =
        candidates.into_iter().partition(|id| !resting(id));
    if explicit_order.is_none_or(Vec::is_empty) {
        // Stable sort: equal type and lastUsed keep the base order.
        available.sort_by(|a, b| {
            let rank = |id: &String| {
                let kind = profiles.get(id).and_then(|c| c.kind());
                let last_used = state.stats(id).and_then(|s| s.last_used).unwrap_or(0.0);
                (type_rank(kind), last_used)
            };
            let (ta, la) = rank(a);
            let (tb, lb) = rank(b);
            ta.cmp(&tb).then(la.total_cmp(&lb))
        });
    }
    let back_at = |id: &String| state.stats(id).and_then(unusable_until).unwrap_or(now_ms);
    cooling.sort_by(|a, b| back_at(a).total_cmp(&back_at(b)));
    available.extend(cooling);

    if let Some(preferred) = preferred
        && let Some(pos) = available.iter().position(|id| id == preferred)
    {
        let id = available.remove(pos);
        available.insert(0, id);
    }
    available
}

/// Round-robin type preference: OAuth first, then tokens, then API keys.
fn type_rank(kind: Option<CredentialType>) -> u8 {
    match kind {
        Some(CredentialType::OAuth) => 0,
        Some(CredentialType::Token) => 1,
        Some(CredentialType::ApiKey) => 2,
        None => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    const NOW: f64 = 1_700_000_000_000.0;

    fn order(
        profiles: Value,
        state: Value,
        config: Value,
        provider: &str,
        preferred: Option<&str>,
    ) -> Vec<String> {
        let profiles: AuthProfiles = serde_json::from_value(json!({"profiles": profiles})).unwrap();
        let state: AuthState = serde_json::from_value(state).unwrap();
        let config = AuthConfig::from_json(&config).unwrap();
        resolve_profile_order(&config, &profiles, &state, provider, preferred, NOW, None)
    }

    fn key(provider: &str) -> Value {
        json!({"type": "api_key", "provider": provider, "key": "k"})
    }

    #[test]
    fn type_before_last_used() {
        let got = order(
            json!({"a": {"type": "oauth", "provider": "openai", "access": "x"}, "b": key("openai"), "c": key("openai")}),
            json!({"usageStats": {"a": {"lastUsed": 200}, "b": {"lastUsed": 100}, "c": {"lastUsed": 300}}}),
            json!({}),
            "openai",
            None,
        );
        assert_eq!(got, ["a", "b", "c"]);
    }

    #[test]
    fn ties_keep_file_order() {
        let got = order(
            json!({"z": key("openai"), "a": key("openai"), "m": key("openai")}),
            json!({}),
            json!({}),
            "openai",
            None,
        );
        assert_eq!(got, ["z", "a", "m"]);
    }

    #[test]
    fn last_good_is_not_used() {
        let got = order(
            json!({"default": key("anthropic"), "work": key("anthropic")}),
            json!({"lastGood": {"anthropic": "work"}, "usageStats": {"default": {"lastUsed": 100}, "work": {"lastUsed": 200}}}),
            json!({}),
            "anthropic",
            None,
        );
        assert_eq!(got, ["default", "work"]);
    }

    #[test]
    fn store_order_beats_config_order_and_drops_strangers() {
        let got = order(
            json!({"openai:a": key("openai"), "openai:b": key("openai"), "x:c": key("xai")}),
            json!({"order": {"OpenAI": ["openai:b", "ghost", "x:c", "openai:a", "openai:b"]}}),
            json!({"order": {"openai": ["openai:a", "openai:b"]}}),
            "openai",
            None,
        );
        assert_eq!(got, ["openai:b", "openai:a"]);
        let got = order(
            json!({"openai:a": key("openai"), "openai:b": key("openai")}),
            json!({}),
            json!({"order": {"openai": ["openai:b", "openai:a"]}}),
            "openai",
            None,
        );
        assert_eq!(got, ["openai:b", "openai:a"]);
    }

    #[test]
    fn empty_explicit_order_disables_profiles() {
        let got = order(
            json!({"openai:a": key("openai")}),
            json!({}),
            json!({"order": {"openai": []}}),
            "openai",
            None,
        );
        assert!(got.is_empty());
    }

    #[test]
    fn explicit_profiles_and_drift_repair() {
        // Configured profiles are the candidates.
        let got = order(
            json!({"openai:a": key("openai"), "openai:b": key("openai")}),
            json!({}),
            json!({"profiles": {"openai:b": {"provider": "openai", "mode": "api_key"}}}),
            "openai",
            None,
        );
        assert_eq!(got, ["openai:b"]);
        // None of the configured ids exists: the stored ones are used.
        let got = order(
            json!({"openai:new": key("openai"), "x:a": key("xai")}),
            json!({}),
            json!({"profiles": {"openai:old": {"provider": "openai", "mode": "api_key"}}}),
            "openai",
            None,
        );
        assert_eq!(got, ["openai:new"]);
        // A configured id that exists but is invalid is no drift: nothing is used.
        let got = order(
            json!({"openai:old": {"type": "api_key", "provider": "openai"}, "openai:new": key("openai")}),
            json!({}),
            json!({"profiles": {"openai:old": {"provider": "openai", "mode": "api_key"}}}),
            "openai",
            None,
        );
        assert!(got.is_empty());
    }

    #[test]
    fn alias_preferred_and_cooldown_tail() {
        let got = order(
            json!({"zai:a": key("z.ai"), "zai:b": key("ZAI"), "zai:c": key("zai")}),
            json!({"usageStats": {"zai:a": {"cooldownUntil": NOW + 120_000.0}, "zai:b": {"disabledUntil": NOW + 60_000.0}}}),
            json!({}),
            "Z-AI",
            Some("zai:a"),
        );
        assert_eq!(got, ["zai:a", "zai:c", "zai:b"]);
        let got = order(
            json!({"openai:a": key("openai")}),
            json!({}),
            json!({}),
            "openai",
            Some("openai:missing"),
        );
        assert_eq!(got, ["openai:a"]);
    }

    #[test]
    fn model_scope_counts_as_available() {
        let profiles: AuthProfiles = serde_json::from_value(
            json!({"profiles": {"openai:a": key("openai"), "openai:b": key("openai")}}),
        )
        .unwrap();
        let state: AuthState = serde_json::from_value(json!({"usageStats": {"openai:a":
            {"cooldownUntil": NOW + 5.0, "cooldownReason": "rate_limit", "cooldownModel": "m1"}}}))
        .unwrap();
        let config = AuthConfig::default();
        let run =
            |model| resolve_profile_order(&config, &profiles, &state, "openai", None, NOW, model);
        assert_eq!(run(Some("m2")), ["openai:a", "openai:b"]);
        assert_eq!(run(Some("m1")), ["openai:b", "openai:a"]);
        assert_eq!(run(None), ["openai:b", "openai:a"]);
    }
}
