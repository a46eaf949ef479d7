//! What one attempt is given (OpenClaw's `RunEmbeddedPiAgentParams` as `runEmbeddedAttempt`
//! sees them, seed 000): who, where, what, with which model, under which policy.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::ThinkLevel;
use clawloop_core::clock::Clock;
use clawloop_core::hooks::Hooks;
use clawloop_core::message::ImageContent;
use clawloop_core::model::Model;
use clawloop_core::provider::LlmStream;
use clawloop_core::tool::Tool;
use clawloop_tools::client_tools::ClientToolDefinition;

use crate::config::Config;
use crate::prompt::{PromptMode, PromptProfile};

/// The inputs of [`run_attempt`](crate::attempt::run_attempt).
#[derive(Clone)]
pub struct AttemptParams {
    /// The run's id (hooks, registries, logs).
    pub run_id: String,
    /// The agent id (`main` by default).
    pub agent_id: String,
    /// The session key, when the run has one.
    pub session_key: Option<String>,
    /// The session id (the header id of a new transcript).
    pub session_id: String,
    /// The transcript file.
    pub session_file: PathBuf,
    /// The workspace the tools work in (created when missing).
    pub workspace_dir: PathBuf,
    /// The clawloop home, for `<home>/skills`.
    pub home_dir: Option<PathBuf>,
    /// The user's prompt.
    pub prompt: String,
    /// Images sent with the prompt.
    pub images: Vec<ImageContent>,
    /// Client (hosted) tools offered for this run.
    pub client_tools: Vec<ClientToolDefinition>,
    /// Appended to the system prompt (`--append-system-prompt`).
    pub extra_system_prompt: Option<String>,
    /// Full prompt for the main agent, minimal for subagents.
    pub prompt_mode: PromptMode,
    /// Gateway or coding prompt.
    pub prompt_profile: PromptProfile,
    /// Replaces the generated system prompt (pi's `--system-prompt`, see
    /// [`SystemPromptParams::custom_prompt`](crate::prompt::SystemPromptParams)).
    pub system_prompt: Option<String>,
    /// The most tool rounds (model replies with tool calls) the prompt may take; `None` for no
    /// limit.
    pub max_tool_rounds: Option<u32>,
    /// The model called.
    pub model: Model,
    /// Its stream function, wrappers applied.
    pub provider: Arc<dyn LlmStream>,
    /// The key for the model's provider, when it needs one.
    pub api_key: Option<String>,
    /// The thinking level.
    pub thinking: ThinkLevel,
    /// The configuration.
    pub config: Arc<Config>,
    /// The tool pool before the tool policy (built-ins and embedder tools).
    pub tools: Vec<Arc<dyn Tool>>,
    /// The whole run's time limit; `None` for none.
    pub timeout: Option<Duration>,
    /// Lifecycle hooks.
    pub hooks: Arc<dyn Hooks>,
    /// The clock every timestamp reads.
    pub clock: Arc<dyn Clock>,
    /// The user's time zone for the prompt's date line (`UTC` when unknown).
    pub timezone: String,
}
