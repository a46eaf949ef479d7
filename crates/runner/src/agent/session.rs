//! The agent session (pi-coding-agent's `AgentSession`, pi-mono §3.4): the agent loop bound to
//! a transcript. Every message is persisted on `message_end`; model and thinking-level changes
//! are written as pi writes them; after a run, auto compaction runs on the threshold, and an
//! overflow error inside the attempt gets one compact-and-retry (`willRetry`).
//!
//! pi's own auto-retry on 429/5xx is not here: the runner owns every retry, rotation and
//! fallback (SPEC §8.1).

use std::sync::Arc;

use clawloop_core::agent_event::{AgentEvent, CompactionReason};
use clawloop_core::classify::is_context_overflow;
use clawloop_core::message::{AgentMessage, AssistantMessage};
use clawloop_core::model::Model;
use clawloop_core::tokens::{estimate_context_tokens, should_compact};
use clawloop_core::tool::BoxFuture;
use clawloop_core::{StopReason, ThinkLevel};
use clawloop_tools::execute::EventSink;
use tokio_util::sync::CancellationToken;

use crate::agent::agent_loop::{
    AgentLoopConfig, AgentLoopOutcome, continue_agent_loop, run_agent_loop,
};
use crate::agent::persist::{PersistError, Persister, TranscriptHandle};
use crate::compaction::{CompactionError, CompactionOutcome};
use crate::hooks::{HookObserver, compact_observed};

/// `auto_compaction_end.errorMessage` when an overflow persists after one compact-and-retry (pi).
pub const OVERFLOW_RECOVERY_FAILED: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

/// When auto compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoCompactionSettings {
    /// Whether the session compacts on its own (`agents.defaults.compaction.enabled`).
    pub enabled: bool,
    /// Compact once the context passes `contextWindow - reserveTokens`.
    pub reserve_tokens: u64,
}

impl Default for AutoCompactionSettings {
    fn default() -> Self {
        AutoCompactionSettings {
            enabled: true,
            reserve_tokens: 16_384,
        }
    }
}

/// A compaction the session asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionRequest {
    /// Why (`threshold`, `overflow`, or a manual `/compact`).
    pub reason: CompactionTrigger,
    /// Extra focus for the summary (manual compaction).
    pub custom_instructions: Option<String>,
}

/// What asked for a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionTrigger {
    /// Automatic: the context passed the threshold, or overflowed (see [`CompactionReason`]).
    Auto(CompactionReason),
    /// A user or embedder called [`AgentSession::compact`].
    Manual,
}

/// Compacts a transcript: summarizes the older part of the branch at its leaf and appends
/// the `compaction` entry. The runner's summarizing
/// [`Compactor`](crate::compaction::Compactor) implements it; an embedder can
/// bring its own (OpenClaw's context engines own compaction the same way).
pub trait TranscriptCompactor: Send + Sync {
    /// Runs one compaction on `transcript`.
    fn compact<'a>(
        &'a self,
        transcript: &'a TranscriptHandle,
        request: CompactionRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionOutcome, CompactionError>>;
}

/// Why a prompt could not be carried out.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AgentSessionError {
    /// Writing the transcript failed; the file holds everything before the failed write.
    #[error("could not write the session transcript: {0}")]
    Persist(#[from] PersistError),
    /// A compaction asked for directly failed.
    #[error("{0}")]
    Compaction(Arc<CompactionError>),
}

/// What one [`AgentSession::prompt`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptOutcome {
    /// Every message the runs added, in order (including an overflow error that was then
    /// compacted away and retried).
    pub new_messages: Vec<AgentMessage>,
    /// Compactions made during the prompt.
    pub compaction_count: u32,
    /// Whether the run ended for a client tool call.
    pub client_tool_called: bool,
    /// The limit, when a run ended because the model asked for tools past it.
    pub tool_round_limit: Option<u32>,
}

impl PromptOutcome {
    /// The last assistant message.
    pub fn last_assistant(&self) -> Option<&AssistantMessage> {
        self.new_messages
            .iter()
            .rev()
            .find_map(AgentMessage::as_assistant)
    }

