//! `[logging]`: what the CLI writes to `<home>/logs/`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `[logging]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct LoggingConfig {
    /// Log level of `<home>/logs/`: `trace`, `debug`, `info`, `warn`, `error` or `off`, or
    /// per-target directives (`info,clawloop_runner=debug`); `CLAWLOOP_LOG` wins over it.
    pub level: String,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for LoggingConfig {
    fn default() -> Self {
        LoggingConfig {
            level: "info".to_owned(),
            extra: Map::new(),
        }
    }
}
