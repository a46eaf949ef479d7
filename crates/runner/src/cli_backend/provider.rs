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

use std::collections::BTreeMap;
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
use super::output::CliOutput;
use super::output::parse_cli_output;
use super::process::{self, Ending, Launch, Limits, Outcome};
use super::queue::{QueueTurn, RunQueue};
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
    resume_bound_session: bool,
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
            resume_bound_session: true,
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

    /// Serializes with every provider given the same queue, instead of only with this
    /// provider's clones: the runner builds one provider per run and passes its runtime's queue,
    /// so OpenClaw's `serialize` holds across runs.
    pub fn with_queue(mut self, queue: RunQueue) -> Self {
        self.queue = queue;
        self
    }

    /// Starts a new CLI session even when the history binds one (the retry after the CLI
    /// reported its session expired, reference §22 `runPreparedCliAgent`).
    pub fn without_session_resume(mut self) -> Self {
        self.resume_bound_session = false;
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
            let mut builder = AssistantMessageBuilder::new(initial.clone());
            let prepared = match this.prepare(&request, &cancel).await {
                Ok(prepared) => prepared,
                Err(failure) => {
                    yield builder.fail(failure.reason, failure.message);
                    return;
                }
            };
            let running = match process::spawn(prepared.launch()) {
                Ok(running) => running,
                Err(e) => {
                    let message = failure::spawn_failed(&this.backend.id, &prepared.plan.program, &e);
                    yield builder.fail(StopReason::Error, message);
                    return;
                }
            };
            let start = AssistantMessageEvent::Start { partial: Some(Box::new(initial)) };
            builder.apply(&start);
            yield start;
            let prepared_limits = prepared.limits;
            let outcome = running.finish(prepared_limits, &cancel).await;
            // The CLI is gone: its scratch files (system prompt, images) can go too.
            let Prepared { plan, scratch, turn, .. } = prepared;
            drop(turn);
            drop(scratch);
            match this.conclude(&plan, &prepared_limits, outcome) {
                Ok(output) => {
                    for event in this.answer_events(output, &mut builder) {
                        yield event;
                    }
                }
                Err(failure) => yield builder.fail(failure.reason, failure.message),
            }
        })
    }

    /// Everything before the process starts: scratch files, the command line, the queue turn.
    async fn prepare(
        &self,
        request: &CliRequest,
        cancel: &CancellationToken,
    ) -> Result<Prepared, Failure> {
        let backend = &*self.backend;
        if cancel.is_cancelled() {
            return Err(Failure::aborted());
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
        let turn = match self.queue_key(&plan) {
            Some(key) => tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(Failure::aborted()),
                turn = self.queue.turn(key) => Some(turn),
            },
            None => None,
        };
        let (env_remove, env_set) = self.environment();
        let no_output = self
            .no_output_timeout
            .unwrap_or_else(|| backend.watchdog.profile(plan.resume).timeout(self.timeout));
        Ok(Prepared {
            limits: Limits {
                no_output,
                overall: self.timeout,
                max_stdout_bytes: self.max_output_bytes,
            },
            plan,
            scratch,
            turn,
            env_remove,
            env_set,
            cwd: self.workspace.clone(),
        })
    }

    /// The parsed answer of a finished process, or why the call failed.
    fn conclude(
        &self,
        plan: &CliInvocation,
        limits: &Limits,
        outcome: Outcome,
    ) -> Result<CliOutput, Failure> {
        let stdout = String::from_utf8_lossy(&outcome.stdout);
        let status = match outcome.ending {
            Ending::Exited(status) => status,
            Ending::Aborted => return Err(Failure::aborted()),
            Ending::NoOutput => return Err(Failure::error(failure::no_output(limits.no_output))),
            Ending::TimedOut => {
                let limit = limits.overall.unwrap_or_default();
                return Err(Failure::error(failure::timed_out(limit)));
            }
            Ending::OutputTooLarge => {
                return Err(Failure::error(failure::output_too_large(
                    limits.max_stdout_bytes,
                )));
            }
        };
        if !status.success() {
            let stderr = String::from_utf8_lossy(&outcome.stderr_tail);
            return Err(Failure::error(failure::exit_failure(
                status, &stdout, &stderr,
            )));
        }
        Ok(parse_cli_output(
            &stdout,
            &self.backend,
            plan.output,
            plan.session_id.as_deref(),
        ))
    }

    /// The text events and `done` for `output`; the final message carries usage and the
    /// session binding.
    fn answer_events(
        &self,
        output: CliOutput,
        builder: &mut AssistantMessageBuilder,
    ) -> Vec<AssistantMessageEvent> {
        let mut events = Vec::new();
        if !output.text.is_empty() {
            for event in [
                AssistantMessageEvent::TextStart { content_index: 0 },
                AssistantMessageEvent::TextDelta {
                    content_index: 0,
                    delta: output.text.clone(),
                },
                AssistantMessageEvent::TextEnd {
                    content_index: 0,
                    content: output.text,
                    content_signature: None,
                },
            ] {
                builder.apply(&event);
                events.push(event);
            }
        }
        let mut finished = builder.clone();
        let message = finished.message_mut();
        if let Some(usage) = output.usage {
            message.usage = usage;
        }
        if let Some(session_id) = output.session_id {
            CliSessionBinding {
                backend: self.backend.id.clone(),
                session_id,
            }
            .attach(message);
        }
        events.push(finished.finish(StopReason::Stop));
        events
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
    fn environment(&self) -> (Vec<String>, BTreeMap<String, String>) {
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
            Some(mut request) => {
                if !self.resume_bound_session {
                    request.cli_session_id = None;
                }
                self.run(model, request, options.cancel)
            }
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

/// Why a call failed, as its `error` event will say.
struct Failure {
    reason: StopReason,
    message: String,
}

impl Failure {
    fn error(message: String) -> Failure {
        Failure {
            reason: StopReason::Error,
            message,
        }
    }

    fn aborted() -> Failure {
        Failure {
            reason: StopReason::Aborted,
            message: failure::CLI_ABORTED.to_owned(),
        }
    }
}

/// A call ready to start.
struct Prepared {
    plan: CliInvocation,
    /// Removed when dropped, after the CLI is gone.
    scratch: Option<tempfile::TempDir>,
    /// This call's place in the backend's queue, held until the CLI is gone.
    turn: Option<QueueTurn>,
    env_remove: Vec<String>,
    env_set: BTreeMap<String, String>,
    cwd: PathBuf,
    limits: Limits,
}

impl Prepared {
    fn launch(&self) -> Launch<'_> {
        Launch {
            program: &self.plan.program,
            args: &self.plan.args,
            cwd: &self.cwd,
            env_remove: &self.env_remove,
            env_set: &self.env_set,
            stdin: self.plan.stdin.as_deref(),
        }
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