    fn absorb(&mut self, run: AgentLoopOutcome) {
        self.new_messages.extend(run.new_messages);
        self.client_tool_called |= run.client_tool_called;
        self.tool_round_limit = self.tool_round_limit.or(run.tool_round_limit);
    }
}

/// What to do once a run ended.
enum AfterRun {
    Done,
    /// Run the loop again on the conversation as it is now.
    Continue,
}

/// The agent loop bound to a transcript.
pub struct AgentSession {
    transcript: TranscriptHandle,
    persister: Persister,
    config: AgentLoopConfig,
    thinking: ThinkLevel,
    messages: Vec<AgentMessage>,
    compactor: Arc<dyn TranscriptCompactor>,
    auto_compaction: AutoCompactionSettings,
    overflow_recovery_attempted: bool,
    /// When this session last compacted: usage older than that is stale.
    last_compaction_ms: Option<u64>,
    /// `before_compaction` / `after_compaction` observers.
    compaction_observer: Option<HookObserver>,
}

impl std::fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSession")
            .field("transcript", &self.transcript)
            .field("model", &self.config.model.id)
            .field("thinking", &self.thinking)
            .field("messages", &self.messages.len())
            .finish_non_exhaustive()
    }
}

impl AgentSession {
    /// A session over `transcript`, its conversation `messages` (normally the transcript's
    /// rebuilt context after the runner's history transforms), driving the loop with `config`.
    /// Its writer task runs on the current tokio runtime (an error without one).
    pub fn new(
        transcript: TranscriptHandle,
        messages: Vec<AgentMessage>,
        config: AgentLoopConfig,
        compactor: Arc<dyn TranscriptCompactor>,
        auto_compaction: AutoCompactionSettings,
    ) -> Result<Self, AgentSessionError> {
        let thinking = config.options.reasoning.unwrap_or(ThinkLevel::Off);
        Ok(AgentSession {
            persister: Persister::spawn(transcript.clone())?,
            transcript,
            config,
            thinking,
            messages,
            compactor,
            auto_compaction,
            overflow_recovery_attempted: false,
            last_compaction_ms: None,
            compaction_observer: None,
        })
    }

    /// Calls `before_compaction` / `after_compaction` of `observer` around every compaction
    /// this session runs (auto, overflow recovery and `/compact`).
    pub fn with_compaction_observer(mut self, observer: HookObserver) -> Self {
        self.compaction_observer = Some(observer);
        self
    }

    /// The transcript.
    pub fn transcript(&self) -> &TranscriptHandle {
        &self.transcript
    }

    /// The conversation the next call sends (before context transforms).
    pub fn messages(&self) -> &[AgentMessage] {
        &self.messages
    }

    /// The loop configuration.
    pub fn config(&self) -> &AgentLoopConfig {
        &self.config
    }

    /// The current thinking level.
    pub fn thinking_level(&self) -> ThinkLevel {
        self.thinking
    }

    /// Switches the model and records a `model_change` entry.
    pub async fn set_model(&mut self, model: Model) -> Result<(), AgentSessionError> {
        let (provider, id) = (model.provider.clone(), model.id.clone());
        self.persister.flush().await?;
        self.transcript
            .try_with(move |t| t.append_model_change(provider, id))
            .await?;
        self.config.model = model;
        Ok(())
    }

    /// Sets the thinking level; a `thinking_level_change` entry is written only when the level
    /// actually changes (pi).
    pub async fn set_thinking_level(&mut self, level: ThinkLevel) -> Result<(), AgentSessionError> {
        if level == self.thinking {
            return Ok(());
        }
        self.write_thinking_level(level).await
    }

    /// Records the thinking level whatever it was (a new session's first entries).
    pub async fn write_thinking_level(
        &mut self,
        level: ThinkLevel,
    ) -> Result<(), AgentSessionError> {
        self.persister.flush().await?;
        self.transcript
            .try_with(move |t| t.append_thinking_level_change(level))
            .await?;
        self.thinking = level;
        self.config.options.reasoning = (level != ThinkLevel::Off).then_some(level);
        Ok(())
    }

