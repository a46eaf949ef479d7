//! The agent loop (pi-agent-core's `agentLoop` / `agentLoopContinue`, pi-mono §2.3):
//! provider stream → assistant message → tool execution → next call, until a reply without tool
//! calls, with steering and follow-up queues, abort anywhere and pi's canonical event order.
//!
//! The loop owns no I/O of its own: the model is an `Arc<dyn LlmStream>`, tools run through the
//! tools crate's [`ToolExecutor`], and every event goes to the caller's sink (the agent session
//! persists messages from it; the subscription turns it into replies).

use std::future::poll_fn;
use std::sync::Arc;

use clawloop_core::StopReason;
use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::Clock;
use clawloop_core::message::{
    AgentMessage, AssistantMessage, ToolCall, ToolResultMessage, convert_to_llm,
};
use clawloop_core::model::{Context, Model, StreamOptions};
use clawloop_core::provider::{LlmStream, ensure_terminal};
use clawloop_core::stream_event::{AssistantMessageBuilder, AssistantMessageEvent};
use clawloop_core::tool::ToolContext;
use clawloop_tools::client_tools::PendingToolCalls;
use clawloop_tools::execute::EventSink;
use clawloop_tools::{Dialect, ToolExecutor};
use tokio_util::sync::CancellationToken;

use crate::agent::queues::MessageQueues;

/// `errorMessage` of the assistant message that stands for a call never made because the run
/// was already aborted (the text pi's providers use for an aborted request).
pub const REQUEST_ABORTED: &str = "Request was aborted";

/// Why [`continue_agent_loop`] cannot start (pi's texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContinueError {
    /// The context holds no message.
    #[error("Cannot continue: no messages in context")]
    NoMessages,
    /// The last message is the assistant's: there is nothing for the model to answer.
    #[error("Cannot continue from message role: assistant")]
    LastIsAssistant,
}

/// A failure of a [`ContextTransform`]; the model call is not made and the turn ends with an
/// errored assistant message carrying `message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TransformError {
    /// What went wrong, as the run's error text.
    pub message: String,
}

/// Rewrites the messages sent to the model before each call (pi's `transformContext`): context
/// pruning, the live tool-result guard. It sees the whole context and never changes it.
pub trait ContextTransform: Send + Sync {
    /// The messages to send instead of `messages`, `None` to send them as they are.
    fn transform(
        &self,
        messages: &[AgentMessage],
    ) -> Result<Option<Vec<AgentMessage>>, TransformError>;
}

/// Everything one run of the loop needs besides the conversation.
#[derive(Clone)]
pub struct AgentLoopConfig {
    /// The model called.
    pub model: Model,
    /// The provider stream function.
    pub provider: Arc<dyn LlmStream>,
    /// Options for every call; `cancel` is replaced by the run's token.
    pub options: StreamOptions,
    /// The system prompt.
    pub system_prompt: Option<String>,
    /// The tools offered and how their calls run.
    pub executor: ToolExecutor,
    /// Where tools run.
    pub tool_context: ToolContext,
    /// Steering and follow-up messages.
    pub queues: MessageQueues,
    /// Rewrites the context before each call.
    pub transform: Option<Arc<dyn ContextTransform>>,
    /// Client (hosted) tool calls; once one is recorded the run ends after its turn.
    pub client_calls: Option<PendingToolCalls>,
    /// Stamps synthesized messages.
    pub clock: Arc<dyn Clock>,
    /// The most tool rounds (assistant replies whose tool calls are run) one run may take;
    /// `None` for no limit. A reply that asks for tools past it gets every call answered as
    /// not run, and the run ends with [`AgentLoopOutcome::tool_round_limit`] set.
    pub max_tool_rounds: Option<u32>,
}

impl std::fmt::Debug for AgentLoopConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentLoopConfig")
            .field("model", &self.model.id)
            .field("provider", &self.model.provider)
            .field("executor", &self.executor)
            .field("transform", &self.transform.is_some())
            .finish_non_exhaustive()
    }
}

