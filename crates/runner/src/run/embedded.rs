//! `run_embedded_agent` (seed 002, reference §4): one model, attempts until an answer. The
//! model, key and profiles are set up once (the [`AttemptSpec`] the attempts vary); each attempt's facts go to the pure
//! [`next`](crate::run::step::next), and this executor carries its steps out — a repair of the
//! session ([`crate::run::repair`]), a profile rotation, another attempt, or the run's end.

use std::sync::Arc;

use clawloop_core::classify::is_timeout_error_message;
use clawloop_core::model::Model;
use clawloop_core::{FailoverError, FailoverReason};

use crate::attempt::TurnIo;
use crate::attempt::{AttemptResult, AttemptSpec, run_attempt};
use crate::cli_backend::{CliBackendConfig, cli_backend_for_provider};
use crate::config::Config;
use crate::hooks::{AgentStartOnce, resolve_model_override};
use crate::payloads::RunErrorKind;
use crate::run::cli_verdict::{CliVerdict, cli_attempt_verdict};
use crate::run::limits::max_run_loop_iterations;
use crate::run::model_key::{configured_key, resolve_model};
use crate::run::profiles::ProfileCursor;
use crate::run::providers::provider_for_run;
use crate::run::repair::{compact_session, truncate_tool_results};
use crate::run::request::{RunEnding, RunError, RunOutcome, RunRequest};
use crate::run::step::{
    AttemptFacts, CompactCause, RunPolicy, RunState, Step, at_retry_limit, error_payload, next,
};

/// Runs one model until it answers, a payload ends the run, or a failover moves on.
pub async fn run_embedded_agent(request: RunRequest, io: TurnIo) -> Result<RunOutcome, RunError> {
    let started = request.clock.now_ms();
    if io.cancel.is_cancelled() {
        return Err(RunError::Aborted);
    }
    let mut run = EmbeddedRun::prepare(request).await?;
    let ending = run.drive(&io).await?;
    Ok(run.outcome(started, ending))
}

/// One run with one model: what is fixed for it, and what its attempts changed.
struct EmbeddedRun {
    request: RunRequest,
    /// A CLI backend (reference §21 step 1) logs in on its own: no auth profiles, no key.
    cli_backend: Option<CliBackendConfig>,
    /// The next attempt's model, stream, key and thinking level.
    spec: AttemptSpec,
    cursor: ProfileCursor,
    policy: RunPolicy,
    state: RunState,
    max_iterations: u32,
    attempts: Vec<AttemptResult>,
    /// Compactions made (by attempts and by the repairs between them).
    compaction_count: u32,
    /// The CLI's session expired and a new one was started (once per run).
    cli_session_restarted: bool,
}

impl EmbeddedRun {
    /// The run-start hooks, the model, its stream function, the profiles and the first key.
    async fn prepare(request: RunRequest) -> Result<Self, RunError> {
        let request = apply_run_start_hooks(request).await;
        let cli_backend = cli_backend_for_provider(&request.config, &request.provider)
            .map_err(|err| RunError::Failed(err.to_string()))?;
        let model = resolve_model(&request, cli_backend.is_some())?;
        // A CLI keeps and compacts its own history; a summary request sent through it would
        // land in its session as a user message. Its runs never compact the transcript.
        let request = match &cli_backend {
            Some(_) => RunRequest {
                config: Arc::new(without_auto_compaction(&request.config)),
                ..request
            },
            None => request,
        };
        let provider = provider_for_run(&request, &model, cli_backend.as_ref(), true)
            .map_err(RunError::Failed)?;
        let mut cursor = ProfileCursor::resolve(
            request.auth.clone().filter(|_| cli_backend.is_none()),
            &request.provider,
            &request.model,
            request.locked_profile.as_deref(),
            Arc::clone(&request.env),
        )
        .await
        .map_err(|no| profile_error(&request, no.message, no.reason))?;
        let api_key = match cursor.first(request.allow_transient_cooldown_probe).await {
            Ok(Some(active)) => Some(active.secret),
            Ok(None) if cli_backend.is_some() => None,
            Ok(None) => configured_key(&request).await?,
            Err(no) => return Err(profile_error(&request, no.message, no.reason)),
        };
        let cooldowns = &request.config.auth.cooldowns;
        let policy = RunPolicy {
            provider: model.provider.clone(),
            model: model.id.clone(),
            fallback_configured: request.fallback_configured,
            rate_limit_rotation_cap: cooldowns.rate_limited_profile_rotations,
            overload_rotation_cap: cooldowns.overloaded_profile_rotations,
            initial_thinking: request.thinking,
        };
        Ok(EmbeddedRun {
            state: RunState::new(request.thinking),
            max_iterations: max_run_loop_iterations(cursor.len()),
            cli_backend,
            spec: AttemptSpec {
                model,
                provider,
                api_key,
                thinking: request.thinking,
            },
            cursor,
            policy,
            request,
            attempts: Vec::new(),
            compaction_count: 0,
            cli_session_restarted: false,
        })
    }