    /// Runs the loop for `prompts`, persisting as it goes, then compacts when needed (and
    /// retries once after an in-attempt overflow). Events go to `sink` in pi's order: the run's
    /// events, then `auto_compaction_start`/`end`, then a retried run's events.
    pub async fn prompt(
        &mut self,
        prompts: Vec<AgentMessage>,
        cancel: &CancellationToken,
        sink: &EventSink,
    ) -> Result<PromptOutcome, AgentSessionError> {
        self.overflow_recovery_attempted = false;
        let sink = self.persisting(sink);
        let mut outcome = PromptOutcome::default();
        let run = run_agent_loop(prompts, &mut self.messages, &self.config, cancel, &sink).await;
        outcome.absorb(run);
        self.persister.flush().await?;
        loop {
            match self.after_run(&mut outcome, cancel, &sink).await? {
                AfterRun::Done => return Ok(outcome),
                AfterRun::Continue => {
                    let run = self.continue_run(cancel, &sink).await;
                    outcome.absorb(run);
                    self.persister.flush().await?;
                }
            }
        }
    }

    /// Compacts now (`/compact`); [`CompactionOutcome::NotCompacted`] when there was nothing to
    /// summarize.
    pub async fn compact(
        &mut self,
        custom_instructions: Option<String>,
        cancel: &CancellationToken,
    ) -> Result<CompactionOutcome, AgentSessionError> {
        self.persister.flush().await?;
        let request = CompactionRequest {
            reason: CompactionTrigger::Manual,
            custom_instructions,
        };
        let outcome = self
            .run_compaction(request, cancel)
            .await
            .map_err(|err| AgentSessionError::Compaction(Arc::new(err)))?;
        if outcome.compacted() {
            self.after_compaction().await?;
        }
        Ok(outcome)
    }

    /// The sink the loop gets: the caller's sink first, then persistence on `message_end`.
    fn persisting(&self, sink: &EventSink) -> EventSink {
        let sink = Arc::clone(sink);
        let persister = self.persister.clone();
        Arc::new(move |event: AgentEvent| {
            let persist = match &event {
                AgentEvent::MessageEnd { message } => Some(Arc::clone(message)),
                _ => None,
            };
            sink(event);
            if let Some(message) = persist {
                persister.persist(message);
            }
        })
    }

    /// pi's `agent.continue()`: from a tool result or user message, run on; from an assistant
    /// reply, deliver what is queued (steering first) as the next prompt.
    async fn continue_run(
        &mut self,
        cancel: &CancellationToken,
        sink: &EventSink,
    ) -> AgentLoopOutcome {
        if matches!(
            self.messages.last(),
            Some(AgentMessage::Assistant(_)) | None
        ) {
            let mut queued = self.config.queues.take_steering();
            if queued.is_empty() {
                queued = self.config.queues.take_follow_ups();
            }
            return run_agent_loop(queued, &mut self.messages, &self.config, cancel, sink).await;
        }
        // Checked above: the conversation is not empty and does not end with the assistant, so
        // the loop cannot refuse to continue.
        continue_agent_loop(&mut self.messages, &self.config, cancel, sink)
            .await
            .unwrap_or_default()
    }

    /// pi's `_checkCompaction` after `agent_end`.
    async fn after_run(
        &mut self,
        outcome: &mut PromptOutcome,
        cancel: &CancellationToken,
        sink: &EventSink,
    ) -> Result<AfterRun, AgentSessionError> {
        let Some(last) = outcome.last_assistant().cloned() else {
            return Ok(AfterRun::Done);
        };
        if last.stop_reason != StopReason::Error {
            self.overflow_recovery_attempted = false;
        }
        if !self.auto_compaction.enabled
            || last.stop_reason == StopReason::Aborted
            || outcome.client_tool_called
        {
            return Ok(AfterRun::Done);
        }
        if self
            .last_compaction_ms
            .is_some_and(|at| last.timestamp <= at)
        {
            return Ok(AfterRun::Done);
        }
        let model = &self.config.model;
        let same_model = last.provider == model.provider && last.model == model.id;
        let window = model.context_window;
        if same_model
            && is_context_overflow(
                last.stop_reason,
                last.error_message.as_deref(),
                &last.usage,
                Some(window),
            )
        {
            if self.overflow_recovery_attempted {
                sink(AgentEvent::AutoCompactionEnd {
                    result: None,
                    aborted: false,
                    will_retry: false,
                    error_message: Some(OVERFLOW_RECOVERY_FAILED.to_owned()),
                });
                return Ok(AfterRun::Done);
            }
            self.overflow_recovery_attempted = true;
            self.drop_trailing_error();
            let compacted = self
                .auto_compact(CompactionReason::Overflow, true, outcome, cancel, sink)
                .await?;
            return Ok(if compacted {
                AfterRun::Continue
            } else {
                AfterRun::Done
            });
        }
        let tokens = if last.stop_reason == StopReason::Error {
            let estimate = estimate_context_tokens(&self.messages);
            if estimate.last_usage_index.is_none() && estimate.usage_tokens == 0 {
                return Ok(AfterRun::Done);
            }
            estimate.tokens
        } else {
            last.usage.context_tokens()
        };
        if should_compact(tokens, window, self.auto_compaction.reserve_tokens, true) {
            let compacted = self
                .auto_compact(CompactionReason::Threshold, false, outcome, cancel, sink)
                .await?;
            if compacted && self.config.queues.has_queued() {
                // Messages that arrived while compaction ran are delivered now, never dropped.
                return Ok(AfterRun::Continue);
            }
        }
        Ok(AfterRun::Done)
    }

