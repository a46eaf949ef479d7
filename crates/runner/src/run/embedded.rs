//! `run_embedded_agent` (seed 002, reference §4): one model, attempts until an answer. Each
//! iteration runs an attempt, then walks the chains of reference §4.2 in order — timeout
//! compaction, the overflow chain, the prompt-error chain, thinking fallback, assistant-side
//! failover — each decided by a pure function of this module's siblings.

use std::sync::Arc;

use clawloop_core::classify::{
    classify_failover_reason, is_failover_error_message, is_role_ordering_error,
    is_timeout_error_message, parse_image_size_error,
};
use clawloop_core::context_window::{
    ContextWindowSources, context_window_too_small_message, evaluate_context_window_guard,
    resolve_context_window_info,
};
use clawloop_core::error_text::{
    BILLING_TEXT, CONTEXT_OVERFLOW_TEXT, ErrorTextContext, RETRY_LIMIT_TEXT, ROLE_ORDERING_TEXT,
    format_assistant_error_text, image_too_large_text, no_api_key_resolved_message,
    retry_limit_error_message,
};
use clawloop_core::hooks::HookContext;
use clawloop_core::model::Model;
use clawloop_core::provider::LlmStream;
use clawloop_core::think_level::pick_fallback_thinking_level;
use clawloop_core::{FailoverError, FailoverReason, StopReason, ThinkLevel};
use clawloop_providers::api_key::{ApiKeyResolver, EnvFn, is_keyless_provider};
use clawloop_providers::catalog::ModelCatalog;
use clawloop_session::SessionOptions;
use clawloop_session::transforms::{ToolResultBudget, session_likely_has_oversized_tool_results};

use crate::agent::{CompactionRequest, CompactionTrigger, TranscriptHandle};
use crate::attempt::{
    AttemptParams, AttemptResult, PromptErrorSource, run_attempt, session_compactor,
};
use crate::cli_backend::{cli_backend_for_provider, cli_backend_model};
use crate::compaction::CompactionOutcome;
use crate::config::Config;
use crate::hooks::{AgentStartOnce, HookObserver, compact_observed, resolve_model_override};
use crate::payloads::RunErrorKind;
use crate::run::cli_verdict::{CliVerdict, cli_attempt_verdict};
use crate::run::decide::{
    DecisionInput, DecisionStage, FailoverDecision, merge_retry_failover_reason,
    resolve_run_failover_decision,
};
use crate::run::limits::{
    MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES, MAX_TIMEOUT_COMPACTION_ATTEMPTS,
    TIMEOUT_COMPACTION_PROMPT_RATIO, max_run_loop_iterations, tool_round_limit_text,
};
use crate::run::overflow::{OverflowAction, OverflowState, overflow_action, overflow_text};
use crate::run::profiles::ProfileCursor;
use crate::run::providers::provider_for_run;
use crate::run::request::{RunEnding, RunError, RunOutcome, RunRequest};
use crate::turn::TurnIo;

/// Text of the failover thrown when rate limits persist past the rotation cap.
pub const RATE_LIMITED_FAILOVER_TEXT: &str =
    "The AI service is temporarily rate-limited. Please try again in a moment.";
/// Text of the failover thrown when overloads persist past the rotation cap (the core's
/// overloaded copy).
pub const OVERLOADED_FAILOVER_TEXT: &str = clawloop_core::error_text::OVERLOADED_TEXT;

/// The loop's own state (reference §4.1 item 10, §4.2).
#[derive(Debug, Default)]
struct RunState {
    iterations: u32,
    attempted_thinking: Vec<ThinkLevel>,
    overflow: OverflowState,
    timeout_compactions: u32,
    rate_limit_rotations: u32,
    overload_rotations: u32,
    same_model_idle_retries: u32,
    last_retry_reason: Option<FailoverReason>,
    compaction_count: u32,
    /// The CLI's session expired and a new one was started (once per run).
    cli_session_restarted: bool,
}

