//! The secret a profile authenticates with: an API key, a token or an OAuth access token,
//! given inline or by reference (`keyRef` / `tokenRef`: an env template `"${NAME}"`, or
//! `{"source": "env"|"file", "id": …}`). File references are read and command references run,
//! so call this from a blocking context.
//!
//! Command references are clawloop's own: `{"source": "exec", "provider": "clawloop-command",
//! "id": "<shell command>"}`, written by `clawloop auth add --command`; the key is the command's
//! trimmed output, run like a configured `apiKey = "!command"` (`sh -c`, 10 s). OpenClaw's exec
//! references name a configured secrets provider instead of a command; they are refused, never
//! run as shell text.

use clawloop_core::auth_store::Credential;
use clawloop_providers::api_key::{ApiKeyResolver, EnvFn};
use serde_json::Value;

use crate::auth::eligibility::env_template_name;

/// The `provider` of a command reference clawloop runs itself.
pub const COMMAND_REF_PROVIDER: &str = "clawloop-command";

/// Why a profile's secret could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The credential holds no secret (or an unrecognized shape).
    #[error("auth profile {profile} has no usable secret")]
    Missing {
        /// The profile id.
        profile: String,
    },
    /// A reference names an environment variable that is not set.
    #[error("auth profile {profile}: environment variable {variable} is not set")]
    UnsetVariable {
        /// The profile id.
        profile: String,
        /// The variable.
        variable: String,
    },
    /// A file reference could not be read.
    #[error("auth profile {profile}: cannot read secret file {path}: {reason}")]
    File {
        /// The profile id.
        profile: String,
        /// The file.
        path: String,
        /// What the OS said.
        reason: String,
    },
    /// The command of a command reference failed or printed no key.
    #[error("auth profile {profile}: {reason}")]
    Command {
        /// The profile id.
        profile: String,
        /// What went wrong (never the command line, which may embed a secret).
        reason: String,
    },
    /// A reference kind clawloop does not run (`exec`).
    #[error(
        "auth profile {profile}: secret references of source \"{reference_source}\" are not supported"
    )]
    Unsupported {
        /// The profile id.
        profile: String,
        /// The reference's source.
        reference_source: String,
    },
}

/// The secret of `profile`'s credential; `env` looks variables up (the process environment in
/// production, a map in tests).
pub fn credential_secret(
    profile: &str,
    credential: &Credential,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, SecretError> {
    let (inline, reference) = match credential {
        Credential::ApiKey(c) => (c.key.as_deref(), c.key_ref.as_ref()),
        Credential::Token(c) => (c.token.as_deref(), c.token_ref.as_ref()),
        Credential::OAuth(c) => (c.access.as_deref(), None),
        Credential::Unrecognized(_) => (None, None),
    };
    if let Some(secret) = inline.map(str::trim).filter(|s| !s.is_empty()) {
        return Ok(secret.to_owned());
    }
    let missing = || SecretError::Missing {
        profile: profile.to_owned(),
    };
    let from_env = |variable: &str| {
        env(variable)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .ok_or_else(|| SecretError::UnsetVariable {
                profile: profile.to_owned(),
                variable: variable.to_owned(),
            })
    };
    match reference {
        Some(Value::String(template)) => {
            from_env(env_template_name(template.trim()).ok_or_else(missing)?)
        }
        Some(Value::Object(map)) => {
            let id = map
                .get("id")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .ok_or_else(missing)?;
            match map.get("source").and_then(Value::as_str) {
                Some("env") => from_env(id),
                Some("file") => std::fs::read_to_string(id)
                    .map_err(|err| SecretError::File {
                        profile: profile.to_owned(),
                        path: id.to_owned(),
                        reason: err.to_string(),
                    })
                    .map(|text| text.trim().to_owned())
                    .and_then(|text| {
                        if text.is_empty() {
                            Err(missing())
                        } else {
                            Ok(text)
                        }
                    }),
                Some("exec")
                    if map.get("provider").and_then(Value::as_str)
                        == Some(COMMAND_REF_PROVIDER) =>
                {
                    let lookup = EnvFn(|name: &str| env(name));
                    ApiKeyResolver::new(&lookup)
                        .resolve_configured(profile, &format!("!{id}"))
                        .map(|key| key.into_value())
                        .map_err(|err| SecretError::Command {
                            profile: profile.to_owned(),
                            reason: err.to_string(),
                        })
                }
                Some(other) => Err(SecretError::Unsupported {
                    profile: profile.to_owned(),
                    reference_source: other.to_owned(),
                }),
                None => Err(missing()),
            }
        }
        Some(_) | None => Err(missing()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn credential(value: Value) -> Credential {
        let profiles: clawloop_core::auth_store::AuthProfiles =
            serde_json::from_value(json!({"version": 1, "profiles": {"p": value}}))
                .unwrap_or_else(|e| panic!("{e}"));
        profiles
            .get("p")
            .cloned()
            .unwrap_or_else(|| panic!("profile p"))
    }

    fn env(name: &str) -> Option<String> {
        (name == "OPENAI_API_KEY").then(|| "sk-env".to_owned())
    }

    #[test]
    fn secrets_inline_and_by_reference() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("key");
        std::fs::write(&file, "sk-file\n").unwrap_or_else(|e| panic!("{e}"));
        let rows: Vec<(Value, Result<String, SecretError>)> = vec![
            (
                json!({"type": "api_key", "provider": "openai", "key": " sk-inline "}),
                Ok("sk-inline".to_owned()),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": "${OPENAI_API_KEY}"}),
                Ok("sk-env".to_owned()),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "env", "id": "OPENAI_API_KEY"}}),
                Ok("sk-env".to_owned()),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "file", "id": file.display().to_string()}}),
                Ok("sk-file".to_owned()),
            ),
            (
                json!({"type": "token", "provider": "anthropic", "token": "tok"}),
                Ok("tok".to_owned()),
            ),
            (
                json!({"type": "oauth", "provider": "openai-codex", "access": "acc", "refresh": "r", "expires": 1}),
                Ok("acc".to_owned()),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": "${UNSET_VAR}"}),
                Err(SecretError::UnsetVariable {
                    profile: "p".to_owned(),
                    variable: "UNSET_VAR".to_owned(),
                }),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "exec", "id": "pass show x"}}),
                Err(SecretError::Unsupported {
                    profile: "p".to_owned(),
                    reference_source: "exec".to_owned(),
                }),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "exec", "provider": "clawloop-command", "id": "printf ' sk-cmd\\n'"}}),
                Ok("sk-cmd".to_owned()),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "exec", "provider": "clawloop-command", "id": "exit 3"}}),
                Err(SecretError::Command {
                    profile: "p".to_owned(),
                    reason: "apiKey command of provider \"p\" failed with exit code 3".to_owned(),
                }),
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "exec", "provider": "vault", "id": "echo no"}}),
                Err(SecretError::Unsupported {
                    profile: "p".to_owned(),
                    reference_source: "exec".to_owned(),
                }),
            ),
            (
                json!({"type": "api_key", "provider": "openai"}),
                Err(SecretError::Missing {
                    profile: "p".to_owned(),
                }),
            ),
        ];
        for (value, expected) in rows {
            assert_eq!(
                credential_secret("p", &credential(value.clone()), &env),
                expected,
                "{value}"
            );
        }
    }
}