    /// pi's `_runAutoCompaction`: the start and end events around one compaction. Returns
    /// whether an entry was appended.
    async fn auto_compact(
        &mut self,
        reason: CompactionReason,
        will_retry: bool,
        outcome: &mut PromptOutcome,
        cancel: &CancellationToken,
        sink: &EventSink,
    ) -> Result<bool, AgentSessionError> {
        sink(AgentEvent::AutoCompactionStart { reason });
        let request = CompactionRequest {
            reason: CompactionTrigger::Auto(reason),
            custom_instructions: None,
        };
        let end = match self.run_compaction(request, cancel).await {
            Ok(CompactionOutcome::Compacted(result)) => {
                self.after_compaction().await?;
                if will_retry {
                    // The failed reply is in the file, so the rebuilt context ends with it again;
                    // the retry answers the request it failed on.
                    self.drop_trailing_error();
                }
                outcome.compaction_count += 1;
                AgentEvent::AutoCompactionEnd {
                    result: Some(result),
                    aborted: false,
                    will_retry,
                    error_message: None,
                }
            }
            Ok(CompactionOutcome::NotCompacted { .. }) => AgentEvent::AutoCompactionEnd {
                result: None,
                aborted: false,
                will_retry: false,
                error_message: None,
            },
            Err(CompactionError::Cancelled) => AgentEvent::AutoCompactionEnd {
                result: None,
                aborted: true,
                will_retry: false,
                error_message: None,
            },
            Err(err) => {
                let prefix = match reason {
                    CompactionReason::Overflow => "Context overflow recovery failed",
                    CompactionReason::Threshold => "Auto-compaction failed",
                };
                AgentEvent::AutoCompactionEnd {
                    result: None,
                    aborted: false,
                    will_retry: false,
                    error_message: Some(format!("{prefix}: {err}")),
                }
            }
        };
        let compacted = matches!(
            &end,
            AgentEvent::AutoCompactionEnd {
                result: Some(_),
                ..
            }
        );
        sink(end);
        Ok(compacted)
    }

    /// One compaction through the compactor, with its hooks.
    async fn run_compaction(
        &self,
        request: CompactionRequest,
        cancel: &CancellationToken,
    ) -> Result<CompactionOutcome, CompactionError> {
        compact_observed(
            self.compactor.as_ref(),
            &self.transcript,
            request,
            cancel.clone(),
            self.compaction_observer.as_ref(),
        )
        .await
    }

    fn drop_trailing_error(&mut self) {
        if matches!(self.messages.last(), Some(AgentMessage::Assistant(a)) if a.stop_reason == StopReason::Error)
        {
            self.messages.pop();
        }
    }

    /// After a compaction entry: the conversation is rebuilt from the transcript, and older
    /// usage no longer counts.
    async fn after_compaction(&mut self) -> Result<(), AgentSessionError> {
        let context = self.transcript.with(|t| t.build_context()).await?;
        self.messages = context.messages;
        self.last_compaction_ms = Some(self.config.clock.now_ms());
        Ok(())
    }
}
