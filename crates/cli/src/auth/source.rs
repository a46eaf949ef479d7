//! Where a profile's secret comes from, named without the secret: the auth file itself, an
//! environment variable, a secret file, or a command.

use clawloop_core::auth_store::Credential;
use serde::Serialize;
use serde_json::Value;

use clawloop_runner::auth::eligibility::env_template_name;

/// Where a secret is read from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SecretSource {
    /// Stored in `auth-profiles.json` itself.
    File,
    /// An environment variable.
    Env {
        /// Its name.
        name: String,
    },
    /// A file named by a `{"source":"file"}` reference.
    SecretFile {
        /// Its path.
        path: String,
    },
    /// A command's output (`{"source":"exec"}`, or `apiKey = "!…"` in config).
    Command,
    /// A literal `apiKey` in `config.toml`.
    Config,
    /// Nothing usable: no value and no reference this version understands.
    None,
}

impl std::fmt::Display for SecretSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretSource::File => f.write_str("file"),
            SecretSource::Env { name } => write!(f, "env {name}"),
            SecretSource::SecretFile { path } => write!(f, "secret file {path}"),
            SecretSource::Command => f.write_str("command"),
            SecretSource::Config => f.write_str("config.toml"),
            SecretSource::None => f.write_str("no secret"),
        }
    }
}

/// Where `credential`'s secret comes from.
pub fn credential_source(credential: &Credential) -> SecretSource {
    let (inline, reference) = match credential {
        Credential::ApiKey(c) => (c.key.as_deref(), c.key_ref.as_ref()),
        Credential::Token(c) => (c.token.as_deref(), c.token_ref.as_ref()),
        Credential::OAuth(c) => (c.access.as_deref().or(c.refresh.as_deref()), None),
        Credential::Unrecognized(_) => (None, None),
    };
    // The runner prefers an inline value over a reference; so does the description.
    if inline.is_some_and(|s| !s.trim().is_empty()) {
        return SecretSource::File;
    }
    match reference {
        Some(Value::String(template)) => match env_template_name(template.trim()) {
            Some(name) => SecretSource::Env {
                name: name.to_owned(),
            },
            None => SecretSource::None,
        },
        Some(Value::Object(map)) => {
            let id = map.get("id").and_then(Value::as_str).map(str::trim);
            match (map.get("source").and_then(Value::as_str), id) {
                (Some("env"), Some(id)) if !id.is_empty() => SecretSource::Env {
                    name: id.to_owned(),
                },
                (Some("file"), Some(id)) if !id.is_empty() => SecretSource::SecretFile {
                    path: id.to_owned(),
                },
                (Some("exec"), _) => SecretSource::Command,
                _ => SecretSource::None,
            }
        }
        _ => SecretSource::None,
    }
}

/// Where a configured `models.providers.<p>.apiKey` comes from, by the rules of
/// [`clawloop_providers::api_key::ApiKeyResolver::resolve_configured`]: `!command`, the name of
/// a set variable, else a literal.
pub fn configured_key_source(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> SecretSource {
    let spec = spec.trim();
    if spec.starts_with('!') {
        SecretSource::Command
    } else if env(spec).is_some_and(|v| !v.trim().is_empty()) {
        SecretSource::Env {
            name: spec.to_owned(),
        }
    } else {
        SecretSource::Config
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn credential(value: Value) -> Result<Credential, serde_json::Error> {
        serde_json::from_value(value)
    }

    #[test]
    fn sources_are_named_without_the_secret() -> Result<(), serde_json::Error> {
        let rows = [
            (
                json!({"type": "api_key", "provider": "openai", "key": "sk-1"}),
                "file",
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": "${MY_KEY}"}),
                "env MY_KEY",
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "env", "id": "K"}}),
                "env K",
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "file", "id": "/k"}}),
                "secret file /k",
            ),
            (
                json!({"type": "api_key", "provider": "openai", "keyRef": {"source": "exec", "id": "pass x"}}),
                "command",
            ),
            (
                json!({"type": "oauth", "provider": "x", "access": "a", "refresh": "r", "expires": 1}),
                "file",
            ),
            (
                json!({"type": "api_key", "provider": "openai"}),
                "no secret",
            ),
            (json!({"type": "strange"}), "no secret"),
        ];
        for (value, expected) in rows {
            assert_eq!(
                credential_source(&credential(value.clone())?).to_string(),
                expected,
                "{value}"
            );
        }
        let env = |name: &str| (name == "SET").then(|| "v".to_owned());
        assert_eq!(
            configured_key_source("!pass x", &env),
            SecretSource::Command
        );
        assert_eq!(
            configured_key_source("SET", &env),
            SecretSource::Env {
                name: "SET".to_owned()
            }
        );
        assert_eq!(
            configured_key_source("sk-literal", &env),
            SecretSource::Config
        );
        Ok(())
    }
}
