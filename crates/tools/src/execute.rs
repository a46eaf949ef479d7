//! Executing an assistant message's tool calls with pi 0.58's semantics (pi-mono §2.3).
//!
//! Each call is *prepared* (`tool_execution_start`; unknown tool → `Tool <name> not found`;
//! argument validation; `before_tool_call`), *executed* (`tool_execution_update` for every
//! partial result) and *finalized* (`after_tool_call`; `tool_execution_end`; the tool result
//! message's `message_start` and `message_end`). A call that fails before it runs is finalized
//! at once, without `after_tool_call`.
//!
//! * [`ExecutionMode::Parallel`] (pi's default): all calls are prepared in order, then the
//!   runnable ones run concurrently and are finalized in call order (a later call's end waits
//!   for the earlier ones). Calls that failed preparation were finalized already, so their
//!   results come first, as in pi. Steering is polled after each preparation; if messages are
//!   waiting, the prepared calls are skipped (no second start event) and the remaining calls get
//!   a start and a skip. Steering is polled once more at the end.
//! * [`ExecutionMode::Sequential`]: prepare, run and finalize one call at a time, polling
//!   steering after each; waiting messages skip every remaining call.
//!
//! A skipped call's result is the error `Skipped due to queued user message.`.
//!
//! Tools run as tokio tasks (when a runtime is present), so a panicking tool becomes an error
//! result instead of taking the run down, and dropping the execution aborts them. When the
//! cancellation token fires, a tool gets [`ToolExecutor::with_abort_grace`] to return its own
//! result (bash reports the output it has); after that it is aborted with `Operation aborted`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::{Clock, SystemClock};
use clawloop_core::message::{AgentMessage, ToolCall, ToolResultMessage};
use clawloop_core::tool::{AgentToolResult, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::call_hooks::{AfterToolCall, BeforeToolCall, ToolCallHooks};
use crate::registry::ToolRegistry;
use crate::validate::validate_arguments;

/// pi's skip text for calls cut off by a queued user message.
pub const SKIPPED_TEXT: &str = "Skipped due to queued user message.";

/// pi's default text for a call `before_tool_call` blocked without a reason.
pub const BLOCKED_TEXT: &str = "Tool execution was blocked";

/// How long a cancelled tool may take to return its own result by default.
pub const DEFAULT_ABORT_GRACE: Duration = Duration::from_secs(2);

/// Receives the agent events tool execution produces.
pub type EventSink = Arc<dyn Fn(AgentEvent) + Send + Sync>;

/// Returns (and dequeues) the steering messages waiting, if any (pi's `getSteeringMessages`).
pub type SteeringPoll = Arc<dyn Fn() -> Vec<AgentMessage> + Send + Sync>;

/// How the calls of one assistant message run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExecutionMode {
    /// Concurrently, finalized in call order (pi ≥ 0.58 default).
    #[default]
    Parallel,
    /// One after another.
    Sequential,
}

/// What executing the calls of one assistant message gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExecutionOutcome {
    /// One result per call, in call order.
    pub results: Vec<ToolResultMessage>,
    /// Steering messages polled during execution (empty if none were waiting); the loop injects
    /// them before the next model call.
    pub steering: Vec<AgentMessage>,
}

/// Runs tool calls against a registry.
#[derive(Clone)]
pub struct ToolExecutor {
    registry: ToolRegistry,
    mode: ExecutionMode,
    hooks: Option<Arc<dyn ToolCallHooks>>,
    steering: Option<SteeringPoll>,
    clock: Arc<dyn Clock>,
    abort_grace: Duration,
}

impl std::fmt::Debug for ToolExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolExecutor")
            .field("tools", &self.registry.names())
            .field("mode", &self.mode)
            .field("hooks", &self.hooks.is_some())
            .field("steering", &self.steering.is_some())
            .field("abort_grace", &self.abort_grace)
            .finish_non_exhaustive()
    }
}

impl ToolExecutor {
    /// An executor over `registry`: parallel, no hooks, no steering, the system clock.
    pub fn new(registry: ToolRegistry) -> Self {
        ToolExecutor {
            registry,
            mode: ExecutionMode::Parallel,
            hooks: None,
            steering: None,
            clock: Arc::new(SystemClock),
            abort_grace: DEFAULT_ABORT_GRACE,
        }
    }

