//! What every turn of one agent shares: the runtime, the configuration, the stores, the tools
//! and the way stream functions are built; and [`TurnEnvBuilder`], which lays all of it out
//! over a clawloop home the way SPEC §2 places the files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::approval::{ApprovalPolicy, ToolApproval};
use clawloop_core::clock::{Clock, SystemClock};
use clawloop_core::hooks::{Hooks, NoHooks};
use clawloop_core::sandbox::ToolSandbox;
use clawloop_core::session_index::SessionIndex;
use clawloop_core::tool::Tool;
use clawloop_providers::{HttpTransport, TransportConfig, TransportError};
use clawloop_session::{DEFAULT_AGENT_ID, SessionError, SessionStore, sessions_dir};
use clawloop_tools::bash::BashTool;
use clawloop_tools::builtins::builtin_tools_with_bash;

use crate::auth::{AuthProfileManager, FileAuthStore};
use crate::config::Config;
use crate::fallback::ProbeThrottle;
use crate::prompt::PromptProfile;
use crate::run::{EnvLookup, ProviderFactory, http_provider_factory};
use crate::runtime::Runtime;

/// The time zone the system prompt uses when none is set.
const DEFAULT_TIMEZONE: &str = "UTC";

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
    /// Whose system prompt the turns get.
    pub prompt_profile: PromptProfile,
    /// The sandbox every tool call runs with, its policy completed by
    /// [`TurnEnvBuilder::build`]; `None`: commands run with the user's rights.
    pub sandbox: Option<ToolSandbox>,
    /// When `bash` calls need the host's approval, and who gives it; `None`: never asked.
    pub approval: Option<ToolApproval>,
}

impl std::fmt::Debug for TurnEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnEnv")
            .field("agent_id", &self.agent_id)
            .field("agent_dir", &self.agent_dir)
            .field("workspace_dir", &self.workspace_dir)
            .field("tools", &self.tools.len())
            .field("sandbox", &self.sandbox)
            .field("approval", &self.approval)
            .finish_non_exhaustive()
    }
}

impl TurnEnv {
    /// A builder for an agent of the clawloop home `home` whose tools work in `workspace`:
    /// auth files in `<home>/agents/<agentId>/agent`, sessions in
    /// `<home>/agents/<agentId>/sessions`, HTTP providers, the built-in tools, the system
    /// clock, keys from the process environment. See [`TurnEnvBuilder`] to change any of it.
    pub fn builder(home: impl Into<PathBuf>, workspace: impl Into<PathBuf>) -> TurnEnvBuilder {
        TurnEnvBuilder {
            home: home.into(),
            workspace: workspace.into(),
            config: Config::default(),
            agent_id: DEFAULT_AGENT_ID.to_owned(),
            clock: Arc::new(SystemClock),
            tools: None,
            extra_tools: Vec::new(),
            hooks: Arc::new(NoHooks),
            env: None,
            timezone: DEFAULT_TIMEZONE.to_owned(),
            transport: TransportConfig::default(),
            prompt_profile: PromptProfile::default(),
            sandbox: None,
            approval: None,
        }
    }
}

/// Why a [`TurnEnv`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum TurnEnvError {
    /// The agent id cannot name a directory.
    #[error("cannot build the turn environment: {0}")]
    AgentId(#[source] SessionError),
    /// A directory could not be created.
    #[error("cannot create the {what} {}: {source}", path.display())]
    CreateDir {
        /// Which one: `agent directory` or `workspace`.
        what: &'static str,
        /// Its path.
        path: PathBuf,
        /// The failure.
        #[source]
        source: std::io::Error,
    },
    /// The HTTP client could not be created.
    #[error("cannot create the HTTP client for providers: {0}")]
    Transport(#[source] TransportError),
}

/// Builds a [`TurnEnv`] over a clawloop home (SPEC §2).
///
/// Every part has a default a bot needs no code for; a test swaps in a manual clock, an
/// embedder adds its own tools or hooks.
#[must_use = "a builder does nothing until `build` is called"]
pub struct TurnEnvBuilder {
    home: PathBuf,
    workspace: PathBuf,
    config: Config,
    agent_id: String,
    clock: Arc<dyn Clock>,
    tools: Option<Vec<Arc<dyn Tool>>>,
    extra_tools: Vec<Arc<dyn Tool>>,
    hooks: Arc<dyn Hooks>,
    env: Option<EnvLookup>,
    timezone: String,
    transport: TransportConfig,
    prompt_profile: PromptProfile,
    sandbox: Option<ToolSandbox>,
    approval: Option<ToolApproval>,
}

impl std::fmt::Debug for TurnEnvBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnEnvBuilder")
            .field("home", &self.home)
            .field("workspace", &self.workspace)
            .field("agent_id", &self.agent_id)
            .field("extra_tools", &self.extra_tools.len())
            .finish_non_exhaustive()
    }
}

impl TurnEnvBuilder {
    /// The configuration (default: [`Config::default`], SPEC's defaults with no model).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The agent id (default `main`); it names the agent's directories, so it must be a plain
    /// file name.
    pub fn agent_id(mut self, agent_id: impl Into<String>) -> Self {
        self.agent_id = agent_id.into();
        self
    }

    /// The clock every cooldown, timestamp and lane reads (default: the system clock).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The whole tool pool instead of the built-in tools.
    pub fn tools(mut self, tools: Vec<Arc<dyn Tool>>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// One more tool, after the pool (the built-in tools unless [`TurnEnvBuilder::tools`]
    /// replaced them).
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.extra_tools.push(tool);
        self
    }