/// Runs one model until it answers, a payload ends the run, or a failover moves on.
pub async fn run_embedded_agent(request: RunRequest, io: TurnIo) -> Result<RunOutcome, RunError> {
    let started = request.clock.now_ms();
    if io.cancel.is_cancelled() {
        return Err(RunError::Aborted);
    }
    let request = apply_run_start_hooks(request).await;
    // A CLI backend (reference §21 step 1) logs in on its own: no auth profiles, no key.
    let cli_backend = cli_backend_for_provider(&request.config, &request.provider)
        .map_err(|err| RunError::Failed(err.to_string()))?;
    let model = resolve_model(&request, cli_backend.is_some())?;
    // A CLI keeps and compacts its own history; a summary request sent through it would land
    // in its session as a user message. Its runs never compact the transcript.
    let request = match &cli_backend {
        Some(_) => RunRequest {
            config: Arc::new(without_auto_compaction(&request.config)),
            ..request
        },
        None => request,
    };
    let mut provider =
        provider_for_run(&request, &model, cli_backend.as_ref(), true).map_err(RunError::Failed)?;
    let initial_thinking = request.thinking;
    let mut thinking = initial_thinking;

    let mut cursor = ProfileCursor::resolve(
        request.auth.clone().filter(|_| cli_backend.is_none()),
        &request.provider,
        &request.model,
        request.locked_profile.as_deref(),
        Arc::clone(&request.env),
    )
    .await
    .map_err(|no| profile_error(&request, no.message, no.reason))?;
    let mut api_key = match cursor.first(request.allow_transient_cooldown_probe).await {
        Ok(Some(active)) => Some(active.secret),
        Ok(None) if cli_backend.is_some() => None,
        Ok(None) => configured_key(&request).await?,
        Err(no) => return Err(profile_error(&request, no.message, no.reason)),
    };
    let rotation_caps = (
        request.config.auth.cooldowns.rate_limited_profile_rotations,
        request.config.auth.cooldowns.overloaded_profile_rotations,
    );
    let max_iterations = max_run_loop_iterations(cursor.len());
    let mut state = RunState::default();
    let mut attempts: Vec<AttemptResult> = Vec::new();

    let mut oversized = prompt_too_large(&request, &model);

    // Every way out with a result breaks with its ending; failures return.
    let ending = 'run: loop {
        if let Some((text, message)) = oversized.take() {
            // Refused before the transcript is opened: no overflow recovery, no reset of the
            // session for a prompt no compaction can make fit.
            break error_payload(text, RunErrorKind::PromptTooLarge, message);
        }
        if state.iterations >= max_iterations {
            let decision = resolve_run_failover_decision(
                DecisionStage::RetryLimit,
                &DecisionInput {
                    reason: state.last_retry_reason,
                    fallback_configured: request.fallback_configured,
                    ..DecisionInput::default()
                },
            );
            let message = retry_limit_error_message(state.iterations, max_iterations);
            match decision {
                FailoverDecision::FallbackModel(reason) => {
                    return Err(failover(&model, message, reason));
                }
                FailoverDecision::ContinueNormal
                | FailoverDecision::RotateProfile
                | FailoverDecision::SurfaceError
                | FailoverDecision::ReturnErrorPayload => {
                    break error_payload(RETRY_LIMIT_TEXT, RunErrorKind::RetryLimit, message);
                }
            }
        }
        state.iterations += 1;
        if !state.attempted_thinking.contains(&thinking) {
            state.attempted_thinking.push(thinking);
        }

        let params = attempt_params(&request, &model, &provider, api_key.clone(), thinking);
        let attempt = run_attempt(params, io.clone()).await;
        state.compaction_count += attempt.compaction_count;
        let external_abort = io.cancel.is_cancelled();
        attempts.push(attempt.clone());

        if cli_backend.is_some() {
            match cli_attempt_verdict(
                &attempt,
                &model.provider,
                external_abort,
                request.timeout,
                state.cli_session_restarted,
            ) {
                CliVerdict::Answered => break RunEnding::Completed,
                CliVerdict::Aborted => return Err(RunError::Aborted),
                CliVerdict::RetryWithoutSession => {
                    tracing::warn!(target: "clawloop::run", "CLI session of {}/{} expired; retrying with a new session", model.provider, model.id);
                    state.cli_session_restarted = true;
                    provider = provider_for_run(&request, &model, cli_backend.as_ref(), false)
                        .map_err(RunError::Failed)?;
                    continue;
                }
                CliVerdict::Failover { message, reason } => {
                    return Err(failover(&model, message, reason));
                }
            }
        }

        // Timeout-triggered compaction (reference §4.3).
        if attempt.timed_out
            && !attempt.timed_out_during_compaction
            && !external_abort
            && state.timeout_compactions < MAX_TIMEOUT_COMPACTION_ATTEMPTS
        {
            let prompt_tokens = attempt.last_call_usage.as_ref().map_or(0, |u| {
                u.input
                    .saturating_add(u.cache_read)
                    .saturating_add(u.cache_write)
            });
            #[allow(clippy::cast_precision_loss)]
            let ratio = prompt_tokens as f64 / model.context_window.max(1) as f64;
            if ratio > TIMEOUT_COMPACTION_PROMPT_RATIO {
                state.timeout_compactions += 1;
                if compact_session(&request, &model, &provider, api_key.clone()).await {
                    state.compaction_count += 1;
                    continue;
                }
            }
        }

        // The overflow chain (reference §4.4).
        let assistant_error = attempt
            .last_assistant
            .as_ref()
            .filter(|a| a.stop_reason == StopReason::Error)
            .and_then(|a| a.error_message.as_deref());
        let prompt_error_text = attempt.prompt_error.as_ref().map(|e| e.message.as_str());
        if let Some(text) = overflow_text(prompt_error_text, assistant_error, attempt.aborted) {
            state.overflow.attempt_compaction_count = attempt.compaction_count;
            state.overflow.has_oversized_tool_results = session_likely_has_oversized_tool_results(
                &attempt.messages_snapshot,
                model.context_window,
            );
            state.overflow.compaction_did_not_compact = false;
            loop {
                match overflow_action(&text, &state.overflow) {
                    OverflowAction::RetryAfterAttemptCompaction => {
                        state.overflow.compaction_attempts += 1;
                        break;
                    }
                    OverflowAction::Compact { observed_tokens } => {
                        state.overflow.compaction_attempts += 1;
                        if compact_session(&request, &model, &provider, api_key.clone()).await {
                            state.compaction_count += 1;
                            break;
                        }
                        tracing::warn!(target: "clawloop::run", "auto-compaction failed for {}/{}: nothing to compact (observed {observed_tokens:?} tokens)", model.provider, model.id);
                        state.overflow.compaction_did_not_compact = true;
                    }
                    OverflowAction::TruncateToolResults => {
                        state.overflow.truncation_attempted = true;
                        if truncate_tool_results(&request, &model).await {
                            // The seed resets the compaction counter after a truncation that helped.
                            state.overflow.compaction_attempts = 0;
                            break;
                        }
                    }
                    OverflowAction::GiveUp { kind, message } => {
                        break 'run error_payload(CONTEXT_OVERFLOW_TEXT, kind, message);
                    }
                }
            }
            continue;
        }

        // The prompt-error chain (reference §4.5).
        if let Some(prompt_error) = attempt
            .prompt_error
            .as_ref()
            .filter(|e| !attempt.aborted && e.source != PromptErrorSource::Compaction)
        {
            let text = prompt_error.message.clone();
            if is_role_ordering_error(&text) {
                break error_payload(ROLE_ORDERING_TEXT, RunErrorKind::RoleOrdering, text);
            }
            if let Some(ending) = image_size_ending(&text) {
                break ending;
            }
            let reason = classify_failover_reason(&text, Some(&model.provider));
            if let Some(reason) = reason {
                cursor.mark_failure(reason).await;
            }
            let failover_failure =
                reason.is_some() || is_failover_error_message(&text, Some(&model.provider));
            // Only rate limits count towards a cap here (the seed's prompt branch).
            if reason == Some(FailoverReason::RateLimit)
                && state.rotation_capped(FailoverReason::RateLimit, rotation_caps, &request)
            {
                return Err(rotation_cap_failover(&model, FailoverReason::RateLimit));
            }
            let mut input = DecisionInput {
                reason,
                failover_failure,
                fallback_configured: request.fallback_configured,
                external_abort,
                ..DecisionInput::default()
            };
            let mut decision = resolve_run_failover_decision(DecisionStage::Prompt, &input);
            if decision == FailoverDecision::RotateProfile {
                if let Some(next) = cursor.advance().await {
                    api_key = Some(next.secret);
                    thinking = initial_thinking;
                    state.attempted_thinking.clear();
                    state.last_retry_reason =
                        merge_retry_failover_reason(reason, false, state.last_retry_reason);
                    continue;
                }
                input.profile_rotated = true;
                decision = resolve_run_failover_decision(DecisionStage::Prompt, &input);
            }
            if let Some(level) = pick_fallback_thinking_level(&text, &state.attempted_thinking) {
                thinking = level;
                continue;
            }
            return Err(match decision {
                FailoverDecision::FallbackModel(reason) => failover(&model, text, reason),
                FailoverDecision::ContinueNormal
                | FailoverDecision::RotateProfile
                | FailoverDecision::SurfaceError
                | FailoverDecision::ReturnErrorPayload => {
                    if external_abort {
                        RunError::Aborted
                    } else {
                        RunError::Failed(text)
                    }
                }
            });
        }

        // Assistant side (reference §4.6, §5.2).
        if whole_run_timed_out(&attempt, external_abort) {
            // The user's time limit is for the whole turn: another key or model would only
            // run past it (OpenClaw rotates and falls back here; clawloop fails the turn).
            break RunEnding::Completed;
        }
        let last = attempt.last_assistant.clone();
        let error_message = last.as_ref().and_then(|a| a.error_message.clone());
        if !attempt.aborted
            && let Some(level) = error_message
                .as_deref()
                .and_then(|m| pick_fallback_thinking_level(m, &state.attempted_thinking))
        {
            thinking = level;
            continue;
        }
        let errored = last
            .as_ref()
            .is_some_and(|a| a.stop_reason == StopReason::Error);
        // A provider's size rejection of an image reaches the run as an errored reply (HTTP
        // errors are never prompt errors), so it is checked here too, before any rotation: no
        // profile or model takes the same image, and the user gets the image copy of SPEC §9
        // instead of the raw rejection.
        if errored
            && !attempt.aborted
            && let Some(ending) = error_message.as_deref().and_then(image_size_ending)
        {
            break 'run ending;
        }
        let reason = classify_failover_reason(
            error_message.as_deref().unwrap_or(""),
            Some(&model.provider),
        );
        let failover_failure = errored
            && error_message
                .as_deref()
                .is_some_and(|m| is_failover_error_message(m, Some(&model.provider)));
        let mut input = DecisionInput {
            reason,
            failover_failure,
            fallback_configured: request.fallback_configured,
            external_abort,
            aborted: attempt.aborted && !attempt.timed_out,
            timed_out: attempt.timed_out,
            timed_out_during_compaction: attempt.timed_out_during_compaction,
            profile_rotated: false,
        };
        let same_model_idle_retry = attempt.timed_out
            && attempt.idle_timed_out
            && !attempt.timed_out_during_compaction
            && !request.fallback_configured
            && !attempt.had_potential_side_effects
            && state.same_model_idle_retries < MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES;
        let mut decision = resolve_run_failover_decision(DecisionStage::Assistant, &input);
        if decision == FailoverDecision::RotateProfile {
            let profile_reason = if attempt.timed_out {
                FailoverReason::Timeout
            } else {
                reason.unwrap_or(FailoverReason::Unknown)
            };
            cursor.mark_failure(profile_reason).await;
            if let Some(capped @ (FailoverReason::Overloaded | FailoverReason::RateLimit)) = reason
                && state.rotation_capped(capped, rotation_caps, &request)
            {
                return Err(rotation_cap_failover(&model, capped));
            }
            state.last_retry_reason =
                merge_retry_failover_reason(reason, attempt.timed_out, state.last_retry_reason);
            if let Some(next) = cursor.advance().await {
                api_key = Some(next.secret);
                thinking = initial_thinking;
                state.attempted_thinking.clear();
                continue;
            }
            if same_model_idle_retry {
                tracing::warn!(target: "clawloop::run", "[llm-idle-timeout] {}/{} produced no reply before the idle watchdog; retrying same model", model.provider, model.id);
                state.same_model_idle_retries += 1;
                continue;
            }
            input.profile_rotated = true;
            decision = resolve_run_failover_decision(DecisionStage::Assistant, &input);
        }
        match decision {
            FailoverDecision::FallbackModel(reason) => {
                let message = fallback_message(last.as_ref(), &model, reason);
                return Err(failover(&model, message, reason));
            }
            FailoverDecision::SurfaceError if same_model_idle_retry && !external_abort => {
                state.same_model_idle_retries += 1;
                continue;
            }
            FailoverDecision::ContinueNormal
            | FailoverDecision::SurfaceError
            | FailoverDecision::RotateProfile
            | FailoverDecision::ReturnErrorPayload => {}
        }
        if !errored && !attempt.aborted && attempt.prompt_error.is_none() {
            cursor.mark_success().await;
        }
        if let Some(limit) = attempt.tool_round_limit {
            break error_payload(
                tool_round_limit_text(limit),
                RunErrorKind::ToolRoundLimit,
                format!("the model asked for tools after {limit} tool rounds"),
            );
        }
        break RunEnding::Completed;
    };
    Ok(outcome(
        &request, &model, &cursor, attempts, &state, started, ending,
    ))
}

