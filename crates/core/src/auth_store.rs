//! The auth-profile store seam (SPEC §1, §8.5; reference `openclaw-runner.md` §13.1).
//!
//! Two files in the agent directory, in OpenClaw's formats:
//!
//! * `auth-profiles.json` — the secrets: `{"version":1,"profiles":{"<id>": Credential}}`
//!   ([`AuthProfiles`]);
//! * `auth-state.json` — the bookkeeping: `{"version":1, "order"?, "lastGood"?, "usageStats"?}`
//!   ([`AuthState`]), deleted when it holds nothing.
//!
//! The types here are plain serde data: every field OpenClaw writes has a typed home, and
//! anything else (a newer OpenClaw's fields, a plugin's) is kept verbatim in an `extra` map,
//! so a file OpenClaw wrote is written back with nothing lost. Known fields are written in
//! OpenClaw's order (`type` first), unknown ones after them, so a file OpenClaw wrote comes
//! back byte for byte. A credential of a type this crate does not know, or one whose known
//! fields have unexpected JSON types, is kept whole as [`Credential::Unrecognized`] and is
//! never used.
//!
//! [`AuthStore`] is the trait the runner holds as `Arc<dyn AuthStore>`: a file-backed store, an
//! in-memory one, or an embedder's own. Core does no I/O; the implementations live elsewhere.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::FailoverReason;
use crate::redacted_debug::{REDACTED, keys_only, secret};

/// The `version` both files carry.
pub const AUTH_STORE_VERSION: u32 = 1;

fn default_version() -> u32 {
    AUTH_STORE_VERSION
}

/// `auth-profiles.json`: the stored credentials by profile id, in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthProfiles {
    /// File format version (1).
    #[serde(default = "default_version")]
    pub version: u32,
    /// Credentials by profile id (`"openai:work"`), in the order the file lists them.
    #[serde(default)]
    pub profiles: IndexMap<String, Credential>,
    /// Fields this crate does not interpret (older OpenClaw releases kept `order`, `lastGood`
    /// and `usageStats` here), kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for AuthProfiles {
    fn default() -> Self {
        AuthProfiles {
            version: AUTH_STORE_VERSION,
            profiles: IndexMap::new(),
            extra: Map::new(),
        }
    }
}

impl AuthProfiles {
    /// The credential stored under `profile_id`, if any.
    pub fn get(&self, profile_id: &str) -> Option<&Credential> {
        self.profiles.get(profile_id)
    }
}

/// The kind of a credential, as its `type` field names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CredentialType {
    /// `api_key`
    ApiKey,
    /// `token`
    Token,
    /// `oauth`
    OAuth,
}

impl CredentialType {
    /// The wire name (`api_key`, `token`, `oauth`).
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialType::ApiKey => "api_key",
            CredentialType::Token => "token",
            CredentialType::OAuth => "oauth",
        }
    }
}

/// One stored credential (reference §13.1's union).
#[derive(Clone, PartialEq)]
pub enum Credential {
    /// `{"type":"api_key", provider, key? | keyRef?, ...}`
    ApiKey(ApiKeyCredential),
    /// `{"type":"token", provider, token? | tokenRef?, expires?, ...}`
    Token(TokenCredential),
    /// `{"type":"oauth", provider, access, refresh, expires, ...}`
    OAuth(OAuthCredential),
    /// Anything else under a profile id: an unknown `type`, a missing `provider`, a known field
    /// of the wrong JSON type, or not an object at all. Kept verbatim so the file round-trips;
    /// never eligible.
    Unrecognized(Value),
}

impl Credential {
    /// The credential's type; `None` for an unrecognized entry.
    pub fn kind(&self) -> Option<CredentialType> {
        match self {
            Credential::ApiKey(_) => Some(CredentialType::ApiKey),
            Credential::Token(_) => Some(CredentialType::Token),
            Credential::OAuth(_) => Some(CredentialType::OAuth),
            Credential::Unrecognized(_) => None,
        }
    }

    /// The provider id as stored (not normalized); `None` for an unrecognized entry.
    pub fn provider(&self) -> Option<&str> {
        match self {
            Credential::ApiKey(c) => Some(&c.provider),
            Credential::Token(c) => Some(&c.provider),
            Credential::OAuth(c) => Some(&c.provider),
            Credential::Unrecognized(_) => None,
        }
    }
}

