//! [`CliBackendProvider`]: an external agent CLI behind pi's provider seam
//! ([`LlmStream`]), so the agent loop, fallback and the run loop treat it like any model.
//!
//! One call = one process. The CLI does not stream into pi's events (OpenClaw's CLI runner
//! does not either): its output is parsed once it exits, then the stream is `start`,
//! `text_start`, one `text_delta` with the whole answer, `text_end`, `done` — or, on any
//! failure, `error` whose `errorMessage` says what happened (the CLI's stderr tail and exit
//! status, the watchdog, the timeout, the abort). `start` is sent once the process runs; a
//! call that never started a process ends with `error` alone, as an HTTP provider does when
//! the connection fails.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent, Clock,
    Context, LlmStream, Model, StopReason, StreamOptions, SystemClock,
};
use tokio_util::sync::CancellationToken;

use super::config::CliBackendConfig;
use super::failure;
use super::invocation::{CliInvocation, needs_scratch, plan_invocation};
use super::output::parse_cli_output;
use super::process::{self, Ending, Launch, Limits};
use super::queue::RunQueue;
use super::request::CliRequest;
use super::session::CliSessionBinding;

/// Environment variable listing `clearEnv` names to keep anyway (comma or space separated),
/// for running a CLI against a test account.
pub const PRESERVE_ENV_VAR: &str = "CLAWLOOP_LIVE_CLI_BACKEND_PRESERVE_ENV";

/// Always removed: it would tell Claude Code a host manages its provider.
const MANAGED_BY_HOST_ENV: &str = "CLAUDE_CODE_PROVIDER_MANAGED_BY_HOST";

/// Default limit of a call's stdout.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 32 * 1024 * 1024;

/// Default overall limit of a call (SPEC §2 `agents.defaults.timeoutSeconds`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// A CLI backend as a provider. Cheap to clone; clones share the serialization queue.
#[derive(Clone)]
pub struct CliBackendProvider {
    backend: Arc<CliBackendConfig>,
    workspace: PathBuf,
    timeout: Option<Duration>,
    no_output_timeout: Option<Duration>,
    max_output_bytes: usize,
    queue: RunQueue,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for CliBackendProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliBackendProvider")
            .field("backend", &self.backend.id)
            .field("workspace", &self.workspace)
            .field("timeout", &self.timeout)
            .field("no_output_timeout", &self.no_output_timeout)
            .finish_non_exhaustive()
    }
}

impl CliBackendProvider {
    /// A provider running `backend` in the current directory with the default timeout.
    pub fn new(backend: CliBackendConfig) -> Self {
        CliBackendProvider {
            backend: Arc::new(backend),
            workspace: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            timeout: Some(DEFAULT_TIMEOUT),
            no_output_timeout: None,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            queue: RunQueue::default(),
            clock: Arc::new(SystemClock),
        }
    }