impl RunState {
    /// Counts a profile rotation for `reason` (rate limit or overload); true when its cap
    /// (`auth.cooldowns.{rateLimited,overloaded}ProfileRotations`) is passed and another model
    /// can take over.
    fn rotation_capped(
        &mut self,
        reason: FailoverReason,
        caps: (u32, u32),
        request: &RunRequest,
    ) -> bool {
        let (count, cap) = match reason {
            FailoverReason::RateLimit => (&mut self.rate_limit_rotations, caps.0),
            FailoverReason::Overloaded => (&mut self.overload_rotations, caps.1),
            _ => return false,
        };
        *count += 1;
        *count > cap && request.fallback_configured
    }
}

/// The run-start hooks (reference §4.1 item 5): their provider or model replaces the run's
/// before the model is resolved, and the attempts reuse the legacy hook's answer instead of
/// calling it again.
async fn apply_run_start_hooks(mut request: RunRequest) -> RunRequest {
    let context = hook_context(&request);
    let decided = resolve_model_override(&request.hooks, &context, &request.prompt).await;
    if let Some(provider) = decided.model_override.provider {
        request.provider = provider;
    }
    if let Some(model) = decided.model_override.model {
        request.model = model;
    }
    request.hooks = Arc::new(AgentStartOnce::new(
        Arc::clone(&request.hooks),
        decided.agent_start,
    ));
    request
}