/// An API key credential.
#[derive(Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyCredential {
    /// Provider id.
    pub provider: String,
    /// The key itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// A secret reference resolving to the key (`{"source":"env","id":"OPENAI_API_KEY"}` or
    /// `"${OPENAI_API_KEY}"`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub key_ref: Option<Value>,
    /// Account e-mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Free-form metadata.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub metadata: Option<Value>,
    /// Other fields, verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A static bearer token credential.
#[derive(Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCredential {
    /// Provider id.
    pub provider: String,
    /// The token itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// A secret reference resolving to the token.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub token_ref: Option<Value>,
    /// Expiry in ms since the epoch. Kept as raw JSON: a value that is not a positive finite
    /// number makes the profile ineligible (`invalid_expires`) rather than the file unreadable.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub expires: Option<Value>,
    /// Account e-mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Other fields, verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An OAuth credential.
#[derive(Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthCredential {
    /// Provider id.
    pub provider: String,
    /// Access token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<String>,
    /// Refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh: Option<String>,
    /// Access token expiry in ms since the epoch, raw JSON.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub expires: Option<Value>,
    /// OAuth client id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Account e-mail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Account id (`ChatGPT-Account-Id` for openai-codex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account_id: Option<String>,
    /// Project id (Google).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    /// Enterprise URL (GitHub Copilot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enterprise_url: Option<String>,
    /// Which external CLI owns the credential (`codex-cli`, `minimax-cli`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    /// Other fields, verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// The credential types print which secrets are set, never the secrets: a `{:?}` of a store
// or snapshot ends up in logs and error reports.

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Credential::ApiKey(c) => f.debug_tuple("ApiKey").field(c).finish(),
            Credential::Token(c) => f.debug_tuple("Token").field(c).finish(),
            Credential::OAuth(c) => f.debug_tuple("OAuth").field(c).finish(),
            Credential::Unrecognized(value) => f
                .debug_tuple("Unrecognized")
                .field(&match value {
                    Value::Object(map) => format!("{:?}", keys_only(map)),
                    _ => REDACTED.to_owned(),
                })
                .finish(),
        }
    }
}

impl std::fmt::Debug for ApiKeyCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyCredential")
            .field("provider", &self.provider)
            .field("key", &secret(&self.key))
            .field("key_ref", &secret(&self.key_ref))
            .field("email", &self.email)
            .field("display_name", &self.display_name)
            .field("metadata", &secret(&self.metadata))
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}

impl std::fmt::Debug for TokenCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCredential")
            .field("provider", &self.provider)
            .field("token", &secret(&self.token))
            .field("token_ref", &secret(&self.token_ref))
            .field("expires", &self.expires)
            .field("email", &self.email)
            .field("display_name", &self.display_name)
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}

impl std::fmt::Debug for OAuthCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthCredential")
            .field("provider", &self.provider)
            .field("access", &secret(&self.access))
            .field("refresh", &secret(&self.refresh))
            .field("expires", &self.expires)
            .field("client_id", &self.client_id)
            .field("email", &self.email)
            .field("account_id", &self.account_id)
            .field("project_id", &self.project_id)
            .field("enterprise_url", &self.enterprise_url)
            .field("managed_by", &self.managed_by)
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}

