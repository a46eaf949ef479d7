//! Checks of `models.providers` values that serde accepts but no request could use: an `api`
//! outside the five, a `baseUrl` that is not an absolute http(s) URL with a host, a `compat`
//! that is not a table, a zero token count, an empty `input`.
//!
//! The config loader runs [`ModelsConfig::check`] when it reads the file, so a typo is a
//! config error naming its key before any run starts; the catalog merge runs the same checks
//! for embedders that build a catalog from a config they never loaded.

use clawloop_core::Api;
use serde_json::Value;

use super::config::{ModelConfig, ModelsConfig, ProviderConfig};

/// A `models.providers` key whose value is unusable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidKey {
    /// The dotted path of the key, e.g. `models.providers.acme.models[0].baseUrl`.
    pub key: String,
    /// Why the value is unusable.
    pub message: String,
}

impl ModelsConfig {
    /// The first key, in provider order, whose value no request could use.
    pub fn check(&self) -> Result<(), InvalidKey> {
        for (id, provider) in &self.providers {
            let prefix = format!("models.providers.{id}");
            check_provider(provider).map_err(|(key, message)| InvalidKey {
                key: format!("{prefix}.{key}"),
                message,
            })?;
            for (index, model) in provider.models.iter().enumerate() {
                check_model(model).map_err(|(key, message)| InvalidKey {
                    key: format!("{prefix}.models[{index}].{key}"),
                    message,
                })?;
            }
        }
        Ok(())
    }
}

/// The provider-level keys of one entry (not its models): the key name and why.
pub(super) fn check_provider(config: &ProviderConfig) -> Result<(), (&'static str, String)> {
    check_api(config.api.as_ref()).map_err(|m| ("api", m))?;
    check_base_url(config.base_url.as_deref()).map_err(|m| ("baseUrl", m))?;
    check_compat(config.compat.as_ref()).map_err(|m| ("compat", m))
}

/// The keys of one `models` entry: the key name and why.
pub(super) fn check_model(config: &ModelConfig) -> Result<(), (&'static str, String)> {
    check_api(config.api.as_ref()).map_err(|m| ("api", m))?;
    check_base_url(config.base_url.as_deref()).map_err(|m| ("baseUrl", m))?;
    check_compat(config.compat.as_ref()).map_err(|m| ("compat", m))?;
    for (key, value) in [
        ("contextWindow", config.context_window),
        ("maxTokens", config.max_tokens),
        ("contextTokens", config.context_tokens),
    ] {
        if value == Some(0) {
            return Err((key, "must be a positive number of tokens".to_owned()));
        }
    }
    if config.input.as_ref().is_some_and(Vec::is_empty) {
        return Err((
            "input",
            "must name at least one kind (\"text\", \"image\")".to_owned(),
        ));
    }
    Ok(())
}

fn check_api(api: Option<&Api>) -> Result<(), String> {
    match api {
        Some(Api::Other(name)) => Err(format!(
            "unknown api {name:?}; expected one of {}",
            Api::KNOWN
                .iter()
                .map(Api::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        _ => Ok(()),
    }
}

fn check_base_url(url: Option<&str>) -> Result<(), String> {
    let Some(url) = url else { return Ok(()) };
    if url.trim().is_empty() {
        return Err("is empty".to_owned());
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!(
            "{url:?} is not an http(s) URL: it must start with http:// or https://"
        ));
    }
    match reqwest::Url::parse(url) {
        Err(err) => Err(format!("{url:?} is not a valid URL: {err}")),
        Ok(parsed) if parsed.host_str().is_none_or(str::is_empty) => {
            Err(format!("{url:?} has no host"))
        }
        Ok(_) => Ok(()),
    }
}

fn check_compat(compat: Option<&Value>) -> Result<(), String> {
    match compat {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("must be a table of flags".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn first_invalid(providers: Value) -> Option<InvalidKey> {
        let config: ModelsConfig =
            serde_json::from_value(json!({ "providers": providers })).unwrap_or_default();
        config.check().err()
    }

    #[test]
    fn unusable_values_are_named_by_key() {
        let rows = [
            (
                json!({"a": {"api": "openai"}}),
                "models.providers.a.api",
                "unknown api \"openai\"; expected one of openai-completions, openai-responses, anthropic-messages, google-generative-ai, ollama",
            ),
            (
                json!({"a": {"baseUrl": "not a url"}}),
                "models.providers.a.baseUrl",
                "\"not a url\" is not an http(s) URL: it must start with http:// or https://",
            ),
            (
                json!({"a": {"baseUrl": "ftp://x"}}),
                "models.providers.a.baseUrl",
                "\"ftp://x\" is not an http(s) URL: it must start with http:// or https://",
            ),
            (
                json!({"a": {"baseUrl": "http://"}}),
                "models.providers.a.baseUrl",
                "\"http://\" is not a valid URL: empty host",
            ),
            (
                json!({"a": {"baseUrl": "https://h:99999/v1"}}),
                "models.providers.a.baseUrl",
                "\"https://h:99999/v1\" is not a valid URL: invalid port number",
            ),
            (
                json!({"a": {"baseUrl": " "}}),
                "models.providers.a.baseUrl",
                "is empty",
            ),
            (
                json!({"a": {"compat": 1}}),
                "models.providers.a.compat",
                "must be a table of flags",
            ),
            (
                json!({"a": {"models": [{"id": "m"}, {"id": "n", "baseUrl": "h/v1"}]}}),
                "models.providers.a.models[1].baseUrl",
                "\"h/v1\" is not an http(s) URL: it must start with http:// or https://",
            ),
            (
                json!({"a": {"models": [{"id": "m", "api": "gemini"}]}}),
                "models.providers.a.models[0].api",
                "unknown api \"gemini\"; expected one of openai-completions, openai-responses, anthropic-messages, google-generative-ai, ollama",
            ),
            (
                json!({"a": {"models": [{"id": "m", "maxTokens": 0}]}}),
                "models.providers.a.models[0].maxTokens",
                "must be a positive number of tokens",
            ),
            (
                json!({"a": {"models": [{"id": "m", "input": []}]}}),
                "models.providers.a.models[0].input",
                "must name at least one kind (\"text\", \"image\")",
            ),
        ];
        for (providers, key, message) in rows {
            let found = first_invalid(providers.clone()).map(|e| (e.key, e.message));
            assert_eq!(
                found,
                Some((key.to_owned(), message.to_owned())),
                "{providers}"
            );
        }
    }

    #[test]
    fn usable_values_pass() {
        let providers = json!({
            "a": {"api": "ollama", "baseUrl": "http://127.0.0.1:11434", "compat": {}},
            "b": {"baseUrl": "https://example.com/v1?x=1", "models": [{"id": "m", "api": "openai-responses", "contextWindow": 1}]},
            "c": {"apiKey": "k"}
        });
        assert_eq!(first_invalid(providers), None);
    }
}
