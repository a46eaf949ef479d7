//! The runner's configuration (SPEC §2): `[agents.defaults]`, `[models]`, `[cliBackends]`, with
//! OpenClaw's key names and SPEC's defaults. The CLI reads it from `config.toml`, conformance
//! scenarios from JSON; both go through serde, so one set of types serves both.
//!
//! Every key is optional. Keys this version does not know are kept in `extra` maps, so a caller
//! can warn about them (with the closest known key) instead of failing; a key that is present
//! but invalid is an error naming its path ([`ConfigError`]), never a silent default.

mod agents;
pub mod known_keys;
mod logging;
mod sandbox;
pub mod schema;

use std::collections::BTreeMap;
use std::time::Duration;

use clawloop_providers::catalog::ModelsConfig;

use crate::auth::AuthConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use agents::{
    AgentDefaults, AgentsConfig, BlockStreamingConfig, BreakMode, CompactionConfig,
    ContextPruningConfig, ContextPruningMode, LlmConfig, ModelSelection, RetryConfig,
    SessionConfig, ToolsConfig,
};
pub use logging::LoggingConfig;
pub use sandbox::SandboxConfig;

/// The whole configuration.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// `[agents]`.
    #[serde(default)]
    pub agents: AgentsConfig,
    /// `[models]`: custom providers and overrides of built-in ones.
    #[serde(default)]
    #[schemars(schema_with = "schema::models")]
    pub models: ModelsConfig,
    /// `[cliBackends.<id>]`: external agent CLIs run as providers, as written; see
    /// [`crate::cli_backend::CliBackendConfig::all_from_config`] for the resolved backends.
    #[serde(default)]
    #[schemars(schema_with = "schema::cli_backends")]
    pub cli_backends: BTreeMap<String, Value>,
    /// `[auth]` as written; [`Config::auth`] is its typed form.
    #[serde(default, rename = "auth", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "schema::auth")]
    pub auth_table: Option<Value>,
    /// `[auth]`, checked and typed when the config is read.
    #[serde(skip)]
    pub auth: AuthConfig,
    /// `[logging]`: the CLI's log files.
    #[serde(default)]
    pub logging: LoggingConfig,
    /// `[sandbox]`: how the bash tool's commands are confined.
    #[serde(default)]
    pub sandbox: SandboxConfig,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `[cliBackends]` (whose `env` tables hold keys), the raw `[auth]` table and unknown keys
/// print as their key names only: a `{:?}` of the config ends up in logs and error reports.
impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use clawloop_core::redacted_debug::{keys_only, secret};
        f.debug_struct("Config")
            .field("agents", &self.agents)
            .field("models", &self.models)
            .field("cli_backends", &keys_only(&self.cli_backends))
            .field("auth_table", &secret(&self.auth_table))
            .field("auth", &self.auth)
            .field("logging", &self.logging)
            .field("sandbox", &self.sandbox)
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}

/// A configuration key that is present but invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config key `{path}`: {message}")]
pub struct ConfigError {
    /// The dotted path of the key, e.g. `agents.defaults.maxConcurrent`.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl Config {
    /// Reads the configuration from a JSON value (the shape of `config.toml` as JSON).
    pub fn from_value(value: Value) -> Result<Config, ConfigError> {
        let mut config: Config =
            serde_path_to_error::deserialize(value).map_err(|err| ConfigError {
                path: err.path().to_string(),
                message: err.inner().to_string(),
            })?;
        config.validate()?;
        // An `api` or `baseUrl` no request could use is a config error now, not a failed run.
        config.models.check().map_err(|err| ConfigError {
            path: err.key,
            message: err.message,
        })?;
        // A bad `[cliBackends.<id>]` table is reported now, naming its key, not when the
        // backend is first used.
        crate::cli_backend::CliBackendConfig::all_from_config(&config)?;
        if let Some(table) = &config.auth_table {
            config.auth = AuthConfig::from_json(table).map_err(|err| ConfigError {
                path: err.key,
                message: err.message,
            })?;
        }
        Ok(config)
    }

    /// The agent defaults (`[agents.defaults]`).
    pub fn defaults(&self) -> &AgentDefaults {
        &self.agents.defaults
    }

    /// Range checks serde cannot express.
    fn validate(&self) -> Result<(), ConfigError> {
        if let Err(err) = self.sandbox.mode() {
            return Err(ConfigError {
                path: "sandbox.mode".to_owned(),
                message: err.to_string(),
            });
        }
        if let Err(err) = self.sandbox.approval() {
            return Err(ConfigError {
                path: "sandbox.approval".to_owned(),
                message: err.to_string(),
            });
        }
        let d = &self.agents.defaults;
        let bad = |path: &str, message: &str| ConfigError {
            path: format!("agents.defaults.{path}"),
            message: message.to_owned(),
        };
        if d.max_concurrent == 0 {
            return Err(bad("maxConcurrent", "must be at least 1"));
        }
        for (path, seconds) in [
            ("timeoutSeconds", d.timeout_seconds),
            ("llm.idleTimeoutSeconds", d.llm.idle_timeout_seconds),
            ("compaction.timeoutSeconds", d.compaction.timeout_seconds),
        ] {
            if !seconds.is_finite() || seconds < 0.0 {
                return Err(bad(path, "must be a number of seconds, 0 or more"));
            }
        }
        let b = &d.block_streaming;
        if b.min_chars == 0 || b.max_chars == 0 {
            return Err(bad(
                "blockStreaming",
                "minChars and maxChars must be at least 1",
            ));
        }
        if b.min_chars > b.max_chars {
            return Err(bad(
                "blockStreaming.minChars",
                "must not be larger than maxChars",
            ));
        }
        Ok(())
    }
}

