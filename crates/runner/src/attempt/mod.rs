//! One attempt of one model with one key (`run_attempt`, seed 000, SPEC §8.3): from a prompt to
//! a finished, valid transcript and an [`AttemptResult`] the run loop decides on.
//!
//! Five phases, in the seed's order:
//! * **A — environment**: the workspace (created when missing), skills, their environment
//!   overlay (given to tools through `ToolContext.env`, never set on the process) and prompt.
//! * **B — tools and session**: the tool pool under the tool policy plus the client tools; the
//!   transcript opened under its write lock (the wait runs on the blocking pool).
//! * **C — history**: the context rebuilt, a dangling tool call from a killed run answered *in
//!   the file*, an orphaned user prompt merged into this one, the history pipeline applied; the
//!   subscription set up.
//! * **D — prompt**: `before_prompt_build` / `before_agent_start` hooks (a failing hook only
//!   warns), the system prompt, `llm_input`, the prompt through the agent session (persistence,
//!   compaction with its hooks, one overflow retry), then the cache-TTL marker when context
//!   pruning asks for it.
//! * **E — once the prompt ran**: the subscription's view collected, `agent_end` and
//!   `llm_output` notified (fire-and-forget).
//!
//! A failure before the prompt (the workspace, the tool pool, the transcript, the session)
//! leaves by one way: its text is the attempt's prompt error, and the transcript (and its lock)
//! is released as the phases' values drop, as it is after every attempt.

mod cache_ttl;
mod history;
mod io;
mod reply_sink;
mod result;
mod run_timer;
mod spec;
mod system_prompt;

use std::sync::Arc;

use clawloop_core::agent_event::AgentEvent;
use clawloop_core::classify::is_idle_timeout_error;
use clawloop_core::hooks::{AgentEndEvent, LlmInputEvent, LlmOutputEvent, PromptBuildEvent};
use clawloop_core::message::{AgentMessage, ContentBlock, UserContent, UserMessage};
use clawloop_core::model::StreamOptions;
use clawloop_core::tool::{Tool, ToolContext};
use clawloop_core::{StopReason, ThinkLevel, ToolChoice};
use clawloop_session::{SessionEntry, SessionOptions};
use clawloop_subscribe::{
    BlockReplyBreak, BreakPreference, ChunkingOptions, Subscription, SubscriptionOptions,
};
use clawloop_tools::call_hooks::PluginHooks;
use clawloop_tools::client_tools::{PendingToolCalls, client_tools};
use clawloop_tools::execute::EventSink;
use clawloop_tools::{ToolExecutor, ToolPolicy, ToolRegistry};
use parking_lot::Mutex;

use crate::agent::{
    AgentLoopConfig, AgentSession, AutoCompactionSettings, PersistError, TranscriptHandle,
};
use crate::compaction::{CompactionSettings, Compactor, compaction_timeout};
use crate::config::{AgentDefaults, BreakMode, ContextPruningMode};
use crate::hooks::{HookObserver, ObserverEvent, WarnOnFailure};
use crate::prompt::skills::{
    SkillEnvOverlay, SkillRoots, SkillsPromptLimits, format_skills_prompt, load_skills,
    skill_env_overlay,
};
use crate::run::RunRequest;

pub use cache_ttl::{CACHE_TTL_CUSTOM_TYPE, cache_ttl_data, is_cache_ttl_eligible};
pub use history::{ToolResultContextGuard, prepare_history, transcript_policy};
pub use io::TurnIo;
pub use reply_sink::SharedReplySink;
pub use result::{AttemptResult, PromptError, PromptErrorSource};
pub use run_timer::{RunTimer, TimerFlags};
pub use spec::AttemptSpec;

type SharedSubscription = Arc<Mutex<Subscription<SharedReplySink>>>;

