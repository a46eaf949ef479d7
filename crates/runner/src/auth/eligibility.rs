//! Whether a stored profile can serve a provider (reference §13.2,
//! `resolveAuthProfileEligibility` and `evaluateStoredCredentialEligibility`).

use clawloop_core::auth_store::{AuthProfiles, Credential, CredentialType};
use serde_json::Value;

use super::config::{AuthConfig, AuthMode};
use super::provider::provider_key;

/// Why a profile is (not) eligible; OpenClaw's reason codes plus `unrecognized_credential`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EligibilityReason {
    /// Usable.
    Ok,
    /// No credential under that id.
    ProfileMissing,
    /// The credential (or its config entry) belongs to another provider.
    ProviderMismatch,
    /// The config entry's `mode` does not match the credential type.
    ModeMismatch,
    /// Neither a value nor a secret reference.
    MissingCredential,
    /// A token `expires` that is not a positive finite number.
    InvalidExpires,
    /// A token past its `expires`.
    Expired,
    /// An entry this crate cannot read (unknown type, wrong field types); kept, never used.
    UnrecognizedCredential,
}

impl EligibilityReason {
    /// The reason code (`profile_missing`, `mode_mismatch`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            EligibilityReason::Ok => "ok",
            EligibilityReason::ProfileMissing => "profile_missing",
            EligibilityReason::ProviderMismatch => "provider_mismatch",
            EligibilityReason::ModeMismatch => "mode_mismatch",
            EligibilityReason::MissingCredential => "missing_credential",
            EligibilityReason::InvalidExpires => "invalid_expires",
            EligibilityReason::Expired => "expired",
            EligibilityReason::UnrecognizedCredential => "unrecognized_credential",
        }
    }

    /// True for [`EligibilityReason::Ok`].
    pub fn is_eligible(self) -> bool {
        self == EligibilityReason::Ok
    }
}

/// Whether `profile_id` can authenticate `provider` at `now_ms`.
pub fn resolve_profile_eligibility(
    config: &AuthConfig,
    profiles: &AuthProfiles,
    provider: &str,
    profile_id: &str,
    now_ms: f64,
) -> EligibilityReason {
    let key = provider_key(provider);
    let Some(credential) = profiles.get(profile_id) else {
        return EligibilityReason::ProfileMissing;
    };
    let (Some(stored_provider), Some(kind)) = (credential.provider(), credential.kind()) else {
        return EligibilityReason::UnrecognizedCredential;
    };
    if provider_key(stored_provider) != key {
        return EligibilityReason::ProviderMismatch;
    }
    if let Some(configured) = config.profiles.get(profile_id) {
        if provider_key(&configured.provider) != key {
            return EligibilityReason::ProviderMismatch;
        }
        if !mode_accepts(configured.mode, kind) {
            return EligibilityReason::ModeMismatch;
        }
    }
    credential_eligibility(credential, now_ms)
}

/// Whether a configured mode accepts a stored credential type: equal, or `oauth` mode with a
/// `token` credential (a setup token stands in for OAuth; #559). `token` mode does not accept
/// `oauth`.
fn mode_accepts(mode: AuthMode, kind: CredentialType) -> bool {
    match (mode, kind) {
        (AuthMode::ApiKey, CredentialType::ApiKey)
        | (AuthMode::Token, CredentialType::Token)
        | (AuthMode::OAuth, CredentialType::OAuth | CredentialType::Token) => true,
        (AuthMode::ApiKey, CredentialType::Token | CredentialType::OAuth)
        | (AuthMode::Token, CredentialType::ApiKey | CredentialType::OAuth)
        | (AuthMode::OAuth, CredentialType::ApiKey)
        | (
            AuthMode::AwsSdk,
            CredentialType::ApiKey | CredentialType::Token | CredentialType::OAuth,
        ) => false,
    }
}

/// Whether the stored credential itself is usable at `now_ms`, whatever provider asks.
pub fn credential_eligibility(credential: &Credential, now_ms: f64) -> EligibilityReason {
    match credential {
        Credential::ApiKey(c) => {
            if has_secret(c.key.as_deref()) || c.key_ref.as_ref().is_some_and(is_secret_ref) {
                EligibilityReason::Ok
            } else {
                EligibilityReason::MissingCredential
            }
        }
        Credential::Token(c) => {
            if !(has_secret(c.token.as_deref()) || c.token_ref.as_ref().is_some_and(is_secret_ref))
            {
                return EligibilityReason::MissingCredential;
            }
            match &c.expires {
                None => EligibilityReason::Ok,
                Some(Value::Number(n)) => match n.as_f64() {
                    Some(ms) if ms.is_finite() && ms > 0.0 => {
                        if now_ms >= ms {
                            EligibilityReason::Expired
                        } else {
                            EligibilityReason::Ok
                        }
                    }
                    _ => EligibilityReason::InvalidExpires,
                },
                Some(_) => EligibilityReason::InvalidExpires,
            }
        }
        Credential::OAuth(c) => {
            if has_secret(c.access.as_deref()) || has_secret(c.refresh.as_deref()) {
                EligibilityReason::Ok
            } else {
                EligibilityReason::MissingCredential
            }
        }
        Credential::Unrecognized(_) => EligibilityReason::UnrecognizedCredential,
    }
}

/// A secret value counts when it is not blank.
fn has_secret(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.trim().is_empty())
}