fn hook_context(request: &RunRequest) -> HookContext {
    HookContext {
        agent_id: request.agent_id.clone(),
        session_key: request.session_key.clone(),
        session_id: request.session_id.clone(),
        run_id: request.run_id.clone(),
        workspace_dir: Some(request.workspace_dir.clone()),
    }
}

/// The run's end for an image the provider refused for its size (reference §4.5 step 4).
fn image_size_ending(error_text: &str) -> Option<RunEnding> {
    let image = parse_image_size_error(error_text)?;
    Some(RunEnding::ErrorPayload {
        text: image_too_large_text(image.max_mb),
        kind: RunErrorKind::ImageSize,
        message: error_text.to_owned(),
    })
}

/// The failover thrown when rotations for `reason` passed their cap.
fn rotation_cap_failover(model: &Model, reason: FailoverReason) -> RunError {
    let text = if reason == FailoverReason::Overloaded {
        OVERLOADED_FAILOVER_TEXT
    } else {
        RATE_LIMITED_FAILOVER_TEXT
    };
    failover(model, text.to_owned(), reason)
}

/// A run that gives up with `text` for the user.
/// The user-facing text and the meta message when the prompt alone (pi's estimate, four chars a
/// token, rounded up) does not fit the model's context window.
fn prompt_too_large(request: &RunRequest, model: &Model) -> Option<(String, String)> {
    let chars = u64::try_from(request.prompt.chars().count()).unwrap_or(u64::MAX);
    let tokens = chars.div_ceil(4);
    let window = model.context_window;
    (window > 0 && tokens > window).then(|| {
        (
            format!(
                "The prompt is too large for the model: about {tokens} tokens, and {}/{}'s context window is {window} tokens. Shorten it, or use a model with a larger window.",
                model.provider, model.id
            ),
            format!("prompt of ~{tokens} tokens exceeds the context window of {window}"),
        )
    })
}