    /// Sets the execution mode.
    #[must_use]
    pub fn with_mode(mut self, mode: ExecutionMode) -> Self {
        self.mode = mode;
        self
    }

    /// Sets the hooks called around each call.
    #[must_use]
    pub fn with_hooks(mut self, hooks: Arc<dyn ToolCallHooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Sets the steering poll.
    #[must_use]
    pub fn with_steering(mut self, steering: SteeringPoll) -> Self {
        self.steering = Some(steering);
        self
    }

    /// Sets the clock that stamps tool result messages.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Sets how long a cancelled tool may take to return its own result.
    #[must_use]
    pub fn with_abort_grace(mut self, grace: Duration) -> Self {
        self.abort_grace = grace;
        self
    }

    /// The registry calls are looked up in.
    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Executes `calls` (the tool calls of one assistant message, in source order).
    pub async fn execute(
        &self,
        calls: &[ToolCall],
        ctx: &ToolContext,
        cancel: &CancellationToken,
        emit: &EventSink,
    ) -> ExecutionOutcome {
        match self.mode {
            ExecutionMode::Parallel => self.execute_parallel(calls, ctx, cancel, emit).await,
            ExecutionMode::Sequential => self.execute_sequential(calls, ctx, cancel, emit).await,
        }
    }

    async fn execute_sequential(
        &self,
        calls: &[ToolCall],
        ctx: &ToolContext,
        cancel: &CancellationToken,
        emit: &EventSink,
    ) -> ExecutionOutcome {
        let mut outcome = ExecutionOutcome::default();
        for (index, call) in calls.iter().enumerate() {
            emit_start(emit, call);
            let message = match self.prepare(call, cancel).await {
                Preparation::Immediate(result) => self.finish(emit, call, result),
                Preparation::Ready(prepared) => {
                    let running = self.spawn(prepared, ctx, cancel, emit);
                    self.finalize(running, cancel, emit).await
                }
            };
            outcome.results.push(message);
            let steering = self.poll_steering();
            if !steering.is_empty() {
                outcome.steering = steering;
                for skipped in &calls[index + 1..] {
                    emit_start(emit, skipped);
                    outcome.results.push(self.skip(emit, skipped));
                }
                break;
            }
        }
        outcome
    }

    async fn execute_parallel(
        &self,
        calls: &[ToolCall],
        ctx: &ToolContext,
        cancel: &CancellationToken,
        emit: &EventSink,
    ) -> ExecutionOutcome {
        let mut outcome = ExecutionOutcome::default();
        // Every call keeps its place: a call that fails before running (unknown tool, invalid
        // arguments, blocked) is finalized in call order with the others (SPEC §7), not first.
        let mut slots: Vec<Slot> = Vec::with_capacity(calls.len());
        for (index, call) in calls.iter().enumerate() {
            emit_start(emit, call);
            slots.push(match self.prepare(call, cancel).await {
                Preparation::Immediate(result) => Slot::Immediate(call.clone(), result),
                Preparation::Ready(prepared) => Slot::Ready(prepared),
            });
            let steering = self.poll_steering();
            if !steering.is_empty() {
                outcome.steering = steering;
                for slot in slots {
                    outcome.results.push(match slot {
                        Slot::Immediate(call, result) => self.finish(emit, &call, result),
                        Slot::Ready(prepared) => self.skip(emit, &prepared.call),
                        Slot::Running(run) => self.skip(emit, &run.prepared.call),
                    });
                }
                for skipped in &calls[index + 1..] {
                    emit_start(emit, skipped);
                    outcome.results.push(self.skip(emit, skipped));
                }
                return outcome;
            }
        }
        // Start everything, then finalize in call order.
        let slots: Vec<Slot> = slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Ready(prepared) => Slot::Running(self.spawn(prepared, ctx, cancel, emit)),
                other => other,
            })
            .collect();
        for slot in slots {
            let message = match slot {
                Slot::Immediate(call, result) => self.finish(emit, &call, result),
                Slot::Running(run) => self.finalize(run, cancel, emit).await,
                Slot::Ready(prepared) => self.skip(emit, &prepared.call),
            };
            outcome.results.push(message);
        }
        let steering = self.poll_steering();
        if !steering.is_empty() {
            outcome.steering = steering;
        }
        outcome
    }

    /// Looks the tool up, validates the arguments and asks `before_tool_call`.
    async fn prepare(&self, call: &ToolCall, cancel: &CancellationToken) -> Preparation {
        if let Some(reason) = call.arguments_error() {
            return Preparation::Immediate(error_result(reason.to_owned()));
        }
        let Some(tool) = self.registry.get(&call.name).cloned() else {
            return Preparation::Immediate(error_result(format!("Tool {} not found", call.name)));
        };
        let args = match validate_arguments(&call.name, tool.parameters(), &call.arguments) {
            Ok(args) => args,
            Err(err) => return Preparation::Immediate(error_result(err.to_string())),
        };
        let mut args = args;
        if let Some(hooks) = &self.hooks {
            let before = BeforeToolCall {
                tool_call: call,
                args: &args,
            };
            match hooks.before_tool_call(before, cancel).await {
                Ok(Some(decision)) => {
                    if decision.block {
                        let reason = decision
                            .reason
                            .filter(|r| !r.is_empty())
                            .unwrap_or_else(|| BLOCKED_TEXT.to_owned());
                        return Preparation::Immediate(error_result(reason));
                    }
                    if let Some(replacement) = decision.args {
                        args = replacement;
                    }
                }
                Ok(None) => {}
                Err(err) => return Preparation::Immediate(error_result(err.to_string())),
            }
        }
        Preparation::Ready(Prepared {
            call: call.clone(),
            tool,
            args,
        })
    }

    /// Starts a prepared call's tool.
    fn spawn(
        &self,
        prepared: Prepared,
        ctx: &ToolContext,
        cancel: &CancellationToken,
        emit: &EventSink,
    ) -> Running {
        let finished = Arc::new(AtomicBool::new(false));
        let on_update = update_sink(emit, &prepared.call, &finished);
        let tool = Arc::clone(&prepared.tool);
        let id = prepared.call.id.clone();
        let args = prepared.args.clone();
        let ctx = ctx.clone();
        let tool_cancel = cancel.child_token();
        let name = prepared.call.name.clone();
        let future = async move { tool.execute(&id, args, &ctx, tool_cancel, on_update).await };
        let started = Instant::now();
        let task = match tokio::runtime::Handle::try_current() {
            Ok(handle) => Task::Spawned(tokio_util::task::AbortOnDropHandle::new(
                handle.spawn(future),
            )),
            // Without a runtime to spawn on, the tool runs inside this future.
            Err(_) => Task::Inline(Box::pin(future)),
        };
        Running {
            prepared,
            task,
            name,
            started,
            finished,
        }
    }

    /// Waits for a running call, applies `after_tool_call` and emits its end.
    async fn finalize(
        &self,
        run: Running,
        cancel: &CancellationToken,
        emit: &EventSink,
    ) -> ToolResultMessage {
        let Running {
            prepared,
            task,
            name,
            started,
            finished,
        } = run;
        let mut result = match wait(task, &name, cancel, self.abort_grace).await {
            Ok(result) => result,
            Err(err) => error_result(err),
        };
        // Updates a tool sends after returning (from a task it left behind) are dropped.
        finished.store(true, Ordering::SeqCst);
        if let Some(hooks) = &self.hooks {
            let after = AfterToolCall {
                tool_call: &prepared.call,
                args: &prepared.args,
                result: &result,
                duration: started.elapsed(),
            };
            if let Ok(Some(outcome)) = hooks.after_tool_call(after, cancel).await {
                result = outcome.apply(result);
            }
        }
        self.finish(emit, &prepared.call, result)
    }

    /// A skipped call's end (its start is emitted by the caller when due).
    fn skip(&self, emit: &EventSink, call: &ToolCall) -> ToolResultMessage {
        self.finish(emit, call, error_result(SKIPPED_TEXT.to_owned()))
    }

    /// pi's `emitToolCallOutcome`: `tool_execution_end`, then the result message's start and end.
    fn finish(&self, emit: &EventSink, call: &ToolCall, result: ToolResult) -> ToolResultMessage {
        let (agent_result, is_error) = result.into_parts();
        emit(AgentEvent::ToolExecutionEnd {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            result: agent_result.clone(),
            is_error,
        });
        let message = ToolResultMessage {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            content: agent_result.content,
            details: agent_result.details,
            is_error,
            timestamp: self.clock.now_ms(),
            extra: Map::new(),
        };
        let shared = Arc::new(AgentMessage::ToolResult(message.clone()));
        emit(AgentEvent::MessageStart {
            message: Arc::clone(&shared),
        });
        emit(AgentEvent::MessageEnd { message: shared });
        message
    }

    fn poll_steering(&self) -> Vec<AgentMessage> {
        self.steering
            .as_ref()
            .map(|poll| poll())
            .unwrap_or_default()
    }
}