    /// Attempts until a step ends the run.
    async fn drive(&mut self, io: &TurnIo) -> Result<RunEnding, RunError> {
        if let Some((text, message)) = prompt_too_large(&self.request, &self.spec.model) {
            // Refused before the transcript is opened: no overflow recovery, no reset of the
            // session for a prompt no compaction can make fit.
            return Ok(error_payload(text, RunErrorKind::PromptTooLarge, message));
        }
        loop {
            if self.state.iterations >= self.max_iterations {
                return at_retry_limit(&self.state, &self.policy, self.max_iterations)
                    .map_err(|(message, reason)| failover(&self.spec.model, message, reason));
            }
            self.state.begin_attempt();
            self.spec.thinking = self.state.thinking;
            let attempt = run_attempt(&self.request, &self.spec, io.clone()).await;
            self.compaction_count += attempt.compaction_count;
            let external_abort = io.cancel.is_cancelled();
            let settled = if self.cli_backend.is_some() {
                let verdict = cli_attempt_verdict(
                    &attempt,
                    &self.spec.model.provider,
                    external_abort,
                    self.request.timeout,
                    self.cli_session_restarted,
                );
                self.attempts.push(attempt);
                self.after_cli(verdict)
            } else {
                let facts =
                    AttemptFacts::of(&attempt, self.spec.model.context_window, external_abort);
                self.attempts.push(attempt);
                self.settle(&facts).await
            };
            if let Some(end) = settled {
                return end;
            }
        }
    }

    /// The steps after an attempt, until one runs another attempt (`None`) or ends the run.
    async fn settle(&mut self, facts: &AttemptFacts) -> Option<Result<RunEnding, RunError>> {
        loop {
            let step = next(facts, &self.state, &self.policy);
            let again = matches!(
                step,
                Step::Retry { .. } | Step::RetryAfterAttemptCompaction | Step::RetryIdle
            );
            let repair = matches!(
                step,
                Step::Compact(_) | Step::TruncateToolResults | Step::RotateProfile { .. }
            );
            let worked = self.perform(&step).await;
            self.state.record(&step, worked, &self.policy);
            if again || (repair && worked) {
                return None;
            }
            if let Some(end) = terminal(step, &self.spec.model) {
                return Some(end);
            }
        }
    }