/// Runs one attempt. It never fails as a function: every failure is in the result (a prompt
/// error, an errored or aborted last assistant message, a timeout flag), as OpenClaw's attempt
/// reports it to the run loop.
pub async fn run_attempt(run: &RunRequest, spec: &AttemptSpec, io: TurnIo) -> AttemptResult {
    let mut result = AttemptResult {
        session_id_used: run.session_id.clone(),
        ..AttemptResult::default()
    };
    // The one way out of a failure before the prompt: its text is the attempt's prompt error;
    // the transcript's lock is released as the phases' values drop.
    if let Err(message) = attempt(run, spec, &io, &mut result).await {
        result.prompt_error = Some(prompt_error(message));
    }
    result
}

/// The phases in order; a failure before the prompt ends the attempt with its text.
async fn attempt(
    run: &RunRequest,
    spec: &AttemptSpec,
    io: &TurnIo,
    result: &mut AttemptResult,
) -> Result<(), String> {
    let defaults = run.config.defaults().clone();
    // A: environment. B: tools and session.
    let (skills_prompt, overlay) = environment(run).await?;
    let pending_calls = PendingToolCalls::new();
    let registry = tool_registry(run, &defaults, &pending_calls)?;
    let transcript = open_transcript(run).await?;
    // C: history.
    let now = run.clock.now_ms();
    let prepared = prepare_session(&transcript, now)
        .await
        .map_err(|err| err.to_string())?;
    if let Some(id) = prepared.header_session_id.clone() {
        result.session_id_used = id;
    }
    let tool_names: Vec<String> = registry.names().into_iter().map(str::to_owned).collect();
    let history = prepare_history(
        &prepared.context,
        &spec.model,
        &tool_names,
        run.session_key.as_deref(),
        now,
    );
    // D: hooks, system prompt, prompt.
    let composed = compose_prompt(run, spec, &prepared, &history, &registry, &skills_prompt).await;
    result.system_prompt_report = Some(composed.report.clone());
    let observer = HookObserver::new(Arc::clone(&run.hooks), run.hook_context());
    let run_cancel = io.cancel.child_token();
    let parts = SessionParts {
        transcript: &transcript,
        history,
        registry,
        pending_calls: &pending_calls,
        tool_env: overlay.vars,
        system_prompt: composed.system_prompt.clone(),
        observer: &observer,
        cancel: &run_cancel,
    };
    let mut session = agent_session(run, spec, io, &defaults, parts)?;
    record_model_and_thinking(&mut session, &prepared, spec)
        .await
        .map_err(|err| err.to_string())?;
    let sent = SentPrompt {
        composed,
        now,
        cancel: &run_cancel,
        observer: &observer,
    };
    send_prompt(
        run,
        spec,
        io,
        &defaults,
        &mut session,
        &transcript,
        sent,
        result,
    )
    .await;
    // E: collect.
    result.pending_tool_calls = pending_calls.take();
    Ok(())
}

/// Phase A: the workspace (created when missing), the skills' prompt and their environment
/// overlay.
async fn environment(run: &RunRequest) -> Result<(String, SkillEnvOverlay), String> {
    if let Err(err) = tokio::fs::create_dir_all(&run.workspace_dir).await {
        return Err(format!(
            "cannot create the workspace {}: {err}",
            run.workspace_dir.display()
        ));
    }
    let roots = SkillRoots {
        workspace_dir: run.workspace_dir.clone(),
        home_dir: run.home_dir.clone(),
    };
    let skills = tokio::task::spawn_blocking(move || load_skills(&roots))
        .await
        .unwrap_or_default();
    for warning in &skills.warnings {
        tracing::warn!(target: "clawloop::skills", "{warning}");
    }
    let overlay = skill_env_overlay(&skills.skills, &|name| {
        std::env::var_os(name).is_some_and(|v| !v.is_empty())
    });
    let skills_prompt = format_skills_prompt(&skills.skills, SkillsPromptLimits::default());
    Ok((skills_prompt.text, overlay))
}

/// Phase B: the transcript under its write lock.
async fn open_transcript(run: &RunRequest) -> Result<TranscriptHandle, String> {
    let session_options = SessionOptions {
        clock: Arc::clone(&run.clock),
        cwd: Some(run.workspace_dir.display().to_string()),
        session_id: Some(run.session_id.clone()),
        ..SessionOptions::default()
    };
    TranscriptHandle::open_locked(&run.session_file, session_options)
        .await
        .map_err(|err| err.to_string())
}