/// Seconds from config as a duration; `0` (or less) means none.
pub fn seconds(value: f64) -> Option<Duration> {
    (value > 0.0 && value.is_finite()).then(|| Duration::from_secs_f64(value.min(2_147_000.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn an_empty_config_has_specs_defaults() {
        let config = Config::from_value(json!({})).unwrap_or_default();
        let d = config.defaults();
        assert_eq!(
            (
                d.max_concurrent,
                d.timeout_seconds,
                d.llm.idle_timeout_seconds,
                d.context_tokens
            ),
            (4, 600.0, 120.0, 200_000)
        );
        assert_eq!(
            (
                d.compaction.reserve_tokens,
                d.compaction.keep_recent_tokens,
                d.compaction.reserve_tokens_floor
            ),
            (16_384, 20_000, 20_000)
        );
        assert_eq!(
            (d.block_streaming.min_chars, d.block_streaming.max_chars),
            (800, 1200)
        );
        assert_eq!(d.block_streaming.break_mode, BreakMode::TextEnd);
        assert_eq!(d.retry.transient_http_retry_delay_ms, 2500);
        assert!(d.session.reset_on_overflow && d.compaction.enabled && d.block_streaming.enabled);
        assert_eq!(d.context_pruning.mode, ContextPruningMode::Off);
    }

    #[test]
    fn keys_are_read_and_unknown_ones_kept() {
        let config = Config::from_value(json!({
            "agents": {"defaults": {
                "thinkingDefault": "high", "maxConcurrent": 2, "timeoutSeconds": 1.5,
                "model": {"primary": "acme/m1", "fallbacks": ["other/m2"]},
                "llm": {"idleTimeoutSeconds": 0.2},
                "blockStreaming": {"break": "message_end", "minChars": 1, "maxChars": 5},
                "contextPruning": {"mode": "cache-ttl"},
                "tools": {"deny": ["bash"]},
                "futureKey": 1
            }},
            "models": {"providers": {"acme": {"api": "ollama", "baseUrl": "http://127.0.0.1:1"}}},
            "gateway": {"port": 1}
        }))
        .unwrap_or_default();
        let d = config.defaults();
        assert_eq!(d.thinking_default, clawloop_core::ThinkLevel::High);
        assert_eq!(d.model.primary.as_deref(), Some("acme/m1"));
        assert_eq!(d.model.fallbacks, ["other/m2"]);
        assert_eq!(
            seconds(d.timeout_seconds),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            seconds(d.llm.idle_timeout_seconds),
            Some(Duration::from_millis(200))
        );
        assert_eq!(d.block_streaming.break_mode, BreakMode::MessageEnd);
        assert_eq!(d.tools.deny, ["bash"]);
        assert_eq!(d.extra.get("futureKey"), Some(&json!(1)));
        assert_eq!(config.extra.get("gateway"), Some(&json!({"port": 1})));
        assert!(config.models.providers.contains_key("acme"));
        let with_auth =
            Config::from_value(json!({"auth": {"order": {"openai": ["openai:b", "openai:a"]}}}))
                .unwrap_or_default();
        assert_eq!(with_auth.auth.order.get("openai").map(Vec::len), Some(2));
    }

    #[test]
    fn an_invalid_key_is_named() {
        let rows = [
            (
                json!({"agents": {"defaults": {"maxConcurrent": "four"}}}),
                "agents.defaults.maxConcurrent",
            ),
            (
                json!({"agents": {"defaults": {"maxConcurrent": 0}}}),
                "agents.defaults.maxConcurrent",
            ),
            (
                json!({"agents": {"defaults": {"thinkingDefault": "loud"}}}),
                "agents.defaults.thinkingDefault",
            ),
            (
                json!({"agents": {"defaults": {"blockStreaming": {"break": "never"}}}}),
                "agents.defaults.blockStreaming.break",
            ),
            (
                json!({"agents": {"defaults": {"llm": {"idleTimeoutSeconds": -1}}}}),
                "agents.defaults.llm.idleTimeoutSeconds",
            ),
            (
                json!({"agents": {"defaults": {"blockStreaming": {"minChars": 10, "maxChars": 5}}}}),
                "agents.defaults.blockStreaming.minChars",
            ),
            (
                json!({"models": {"providers": {"acme": {"api": "openai"}}}}),
                "models.providers.acme.api",
            ),
            (
                json!({"models": {"providers": {"acme": {"models": [{"id": "m", "baseUrl": "ftp://x"}]}}}}),
                "models.providers.acme.models[0].baseUrl",
            ),
        ];
        for (value, path) in rows {
            let err = Config::from_value(value.clone()).err();
            assert_eq!(err.map(|e| e.path), Some(path.to_owned()), "{value}");
        }
    }

    #[test]
    fn zero_seconds_means_no_limit() {
        assert_eq!(seconds(0.0), None);
        assert_eq!(seconds(-3.0), None);
        assert_eq!(seconds(2.0), Some(Duration::from_secs(2)));
    }
}