/// What a run of the loop added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentLoopOutcome {
    /// Every message added during the run, in order (what `agent_end` carries).
    pub new_messages: Vec<AgentMessage>,
    /// Whether the run ended because a client tool was called.
    pub client_tool_called: bool,
    /// The limit, when the run ended because the model asked for tools past
    /// [`AgentLoopConfig::max_tool_rounds`].
    pub tool_round_limit: Option<u32>,
}

impl AgentLoopOutcome {
    /// The last assistant message of the run.
    pub fn last_assistant(&self) -> Option<&AssistantMessage> {
        self.new_messages
            .iter()
            .rev()
            .find_map(AgentMessage::as_assistant)
    }
}

/// Runs the loop for `prompts`: they are appended to `messages` (the conversation so far), then
/// the model is called until it answers without tool calls and no queued message is waiting.
pub async fn run_agent_loop(
    prompts: Vec<AgentMessage>,
    messages: &mut Vec<AgentMessage>,
    config: &AgentLoopConfig,
    cancel: &CancellationToken,
    emit: &EventSink,
) -> AgentLoopOutcome {
    let mut run = Run::new(messages, config, cancel, emit);
    emit(AgentEvent::AgentStart);
    emit(AgentEvent::TurnStart);
    for prompt in prompts {
        run.inject(prompt);
    }
    run.run().await
}

/// Runs the loop on `messages` as they are (pi's `agentLoopContinue`): no prompt is added; the
/// last message must be one the model can answer.
pub async fn continue_agent_loop(
    messages: &mut Vec<AgentMessage>,
    config: &AgentLoopConfig,
    cancel: &CancellationToken,
    emit: &EventSink,
) -> Result<AgentLoopOutcome, ContinueError> {
    match messages.last() {
        None => return Err(ContinueError::NoMessages),
        Some(AgentMessage::Assistant(_)) => return Err(ContinueError::LastIsAssistant),
        Some(_) => {}
    }
    let run = Run::new(messages, config, cancel, emit);
    emit(AgentEvent::AgentStart);
    emit(AgentEvent::TurnStart);
    Ok(run.run().await)
}

/// One run's state: the conversation it grows and what it added.
struct Run<'a> {
    messages: &'a mut Vec<AgentMessage>,
    config: &'a AgentLoopConfig,
    cancel: &'a CancellationToken,
    emit: &'a EventSink,
    executor: ToolExecutor,
    outcome: AgentLoopOutcome,
    /// Tool rounds run so far.
    tool_rounds: u32,
}

impl<'a> Run<'a> {
    fn new(
        messages: &'a mut Vec<AgentMessage>,
        config: &'a AgentLoopConfig,
        cancel: &'a CancellationToken,
        emit: &'a EventSink,
    ) -> Self {
        let queues = config.queues.clone();
        let executor = config
            .executor
            .clone()
            .with_steering(Arc::new(move || queues.take_steering()));
        Run {
            messages,
            config,
            cancel,
            emit,
            executor,
            outcome: AgentLoopOutcome::default(),
            tool_rounds: 0,
        }
    }

    /// A message enters the conversation: `message_start` and `message_end`, then the context.
    fn inject(&mut self, message: AgentMessage) {
        let shared = Arc::new(message.clone());
        (self.emit)(AgentEvent::MessageStart {
            message: Arc::clone(&shared),
        });
        (self.emit)(AgentEvent::MessageEnd { message: shared });
        self.push(message);
    }

    fn push(&mut self, message: AgentMessage) {
        self.outcome.new_messages.push(message.clone());
        self.messages.push(message);
    }