/// The prompt as the hooks left it, the system prompt, and the `llm_input` they make.
struct ComposedPrompt {
    text: String,
    system_prompt: String,
    report: crate::prompt::SystemPromptReport,
    llm_input: LlmInputEvent,
}

/// Phase D's first half: `before_prompt_build` / `before_agent_start` (a failing hook only
/// warns), the system prompt, `llm_input`.
async fn compose_prompt(
    run: &RunRequest,
    spec: &AttemptSpec,
    prepared: &PreparedSession,
    history: &[AgentMessage],
    registry: &ToolRegistry,
    skills_prompt: &str,
) -> ComposedPrompt {
    let prompt_text = join_prompt(prepared.orphaned_prompt.as_deref(), &run.prompt);
    let hook_event = PromptBuildEvent {
        prompt: prompt_text.clone(),
        messages: Arc::from(history.to_vec()),
    };
    let hooked =
        system_prompt::run_prompt_hooks(&run.hooks, &run.hook_context(), &hook_event).await;
    let text = match &hooked.prepend_context {
        Some(context) if !context.is_empty() => format!("{context}\n\n{prompt_text}"),
        _ => prompt_text,
    };
    let tool_definitions = registry.definitions(clawloop_tools::Dialect::for_api(&spec.model.api));
    let built = system_prompt::build(run, spec, &tool_definitions, skills_prompt, &hooked).await;
    let llm_input = LlmInputEvent {
        provider: spec.model.provider.clone(),
        model: spec.model.id.clone(),
        system_prompt: Some(built.text.clone()),
        prompt: text.clone(),
        history_messages: Arc::clone(&hook_event.messages),
        images_count: run.images.len(),
    };
    ComposedPrompt {
        text,
        system_prompt: built.text,
        report: built.report,
        llm_input,
    }
}

/// What the agent session of an attempt is made of, besides the run and the spec.
struct SessionParts<'a> {
    transcript: &'a TranscriptHandle,
    history: Vec<AgentMessage>,
    registry: ToolRegistry,
    pending_calls: &'a PendingToolCalls,
    tool_env: std::collections::BTreeMap<String, String>,
    system_prompt: String,
    observer: &'a HookObserver,
    cancel: &'a tokio_util::sync::CancellationToken,
}

/// Phase D's agent session: the loop's model, stream options, tools and queues, and the
/// compactor that keeps the context in the window.
fn agent_session(
    run: &RunRequest,
    spec: &AttemptSpec,
    io: &TurnIo,
    defaults: &AgentDefaults,
    parts: SessionParts<'_>,
) -> Result<AgentSession, String> {
    let executor = ToolExecutor::new(parts.registry)
        .with_hooks(Arc::new(WarnOnFailure(PluginHooks::new(
            Arc::clone(&run.hooks),
            run.hook_context(),
        ))))
        .with_clock(Arc::clone(&run.clock));
    let mut options = StreamOptions {
        api_key: spec.api_key.clone(),
        reasoning: (spec.thinking != ThinkLevel::Off).then_some(spec.thinking),
        session_id: Some(run.session_id.clone()),
        // The agent loop sends it only on the call that answers a user prompt.
        tool_choice: ToolChoice::configured(&spec.model),
        ..StreamOptions::default()
    };
    options.cancel = parts.cancel.clone();
    let mut tool_context = ToolContext::new(&run.workspace_dir);
    tool_context.env = parts.tool_env;
    tool_context.sandbox = run.sandbox.clone();
    tool_context.approval = run.approval.clone();
    tool_context.limits.timeout = None;
    let loop_config = AgentLoopConfig {
        model: spec.model.clone(),
        provider: Arc::clone(&spec.provider),
        options,
        system_prompt: Some(parts.system_prompt),
        executor,
        tool_context,
        queues: io.queues.clone(),
        transform: Some(Arc::new(ToolResultContextGuard {
            context_window_tokens: spec.model.context_window,
        })),
        client_calls: Some(parts.pending_calls.clone()),
        clock: Arc::clone(&run.clock),
        max_tool_rounds: run.max_tool_rounds,
    };
    let compactor = session_compactor(
        &spec.model,
        &spec.provider,
        spec.api_key.clone(),
        defaults,
        &run.clock,
    );
    let auto = AutoCompactionSettings {
        enabled: defaults.compaction.enabled,
        reserve_tokens: defaults.compaction.reserve_tokens,
    };
    AgentSession::new(
        parts.transcript.clone(),
        parts.history,
        loop_config,
        Arc::new(compactor),
        auto,
    )
    .map(|session| session.with_compaction_observer(parts.observer.clone()))
    .map_err(|err| err.to_string())
}

