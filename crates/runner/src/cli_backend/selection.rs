//! A CLI backend chosen as a run's provider (reference §21 step 1, OpenClaw's `isCliProvider`):
//! which provider ids name a backend, and the model a run of one resolves to. A CLI keeps its
//! own model list, so any model id under a backend resolves, with the agent's context window
//! unless `models.providers.<backend>.models` says otherwise.

use std::collections::BTreeMap;

use clawloop_core::ModelCost;
use clawloop_core::model::{Api, InputKind, Model};

use super::config::{CliBackendConfig, normalize_backend_id};
use crate::config::{Config, ConfigError};

/// The `api` of a model a CLI backend runs: no wire API, the CLI talks to its own service.
pub const CLI_BACKEND_API: &str = "cli";

/// Output limit of a CLI model when none is configured (the CLI decides; this only feeds
/// budgets that read the model).
pub const CLI_DEFAULT_MAX_TOKENS: u64 = 32_000;

/// The backend `provider` names — a built-in preset id (`claude-cli`, `codex-cli`) or a
/// `[cliBackends.<id>]` key, compared trimmed and lowercase — or `None` for any other provider.
/// A backend wins over a `models.providers` entry of the same id, as in OpenClaw.
pub fn cli_backend_for_provider(
    config: &Config,
    provider: &str,
) -> Result<Option<CliBackendConfig>, ConfigError> {
    let id = normalize_backend_id(provider);
    if id.is_empty() {
        return Ok(None);
    }
    Ok(CliBackendConfig::all_from_config(config)?.remove(&id))
}

/// The model a run of `provider`/`model_id` uses when `provider` is a CLI backend: text and
/// image input, no cost (the CLI bills its own account), the configured window and output
/// limit of `models.providers.<provider>.models[<model_id>]` when there is one, else
/// `agents.defaults.contextTokens` and [`CLI_DEFAULT_MAX_TOKENS`].
pub fn cli_backend_model(config: &Config, provider: &str, model_id: &str) -> Model {
    let configured = config
        .models
        .providers
        .get(provider)
        .and_then(|p| p.models.iter().find(|m| m.id == model_id));
    Model {
        id: model_id.to_owned(),
        name: configured
            .and_then(|m| m.name.clone())
            .unwrap_or_else(|| model_id.to_owned()),
        api: Api::Other(CLI_BACKEND_API.to_owned()),
        provider: provider.to_owned(),
        base_url: String::new(),
        reasoning: false,
        input: vec![InputKind::Text, InputKind::Image],
        cost: ModelCost::default(),
        context_window: configured
            .and_then(|m| m.context_window)
            .unwrap_or(config.defaults().context_tokens),
        max_tokens: configured
            .and_then(|m| m.max_tokens)
            .unwrap_or(CLI_DEFAULT_MAX_TOKENS),
        headers: BTreeMap::new(),
        compat: None,
        extra: serde_json::Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn presets_and_configured_ids_are_cli_providers() {
        let config = Config::from_value(json!({
            "cliBackends": {"My-CLI": {"command": "/bin/true"}, "claude": {"command": "/opt/claude"}},
            "models": {"providers": {"acme": {"api": "openai-completions", "models": []}}}
        }))
        .unwrap();
        let id = |provider: &str| {
            cli_backend_for_provider(&config, provider)
                .unwrap()
                .map(|b| (b.id, b.command))
        };
        assert_eq!(id(" my-cli "), Some(("my-cli".into(), "/bin/true".into())));
        assert_eq!(
            id("Claude-CLI"),
            Some(("claude-cli".into(), "/opt/claude".into()))
        );
        assert_eq!(id("codex-cli").map(|b| b.0), Some("codex-cli".into()));
        assert_eq!(id("acme"), None);
        assert_eq!(id(""), None);
    }

    #[test]
    fn a_cli_model_takes_the_configured_window_else_the_agents() {
        let config = Config::from_value(json!({
            "agents": {"defaults": {"contextTokens": 150000}},
            "models": {"providers": {"my-cli": {"models": [{"id": "big", "contextWindow": 64000, "maxTokens": 8000}]}}},
            "cliBackends": {"my-cli": {"command": "x"}}
        }))
        .unwrap();
        let facts = |m: Model| {
            (
                m.provider.clone(),
                m.id.clone(),
                m.api.as_str().to_owned(),
                m.context_window,
                m.max_tokens,
                m.supports_images(),
            )
        };
        assert_eq!(
            facts(cli_backend_model(&config, "my-cli", "whatever")),
            (
                "my-cli".into(),
                "whatever".into(),
                "cli".into(),
                150_000,
                CLI_DEFAULT_MAX_TOKENS,
                true
            )
        );
        assert_eq!(
            facts(cli_backend_model(&config, "my-cli", "big")),
            (
                "my-cli".into(),
                "big".into(),
                "cli".into(),
                64_000,
                8_000,
                true
            )
        );
    }
}