/// The whole-run time limit (not the idle watchdog, not during a compaction) ended the attempt.
fn whole_run_timed_out(attempt: &AttemptResult, external_abort: bool) -> bool {
    attempt.timed_out
        && !attempt.idle_timed_out
        && !attempt.timed_out_during_compaction
        && !external_abort
}

fn error_payload(text: impl Into<String>, kind: RunErrorKind, message: String) -> RunEnding {
    RunEnding::ErrorPayload {
        text: text.into(),
        kind,
        message,
    }
}

/// The model from the catalog and config — or, for a CLI backend, any model id under it —
/// its window capped by the guard (reference §4.1 items 6–7).
fn resolve_model(request: &RunRequest, cli_backend: bool) -> Result<Model, RunError> {
    let mut model = if cli_backend {
        cli_backend_model(&request.config, &request.provider, &request.model)
    } else {
        let catalog = ModelCatalog::from_config(&request.config.models)
            .map_err(|err| RunError::Failed(err.to_string()))?;
        catalog
            .get(&request.provider, &request.model)
            .cloned()
            .map_err(|_| {
                RunError::Failover(Box::new(
                    FailoverError::new(
                        format!("Unknown model: {}/{}", request.provider, request.model),
                        FailoverReason::ModelNotFound,
                    )
                    .with_model(request.provider.clone(), request.model.clone()),
                ))
            })?
    };
    let configured = request
        .config
        .models
        .providers
        .get(&request.provider)
        .and_then(|p| p.models.iter().find(|m| m.id == request.model));
    #[allow(clippy::cast_precision_loss)]
    let sources = ContextWindowSources {
        model_context_window: Some(model.context_window as f64),
        config_context_window: configured.and_then(|m| m.context_window).map(|v| v as f64),
        config_context_tokens: configured.and_then(|m| m.context_tokens).map(|v| v as f64),
        agent_context_tokens: Some(request.config.defaults().context_tokens as f64),
        ..ContextWindowSources::default()
    };
    let info = resolve_context_window_info(&sources);
    let guard = evaluate_context_window_guard(&info, None, None);
    if guard.should_block {
        return Err(RunError::Failover(Box::new(
            FailoverError::new(
                context_window_too_small_message(guard.tokens),
                FailoverReason::Unknown,
            )
            .with_model(model.provider.clone(), model.id.clone()),
        )));
    }
    if guard.should_warn {
        tracing::warn!(target: "clawloop::run", "low context window: {}/{} ctx={} (warn<32000) source={}", model.provider, model.id, guard.tokens, guard.source.as_str());
    }
    if info.tokens > 0 && info.tokens < model.context_window {
        model.context_window = info.tokens;
    }
    Ok(model)
}