/// The prompt about to be sent, and what sending it needs.
struct SentPrompt<'a> {
    composed: ComposedPrompt,
    now: u64,
    cancel: &'a tokio_util::sync::CancellationToken,
    observer: &'a HookObserver,
}

/// Phase D's prompt through the agent session under the run timer (persistence, compaction
/// with its hooks, one overflow retry), the cache-TTL marker, then phase E: the flags, the
/// subscription's view, `agent_end` and `llm_output`.
#[allow(clippy::too_many_arguments)]
async fn send_prompt(
    run: &RunRequest,
    spec: &AttemptSpec,
    io: &TurnIo,
    defaults: &AgentDefaults,
    session: &mut AgentSession,
    transcript: &TranscriptHandle,
    sent: SentPrompt<'_>,
    result: &mut AttemptResult,
) {
    let subscription: SharedSubscription = Arc::new(Mutex::new(Subscription::new(
        subscription_options(defaults),
        io.replies.clone(),
    )));
    let sink = event_sink(&subscription, io.events.clone());
    let timer = {
        let subscription = Arc::clone(&subscription);
        RunTimer::start(
            run.timeout,
            compaction_timeout(Some(defaults.compaction.timeout_seconds)),
            sent.cancel.clone(),
            move || subscription.lock().is_compacting(),
        )
    };
    let prompt = user_prompt(&sent.composed.text, &run.images, sent.now);
    let prompt_started = run.clock.now_ms();
    sent.observer
        .notify(ObserverEvent::LlmInput(sent.composed.llm_input));
    match session.prompt(vec![prompt], sent.cancel, &sink).await {
        Ok(outcome) => {
            result.compaction_count = outcome.compaction_count;
            result.last_assistant = outcome.last_assistant().cloned();
            result.tool_round_limit = outcome.tool_round_limit;
        }
        Err(err) => result.prompt_error = Some(prompt_error(err.to_string())),
    }
    result.timed_out = timer.flags().timed_out();
    result.timed_out_during_compaction = timer.flags().during_compaction() && result.timed_out;
    drop(timer);
    record_cache_ttl(defaults, spec, run, transcript, result).await;
    let idle = result
        .last_assistant
        .as_ref()
        .and_then(|a| a.error_message.as_deref())
        .is_some_and(is_idle_timeout_error);
    result.idle_timed_out = idle;
    result.timed_out |= idle;
    result.aborted = sent.cancel.is_cancelled()
        || idle
        || result
            .last_assistant
            .as_ref()
            .is_some_and(|a| a.stop_reason == StopReason::Aborted);
    result.messages_snapshot = session.messages().to_vec();
    collect_subscription(&subscription, result);
    notify_run_observers(
        sent.observer,
        spec,
        result,
        run.clock.now_ms().saturating_sub(prompt_started),
    );
}

/// The cache-TTL marker when context pruning asks for it and nothing compacted.
async fn record_cache_ttl(
    defaults: &AgentDefaults,
    spec: &AttemptSpec,
    run: &RunRequest,
    transcript: &TranscriptHandle,
    result: &AttemptResult,
) {
    if defaults.context_pruning.mode == ContextPruningMode::CacheTtl
        && is_cache_ttl_eligible(&spec.model)
        && result.compaction_count == 0
        && !result.timed_out_during_compaction
    {
        let data = cache_ttl_data(&spec.model, run.clock.now_ms());
        if let Err(err) = transcript
            .try_with(move |t| t.append_custom(CACHE_TTL_CUSTOM_TYPE, Some(data)))
            .await
        {
            tracing::warn!(target: "clawloop::attempt", "cannot record the cache-ttl marker: {err}");
        }
    }
}