    /// The effect of `step`; true when it worked (a compaction compacted, a truncation cut,
    /// a rotation found a profile).
    async fn perform(&mut self, step: &Step) -> bool {
        match step {
            Step::Compact(cause) => {
                let compacted = compact_session(&self.request, &self.spec).await;
                if compacted {
                    self.compaction_count += 1;
                } else if let CompactCause::Overflow { observed_tokens } = cause {
                    let model = &self.spec.model;
                    tracing::warn!(target: "clawloop::run", "auto-compaction failed for {}/{}: nothing to compact (observed {observed_tokens:?} tokens)", model.provider, model.id);
                }
                compacted
            }
            Step::TruncateToolResults => {
                truncate_tool_results(&self.request, self.spec.model.context_window).await
            }
            Step::MarkFailure(reason) => {
                self.cursor.mark_failure(*reason).await;
                true
            }
            Step::RotateProfile { .. } => match self.cursor.advance().await {
                Some(next) => {
                    self.spec.api_key = Some(next.secret);
                    true
                }
                None => false,
            },
            Step::RetryIdle => {
                let model = &self.spec.model;
                tracing::warn!(target: "clawloop::run", "[llm-idle-timeout] {}/{} produced no reply before the idle watchdog; retrying same model", model.provider, model.id);
                true
            }
            Step::Finish {
                mark_success: true, ..
            } => {
                self.cursor.mark_success().await;
                true
            }
            Step::Retry { .. }
            | Step::RetryAfterAttemptCompaction
            | Step::CountRotation(_)
            | Step::NoteRetryReason(_)
            | Step::Finish { .. }
            | Step::Failover { .. }
            | Step::Fail(_)
            | Step::Abort => true,
        }
    }

    /// After a CLI backend's attempt (none of the embedded chains apply).
    fn after_cli(&mut self, verdict: CliVerdict) -> Option<Result<RunEnding, RunError>> {
        let model = &self.spec.model;
        match verdict {
            CliVerdict::Answered => Some(Ok(RunEnding::Completed)),
            CliVerdict::Aborted => Some(Err(RunError::Aborted)),
            CliVerdict::RetryWithoutSession => {
                tracing::warn!(target: "clawloop::run", "CLI session of {}/{} expired; retrying with a new session", model.provider, model.id);
                self.cli_session_restarted = true;
                match provider_for_run(&self.request, model, self.cli_backend.as_ref(), false) {
                    Ok(provider) => {
                        self.spec.provider = provider;
                        None
                    }
                    Err(message) => Some(Err(RunError::Failed(message))),
                }
            }
            CliVerdict::Failover { message, reason } => Some(Err(failover(model, message, reason))),
        }
    }

    /// What the run did, ending with `ending`.
    fn outcome(self, started: u64, ending: RunEnding) -> RunOutcome {
        let last = self.attempts.last().and_then(|a| a.last_assistant.as_ref());
        let model = &self.spec.model;
        RunOutcome {
            ending,
            provider: last.map_or_else(|| model.provider.clone(), |a| a.provider.clone()),
            model: last.map_or_else(|| model.id.clone(), |a| a.model.clone()),
            profile_id: self.cursor.current().map(str::to_owned),
            compaction_count: self.compaction_count,
            duration_ms: self.request.clock.now_ms().saturating_sub(started),
            attempts: self.attempts,
        }
    }
}

/// The run-start hooks (reference §4.1 item 5): their provider or model replaces the run's
/// before the model is resolved, and the attempts reuse the legacy hook's answer instead of
/// calling it again.
async fn apply_run_start_hooks(mut request: RunRequest) -> RunRequest {
    let context = request.hook_context();
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

/// The run's end for a step that ends it; `None` for a step that does not.
fn terminal(step: Step, model: &Model) -> Option<Result<RunEnding, RunError>> {
    match step {
        Step::Finish { ending, .. } => Some(Ok(ending)),
        Step::Failover { message, reason } => Some(Err(failover(model, message, reason))),
        Step::Fail(text) => Some(Err(RunError::Failed(text))),
        Step::Abort => Some(Err(RunError::Aborted)),
        Step::Retry { .. }
        | Step::RetryAfterAttemptCompaction
        | Step::RetryIdle
        | Step::Compact(_)
        | Step::TruncateToolResults
        | Step::MarkFailure(_)
        | Step::CountRotation(_)
        | Step::NoteRetryReason(_)
        | Step::RotateProfile { .. } => None,
    }
}

/// `config` with `agents.defaults.compaction.enabled` off.
fn without_auto_compaction(config: &Config) -> Config {
    let mut config = config.clone();
    config.agents.defaults.compaction.enabled = false;
    config
}
