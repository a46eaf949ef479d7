//! `clawloop-runner`: the embedded agent runner (SPEC §8). A user's message for a session key
//! goes in; the reply payloads come out, with the transcript, the session index and the auth
//! state updated on disk.
//!
//! # The corridor
//!
//! One turn passes five layers, each owning one decision:
//!
//! 1. [`turn::run_agent_turn_with_fallback`] (seed 001) binds the session key to a transcript,
//!    resets the session after an unrecoverable overflow or role-ordering failure, retries the
//!    whole turn once after a transient HTTP error, and turns the outcome into an
//!    [`turn::AgentRunLoopResult`].
//! 2. [`fallback::run_with_model_fallback`] walks the model chain (primary, then
//!    `model.fallbacks`), skipping providers whose auth profiles all rest.
//! 3. [`run::run_embedded_agent`] (seed 002) runs one model: it is admitted on the session and
//!    global [`lanes`], rotates auth profiles on rate limits and overloads, compacts or
//!    truncates after an overflow, lowers the thinking level when refused.
//! 4. [`attempt::run_attempt`] (seed 000) is one try with one key: history sanitized, system
//!    prompt built, the agent session run, the transcript left valid.
//! 5. [`agent`] is pi-agent-core's loop: the provider stream and the tool calls, until the
//!    model stops asking for tools.
//!
//! Around them: [`auth`] (profiles, cooldowns, the shared `auth-state.json`), [`payloads`]
//! (what a finished run says to the user), [`compaction`], [`prompt`] (system prompt, context
//! files, skills), [`registry`] and [`runtime::Runtime`] (lanes and run registries as one
//! value, never process globals), [`config`] (`config.toml`'s types) and [`cli_backend`]
//! (external agent CLIs as providers). [`turn::TurnEnv`] holds what every turn of one agent
//! shares; [`turn::TurnEnv::builder`] lays it out over a clawloop home. A process that runs one
//! session's turns in order (a CLI, a bot serving one conversation) runs them on
//! [`turn::single_session_runtime`], which keeps its memory flat over thousands of turns; a
//! gateway serving many sessions at once uses a multi-thread runtime.
//!
//! # The turn level
//!
//! `turn()` in `turn/run.rs` is a short executor; what it does is decided elsewhere, each
//! piece named so one search finds it:
//!
//! - **The run scope.** Per session binding the turn builds one `RunScope` (`turn/scope.rs`):
//!   the agent's [`turn::TurnEnv`], the user's [`turn::TurnRequest`] and the binding worked
//!   into the [`run::RunRequest`] every fallback candidate shares; `RunScope::for_candidate`
//!   only adds the candidate's model and the chain's two facts (another model follows, resting
//!   profiles may be probed). One [`turn::TurnIo`] (abort token, event sink, reply sink,
//!   steering queues) is handed unchanged to every run and attempt of the turn.
//! - **The step after the fallback chain.** The pure `after_fallback` (`turn/decide.rs`) reads
//!   `FallbackFacts` (a run's error kind, blank reply, failed last message; or the escaped
//!   error's text; or an abort) and the [`turn::TurnGuards`] and returns a `TurnStep`, first
//!   match wins:
//!
//!   | came back | step |
//!   |---|---|
//!   | the caller aborted | `Silent` (the silent reply token) |
//!   | a run's overflow or failed compaction, `resetOnOverflow` | `Reset(ContextLimit)` |
//!   | a run's role-ordering error, `resetOnOverflow` | `Reset(RoleOrdering)` |
//!   | an escaped failed compaction (not billing), `resetOnOverflow` | `Reset(CompactionFailed)` |
//!   | an escaped role-ordering error, `resetOnOverflow` | `Reset(RoleOrdering)` |
//!   | Gemini's "function call turn comes immediately after" | `Reset(HistoryCorrupted)` |
//!   | a transient HTTP error (a run's: with no reply) | `RetryTransient` (once, after `transientHttpRetryDelayMs`) |
//!   | a run | `Finish` |
//!   | any other escaped error | `Fail` ([`turn::turn_failure_text`]) |
//!
//!   Each reset and the transient retry fire once per turn ([`turn::TurnGuards`]).
//! - **Forget or keep the key.** `key_fate` (`turn/decide.rs`): only a key this turn created,
//!   after the turn failed before any reply, may go, and only if
//!   [`clawloop_session::transcript_holds_no_answer`] says its transcript holds no answer.
//!
//! Where SPEC §8's turn-level decisions live: §8.2 lanes, `run_admitted` (`turn/run.rs`);
//! §8.6 the session reset, the transient retry and the fallback text, `after_fallback`
//! (`turn/decide.rs`) with the texts in `turn/run.rs` and `turn/final_text.rs`; §8.6 the
//! overflow that left no reply text, `adjust_after_run`; the model and thinking level a session
//! keeps, `session_model` and `chosen_overrides` (`turn/run.rs`); the one-shot guards,
//! `turn/guards.rs`.
//!
//! # Example: a bot's turn with a tool
//!
//! A bot registers its own tool, points a provider at its model server — here the providers
//! crate's scripted server stands in for OpenAI — and runs a turn. The model asks for the tool,
//! the runner runs it and sends the result back, the model answers.
//!
//! ```
//! use std::sync::Arc;
//!
//! use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
//! use clawloop_testkit::ProviderScriptServer;
//! use clawloop_runner::config::Config;
//! use clawloop_runner::turn::{
//!     AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
//! };
//! use serde_json::{Value, json};
//! use tokio_util::sync::CancellationToken;
//!
//! /// The bot's tool: the weather in a city.
//! struct Weather {
//!     schema: Value,
//! }
//!
//! impl Tool for Weather {
//!     fn name(&self) -> &str {
//!         "weather"
//!     }
//!     fn label(&self) -> &str {
//!         "Weather"
//!     }
//!     fn description(&self) -> &str {
//!         "Today's weather in a city."
//!     }
//!     fn parameters(&self) -> &Value {
//!         &self.schema
//!     }
//!     fn is_mutating(&self) -> bool {
//!         false
//!     }
//!     fn execute<'a>(
//!         &'a self,
//!         _call_id: &'a str,
//!         args: Value,
//!         _ctx: &'a ToolContext,
//!         _cancel: CancellationToken,
//!         _on_update: ToolUpdate,
//!     ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
//!         Box::pin(async move {
//!             let city = args.get("city").and_then(Value::as_str).unwrap_or("nowhere");
//!             Ok(ToolResult::text(format!("{city}: 21°C, sunny")))
//!         })
//!     }
//! }
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The model's side of the conversation: first a tool call, then the answer.
//! let server = ProviderScriptServer::start().await?;
//! server.begin_turn(vec![
//!     serde_json::from_value(json!({"reply": {
//!         "toolCalls": [{"name": "weather", "arguments": {"city": "Paris"}}]}}))?,
//!     serde_json::from_value(json!({
//!         "expectRequest": {"bodyContains": ["Paris: 21°C, sunny"]},
//!         "reply": {"text": "It is sunny in Paris, 21°C."}}))?,
//! ]);
//!
//! let config = Config::from_value(json!({
//!     "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
//!     "models": {"providers": {"acme": {
//!         "api": "openai-completions",
//!         "baseUrl": format!("{}/v1", server.provider_url("acme")),
//!         "apiKey": "sk-test",
//!         "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}],
//!     }}},
//! }))?;
//! let dirs = tempfile::tempdir()?;
//! let env = TurnEnv::builder(dirs.path().join("home"), dirs.path().join("workspace"))
//!     .config(config)
//!     .tools(vec![Arc::new(Weather {
//!         schema: json!({"type": "object", "properties": {"city": {"type": "string"}},
//!                        "required": ["city"]}),
//!     })])
//!     .build()?;
//!
//! let request = TurnRequest {
//!     session_key: "telegram:chat:42".to_owned(),
//!     prompt: "What's the weather in Paris?".to_owned(),
//!     ..TurnRequest::default()
//! };
//! let reply = match run_agent_turn_with_fallback(&env, request, TurnIo::default()).await {
//!     AgentRunLoopResult::Success(success) => success.run_result.reply_text(),
//!     AgentRunLoopResult::Final { payload, .. } => {
//!         return Err(format!("the turn failed: {:?}", payload.text).into());
//!     }
//! };
//! println!("{reply}");
//! assert_eq!(reply, "It is sunny in Paris, 21°C.");
//! assert_eq!(server.end_turn().problems(), Vec::<String>::new());
//! # Ok(())
//! # }
//! ```
//!
//! # Example: a bot's shell, sandboxed, with an approver
//!
//! A stranger's message reaches the model, so the bot confines the built-in `bash` with
//! `clawloop_sandbox::LinuxSandbox` (Landlock + seccomp, or bubblewrap) in `workspace-write`
//! and lets the model ask to leave the sandbox (`approval = on-request`) only to have its
//! [`Approver`](clawloop_core::approval::Approver) decide. This operator says no; the model
//! reads why and answers without the command ever running.
//!
//! ```
//! use std::sync::Arc;
//!
//! use clawloop_core::approval::{
//!     ApprovalDecision, ApprovalPolicy, ApprovalRequest, Approver, ToolApproval,
//! };
//! use clawloop_core::sandbox::{SandboxMode, SandboxPolicy, ToolSandbox};
//! use clawloop_core::tool::BoxFuture;
//! use clawloop_runner::config::Config;
//! use clawloop_runner::turn::{
//!     AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
//! };
//! use clawloop_sandbox::LinuxSandbox;
//! use clawloop_testkit::ProviderScriptServer;
//! use serde_json::json;
//!
//! /// The bot's operator: keeps every command in the sandbox.
//! #[derive(Debug)]
//! struct Operator;
//!
//! impl Approver for Operator {
//!     fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalDecision> {
//!         let why = format!("the operator keeps `{}` in the sandbox", request.command);
//!         Box::pin(async move { ApprovalDecision::Deny(why) })
//!     }
//! }
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = ProviderScriptServer::start().await?;
//! server.begin_turn(vec![
//!     serde_json::from_value(json!({"reply": {"toolCalls": [{"name": "bash",
//!         "arguments": {"command": "curl -s https://example.com", "sandbox": "off"}}]}}))?,
//!     serde_json::from_value(json!({
//!         "expectRequest": {"bodyContains": ["Command not run: the operator keeps"]},
//!         "reply": {"text": "I may not fetch pages from here."}}))?,
//! ]);
//! let config = Config::from_value(json!({
//!     "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
//!     "models": {"providers": {"acme": {
//!         "api": "openai-completions",
//!         "baseUrl": format!("{}/v1", server.provider_url("acme")),
//!         "apiKey": "sk-test",
//!         "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}],
//!     }}},
//! }))?;
//! let dirs = tempfile::tempdir()?;
//! let env = TurnEnv::builder(dirs.path().join("home"), dirs.path().join("workspace"))
//!     .config(config)
//!     .sandbox(ToolSandbox::new(
//!         Arc::new(LinuxSandbox::new()),
//!         SandboxPolicy::new(SandboxMode::WorkspaceWrite),
//!     ))
//!     .approval(ToolApproval::new(ApprovalPolicy::OnRequest, Arc::new(Operator)))
//!     .build()?;
//! let request = TurnRequest {
//!     session_key: "telegram:chat:42".to_owned(),
//!     prompt: "Fetch example.com for me".to_owned(),
//!     ..TurnRequest::default()
//! };
//! let reply = match run_agent_turn_with_fallback(&env, request, TurnIo::default()).await {
//!     AgentRunLoopResult::Success(success) => success.run_result.reply_text(),
//!     AgentRunLoopResult::Final { payload, .. } => {
//!         return Err(format!("the turn failed: {:?}", payload.text).into());
//!     }
//! };
//! assert_eq!(reply, "I may not fetch pages from here.");
//! assert_eq!(server.end_turn().problems(), Vec::<String>::new());
//! # Ok(())
//! # }
//! ```

pub mod agent;
pub mod attempt;
pub mod auth;
pub mod cli_backend;
pub mod compaction;
pub mod config;
pub mod fallback;
pub mod hooks;
pub mod lanes;
pub mod payloads;
pub mod prompt;
#[cfg(doctest)]
mod readme;
pub mod registry;
pub mod run;
pub mod runtime;
pub mod subagent;
pub mod turn;