    /// Runs the CLI in `dir` (the agent's workspace).
    pub fn with_workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = dir.into();
        self
    }

    /// The overall limit of a call (`None` = none); also the base of the computed watchdog.
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// A fixed no-output timeout, overriding the backend's watchdog profiles (unclamped, so
    /// embedders and tests can choose short ones).
    pub fn with_no_output_timeout(mut self, timeout: Duration) -> Self {
        self.no_output_timeout = Some(timeout);
        self
    }

    /// The limit of a call's stdout in bytes.
    pub fn with_max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }

    /// The clock for message timestamps.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The backend.
    pub fn backend(&self) -> &CliBackendConfig {
        &self.backend
    }

    /// Runs one call. `model` names the model (aliases of the backend apply); the final
    /// message of a successful call carries the CLI session binding (see
    /// [`super::session`]).
    pub fn run(
        &self,
        model: &Model,
        request: CliRequest,
        cancel: CancellationToken,
    ) -> AssistantEventStream {
        let initial = AssistantMessage::for_model(model, self.clock.now_ms());
        let this = self.clone();
        Box::pin(async_stream::stream! {
            match this.execute(&request, &cancel, initial.clone()).await {
                Ok(events) => {
                    for event in events {
                        yield event;
                    }
                }
                Err(failure) => {
                    let mut builder = AssistantMessageBuilder::new(initial);
                    for event in failure.started {
                        builder.apply(&event);
                        yield event;
                    }
                    yield builder.fail(failure.reason, failure.message);
                }
            }
        })
    }

    /// The whole call: its events, ending with `done`, or the failure to report.
    async fn execute(
        &self,
        request: &CliRequest,
        cancel: &CancellationToken,
        initial: AssistantMessage,
    ) -> Result<Vec<AssistantMessageEvent>, Failure> {
        let backend = &*self.backend;
        if cancel.is_cancelled() {
            return Err(Failure::aborted(Vec::new()));
        }
        let scratch = if needs_scratch(backend, request) {
            let dir = tempfile::Builder::new()
                .prefix("clawloop-cli-")
                .tempdir()
                .map_err(|e| {
                    Failure::error(format!(
                        "CLI backend {}: no scratch directory: {e}",
                        backend.id
                    ))
                })?;
            Some(dir)
        } else {
            None
        };
        let plan = plan_invocation(
            backend,
            request,
            clawloop_session::uuid_v4,
            scratch.as_ref().map(tempfile::TempDir::path),
        )
        .map_err(|e| Failure::error(format!("CLI backend {}: {e}", backend.id)))?;
        for file in &plan.files {
            write_private(&file.path, &file.contents).map_err(|e| {
                Failure::error(format!(
                    "CLI backend {}: could not write {}: {e}",
                    backend.id,
                    file.path.display()
                ))
            })?;
        }

        let _turn = match self.queue_key(&plan) {
            Some(key) => tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(Failure::aborted(Vec::new())),
                turn = self.queue.turn(key) => Some(turn),
            },
            None => None,
        };

        let (env_remove, env_set) = self.environment();
        let no_output = self
            .no_output_timeout
            .unwrap_or_else(|| backend.watchdog.profile(plan.resume).timeout(self.timeout));
        let limits = Limits {
            no_output,
            overall: self.timeout,
            max_stdout_bytes: self.max_output_bytes,
        };
        let launch = Launch {
            program: &plan.program,
            args: &plan.args,
            cwd: &self.workspace,
            env_remove: &env_remove,
            env_set: &env_set,
            stdin: plan.stdin.as_deref(),
        };
        // `start` is only sent once the process runs; it travels with the outcome.
        let started = vec![AssistantMessageEvent::Start {
            partial: Some(Box::new(initial.clone())),
        }];
        let outcome = process::run(launch, limits, cancel)
            .await
            .map_err(|e| Failure::error(failure::spawn_failed(&backend.id, &plan.program, &e)))?;
        drop(scratch);

        let stdout = String::from_utf8_lossy(&outcome.stdout);
        let status = match outcome.ending {
            Ending::Exited(status) => status,
            Ending::Aborted => return Err(Failure::aborted(started)),
            Ending::NoOutput => {
                return Err(Failure::error(failure::no_output(no_output)).after(started));
            }
            Ending::TimedOut => {
                let limit = self.timeout.unwrap_or_default();
                return Err(Failure::error(failure::timed_out(limit)).after(started));
            }
            Ending::OutputTooLarge => {
                return Err(
                    Failure::error(failure::output_too_large(self.max_output_bytes)).after(started),
                );
            }
        };
        if !status.success() {
            let stderr = String::from_utf8_lossy(&outcome.stderr_tail);
            return Err(
                Failure::error(failure::exit_failure(status, &stdout, &stderr)).after(started),
            );
        }

        let output = parse_cli_output(&stdout, backend, plan.output, plan.session_id.as_deref());
        let mut builder = AssistantMessageBuilder::new(initial);
        let mut events = started;
        for event in &events {
            builder.apply(event);
        }
        if !output.text.is_empty() {
            for event in [
                AssistantMessageEvent::TextStart { content_index: 0 },
                AssistantMessageEvent::TextDelta {
                    content_index: 0,
                    delta: output.text.clone(),
                },
                AssistantMessageEvent::TextEnd {
                    content_index: 0,
                    content: output.text.clone(),
                    content_signature: None,
                },
            ] {
                builder.apply(&event);
                events.push(event);
            }
        }
        let message = builder.message_mut();
        if let Some(usage) = output.usage {
            message.usage = usage;
        }
        if let Some(session_id) = output.session_id {
            CliSessionBinding {
                backend: backend.id.clone(),
                session_id,
            }
            .attach(message);
        }
        events.push(builder.finish(StopReason::Stop));
        Ok(events)
    }

    /// OpenClaw's queue key: none when `serialize` is off; for Claude, its session (or
    /// workspace); else the backend, which serializes every call of it.
    fn queue_key(&self, plan: &CliInvocation) -> Option<String> {
        let backend = &*self.backend;
        if !backend.serialize {
            return None;
        }
        if backend.uses_claude_dialect() {
            return Some(match (&plan.session_id, plan.resume) {
                (Some(id), true) => format!("{}:session:{id}", backend.id),
                _ => format!("{}:workspace:{}", backend.id, self.workspace.display()),
            });
        }
        Some(backend.id.clone())
    }

    /// Variables to remove (`clearEnv` minus the preserved ones) and to set (`env`).
    fn environment(&self) -> (Vec<String>, std::collections::BTreeMap<String, String>) {
        let preserved = std::env::var(PRESERVE_ENV_VAR).unwrap_or_default();
        let preserved: Vec<&str> = preserved
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect();
        let mut remove: Vec<String> = self
            .backend
            .clear_env
            .iter()
            .filter(|name| !preserved.contains(&name.as_str()))
            .cloned()
            .collect();
        remove.push(MANAGED_BY_HOST_ENV.to_owned());
        let mut set = self.backend.env.clone();
        set.remove(MANAGED_BY_HOST_ENV);
        (remove, set)
    }
}

impl LlmStream for CliBackendProvider {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        match CliRequest::from_context(&self.backend.id, &model.id, context) {
            Some(request) => self.run(model, request, options.cancel),
            None => {
                let initial = AssistantMessage::for_model(model, self.clock.now_ms());
                let message = format!(
                    "CLI backend {} needs a user message to send",
                    self.backend.id
                );
                clawloop_core::provider::stream_of(vec![
                    AssistantMessageBuilder::new(initial).fail(StopReason::Error, message),
                ])
            }
        }
    }
}

/// A failed call: the events already due (`start` when the process ran) and the error.
struct Failure {
    started: Vec<AssistantMessageEvent>,
    reason: StopReason,
    message: String,
}

impl Failure {
    fn error(message: String) -> Failure {
        Failure {
            started: Vec::new(),
            reason: StopReason::Error,
            message,
        }
    }

    fn aborted(started: Vec<AssistantMessageEvent>) -> Failure {
        Failure {
            started,
            reason: StopReason::Aborted,
            message: failure::CLI_ABORTED.to_owned(),
        }
    }

    fn after(mut self, started: Vec<AssistantMessageEvent>) -> Failure {
        self.started = started;
        self
    }
}

/// Writes a scratch file readable by the owner only (system prompts and images are private).
fn write_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents)
}