/// The key from `models.providers.<p>.apiKey` or the provider's environment variable, resolved
/// on the blocking pool (a `!command` runs a child process).
async fn configured_key(request: &RunRequest) -> Result<Option<String>, RunError> {
    let provider = request.provider.clone();
    let spec = request
        .config
        .models
        .providers
        .get(&provider)
        .and_then(|p| p.api_key.clone());
    let env = Arc::clone(&request.env);
    let resolved = tokio::task::spawn_blocking(move || {
        let lookup = EnvFn(move |name: &str| env(name));
        ApiKeyResolver::new(&lookup)
            .resolve(&provider, spec.as_deref())
            .map(|key| key.map(|k| k.into_value()))
    })
    .await
    .map_err(|err| RunError::Failed(format!("key resolution stopped: {err}")))?
    .map_err(|err| RunError::Failed(err.to_string()))?;
    if resolved.is_none() && !is_keyless_provider(&request.provider) {
        return Err(RunError::Failed(no_api_key_resolved_message(
            &request.provider,
            "api_key",
        )));
    }
    Ok(resolved)
}

/// A profile problem: a failover when another model can be tried, else a plain error.
fn profile_error(request: &RunRequest, message: String, reason: FailoverReason) -> RunError {
    if request.fallback_configured {
        RunError::Failover(Box::new(
            FailoverError::new(message, reason)
                .with_model(request.provider.clone(), request.model.clone()),
        ))
    } else {
        RunError::Failed(message)
    }
}

