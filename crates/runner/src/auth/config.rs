//! The `[auth]` config table (SPEC §2): profile order, profile modes and cooldowns.
//!
//! Key names are OpenClaw's (camelCase) and unknown keys are refused, as OpenClaw's strict
//! config schema refuses them, so a typo is an error rather than a silently ignored setting.
//! Every number is checked where it is read; a bad value is an error naming its key.

use indexmap::IndexMap;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// The seed's cooldown schedule (SPEC §11): 10 s, 60 s, then 300 s for every further failure.
pub const DEFAULT_SCHEDULE_MS: [u64; 3] = [10_000, 60_000, 300_000];

/// The `[auth]` table.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuthConfig {
    /// Profile order per provider (`openai = ["openai:a", "openai:b"]`). An order stored in
    /// `auth-state.json` wins over it.
    #[serde(default)]
    pub order: IndexMap<String, Vec<String>>,
    /// Profiles by id, with the provider and credential mode each must have.
    #[serde(default)]
    pub profiles: IndexMap<String, AuthProfileConfig>,
    /// Cooldown and backoff settings.
    #[serde(default)]
    pub cooldowns: CooldownsConfig,
}

impl AuthConfig {
    /// Reads the config from the JSON form of the `[auth]` table. Errors name the key:
    /// `auth.cooldowns.scheduleMs[1]: expected a positive integer, got 0`.
    pub fn from_json(value: &Value) -> Result<Self, AuthConfigError> {
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let key = if path == "." {
                "auth".to_owned()
            } else {
                format!("auth.{path}")
            };
            AuthConfigError {
                key,
                message: e.into_inner().to_string(),
            }
        })
    }
}

/// A bad `[auth]` config value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config key {key}: {message}")]
pub struct AuthConfigError {
    /// The full key (`auth.cooldowns.billingMaxHours`).
    pub key: String,
    /// What is wrong with it.
    pub message: String,
}

/// `[auth.profiles."<id>"]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuthProfileConfig {
    /// The provider the profile must belong to.
    pub provider: String,
    /// The credential type the profile must have.
    pub mode: AuthMode,
    /// Account e-mail (informational).
    #[serde(default)]
    pub email: Option<String>,
    /// Display name (informational).
    #[serde(default)]
    pub display_name: Option<String>,
}

/// The credential mode a configured profile requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum AuthMode {
    /// `api_key`
    #[serde(rename = "api_key")]
    ApiKey,
    /// `oauth` (also accepts a `token` credential)
    #[serde(rename = "oauth")]
    OAuth,
    /// `token`
    #[serde(rename = "token")]
    Token,
    /// `aws-sdk`: the provider authenticates through the AWS SDK chain; no stored credential
    /// has this type.
    #[serde(rename = "aws-sdk")]
    AwsSdk,
}

/// `[auth.cooldowns]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CooldownsConfig {
    /// Cooldown after the 1st, 2nd, … failure; the last step repeats (SPEC §8.5).
    #[serde(default = "default_schedule", deserialize_with = "schedule")]
    pub schedule_ms: Vec<u64>,
    /// Base of the billing disable window, hours.
    #[serde(default = "five", deserialize_with = "positive")]
    pub billing_backoff_hours: f64,
    /// Per-provider override of `billingBackoffHours`.
    #[serde(default, deserialize_with = "positive_map")]
    pub billing_backoff_hours_by_provider: IndexMap<String, f64>,
    /// Cap of the billing disable window, hours.
    #[serde(default = "twenty_four", deserialize_with = "positive")]
    pub billing_max_hours: f64,
    /// Base of the auth_permanent disable window, minutes.
    #[serde(default = "ten", deserialize_with = "positive")]
    pub auth_permanent_backoff_minutes: f64,
    /// Cap of the auth_permanent disable window, minutes.
    #[serde(default = "sixty", deserialize_with = "positive")]
    pub auth_permanent_max_minutes: f64,
    /// Failures older than this no longer count toward the next window, hours.
    #[serde(default = "twenty_four", deserialize_with = "positive")]
    pub failure_window_hours: f64,
    /// Profile rotations on rate limits before escalating to model fallback.
    #[serde(default = "one")]
    pub rate_limited_profile_rotations: u32,
    /// Profile rotations on overload before escalating to model fallback.
    #[serde(default = "one")]
    pub overloaded_profile_rotations: u32,
    /// Pause before retrying after an overload, ms.
    #[serde(default)]
    pub overloaded_backoff_ms: u64,
}

impl Default for CooldownsConfig {
    fn default() -> Self {
        CooldownsConfig {
            schedule_ms: default_schedule(),
            billing_backoff_hours: five(),
            billing_backoff_hours_by_provider: IndexMap::new(),
            billing_max_hours: twenty_four(),
            auth_permanent_backoff_minutes: ten(),
            auth_permanent_max_minutes: sixty(),
            failure_window_hours: twenty_four(),
            rate_limited_profile_rotations: one(),
            overloaded_profile_rotations: one(),
            overloaded_backoff_ms: 0,
        }
    }
}

