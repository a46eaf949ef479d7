//! What a run is asked to do and what it gives back (`RunEmbeddedPiAgentParams` and the run's
//! outcome before payloads, seed 002).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::approval::ToolApproval;
use clawloop_core::clock::Clock;
use clawloop_core::hooks::{HookContext, Hooks};
use clawloop_core::message::ImageContent;
use clawloop_core::model::Model;
use clawloop_core::provider::LlmStream;
use clawloop_core::sandbox::ToolSandbox;
use clawloop_core::tool::Tool;
use clawloop_core::{FailoverError, ThinkLevel};
use clawloop_tools::client_tools::ClientToolDefinition;

use crate::attempt::AttemptResult;
use crate::auth::AuthProfileManager;
use crate::config::Config;
use crate::payloads::RunErrorKind;
use crate::prompt::{PromptMode, PromptProfile};

/// Builds the stream function for a resolved model (the providers crate's dispatch, wrappers
/// applied); an error names what is wrong (an unknown API, say).
pub type ProviderFactory = Arc<dyn Fn(&Model) -> Result<Arc<dyn LlmStream>, String> + Send + Sync>;

/// Looks an environment variable up (the process environment, or a map in tests).
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The inputs of one run with one model.
#[derive(Clone)]
pub struct RunRequest {
    /// The run id.
    pub run_id: String,
    /// The agent id.
    pub agent_id: String,
    /// The session key.
    pub session_key: Option<String>,
    /// The session id.
    pub session_id: String,
    /// The transcript file.
    pub session_file: PathBuf,
    /// The workspace.
    pub workspace_dir: PathBuf,
    /// The clawloop home.
    pub home_dir: Option<PathBuf>,
    /// The user's prompt.
    pub prompt: String,
    /// Images with the prompt.
    pub images: Vec<ImageContent>,
    /// Client tools offered.
    pub client_tools: Vec<ClientToolDefinition>,
    /// Appended to the system prompt.
    pub extra_system_prompt: Option<String>,
    /// Full or minimal system prompt.
    pub prompt_mode: PromptMode,
    /// Gateway or coding prompt.
    pub prompt_profile: PromptProfile,
    /// Replaces the generated system prompt.
    pub system_prompt: Option<String>,
    /// The most tool rounds a prompt may take; `None` for no limit.
    pub max_tool_rounds: Option<u32>,
    /// The provider id.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// The thinking level asked for.
    pub thinking: ThinkLevel,
    /// A profile the user locked (no rotation).
    pub locked_profile: Option<String>,
    /// Whether another model would be tried after this one (decides throw vs payload).
    pub fallback_configured: bool,
    /// Whether an all-resting profile list may be probed once (model fallback decides).
    pub allow_transient_cooldown_probe: bool,
    /// The configuration.
    pub config: Arc<Config>,
    /// The tool pool.
    pub tools: Vec<Arc<dyn Tool>>,
    /// The sandbox every tool call of the run gets in its context; `None`: commands run
    /// with the user's rights.
    pub sandbox: Option<ToolSandbox>,
    /// When the run's `bash` calls need the host's approval, and who gives it.
    pub approval: Option<ToolApproval>,
    /// The whole run's time limit.
    pub timeout: Option<Duration>,
    /// Lifecycle hooks.
    pub hooks: Arc<dyn Hooks>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// The user's time zone.
    pub timezone: String,
    /// Auth profiles, when the agent has a store.
    pub auth: Option<AuthProfileManager>,
    /// Builds stream functions.
    pub provider_factory: ProviderFactory,
    /// Environment lookups for keys.
    pub env: EnvLookup,
    /// The runtime's queue for serialized CLI-backend runs.
    pub cli_queue: crate::cli_backend::RunQueue,
}

impl RunRequest {
    /// The hooks' view of the run: the one place every hook call of the run and its attempts
    /// gets it from.
    pub fn hook_context(&self) -> HookContext {
        HookContext {
            agent_id: self.agent_id.clone(),
            session_key: self.session_key.clone(),
            session_id: self.session_id.clone(),
            run_id: self.run_id.clone(),
            workspace_dir: Some(self.workspace_dir.clone()),
        }
    }
}

/// How a run ended, before payloads are built from it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEnding {
    /// The last attempt's reply (or its error) is the answer.
    Completed,
    /// The run gave up with an error payload.
    ErrorPayload {
        /// The user-facing text.
        text: String,
        /// `meta.error.kind`.
        kind: RunErrorKind,
        /// `meta.error.message`.
        message: String,
    },
}

/// What a run did.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// How it ended.
    pub ending: RunEnding,
    /// Every attempt, in order (usage is summed over them).
    pub attempts: Vec<AttemptResult>,
    /// The provider that answered last.
    pub provider: String,
    /// The model that answered last.
    pub model: String,
    /// The profile in use at the end.
    pub profile_id: Option<String>,
    /// Compactions made (by attempts and by the overflow chain).
    pub compaction_count: u32,
    /// How long the run took.
    pub duration_ms: u64,
}

impl RunOutcome {
    /// The last attempt.
    pub fn last_attempt(&self) -> Option<&AttemptResult> {
        self.attempts.last()
    }
}

/// A run that did not end with a result: the model-fallback layer decides what comes next.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// A failover error: try the next model.
    #[error("{0}")]
    Failover(Box<FailoverError>),
    /// The caller aborted the run.
    #[error("Operation aborted")]
    Aborted,
    /// Any other failure, surfaced as it is.
    #[error("{0}")]
    Failed(String),
}