fn failover(model: &Model, message: String, reason: FailoverReason) -> RunError {
    let status = if is_timeout_error_message(&message) {
        Some(408)
    } else {
        reason.status()
    };
    let mut error =
        FailoverError::new(message, reason).with_model(model.provider.clone(), model.id.clone());
    if let Some(status) = status {
        error = error.with_status(status);
    }
    RunError::Failover(Box::new(error))
}

/// The failover message of an errored reply (reference §5.2): the formatted error, the raw
/// error, or a synthetic text by reason.
fn fallback_message(
    last: Option<&clawloop_core::message::AssistantMessage>,
    model: &Model,
    reason: FailoverReason,
) -> String {
    let ctx = ErrorTextContext {
        provider: Some(&model.provider),
        model: Some(&model.id),
    };
    if let Some(last) = last
        && let Some(text) =
            format_assistant_error_text(last.stop_reason, last.error_message.as_deref(), &ctx)
    {
        return text;
    }
    if let Some(raw) = last
        .and_then(|a| a.error_message.clone())
        .filter(|m| !m.trim().is_empty())
    {
        return raw;
    }
    match reason {
        FailoverReason::Timeout => "LLM request timed out.".to_owned(),
        FailoverReason::RateLimit => "LLM request rate limited.".to_owned(),
        FailoverReason::Billing => BILLING_TEXT.to_owned(),
        FailoverReason::Auth | FailoverReason::AuthPermanent => {
            "LLM request unauthorized.".to_owned()
        }
        FailoverReason::Format
        | FailoverReason::Overloaded
        | FailoverReason::ModelNotFound
        | FailoverReason::SessionExpired
        | FailoverReason::Unknown => "LLM request failed.".to_owned(),
    }
}

fn attempt_params(
    request: &RunRequest,
    model: &Model,
    provider: &Arc<dyn LlmStream>,
    api_key: Option<String>,
    thinking: ThinkLevel,
) -> AttemptParams {
    AttemptParams {
        run_id: request.run_id.clone(),
        agent_id: request.agent_id.clone(),
        session_key: request.session_key.clone(),
        session_id: request.session_id.clone(),
        session_file: request.session_file.clone(),
        workspace_dir: request.workspace_dir.clone(),
        home_dir: request.home_dir.clone(),
        prompt: request.prompt.clone(),
        images: request.images.clone(),
        client_tools: request.client_tools.clone(),
        extra_system_prompt: request.extra_system_prompt.clone(),
        prompt_mode: request.prompt_mode,
        prompt_profile: request.prompt_profile,
        system_prompt: request.system_prompt.clone(),
        max_tool_rounds: request.max_tool_rounds,
        model: model.clone(),
        provider: Arc::clone(provider),
        api_key,
        thinking,
        config: Arc::clone(&request.config),
        tools: request.tools.clone(),
        timeout: request.timeout,
        hooks: Arc::clone(&request.hooks),
        clock: Arc::clone(&request.clock),
        timezone: request.timezone.clone(),
    }
}

