//! `auth` kind: auth profile store, order and cooldowns; the checks live in the steps.

use std::collections::{BTreeMap, HashMap};

use clawloop_core::FailoverReason;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::decode::{DecodeError, decode, nested, tag};
use super::values::{NonEmptyVec, Nullable, Object};
use super::vocab::ProfileType;

/// Input of an `auth` case.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthInput {
    /// The manual clock's start.
    pub now_ms: f64,
    /// Profiles by id (auth-profiles.json `profiles`).
    pub profiles: BTreeMap<String, Profile>,
    /// auth-state.json content.
    pub state: Option<AuthState>,
    /// clawloop config subset.
    pub config: Option<AuthConfigRoot>,
    /// Steps, in order.
    pub steps: NonEmptyVec<AuthStep>,
    /// The input exactly as written (key order, numbers): the runner writes the files and
    /// reads the expects from it, so nothing is lost to the typed view's maps and floats.
    pub raw: Value,
}

/// The checked shape of an `auth` input.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct AuthInputFields {
    now_ms: f64,
    profiles: BTreeMap<String, Profile>,
    state: Option<AuthState>,
    config: Option<AuthConfigRoot>,
    steps: NonEmptyVec<AuthStep>,
}

impl<'de> Deserialize<'de> for AuthInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        let fields: AuthInputFields = decode(&raw).map_err(nested)?;
        Ok(AuthInput {
            now_ms: fields.now_ms,
            profiles: fields.profiles,
            state: fields.state,
            config: fields.config,
            steps: fields.steps,
            raw,
        })
    }
}

/// One stored credential (reference §13.1).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Profile {
    /// Credential kind.
    #[serde(rename = "type")]
    pub kind: ProfileType,
    /// Provider id.
    pub provider: String,
    /// API key.
    pub key: Option<String>,
    /// Secret reference for the key.
    pub key_ref: Option<Value>,
    /// Static token.
    pub token: Option<String>,
    /// Secret reference for the token.
    pub token_ref: Option<Value>,
    /// Expiry (ms).
    pub expires: Option<f64>,
    /// OAuth access token.
    pub access: Option<String>,
    /// OAuth refresh token.
    pub refresh: Option<String>,
    /// OAuth client id.
    pub client_id: Option<String>,
    /// Account e-mail.
    pub email: Option<String>,
    /// Display name.
    pub display_name: Option<String>,
    /// Free-form metadata.
    pub metadata: Option<Object>,
    /// Account id.
    pub account_id: Option<String>,
    /// Project id.
    pub project_id: Option<String>,
    /// Enterprise URL.
    pub enterprise_url: Option<String>,
    /// Who manages the profile.
    pub managed_by: Option<String>,
}

/// `auth-profiles.json` content.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthProfilesFile {
    /// File version.
    pub version: Option<f64>,
    /// Profiles by id.
    pub profiles: BTreeMap<String, Profile>,
}

/// `auth-state.json` content.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuthState {
    /// File version.
    pub version: Option<f64>,
    /// Stored order per provider.
    pub order: Option<BTreeMap<String, Vec<String>>>,
    /// Last good profile per provider.
    pub last_good: Option<BTreeMap<String, String>>,
    /// Usage statistics per profile.
    pub usage_stats: Option<BTreeMap<String, UsageStats>>,
}

/// Usage statistics of one profile.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UsageStats {
    /// Last use (ms).
    pub last_used: Option<f64>,
    /// Cooldown end (ms).
    pub cooldown_until: Option<f64>,
    /// Why cooled down.
    pub cooldown_reason: Option<FailoverReason>,
    /// Model the cooldown is scoped to.
    pub cooldown_model: Option<String>,
    /// Disabled until (ms).
    pub disabled_until: Option<f64>,
    /// Why disabled.
    pub disabled_reason: Option<FailoverReason>,
    /// Consecutive errors.
    pub error_count: Option<f64>,
    /// Failures per reason.
    pub failure_counts: Option<HashMap<FailoverReason, f64>>,
    /// Last failure (ms).
    pub last_failure_at: Option<f64>,
}

/// `{"auth": {...}}` config subset.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfigRoot {
    /// The `auth` section.
    pub auth: AuthConfig,
}

/// The `auth` config section.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// Configured order per provider.
    pub order: Option<BTreeMap<String, Vec<String>>>,
    /// Profile config, free-form.
    pub profiles: Option<Object>,
    /// Cooldown config, free-form.
    pub cooldowns: Option<Object>,
}

