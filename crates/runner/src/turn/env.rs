//! What every turn of one agent shares: the runtime, the configuration, the stores, the tools
//! and the way stream functions are built.

use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::hooks::Hooks;
use clawloop_core::session_index::SessionIndex;
use clawloop_core::tool::Tool;

use crate::auth::AuthProfileManager;
use crate::config::Config;
use crate::fallback::ProbeThrottle;
use crate::run::{EnvLookup, ProviderFactory};
use crate::runtime::Runtime;

/// One agent's setup for its turns.
#[derive(Clone)]
pub struct TurnEnv {
    /// Lanes, registries and the clock.
    pub runtime: Runtime,
    /// The configuration.
    pub config: Arc<Config>,
    /// The agent id (`main`).
    pub agent_id: String,
    /// The agent directory (`<home>/agents/<id>/agent`): auth files, probe throttle key.
    pub agent_dir: PathBuf,
    /// The clawloop home (`<home>/skills`).
    pub home_dir: Option<PathBuf>,
    /// The workspace tools work in.
    pub workspace_dir: PathBuf,
    /// Session key → transcript.
    pub sessions: Arc<dyn SessionIndex>,
    /// Auth profiles.
    pub auth: AuthProfileManager,
    /// One cooldown probe per provider per 30 s (shared across turns).
    pub probe_throttle: Arc<ProbeThrottle>,
    /// The tool pool.
    pub tools: Vec<Arc<dyn Tool>>,
    /// Lifecycle hooks.
    pub hooks: Arc<dyn Hooks>,
    /// Builds stream functions for resolved models.
    pub provider_factory: ProviderFactory,
    /// Environment lookups for keys.
    pub env: EnvLookup,
    /// The user's time zone.
    pub timezone: String,
}

impl std::fmt::Debug for TurnEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnEnv")
            .field("agent_id", &self.agent_id)
            .field("agent_dir", &self.agent_dir)
            .field("workspace_dir", &self.workspace_dir)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}