    async fn run(mut self) -> AgentLoopOutcome {
        let mut first_turn = true;
        let mut pending = self.config.queues.take_steering();
        'outer: loop {
            let mut more_tool_calls = true;
            while more_tool_calls || !pending.is_empty() {
                if !first_turn {
                    (self.emit)(AgentEvent::TurnStart);
                }
                first_turn = false;
                for message in std::mem::take(&mut pending) {
                    self.inject(message);
                }
                let assistant = self.stream_assistant_response().await;
                let shared = Arc::new(AgentMessage::Assistant(assistant.clone()));
                self.push(AgentMessage::Assistant(assistant.clone()));
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    (self.emit)(AgentEvent::TurnEnd {
                        message: shared,
                        tool_results: Arc::from(Vec::<ToolResultMessage>::new()),
                    });
                    break 'outer;
                }
                let calls: Vec<ToolCall> = assistant.tool_calls().cloned().collect();
                more_tool_calls = !calls.is_empty();
                if more_tool_calls && let Some(limit) = self.round_limit_reached() {
                    let results = self.refuse_calls(&calls, limit);
                    (self.emit)(AgentEvent::TurnEnd {
                        message: shared,
                        tool_results: Arc::from(results),
                    });
                    self.outcome.tool_round_limit = Some(limit);
                    break 'outer;
                }
                let mut results = Vec::new();
                let mut steering_after_tools = Vec::new();
                if more_tool_calls {
                    self.tool_rounds = self.tool_rounds.saturating_add(1);
                    let executed = self
                        .executor
                        .execute(&calls, &self.config.tool_context, self.cancel, self.emit)
                        .await;
                    steering_after_tools = executed.steering;
                    for result in &executed.results {
                        self.push(AgentMessage::ToolResult(result.clone()));
                    }
                    results = executed.results;
                }
                (self.emit)(AgentEvent::TurnEnd {
                    message: shared,
                    tool_results: Arc::from(results),
                });
                pending = if steering_after_tools.is_empty() {
                    self.config.queues.take_steering()
                } else {
                    steering_after_tools
                };
                if self.client_tool_called() {
                    // The client runs the tool and continues the conversation itself; steering
                    // taken for the next call goes back so nothing queued is lost.
                    self.config
                        .queues
                        .return_steering(std::mem::take(&mut pending));
                    self.outcome.client_tool_called = true;
                    break 'outer;
                }
            }
            let follow_ups = self.config.queues.take_follow_ups();
            if follow_ups.is_empty() {
                break;
            }
            pending = follow_ups;
        }
        (self.emit)(AgentEvent::AgentEnd {
            messages: Arc::from(self.outcome.new_messages.clone()),
        });
        self.outcome
    }

    /// The limit, once this many rounds have run.
    fn round_limit_reached(&self) -> Option<u32> {
        self.config
            .max_tool_rounds
            .filter(|limit| self.tool_rounds >= *limit)
    }

    /// Answers every call of a reply past the limit as not run, so the transcript stays valid
    /// (every call has its result) and the model, if the session continues, knows why.
    fn refuse_calls(&mut self, calls: &[ToolCall], limit: u32) -> Vec<ToolResultMessage> {
        let now = self.config.clock.now_ms();
        let text = format!(
            "Not run: this turn reached its limit of {limit} tool rounds. Summarize what was done and what is left."
        );
        let results: Vec<ToolResultMessage> = calls
            .iter()
            .map(|call| ToolResultMessage::text(&call.id, &call.name, text.clone(), true, now))
            .collect();
        for result in &results {
            self.inject(AgentMessage::ToolResult(result.clone()));
        }
        results
    }

    fn client_tool_called(&self) -> bool {
        self.config
            .client_calls
            .as_ref()
            .is_some_and(|calls| !calls.is_empty())
    }

    /// One model call: `message_start` on the stream's `start`, `message_update` per content
    /// event, `message_end` with the final (or failed) message.
    async fn stream_assistant_response(&mut self) -> AssistantMessage {
        let model = &self.config.model;
        let initial = AssistantMessage::for_model(model, self.config.clock.now_ms());
        if self.cancel.is_cancelled() {
            // pi makes this call with an aborted signal and gets an aborted, empty message
            // back; the same message without a request.
            let failed =
                AssistantMessageBuilder::new(initial).fail(StopReason::Aborted, REQUEST_ABORTED);
            return self.finish(failed, false);
        }
        let context = match self.context() {
            Ok(context) => context,
            Err(err) => {
                let failed =
                    AssistantMessageBuilder::new(initial).fail(StopReason::Error, err.message);
                return self.finish(failed, false);
            }
        };
        let mut options = self.config.options.clone();
        options.cancel = self.cancel.clone();
        if !answers_user_prompt(&context) {
            // A forced choice (`required`, a named tool) on every call would leave the model no
            // way to answer in text after a tool result, so it only constrains the call that
            // answers the user's prompt; later calls of the turn are the provider's `auto`.
            options.tool_choice = None;
        }
        let mut stream = ensure_terminal(
            self.config.provider.stream(model, &context, options),
            initial,
        );
        drop(context);
        let mut started = false;
        while let Some(event) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
            match event {
                AssistantMessageEvent::Start { ref partial } => {
                    if !started {
                        started = true;
                        let message = partial.as_deref().cloned().unwrap_or_else(|| {
                            AssistantMessage::for_model(model, self.config.clock.now_ms())
                        });
                        (self.emit)(AgentEvent::MessageStart {
                            message: Arc::new(AgentMessage::Assistant(message)),
                        });
                    }
                }
                ref terminal if terminal.is_terminal() => return self.finish(event, started),
                content => {
                    if !started {
                        started = true;
                        (self.emit)(AgentEvent::MessageStart {
                            message: Arc::new(AgentMessage::Assistant(
                                AssistantMessage::for_model(model, self.config.clock.now_ms()),
                            )),
                        });
                    }
                    (self.emit)(AgentEvent::MessageUpdate {
                        assistant_message_event: content,
                        message: None,
                    });
                }
            }
        }
        // `ensure_terminal` always ends with a terminal event; this is its fallback twin.
        let failed = AssistantMessageBuilder::new(AssistantMessage::for_model(
            model,
            self.config.clock.now_ms(),
        ))
        .ended_without_terminal();
        self.finish(failed, started)
    }

    /// Emits the end of an assistant message from its terminal event and returns the message.
    fn finish(&mut self, terminal: AssistantMessageEvent, started: bool) -> AssistantMessage {
        let message = match terminal {
            AssistantMessageEvent::Done { message, .. } => *message,
            AssistantMessageEvent::Error { error, .. } => *error,
            other => {
                let mut builder = AssistantMessageBuilder::new(AssistantMessage::for_model(
                    &self.config.model,
                    self.config.clock.now_ms(),
                ));
                builder.apply(&other);
                builder.into_message()
            }
        };
        let shared = Arc::new(AgentMessage::Assistant(message.clone()));
        if !started {
            (self.emit)(AgentEvent::MessageStart {
                message: Arc::clone(&shared),
            });
        }
        (self.emit)(AgentEvent::MessageEnd { message: shared });
        message
    }

    /// The request context: the (transformed) conversation converted for the model, the system
    /// prompt and the tools in the model's schema dialect.
    fn context(&self) -> Result<Context, TransformError> {
        let transformed = match &self.config.transform {
            Some(transform) => transform.transform(self.messages)?,
            None => None,
        };
        let messages = convert_to_llm(transformed.as_deref().unwrap_or(self.messages));
        Ok(Context {
            system_prompt: self.config.system_prompt.clone(),
            messages,
            tools: self
                .executor
                .registry()
                .definitions(Dialect::for_api(&self.config.model.api)),
        })
    }
}

/// Whether this call answers a user prompt: the last message of its context is the user's.
fn answers_user_prompt(context: &Context) -> bool {
    matches!(
        context.messages.last(),
        Some(clawloop_core::Message::User(_))
    )
}
