//! What every auth command starts from: the home, its config and the agent's auth store.

use std::path::PathBuf;

use clawloop_runner::auth::FileAuthStore;
use clawloop_runner::config::Config;
use clawloop_session::DEFAULT_AGENT_ID;

use super::Failure;
use crate::config::{home_dir, load_config};

/// The home's configuration and the default agent's auth store.
#[derive(Debug)]
pub struct AuthContext {
    /// `<home>/config.toml`, or the defaults.
    pub config: Config,
    /// The store in `<home>/agents/<agentId>/agent/`.
    pub store: FileAuthStore,
}

impl AuthContext {
    /// Finds the home and loads its config; a bad config is a usage error (exit 2).
    pub fn load() -> Result<Self, Failure> {
        let home = home_dir().map_err(|err| Failure::usage(err.to_string()))?;
        let config = load_config(&home).map_err(|err| Failure::usage(err.to_string()))?;
        let store = FileAuthStore::new(agent_dir(&home, DEFAULT_AGENT_ID));
        Ok(AuthContext { config, store })
    }
}

/// `<home>/agents/<agentId>/agent`, where the runner keeps the auth files (SPEC §2).
pub fn agent_dir(home: &std::path::Path, agent_id: &str) -> PathBuf {
    home.join("agents").join(agent_id).join("agent")
}

/// The current time in ms since the epoch, as the auth store's JS-number times.
pub fn now_ms() -> f64 {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    // Epoch milliseconds stay far below 2^53, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let ms = ms as f64;
    ms
}