/// One step of an `auth` case.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthStep {
    /// Resolve the profile order.
    Order {
        /// Provider id.
        provider: String,
        /// Preferred profile.
        preferred: Option<String>,
        /// Expected order (null: absent or null).
        expect: Nullable<Vec<String>>,
    },
    /// Record a failure.
    MarkFailure {
        /// Profile id.
        profile: String,
        /// Failure reason.
        reason: FailoverReason,
        /// Model scope.
        model: Option<String>,
    },
    /// Record a use.
    MarkUsed {
        /// Profile id.
        profile: String,
    },
    /// Record a success.
    MarkGood {
        /// Profile id.
        profile: String,
    },
    /// Move the manual clock.
    AdvanceClock {
        /// Milliseconds.
        ms: f64,
    },
    /// Clear expired cooldowns.
    ClearExpired,
    /// Cooldown check.
    InCooldown {
        /// Profile id.
        profile: String,
        /// Model scope.
        model: Option<String>,
        /// Expected answer.
        expect: Nullable<bool>,
    },
    /// Stored stats check.
    Stats {
        /// Profile id.
        profile: String,
        /// Expected stored values.
        expect: Nullable<StatsExpect>,
    },
    /// Why none of the profiles is available.
    UnavailableReason {
        /// Profile ids.
        profiles: Vec<String>,
        /// Expected reason.
        expect: Nullable<FailoverReason>,
    },
}

/// Expected stored stats of one profile.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StatsExpect {
    /// Consecutive errors (missing compares as 0).
    pub error_count: Option<f64>,
    /// Cooldown end.
    pub cooldown_until: Option<f64>,
    /// Disabled until.
    pub disabled_until: Option<f64>,
    /// Cooldown reason.
    pub cooldown_reason: Option<FailoverReason>,
    /// Disabled reason.
    pub disabled_reason: Option<FailoverReason>,
}

/// A `stats` step whose expect checks nothing.
const EMPTY_STATS: &str = "empty object: nothing would be checked";

const OPS: [&str; 9] = [
    "order",
    "markFailure",
    "markUsed",
    "markGood",
    "advanceClock",
    "clearExpired",
    "inCooldown",
    "stats",
    "unavailableReason",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrderStep {
    #[allow(dead_code)]
    op: String,
    provider: String,
    preferred: Option<String>,
    expect: Nullable<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MarkFailureStep {
    #[allow(dead_code)]
    op: String,
    profile: String,
    reason: FailoverReason,
    model: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileStep {
    #[allow(dead_code)]
    op: String,
    profile: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdvanceStep {
    #[allow(dead_code)]
    op: String,
    ms: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BareStep {
    #[allow(dead_code)]
    op: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InCooldownStep {
    #[allow(dead_code)]
    op: String,
    profile: String,
    model: Option<String>,
    expect: Nullable<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsStep {
    #[allow(dead_code)]
    op: String,
    profile: String,
    expect: Nullable<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnavailableStep {
    #[allow(dead_code)]
    op: String,
    profiles: Vec<String>,
    expect: Nullable<FailoverReason>,
}

impl AuthStep {
    fn decode(v: &Value) -> Result<Self, DecodeError> {
        Ok(match tag(v, "op", &OPS)? {
            "order" => {
                let s: OrderStep = decode(v)?;
                AuthStep::Order {
                    provider: s.provider,
                    preferred: s.preferred,
                    expect: s.expect,
                }
            }
            "markFailure" => {
                let s: MarkFailureStep = decode(v)?;
                AuthStep::MarkFailure {
                    profile: s.profile,
                    reason: s.reason,
                    model: s.model,
                }
            }
            "markUsed" => AuthStep::MarkUsed {
                profile: decode::<ProfileStep>(v)?.profile,
            },
            "markGood" => AuthStep::MarkGood {
                profile: decode::<ProfileStep>(v)?.profile,
            },
            "advanceClock" => AuthStep::AdvanceClock {
                ms: decode::<AdvanceStep>(v)?.ms,
            },
            "clearExpired" => {
                decode::<BareStep>(v)?;
                AuthStep::ClearExpired
            }
            "inCooldown" => {
                let s: InCooldownStep = decode(v)?;
                AuthStep::InCooldown {
                    profile: s.profile,
                    model: s.model,
                    expect: s.expect,
                }
            }
            "stats" => {
                let s: StatsStep = decode(v)?;
                let expect = match s.expect {
                    Nullable::Null => Nullable::Null,
                    Nullable::Value(raw) => {
                        if matches!(&raw, Value::Object(m) if m.is_empty()) {
                            return Err(DecodeError::new("expect", EMPTY_STATS));
                        }
                        let typed: StatsExpect = decode(&raw).map_err(|e| e.under("expect"))?;
                        Nullable::Value(typed)
                    }
                };
                AuthStep::Stats {
                    profile: s.profile,
                    expect,
                }
            }
            _ => {
                let s: UnavailableStep = decode(v)?;
                AuthStep::UnavailableReason {
                    profiles: s.profiles,
                    expect: s.expect,
                }
            }
        })
    }
}

impl<'de> Deserialize<'de> for AuthStep {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        AuthStep::decode(&v).map_err(nested)
    }
}