/// OpenClaw `coerceSecretRef`: `{"source": "env"|"file"|"exec", "id": non-empty, "provider"?}`
/// or an env template string `"${NAME}"` (`NAME` = `[A-Z][A-Z0-9_]{0,127}`).
pub fn is_secret_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            let source_ok = matches!(
                map.get("source").and_then(Value::as_str),
                Some("env" | "file" | "exec")
            );
            let id_ok = map
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| !id.trim().is_empty());
            source_ok && id_ok
        }
        Value::String(s) => is_env_template(s.trim()),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) => false,
    }
}

fn is_env_template(s: &str) -> bool {
    env_template_name(s).is_some()
}

/// The variable of an env template `"${NAME}"` (`NAME` = `[A-Z][A-Z0-9_]{0,127}`).
pub fn env_template_name(s: &str) -> Option<&str> {
    let name = s.strip_prefix("${")?.strip_suffix('}')?;
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && name.len() <= 128
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    valid.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const NOW: f64 = 1_700_000_000_000.0;

    fn profiles(value: Value) -> AuthProfiles {
        serde_json::from_value(json!({"version": 1, "profiles": value})).unwrap()
    }

    #[test]
    fn credential_vectors() {
        let store = profiles(json!({
            "key": {"type": "api_key", "provider": "openai", "key": "sk"},
            "blank-key": {"type": "api_key", "provider": "openai", "key": "  "},
            "key-ref": {"type": "api_key", "provider": "openai", "keyRef": {"source": "env", "id": "OPENAI_API_KEY"}},
            "key-template": {"type": "api_key", "provider": "openai", "keyRef": "${OPENAI_API_KEY}"},
            "bad-ref": {"type": "api_key", "provider": "openai", "keyRef": {"source": "vault", "id": "x"}},
            "tok": {"type": "token", "provider": "openai", "token": "t", "expires": NOW + 1.0},
            "tok-ref": {"type": "token", "provider": "openai", "tokenRef": {"source": "file", "id": "/x"}},
            "tok-expired": {"type": "token", "provider": "openai", "token": "t", "expires": NOW},
            "tok-zero": {"type": "token", "provider": "openai", "token": "t", "expires": 0},
            "tok-negative": {"type": "token", "provider": "openai", "token": "t", "expires": -5},
            "tok-string": {"type": "token", "provider": "openai", "token": "t", "expires": "soon"},
            "tok-null": {"type": "token", "provider": "openai", "token": "t", "expires": null},
            "oauth-refresh-only": {"type": "oauth", "provider": "openai", "refresh": "r"},
            "oauth-empty": {"type": "oauth", "provider": "openai", "access": "", "refresh": " "},
            "odd": {"type": "aws-sdk", "provider": "openai"}
        }));
        let actual: Vec<(&str, &str)> = store
            .profiles
            .iter()
            .map(|(id, c)| (id.as_str(), credential_eligibility(c, NOW).as_str()))
            .collect();
        assert_eq!(
            actual,
            vec![
                ("key", "ok"),
                ("blank-key", "missing_credential"),
                ("key-ref", "ok"),
                ("key-template", "ok"),
                ("bad-ref", "missing_credential"),
                ("tok", "ok"),
                ("tok-ref", "ok"),
                ("tok-expired", "expired"),
                ("tok-zero", "invalid_expires"),
                ("tok-negative", "invalid_expires"),
                ("tok-string", "invalid_expires"),
                ("tok-null", "invalid_expires"),
                ("oauth-refresh-only", "ok"),
                ("oauth-empty", "missing_credential"),
                ("odd", "unrecognized_credential"),
            ]
        );
    }

    #[test]
    fn provider_and_mode_checks() {
        let store = profiles(json!({
            "zai:a": {"type": "api_key", "provider": "Z.AI", "key": "k"},
            "anthropic:tok": {"type": "token", "provider": "anthropic", "token": "t"},
            "anthropic:oauth": {"type": "oauth", "provider": "anthropic", "access": "a"},
            "anthropic:key": {"type": "api_key", "provider": "anthropic", "key": "k"}
        }));
        let config = AuthConfig::from_json(&json!({"profiles": {
            "anthropic:tok": {"provider": "anthropic", "mode": "oauth"},
            "anthropic:oauth": {"provider": "anthropic", "mode": "token"},
            "anthropic:key": {"provider": "openai", "mode": "api_key"}
        }}))
        .unwrap();
        let check = |provider: &str, id: &str| {
            resolve_profile_eligibility(&config, &store, provider, id, NOW).as_str()
        };
        assert_eq!(check("zai", "zai:a"), "ok");
        assert_eq!(check("z-ai", "zai:a"), "ok");
        assert_eq!(check("openai", "zai:a"), "provider_mismatch");
        assert_eq!(check("anthropic", "anthropic:tok"), "ok");
        assert_eq!(check("anthropic", "anthropic:oauth"), "mode_mismatch");
        assert_eq!(check("anthropic", "anthropic:key"), "provider_mismatch");
        assert_eq!(check("anthropic", "anthropic:gone"), "profile_missing");
    }

    #[test]
    fn env_templates() {
        assert!(is_secret_ref(&json!("${A_1}")));
        assert!(is_secret_ref(&json!(" ${OPENAI_API_KEY} ")));
        assert!(!is_secret_ref(&json!("${a}")));
        assert!(!is_secret_ref(&json!("${}")));
        assert!(!is_secret_ref(&json!("$OPENAI")));
        assert!(!is_secret_ref(&json!({"source": "env", "id": ""})));
    }
}