/// The outcome of preparing a call.
enum Preparation {
    /// The call fails without running (unknown tool, invalid arguments, blocked).
    Immediate(ToolResult),
    /// The call may run.
    Ready(Prepared),
}

/// One call of a parallel batch, in its place.
enum Slot {
    /// Failed before running; finalized in its turn.
    Immediate(ToolCall, ToolResult),
    /// Ready, not started yet.
    Ready(Prepared),
    /// Started.
    Running(Running),
}

/// A call ready to run.
struct Prepared {
    call: ToolCall,
    tool: Arc<dyn Tool>,
    args: Value,
}

type ToolOutput = Result<ToolResult, ToolError>;

/// A tool's running future: a tokio task, or the future itself when there is no runtime.
enum Task {
    Spawned(tokio_util::task::AbortOnDropHandle<ToolOutput>),
    Inline(clawloop_core::tool::BoxFuture<'static, ToolOutput>),
}

/// A started call.
struct Running {
    prepared: Prepared,
    task: Task,
    name: String,
    started: Instant,
    finished: Arc<AtomicBool>,
}

/// The tool's result, or the error text for the model: the tool's error, a panic, or
/// `Operation aborted` when it outlived the grace period after cancellation.
async fn wait(
    task: Task,
    name: &str,
    cancel: &CancellationToken,
    grace: Duration,
) -> Result<ToolResult, String> {
    match task {
        Task::Inline(future) => future.await.map_err(|err| err.to_string()),
        Task::Spawned(mut handle) => {
            let joined = tokio::select! {
                joined = &mut handle => joined,
                () = cancel.cancelled() => {
                    match tokio::time::timeout(grace, &mut handle).await {
                        Ok(joined) => joined,
                        Err(_) => {
                            handle.abort();
                            return Err(ToolError::Aborted.to_string());
                        }
                    }
                }
            };
            match joined {
                Ok(output) => output.map_err(|err| err.to_string()),
                Err(join_error) => Err(join_failure(name, join_error)),
            }
        }
    }
}

/// The error text for a tool task that did not return.
fn join_failure(name: &str, error: tokio::task::JoinError) -> String {
    if error.is_cancelled() {
        return ToolError::Aborted.to_string();
    }
    let payload = error.into_panic();
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("Tool {name} panicked: {detail}")
}

/// pi's `createErrorToolResult`: one text block, `details: {}`, `isError: true`.
fn error_result(text: String) -> ToolResult {
    let mut result = ToolResult::error(text);
    result.details = Some(Value::Object(Map::new()));
    result
}

fn emit_start(emit: &EventSink, call: &ToolCall) {
    emit(AgentEvent::ToolExecutionStart {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: call.arguments.clone(),
    });
}

/// The `on_update` a tool gets: each partial result becomes a `tool_execution_update` carrying
/// the call's original arguments, until the call is finalized.
fn update_sink(emit: &EventSink, call: &ToolCall, finished: &Arc<AtomicBool>) -> ToolUpdate {
    let emit = Arc::clone(emit);
    let id = call.id.clone();
    let name = call.name.clone();
    let args = call.arguments.clone();
    let finished = Arc::clone(finished);
    Arc::new(move |partial: AgentToolResult| {
        if finished.load(Ordering::SeqCst) {
            return;
        }
        emit(AgentEvent::ToolExecutionUpdate {
            tool_call_id: id.clone(),
            tool_name: name.clone(),
            args: args.clone(),
            partial_result: partial,
        });
    })
}