/// A raw field that is present, `null` included: `"expires": null` is an invalid expiry (not
/// a missing one) and must be written back as it was.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// The recognized shapes, tagged by `type`; the tag is written first, as OpenClaw does.
#[derive(Serialize)]
#[serde(tag = "type")]
enum TaggedRef<'a> {
    #[serde(rename = "api_key")]
    ApiKey(&'a ApiKeyCredential),
    #[serde(rename = "token")]
    Token(&'a TokenCredential),
    #[serde(rename = "oauth")]
    OAuth(&'a OAuthCredential),
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum Tagged {
    #[serde(rename = "api_key")]
    ApiKey(ApiKeyCredential),
    #[serde(rename = "token")]
    Token(TokenCredential),
    #[serde(rename = "oauth")]
    OAuth(OAuthCredential),
}

impl Serialize for Credential {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Credential::ApiKey(c) => TaggedRef::ApiKey(c).serialize(serializer),
            Credential::Token(c) => TaggedRef::Token(c).serialize(serializer),
            Credential::OAuth(c) => TaggedRef::OAuth(c).serialize(serializer),
            Credential::Unrecognized(v) => v.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Credential {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(deserializer)?;
        // One odd entry must not make the whole file unreadable (and so unwritable): whatever
        // does not parse as a known shape is carried along untouched.
        Ok(match Tagged::deserialize(&raw) {
            Ok(Tagged::ApiKey(c)) => Credential::ApiKey(c),
            Ok(Tagged::Token(c)) => Credential::Token(c),
            Ok(Tagged::OAuth(c)) => Credential::OAuth(c),
            Err(_) => Credential::Unrecognized(raw),
        })
    }
}

/// `auth-state.json`: order overrides, last good profile per provider and usage statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthState {
    /// File format version (1).
    #[serde(default = "default_version")]
    pub version: u32,
    /// Stored profile order per provider; wins over config `auth.order`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<IndexMap<String, Vec<String>>>,
    /// The profile that last succeeded, per provider (informational; not used for ordering).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_good: Option<IndexMap<String, String>>,
    /// Usage statistics per profile id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_stats: Option<IndexMap<String, ProfileUsageStats>>,
    /// Fields this crate does not interpret, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for AuthState {
    fn default() -> Self {
        AuthState {
            version: AUTH_STORE_VERSION,
            order: None,
            last_good: None,
            usage_stats: None,
            extra: Map::new(),
        }
    }
}

impl AuthState {
    /// True when there is nothing worth a file: OpenClaw deletes `auth-state.json` then.
    pub fn is_empty(&self) -> bool {
        self.order.as_ref().is_none_or(IndexMap::is_empty)
            && self.last_good.as_ref().is_none_or(IndexMap::is_empty)
            && self.usage_stats.as_ref().is_none_or(IndexMap::is_empty)
            && self.extra.is_empty()
    }

    /// The statistics of a profile, if any were recorded.
    pub fn stats(&self, profile_id: &str) -> Option<&ProfileUsageStats> {
        self.usage_stats.as_ref()?.get(profile_id)
    }

    /// The statistics of a profile, created empty when missing.
    pub fn stats_mut(&mut self, profile_id: &str) -> &mut ProfileUsageStats {
        self.usage_stats
            .get_or_insert_with(IndexMap::new)
            .entry(profile_id.to_owned())
            .or_default()
    }
}

/// What the runner remembers about one profile (reference §13.1 `ProfileUsageStats`).
///
/// Times are milliseconds since the epoch as JS numbers (`f64`), written without a fraction
/// when integral, exactly as OpenClaw writes them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUsageStats {
    /// Last successful use.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "js_time"
    )]
    pub last_used: Option<f64>,
    /// Consecutive failures since the last reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_count: Option<u32>,
    /// Failures per reason since the last reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_counts: Option<IndexMap<FailoverReason, u32>>,
    /// Time of the last failure (the 24 h failure window starts here).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "js_time"
    )]
    pub last_failure_at: Option<f64>,
    /// End of the cooldown window.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "js_time"
    )]
    pub cooldown_until: Option<f64>,
    /// The reason of the latest failure inside the cooldown window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_reason: Option<FailoverReason>,
    /// The model a rate-limit cooldown is scoped to; other models may still use the profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_model: Option<String>,
    /// End of the disabled window (billing, auth_permanent).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "js_time"
    )]
    pub disabled_until: Option<f64>,
    /// Why the profile is disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled_reason: Option<FailoverReason>,
    /// Other fields, verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Writes a time like `JSON.stringify` does (see [`crate::js_number`]).
fn js_time<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => crate::js_number::serialize(v, serializer),
        None => serializer.serialize_none(),
    }
}

/// Both files as read together.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuthSnapshot {
    /// `auth-profiles.json`.
    pub profiles: AuthProfiles,
    /// `auth-state.json`.
    pub state: AuthState,
}

/// Why the store could not be read or written. Every variant names the file involved.
#[derive(Debug, thiserror::Error)]
pub enum AuthStoreError {
    /// An operating-system call failed.
    #[error("auth store: cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done (`read`, `write`, `lock`, …).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file exists but is not a valid store file; it was left as it is.
    #[error("auth store: {} is not a valid auth store file ({message}); it was left unchanged", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column for JSON syntax errors.
        message: String,
    },
    /// Another writer held the lock for longer than the store waits.
    #[error("auth store: gave up after {waited_ms} ms waiting for the lock {}", path.display())]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// How long the store waited.
        waited_ms: u64,
    },
    /// A failure of a store that is not file-backed.
    #[error("auth store: {0}")]
    Other(String),
}