/// Compacts the session of `request` now (`/compact`; OpenClaw's
/// `compactEmbeddedPiSessionDirect`): the model, its window and the key are resolved as a run
/// resolves them, and the summary is written under the transcript's lock.
/// [`CompactionOutcome::NotCompacted`] when there was nothing to summarize.
pub async fn compact_run_session(
    request: &RunRequest,
    custom_instructions: Option<String>,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<CompactionOutcome, RunError> {
    let model = resolve_model(request, false)?;
    let provider = (request.provider_factory)(&model).map_err(RunError::Failed)?;
    let mut cursor = ProfileCursor::resolve(
        request.auth.clone(),
        &request.provider,
        &request.model,
        request.locked_profile.as_deref(),
        Arc::clone(&request.env),
    )
    .await
    .map_err(|no| RunError::Failed(no.message))?;
    let api_key = match cursor.first(true).await {
        Ok(Some(active)) => Some(active.secret),
        Ok(None) => configured_key(request).await?,
        Err(no) => return Err(RunError::Failed(no.message)),
    };
    let options = SessionOptions {
        clock: Arc::clone(&request.clock),
        ..SessionOptions::default()
    };
    let transcript = TranscriptHandle::open_locked(&request.session_file, options)
        .await
        .map_err(|err| RunError::Failed(err.to_string()))?;
    let compactor = session_compactor(
        &model,
        &provider,
        api_key,
        request.config.defaults(),
        &request.clock,
    );
    let compaction_request = CompactionRequest {
        reason: CompactionTrigger::Manual,
        custom_instructions,
    };
    let observer = HookObserver::new(Arc::clone(&request.hooks), hook_context(request));
    compact_observed(
        &compactor,
        &transcript,
        compaction_request,
        cancel.clone(),
        Some(&observer),
    )
    .await
    .map_err(|err| match err {
        crate::compaction::CompactionError::Cancelled => RunError::Aborted,
        other => RunError::Failed(other.to_string()),
    })
}

/// `config` with `agents.defaults.compaction.enabled` off.
fn without_auto_compaction(config: &Config) -> Config {
    let mut config = config.clone();
    config.agents.defaults.compaction.enabled = false;
    config
}

/// The run's transcript under its lock, for a repair between attempts (`purpose` names it in
/// the warning when the file cannot be opened).
async fn open_session(request: &RunRequest, purpose: &str) -> Option<TranscriptHandle> {
    let options = SessionOptions {
        clock: Arc::clone(&request.clock),
        ..SessionOptions::default()
    };
    match TranscriptHandle::open_locked(&request.session_file, options).await {
        Ok(transcript) => Some(transcript),
        Err(err) => {
            tracing::warn!(target: "clawloop::run", "cannot open the session to {purpose}: {err}");
            None
        }
    }
}

/// An explicit compaction between attempts, under the transcript's lock. True when a summary
/// was written.
async fn compact_session(
    request: &RunRequest,
    model: &Model,
    provider: &Arc<dyn LlmStream>,
    api_key: Option<String>,
) -> bool {
    let Some(transcript) = open_session(request, "compact it").await else {
        return false;
    };
    let compactor = session_compactor(
        model,
        provider,
        api_key,
        request.config.defaults(),
        &request.clock,
    );
    let compaction_request = CompactionRequest {
        reason: CompactionTrigger::Auto(clawloop_core::agent_event::CompactionReason::Overflow),
        custom_instructions: None,
    };
    let observer = HookObserver::new(Arc::clone(&request.hooks), hook_context(request));
    match compact_observed(
        &compactor,
        &transcript,
        compaction_request,
        tokio_util::sync::CancellationToken::new(),
        Some(&observer),
    )
    .await
    {
        Ok(CompactionOutcome::Compacted(_)) => true,
        Ok(CompactionOutcome::NotCompacted { .. }) => false,
        Err(err) => {
            tracing::warn!(target: "clawloop::run", "compaction failed: {err}");
            false
        }
    }
}

/// Tool-result truncation in the session file (reference §10.1). True when anything was cut.
async fn truncate_tool_results(request: &RunRequest, model: &Model) -> bool {
    let Some(transcript) = open_session(request, "truncate tool results").await else {
        return false;
    };
    let budget = ToolResultBudget::for_context_window(model.context_window);
    match transcript
        .try_with(move |t| t.truncate_oversized_tool_results(&budget))
        .await
    {
        Ok(rewrite) => rewrite.truncated_count > 0,
        Err(err) => {
            tracing::warn!(target: "clawloop::run", "tool-result truncation failed: {err}");
            false
        }
    }
}

fn outcome(
    request: &RunRequest,
    model: &Model,
    cursor: &ProfileCursor,
    attempts: Vec<AttemptResult>,
    state: &RunState,
    started: u64,
    ending: RunEnding,
) -> RunOutcome {
    let last = attempts.last().and_then(|a| a.last_assistant.as_ref());
    RunOutcome {
        ending,
        provider: last.map_or_else(|| model.provider.clone(), |a| a.provider.clone()),
        model: last.map_or_else(|| model.id.clone(), |a| a.model.clone()),
        profile_id: cursor.current().map(str::to_owned),
        compaction_count: state.compaction_count,
        duration_ms: request.clock.now_ms().saturating_sub(started),
        attempts,
    }
}