/// `agent_end`, then `llm_output` (OpenClaw's order), once the attempt's prompt is over.
fn notify_run_observers(
    observer: &HookObserver,
    spec: &AttemptSpec,
    result: &AttemptResult,
    duration_ms: u64,
) {
    let error = result
        .prompt_error
        .as_ref()
        .map(|e| e.message.clone())
        .or_else(|| {
            result
                .last_assistant
                .as_ref()
                .filter(|a| a.stop_reason == StopReason::Error)
                .and_then(|a| a.error_message.clone())
        });
    observer.notify(ObserverEvent::AgentEnd(AgentEndEvent {
        messages: Arc::from(result.messages_snapshot.clone()),
        success: !result.aborted && error.is_none(),
        error,
        duration_ms,
    }));
    let totals = result.subscription.usage_totals.unwrap_or_default();
    let usage = clawloop_core::Usage {
        input: totals.input.unwrap_or(0),
        output: totals.output.unwrap_or(0),
        cache_read: totals.cache_read.unwrap_or(0),
        cache_write: totals.cache_write.unwrap_or(0),
        total_tokens: totals.total.unwrap_or(0),
        ..clawloop_core::Usage::default()
    };
    observer.notify(ObserverEvent::LlmOutput(LlmOutputEvent {
        provider: spec.model.provider.clone(),
        model: spec.model.id.clone(),
        assistant_texts: result.subscription.assistant_texts.clone(),
        last_assistant: result.last_assistant.clone().map(Arc::new),
        usage,
    }));
}

/// The compactor a session with `model` uses: the config's reserve, kept tokens and safety
/// timeout, the model's window, the run's key.
pub fn session_compactor(
    model: &clawloop_core::model::Model,
    provider: &Arc<dyn clawloop_core::provider::LlmStream>,
    api_key: Option<String>,
    defaults: &AgentDefaults,
    clock: &Arc<dyn clawloop_core::clock::Clock>,
) -> Compactor {
    let settings = CompactionSettings {
        reserve_tokens: defaults.compaction.reserve_tokens,
        keep_recent_tokens: defaults.compaction.keep_recent_tokens,
        ..CompactionSettings::default()
    };
    Compactor::new(Arc::clone(provider), model.clone())
        .with_settings(settings)
        .with_timeout(compaction_timeout(Some(
            defaults.compaction.timeout_seconds,
        )))
        .with_stream_options(StreamOptions {
            api_key,
            ..StreamOptions::default()
        })
        .with_context_window(model.context_window)
        .with_clock(Arc::clone(clock))
}

/// A prompt error from sending the prompt.
fn prompt_error(message: String) -> PromptError {
    PromptError {
        message,
        source: PromptErrorSource::Prompt,
    }
}

/// The tool pool under the configured policy, plus the run's client tools.
fn tool_registry(
    run: &RunRequest,
    defaults: &AgentDefaults,
    pending: &PendingToolCalls,
) -> Result<ToolRegistry, String> {
    let mut policy = if defaults.tools.allow.is_empty() {
        ToolPolicy::allow_all()
    } else {
        ToolPolicy::allow_only(defaults.tools.allow.iter())
    };
    policy = policy.deny(defaults.tools.deny.iter());
    let pool = ToolRegistry::from_tools(run.tools.iter().cloned()).map_err(|e| e.to_string())?;
    let mut registry = pool.filtered(&policy);
    let hosted: Vec<Arc<dyn Tool>> = client_tools(run.client_tools.iter().cloned(), pending);
    for tool in hosted {
        registry.upsert(tool).map_err(|e| e.to_string())?;
    }
    Ok(registry)
}

/// What phase C learned from the transcript.
struct PreparedSession {
    context: Vec<AgentMessage>,
    /// The text of a user prompt left as the leaf by a run that never got an answer.
    orphaned_prompt: Option<String>,
    /// Whether the transcript had no entry yet.
    is_new: bool,
    model: Option<(String, String)>,
    thinking_level: String,
    header_session_id: Option<String>,
}