    /// Lifecycle hooks (default: none).
    pub fn hooks(mut self, hooks: Arc<dyn Hooks>) -> Self {
        self.hooks = hooks;
        self
    }

    /// Where keys named by environment variables are looked up (default: the process
    /// environment).
    pub fn env_lookup(mut self, env: EnvLookup) -> Self {
        self.env = Some(env);
        self
    }

    /// The user's time zone for the system prompt (default `UTC`).
    pub fn timezone(mut self, timezone: impl Into<String>) -> Self {
        self.timezone = timezone.into();
        self
    }

    /// Whose system prompt the turns get (default: [`PromptProfile::Gateway`], OpenClaw's
    /// channel prompt; a terminal coding agent wants [`PromptProfile::Coding`]).
    pub fn prompt_profile(mut self, profile: PromptProfile) -> Self {
        self.prompt_profile = profile;
        self
    }

    /// The sandbox every tool call runs with (default: none, commands run with the user's
    /// rights). An embedder whose model reads strangers' messages sets one explicitly, e.g.
    /// `clawloop_sandbox::LinuxSandbox` with
    /// [`SandboxMode::WorkspaceWrite`](clawloop_core::sandbox::SandboxMode::WorkspaceWrite).
    /// The clawloop home is added to the policy's protected paths.
    pub fn sandbox(mut self, sandbox: ToolSandbox) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Who approves `bash` calls, and when (default: nobody is asked, and the model cannot
    /// ask to leave the sandbox). With [`ApprovalPolicy::OnRequest`] the built-in `bash`
    /// offers the model `sandbox: "off"` (a pool set with [`TurnEnvBuilder::tools`] offers it
    /// where its `bash` is [`BashTool::offering_unsandboxed`]).
    pub fn approval(mut self, approval: ToolApproval) -> Self {
        self.approval = Some(approval);
        self
    }

    /// The HTTP client's settings (default: [`TransportConfig::default`]).
    pub fn transport(mut self, transport: TransportConfig) -> Self {
        self.transport = transport;
        self
    }

    /// The environment; creates the agent directory (mode 0700) and the workspace if they
    /// are missing (the session store creates its directory when it first writes).
    pub fn build(self) -> Result<TurnEnv, TurnEnvError> {
        let sessions = sessions_dir(&self.home, &self.agent_id).map_err(TurnEnvError::AgentId)?;
        let agent_dir = self.home.join("agents").join(&self.agent_id).join("agent");
        // The agent dir exists up front so an embedder can put `auth-profiles.json` in it;
        // it holds secrets, so it is private like the auth store makes it. The session store
        // creates its directory on first write.
        create_dir("agent directory", &agent_dir, true)?;
        create_dir("workspace", &self.workspace, false)?;
        let transport = HttpTransport::new(self.transport).map_err(TurnEnvError::Transport)?;
        let config = Arc::new(self.config);
        let clock = self.clock;
        // The way out is offered only where there is a sandbox to leave.
        let on_request = self
            .approval
            .as_ref()
            .is_some_and(|a| a.policy == ApprovalPolicy::OnRequest)
            && self.sandbox.as_ref().is_some_and(ToolSandbox::is_active);
        let mut tools = self.tools.unwrap_or_else(|| {
            let bash = BashTool::new();
            let bash = if on_request {
                bash.offering_unsandboxed()
            } else {
                bash
            };
            builtin_tools_with_bash(None, bash)
        });
        tools.extend(self.extra_tools);
        let sandbox = self
            .sandbox
            .map(|sandbox| completed_policy(sandbox, &self.home, &config));
        let env = self
            .env
            .unwrap_or_else(|| Arc::new(|name: &str| std::env::var(name).ok()));
        Ok(TurnEnv {
            runtime: Runtime::builder()
                .config(&config)
                .clock(Arc::clone(&clock))
                .build(),
            agent_id: self.agent_id,
            auth: AuthProfileManager::new(
                Arc::new(FileAuthStore::new(&agent_dir)),
                Arc::new(config.auth.clone()),
                Arc::clone(&clock),
            ),
            agent_dir,
            home_dir: Some(self.home),
            workspace_dir: self.workspace,
            sessions: Arc::new(SessionStore::new(sessions).with_clock(Arc::clone(&clock))),
            probe_throttle: Arc::new(ProbeThrottle::new(clock)),
            tools,
            hooks: self.hooks,
            provider_factory: http_provider_factory(transport, Arc::clone(&config)),
            env,
            timezone: self.timezone,
            prompt_profile: self.prompt_profile,
            sandbox,
            approval: self.approval,
            config,
        })
    }
}

/// `sandbox` with the clawloop home protected and the configured providers' key variables
/// hidden from commands, whatever their names: the name rule alone would let
/// `apiKey = "MY_LLM_CRED"` through to the command.
fn completed_policy(mut sandbox: ToolSandbox, home: &Path, config: &Config) -> ToolSandbox {
    if !sandbox.policy.protected.iter().any(|p| p == home) {
        sandbox.policy.protected.push(home.to_path_buf());
    }
    for name in config.models.api_key_variables() {
        if !sandbox.policy.secret_env.contains(&name) {
            sandbox.policy.secret_env.push(name);
        }
    }
    sandbox
}

/// Creates `path` and its missing parents; `private` ones get mode 0700 (on Unix).
fn create_dir(what: &'static str, path: &Path, private: bool) -> Result<(), TurnEnvError> {
    if path.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    #[cfg(not(unix))]
    let _ = private;
    builder
        .create(path)
        .map_err(|source| TurnEnvError::CreateDir {
            what,
            path: path.to_path_buf(),
            source,
        })
}