/// Where auth profiles and their state live. Held as `Arc<dyn AuthStore>`.
///
/// The methods **block** (file locks, disk I/O); async callers run them on a blocking thread
/// (`tokio::task::spawn_blocking`). Updates are read-modify-write under the store's lock with
/// the data re-read inside the lock, so no caller — in this process or another — loses an
/// update made by someone else in the meantime.
pub trait AuthStore: Send + Sync {
    /// Reads both files. Missing files read as empty.
    fn load(&self) -> Result<AuthSnapshot, AuthStoreError>;

    /// Re-reads both files under the lock, lets `update` change the state, and writes it back
    /// when `update` returns `true` (an empty state removes `auth-state.json`). Returns what
    /// the files hold afterwards.
    ///
    /// A store may first offer `update` what a read without the lock finds, and answer from it
    /// when `update` returns `false` (nothing to write); only a change is then made again under
    /// the lock. So `update` may run more than once and must depend only on its arguments.
    fn update_state(
        &self,
        update: &mut dyn FnMut(&AuthProfiles, &mut AuthState) -> bool,
    ) -> Result<AuthSnapshot, AuthStoreError>;

    /// Re-reads `auth-profiles.json` under the lock, lets `update` change it, and writes it
    /// back when `update` returns `true`. Returns what the file holds afterwards.
    fn update_profiles(
        &self,
        update: &mut dyn FnMut(&mut AuthProfiles) -> bool,
    ) -> Result<AuthProfiles, AuthStoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn openclaw_profiles_round_trip_with_unknown_fields() {
        let raw = json!({
            "version": 1,
            "profiles": {
                "openai:a": {"type": "api_key", "provider": "openai", "key": "sk", "priority": 3},
                "anthropic:claude-cli": {"type": "oauth", "provider": "anthropic", "access": "a",
                    "refresh": "r", "expires": 1_700_000_000_000_u64, "managedBy": "claude-cli", "scopes": ["x"]},
                "x:tok": {"type": "token", "provider": "x", "tokenRef": {"source": "env", "id": "T"}, "expires": null},
                "weird": {"type": "aws-sdk", "provider": "bedrock"},
                "broken": {"type": "api_key", "provider": "openai", "key": 5},
                "nope": 7
            },
            "lastGood": {"openai": "openai:a"}
        });
        let parsed: AuthProfiles = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(
            parsed
                .profiles
                .values()
                .map(Credential::kind)
                .collect::<Vec<_>>(),
            vec![
                Some(CredentialType::ApiKey),
                Some(CredentialType::OAuth),
                Some(CredentialType::Token),
                None,
                None,
                None
            ]
        );
        assert_eq!(serde_json::to_value(&parsed).unwrap(), raw);
        // Byte for byte too: the tag first, then the fields in the file's order.
        let text = serde_json::to_string(&parsed.profiles["openai:a"]).unwrap();
        assert_eq!(
            text,
            r#"{"type":"api_key","provider":"openai","key":"sk","priority":3}"#
        );
    }

    #[test]
    fn state_round_trips_and_writes_integral_times_without_fraction() {
        let raw = json!({
            "version": 1,
            "order": {"openai": ["openai:b", "openai:a"]},
            "usageStats": {"openai:a": {"lastUsed": 100, "errorCount": 2,
                "failureCounts": {"rate_limit": 2}, "lastFailureAt": 5, "cooldownUntil": 1.5,
                "cooldownReason": "rate_limit", "cooldownModel": "m", "blockedReason": "x"}}
        });
        let parsed: AuthState = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(serde_json::to_value(&parsed).unwrap(), raw);
        let stats = parsed.stats("openai:a").unwrap();
        assert_eq!(stats.cooldown_until, Some(1.5));
        assert_eq!(
            stats.failure_counts.as_ref().unwrap()[&FailoverReason::RateLimit],
            2
        );
        let mut fresh = AuthState::default();
        fresh.stats_mut("p").last_used = Some(1_700_000_000_000.0);
        assert_eq!(
            serde_json::to_string(&fresh).unwrap(),
            r#"{"version":1,"usageStats":{"p":{"lastUsed":1700000000000}}}"#
        );
    }

    #[test]
    fn emptiness() {
        let mut state = AuthState::default();
        assert!(state.is_empty());
        state.usage_stats = Some(IndexMap::new());
        assert!(state.is_empty());
        state.stats_mut("p");
        assert!(!state.is_empty());
    }
}
