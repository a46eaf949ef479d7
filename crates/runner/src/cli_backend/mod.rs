//! CLI backends (SPEC §8.9, reference §22): an external agent CLI — Claude Code, the Codex
//! CLI, or any configured command — run as a provider.
//!
//! * [`CliBackendConfig`] resolves `[cliBackends.<id>]` over the built-in presets
//!   ([`presets`]); [`CliBackendSettings`] is the table as written.
//! * [`CliBackendProvider`] implements [`clawloop_core::LlmStream`]: one call spawns the CLI
//!   in its own process group with the newest user message (and the system prompt when the
//!   backend wants it), enforces the no-output watchdog, parses the output ([`parse_cli_output`])
//!   and emits pi's stream events.
//! * [`cli_backend_for_provider`] tells whether a run's provider id names a backend, and
//!   [`cli_backend_model`] is the model such a run resolves to: a turn whose provider is a
//!   backend runs through [`CliBackendProvider`] (see `crate::run::provider_for_run`).
//! * [`session`] explains how the CLI's own session id is bound to the conversation so the next
//!   call resumes it.
//!
//! # Example
//!
//! ```
//! use clawloop_runner::cli_backend::{CliBackendConfig, CliBackendProvider};
//! use serde_json::json;
//!
//! let backend = CliBackendConfig::resolve("claude-cli", Some(&json!({"command": "/opt/claude"})))?;
//! assert_eq!(backend.command, "/opt/claude");
//! let provider = CliBackendProvider::new(backend).with_workspace("/tmp");
//! assert_eq!(provider.backend().id, "claude-cli");
//! # Ok::<(), clawloop_runner::config::ConfigError>(())
//! ```

mod config;
mod failure;
mod invocation;
mod output;
pub mod presets;
mod process;
mod provider;
mod queue;
pub use queue::RunQueue;
mod request;
mod selection;
pub mod session;
mod settings;
mod watchdog;

pub use config::{CliBackendConfig, DEFAULT_SESSION_ID_FIELDS, normalize_backend_id};
pub(crate) use failure::timed_out as cli_timed_out_text;
pub use failure::{CLI_ABORTED, is_cli_timeout_text};
pub use invocation::{CliInvocation, PlanError, ScratchFile, needs_scratch, plan_invocation};
pub use output::{CliOutput, parse_cli_output};
pub use provider::{
    CliBackendProvider, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, PRESERVE_ENV_VAR,
};
pub use request::CliRequest;
pub use selection::{
    CLI_BACKEND_API, CLI_DEFAULT_MAX_TOKENS, cli_backend_for_provider, cli_backend_model,
};
pub use session::{CLI_SESSION_BINDING_KEY, CliSessionBinding, find_cli_session};
pub use settings::{
    CliBackendSettings, CliImageMode, CliInputMode, CliOutputFormat, CliSessionMode, JsonlDialect,
    ReliabilitySettings, SystemPromptMode, SystemPromptWhen, WatchdogProfileSettings,
    WatchdogSettings,
};
pub use watchdog::{CliWatchdog, MIN_WATCHDOG_MS, WatchdogProfile};