fn default_schedule() -> Vec<u64> {
    DEFAULT_SCHEDULE_MS.to_vec()
}
fn five() -> f64 {
    5.0
}
fn ten() -> f64 {
    10.0
}
fn twenty_four() -> f64 {
    24.0
}
fn sixty() -> f64 {
    60.0
}
fn one() -> u32 {
    1
}

fn check_positive<E: serde::de::Error>(v: f64) -> Result<f64, E> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(E::custom(format!("expected a positive number, got {v}")))
    }
}

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    check_positive(f64::deserialize(d)?)
}

fn positive_map<'de, D: Deserializer<'de>>(d: D) -> Result<IndexMap<String, f64>, D::Error> {
    let map = IndexMap::<String, f64>::deserialize(d)?;
    for (provider, hours) in &map {
        if !(hours.is_finite() && *hours > 0.0) {
            return Err(D::Error::custom(format!(
                "{provider}: expected a positive number, got {hours}"
            )));
        }
    }
    Ok(map)
}

fn schedule<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    let steps = Vec::<u64>::deserialize(d)?;
    if steps.is_empty() {
        return Err(D::Error::custom(
            "expected at least one step (milliseconds), got an empty list",
        ));
    }
    if let Some(i) = steps.iter().position(|ms| *ms == 0) {
        return Err(D::Error::custom(format!(
            "step {i}: expected a positive integer (milliseconds), got 0"
        )));
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn defaults_are_the_spec_values() {
        let config = AuthConfig::from_json(&json!({})).unwrap();
        assert_eq!(config, AuthConfig::default());
        assert_eq!(config.cooldowns.schedule_ms, vec![10_000, 60_000, 300_000]);
        assert_eq!(config.cooldowns.billing_backoff_hours, 5.0);
        assert_eq!(config.cooldowns.auth_permanent_max_minutes, 60.0);
    }

    #[test]
    fn reads_every_key() {
        let config = AuthConfig::from_json(&json!({
            "order": {"openai": ["openai:b", "openai:a"]},
            "profiles": {"openai:a": {"provider": "openai", "mode": "api_key", "email": "e"},
                         "openai:b": {"provider": "openai", "mode": "oauth"}},
            "cooldowns": {"scheduleMs": [1, 2], "billingBackoffHours": 0.5,
                "billingBackoffHoursByProvider": {"xai": 2}, "billingMaxHours": 3,
                "authPermanentBackoffMinutes": 1, "authPermanentMaxMinutes": 2,
                "failureWindowHours": 1, "rateLimitedProfileRotations": 0,
                "overloadedProfileRotations": 2, "overloadedBackoffMs": 50}
        }))
        .unwrap();
        assert_eq!(config.order["openai"], vec!["openai:b", "openai:a"]);
        assert_eq!(config.profiles["openai:b"].mode, AuthMode::OAuth);
        assert_eq!(
            config.cooldowns,
            CooldownsConfig {
                schedule_ms: vec![1, 2],
                billing_backoff_hours: 0.5,
                billing_backoff_hours_by_provider: [("xai".to_owned(), 2.0)].into_iter().collect(),
                billing_max_hours: 3.0,
                auth_permanent_backoff_minutes: 1.0,
                auth_permanent_max_minutes: 2.0,
                failure_window_hours: 1.0,
                rate_limited_profile_rotations: 0,
                overloaded_profile_rotations: 2,
                overloaded_backoff_ms: 50,
            }
        );
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            (
                json!({"cooldowns": {"scheduleMs": []}}),
                "auth.cooldowns.scheduleMs",
                "empty list",
            ),
            (
                json!({"cooldowns": {"scheduleMs": [5, 0]}}),
                "auth.cooldowns.scheduleMs",
                "step 1",
            ),
            (
                json!({"cooldowns": {"billingMaxHours": -1}}),
                "auth.cooldowns.billingMaxHours",
                "positive",
            ),
            (
                json!({"cooldowns": {"billingBackoffHoursByProvider": {"xai": 0}}}),
                "auth.cooldowns.billingBackoffHoursByProvider",
                "xai",
            ),
            (
                json!({"profiles": {"p": {"provider": "x", "mode": "password"}}}),
                "auth.profiles.p.mode",
                "password",
            ),
            (
                json!({"cooldowns": {"scheduleMS": [1]}}),
                "auth.cooldowns.scheduleMS",
                "unknown field `scheduleMS`",
            ),
            (json!({"ordr": {}}), "auth.ordr", "unknown field `ordr`"),
        ];
        for (value, key, needle) in cases {
            let err = AuthConfig::from_json(&value).unwrap_err();
            assert_eq!(err.key, key, "{value}");
            assert!(err.message.contains(needle), "{err}");
            assert!(err.to_string().starts_with("config key auth"), "{err}");
        }
    }
}