/// Reads the context; answers dangling tool calls in the file; takes an orphaned user prompt
/// off the branch so this run's prompt carries it (two user turns are never consecutive).
async fn prepare_session(
    transcript: &TranscriptHandle,
    now: u64,
) -> Result<PreparedSession, PersistError> {
    transcript
        .try_with(move |t| {
            let is_new = t.entry_count() == 0;
            t.answer_dangling_tool_calls(now)?;
            let mut orphaned_prompt = None;
            if let Some(SessionEntry::Message(entry)) = t.leaf_entry()
                && let AgentMessage::User(user) = &entry.message
            {
                orphaned_prompt = Some(user.content.text());
                match entry.parent_id.clone() {
                    Some(parent) => t.branch(&parent)?,
                    None => t.reset_leaf(),
                }
            }
            let context = t.build_context();
            Ok(PreparedSession {
                context: context.messages,
                orphaned_prompt,
                is_new,
                model: context.model.map(|m| (m.provider, m.model_id)),
                thinking_level: context.thinking_level,
                header_session_id: Some(t.session_id().to_owned()),
            })
        })
        .await
}

/// pi's first entries of a new session, and a `model_change` / `thinking_level_change` when the
/// run uses another model or level than the branch last recorded.
async fn record_model_and_thinking(
    session: &mut AgentSession,
    prepared: &PreparedSession,
    spec: &AttemptSpec,
) -> Result<(), crate::agent::AgentSessionError> {
    let current = (spec.model.provider.clone(), spec.model.id.clone());
    if prepared.model.as_ref() != Some(&current) {
        session.set_model(spec.model.clone()).await?;
    }
    if prepared.is_new || prepared.thinking_level != spec.thinking.as_str() {
        session.write_thinking_level(spec.thinking).await?;
    }
    Ok(())
}

fn join_prompt(orphaned: Option<&str>, prompt: &str) -> String {
    match orphaned {
        Some(previous) if !previous.trim().is_empty() => format!("{previous}\n\n{prompt}"),
        _ => prompt.to_owned(),
    }
}

fn user_prompt(
    text: &str,
    images: &[clawloop_core::message::ImageContent],
    now: u64,
) -> AgentMessage {
    if images.is_empty() {
        return AgentMessage::User(UserMessage::text(text, now));
    }
    let mut blocks = vec![ContentBlock::text(text)];
    blocks.extend(images.iter().cloned().map(ContentBlock::Image));
    let mut message = UserMessage::text("", now);
    message.content = UserContent::from(blocks);
    AgentMessage::User(message)
}

/// The subscription's options from `[agents.defaults.blockStreaming]`.
fn subscription_options(defaults: &AgentDefaults) -> SubscriptionOptions {
    let block = &defaults.block_streaming;
    let break_preference = match block.break_preference.as_str() {
        "newline" => BreakPreference::Newline,
        "sentence" => BreakPreference::Sentence,
        _ => BreakPreference::Paragraph,
    };
    SubscriptionOptions {
        block_reply_break: match block.break_mode {
            BreakMode::TextEnd => BlockReplyBreak::TextEnd,
            BreakMode::MessageEnd => BlockReplyBreak::MessageEnd,
        },
        chunking: block.enabled.then_some(ChunkingOptions {
            min_chars: block.min_chars,
            max_chars: block.max_chars,
            break_preference,
            flush_on_paragraph: false,
        }),
        block_replies: block.enabled,
        ..SubscriptionOptions::default()
    }
}

/// The loop's event sink: the subscription first, then the caller's observer.
fn event_sink(subscription: &SharedSubscription, events: Option<EventSink>) -> EventSink {
    let subscription = Arc::clone(subscription);
    Arc::new(move |event: AgentEvent| {
        subscription.lock().handle(&event);
        if let Some(observer) = &events {
            observer(event);
        }
    })
}

fn collect_subscription(subscription: &SharedSubscription, result: &mut AttemptResult) {
    let mut sub = subscription.lock();
    sub.unsubscribe();
    result.subscription = sub.report();
}
