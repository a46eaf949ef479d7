//! `run_agent_turn_with_fallback` (seed 001, reference §21, SPEC §8.6): binds the session key,
//! runs the model-fallback chain with each run admitted on its lanes, and turns what came back
//! into the user's result — including the session reset after an unrecoverable overflow and the
//! one whole-turn retry after a transient HTTP error.

use std::time::Duration;

use clawloop_core::classify::is_context_overflow_error;
use clawloop_core::error_text::agent_failed_before_reply_text;
use clawloop_core::message::ImageContent;
use clawloop_core::session_index::{SessionBinding, SessionOverrides, SessionTurnRecord};
use clawloop_core::{FailoverReason, StopReason, ThinkLevel};
use clawloop_session::transcript_holds_no_answer;
use clawloop_subscribe::SILENT_REPLY_TOKEN;
use clawloop_tools::client_tools::ClientToolDefinition;

use crate::attempt::TurnIo;
use crate::fallback::{
    CandidateError, FallbackError, FallbackSuccess, ModelCandidate, resolve_fallback_candidates,
    run_with_model_fallback,
};
use crate::lanes::{RunLanes, SUBAGENT_LANE};
use crate::payloads::ReplyPayload;
use crate::registry::{RunContext, RunHandle};
use crate::run::{RunError, RunOutcome, RunRequest, run_embedded_agent};
use crate::subagent::is_subagent_session_key;
use crate::turn::compaction_notice::with_compaction_notice;
use crate::turn::decide::{FallbackFacts, KeyFate, RanFacts, TurnStep, after_fallback, key_fate};
use crate::turn::env::TurnEnv;
use crate::turn::final_text::{TurnFailure, turn_failure_text};
use crate::turn::guards::TurnGuards;
use crate::turn::result::{AgentRunLoopResult, RunResult, TurnSuccess};
use crate::turn::scope::RunScope;

/// Reset notice after a failed compaction (reference §21, with SPEC §9's floor of 4000).
pub const TURN_COMPACTION_RESET_TEXT: &str = "⚠️ Context limit exceeded during compaction. I've reset our conversation to start fresh - please try again.\n\nTo prevent this, increase your compaction buffer by setting `agents.defaults.compaction.reserveTokensFloor` to 4000 or higher in your config.";
/// Reset notice after a role-ordering rejection.
pub const TURN_ROLE_ORDERING_RESET_TEXT: &str =
    "⚠️ Message ordering conflict. I've reset the conversation - please try again.";
/// Reset notice after Gemini refused the history's turn order.
pub const TURN_HISTORY_CORRUPTED_TEXT: &str =
    "⚠️ Session history was corrupted. I've reset the conversation - please try again!";
/// A run that ended on an overflow without any reply text.
pub const TURN_OVERFLOW_NO_REPLY_TEXT: &str = "⚠️ Context overflow — this conversation is too large for the model. Use /new to start a fresh session.";
/// No model is configured.
pub const NO_MODEL_TEXT: &str =
    "No model is configured: set agents.defaults.model.primary in the config or pass a model.";

/// A user's message for a session key.
#[derive(Debug, Clone, Default)]
pub struct TurnRequest {
    /// The session key.
    pub session_key: String,
    /// The message.
    pub prompt: String,
    /// Images sent with it.
    pub images: Vec<ImageContent>,
    /// Client tools offered for this turn.
    pub client_tools: Vec<ClientToolDefinition>,
    /// The provider to use instead of the configured primary's.
    pub provider: Option<String>,
    /// The model to use instead of the configured primary.
    pub model: Option<String>,
    /// The thinking level instead of `agents.defaults.thinkingDefault`.
    pub thinking: Option<ThinkLevel>,
    /// A profile the user locked.
    pub locked_profile: Option<String>,
    /// The run id (a new one when absent).
    pub run_id: Option<String>,
    /// Appended to the system prompt.
    pub extra_system_prompt: Option<String>,
    /// The whole run's time limit instead of `agents.defaults.timeoutSeconds`.
    pub timeout: Option<Duration>,
    /// Replaces the generated system prompt (pi's `--system-prompt`); the appended text, the
    /// project context, the skills, the date and the working directory still follow it.
    pub system_prompt: Option<String>,
    /// The most tool rounds (model replies that call tools) instead of
    /// `agents.defaults.maxToolRounds`; `Some(0)` for no limit.
    pub max_tool_rounds: Option<u32>,
}

/// Runs one turn, as a task of the current Tokio runtime (see [`super::on_worker`]):
/// dropping the returned future cancels it.
pub async fn run_agent_turn_with_fallback(
    env: &TurnEnv,
    request: TurnRequest,
    io: TurnIo,
) -> AgentRunLoopResult {
    let env = env.clone();
    let run = async move { run_turn_here(&env, request, io).await };
    match super::on_worker::run_as_task(run).await {
        Ok(result) => result,
        Err(e) => final_error(format!("The turn was stopped: {e}."), None),
    }
}

async fn run_turn_here(env: &TurnEnv, request: TurnRequest, io: TurnIo) -> AgentRunLoopResult {
    let run_id = request
        .run_id
        .clone()
        .unwrap_or_else(clawloop_session::uuid_v4);
    env.runtime.run_contexts().register(
        &run_id,
        RunContext {
            session_key: Some(request.session_key.clone()),
            ..RunContext::default()
        },
    );
    let io = with_compaction_notice(&io, env.config.defaults().compaction.notify_user);
    let result = turn(env, &request, &io, &run_id).await;
    env.runtime.run_contexts().clear(&run_id);
    result
}

/// The turn's executor: binds the key, runs the fallback chain and carries out
/// [`after_fallback`]'s step; only a transient retry goes round again.
async fn turn(
    env: &TurnEnv,
    request: &TurnRequest,
    io: &TurnIo,
    run_id: &str,
) -> AgentRunLoopResult {
    let key = request.session_key.as_str();
    let explicit = requested_model(request);
    let mut guards = TurnGuards::default();
    // A retry re-binds a key this turn created; undoing it on failure must still happen.
    let mut created_here = false;
    loop {
        let binding = match env.sessions.bind(key).await {
            Ok(binding) => binding,
            Err(err) => return final_error(agent_failed_before_reply_text(&err.message), None),
        };
        created_here |= binding.created;
        // A turn that names no model continues on the one the user chose for the session.
        let chosen = explicit
            .clone()
            .or_else(|| session_model(&binding.overrides));
        let candidates = resolve_fallback_candidates(
            chosen.as_ref().map(|(p, m)| (p.as_str(), m.as_str())),
            &env.config.defaults().model,
            None,
        );
        let Some(requested) = candidates.first() else {
            tracing::error!(
                session_key = key,
                "turn failed before a reply: {NO_MODEL_TEXT}"
            );
            settle_key(env, key, &binding, key_fate(created_here, true)).await;
            return final_error(NO_MODEL_TEXT.to_owned(), None);
        };
        let came =
            Came::from(run_candidates(env, request, io, run_id, &binding, &candidates).await);
        let reset_on_overflow = env.config.defaults().session.reset_on_overflow;
        let failed_before_reply = match after_fallback(&came.facts(), guards, reset_on_overflow) {
            TurnStep::Reset(reset) => {
                return reset_and_say(env, key, reset.text(), &binding.session_id).await;
            }
            TurnStep::RetryTransient(message) => {
                guards.did_retry_transient_http_error = true;
                transient_pause(env, message).await;
                continue;
            }
            TurnStep::Silent => {
                return AgentRunLoopResult::Final {
                    payload: ReplyPayload::text(SILENT_REPLY_TOKEN),
                    session_id: Some(binding.session_id),
                    cooling_down: None,
                };
            }
            TurnStep::Finish {
                failed_before_reply,
            } => failed_before_reply,
            TurnStep::Fail => true,
        };
        let fate = key_fate(created_here, failed_before_reply);
        return match came {
            Came::Ran(ran) => {
                if failed_before_reply {
                    log_failed_before_reply(key, &ran.run_result);
                }
                let overrides = chosen_overrides(request, explicit.as_ref());
                finish(env, key, &binding, fate, *ran, requested, overrides).await
            }
            Came::Failed { error, message } => {
                tracing::error!(session_key = key, error = %message, "turn failed before a reply");
                let kept = !settle_key(env, key, &binding, fate).await;
                AgentRunLoopResult::Final {
                    payload: ReplyPayload::error(failure_text(env, &error)),
                    session_id: kept.then_some(binding.session_id),
                    cooling_down: match error {
                        FallbackError::Summary(summary) => summary.cooling_down,
                        _ => None,
                    },
                }
            }
        };
    }
}

/// What the fallback chain came back with, with what the turn reads of it worked out once.
enum Came {
    /// A candidate answered.
    Ran(Box<Ran>),
    /// None did (or the caller aborted); `message` is the error's text.
    Failed {
        error: FallbackError,
        message: String,
    },
}

/// A candidate's run and the result made of it.
struct Ran {
    success: FallbackSuccess<RunOutcome>,
    run_result: RunResult,
}

impl From<Result<FallbackSuccess<RunOutcome>, FallbackError>> for Came {
    fn from(result: Result<FallbackSuccess<RunOutcome>, FallbackError>) -> Self {
        match result {
            Ok(success) => {
                let run_result = RunResult::from_outcome(&success.result);
                Came::Ran(Box::new(Ran {
                    success,
                    run_result,
                }))
            }
            Err(error) => Came::Failed {
                message: error.to_string(),
                error,
            },
        }
    }
}

impl Came {
    /// The facts [`after_fallback`] decides on.
    fn facts(&self) -> FallbackFacts<'_> {
        match self {
            Came::Failed {
                error: FallbackError::Aborted { .. },
                ..
            } => FallbackFacts::Aborted,
            Came::Failed { message, .. } => FallbackFacts::Failed(message),
            Came::Ran(ran) => {
                let failed_message = ran
                    .success
                    .result
                    .last_attempt()
                    .and_then(|a| a.last_assistant.as_ref())
                    .filter(|a| a.stop_reason == StopReason::Error);
                FallbackFacts::Ran(RanFacts {
                    error_kind: ran.run_result.meta.error.as_ref().map(|e| e.kind),
                    reply_blank: ran.run_result.reply_text().trim().is_empty(),
                    assistant_failed: failed_message.is_some(),
                    assistant_error: failed_message.and_then(|a| a.error_message.as_deref()),
                })
            }
        }
    }
}

/// Runs the fallback chain over `candidates`, each run admitted on the session's lanes.
async fn run_candidates(
    env: &TurnEnv,
    request: &TurnRequest,
    io: &TurnIo,
    run_id: &str,
    binding: &SessionBinding,
    candidates: &[ModelCandidate],
) -> Result<FallbackSuccess<RunOutcome>, FallbackError> {
    let fallback_configured = candidates.len() > 1;
    let scope = RunScope::new(env, request, run_id, binding);
    run_with_model_fallback(
        candidates,
        &env.auth,
        &env.agent_dir,
        &env.probe_throttle,
        |candidate, options| {
            let run_request = scope.for_candidate(
                &candidate,
                fallback_configured,
                options.allow_transient_cooldown_probe,
            );
            run_admitted(
                env,
                &request.session_key,
                run_id,
                binding,
                run_request,
                io.clone(),
            )
        },
    )
    .await
}

/// One candidate's run, once the lanes admit it.
async fn run_admitted(
    env: &TurnEnv,
    key: &str,
    run_id: &str,
    binding: &SessionBinding,
    run_request: RunRequest,
    io: TurnIo,
) -> Result<RunOutcome, CandidateError> {
    let lanes = RunLanes::for_run(
        Some(key),
        &binding.session_id,
        is_subagent_session_key(key).then_some(SUBAGENT_LANE),
    );
    let admitted = async {
        // Registered once admitted, so a queued turn never displaces the running one.
        let _active = ActiveRun::register(&env.runtime, &binding.session_id, key, run_id, &io);
        run_embedded_agent(run_request, io.clone()).await
    };
    match env.runtime.lanes().run_in(&lanes, admitted).await {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(RunError::Failover(failover))) => Err(CandidateError::Failover(failover)),
        Ok(Err(RunError::Aborted)) => Err(CandidateError::Aborted),
        Ok(Err(RunError::Failed(message))) => Err(CandidateError::Other(message)),
        Err(lane) => Err(CandidateError::Other(lane.to_string())),
    }
}

/// Carries out `Finish`: records the turn on the key (unless it was forgotten) and hands the
/// run's result over.
async fn finish(
    env: &TurnEnv,
    key: &str,
    binding: &SessionBinding,
    fate: KeyFate,
    ran: Ran,
    requested: &ModelCandidate,
    overrides: SessionOverrides,
) -> AgentRunLoopResult {
    let Ran {
        success,
        run_result,
    } = ran;
    let outcome = &success.result;
    if !settle_key(env, key, binding, fate).await {
        record_turn(env, key, outcome, overrides).await;
    }
    let fallback = (success.provider != requested.provider || success.model != requested.model)
        .then(|| (success.provider.clone(), success.model.clone()));
    let run_result = adjust_after_run(run_result, outcome);
    AgentRunLoopResult::Success(Box::new(TurnSuccess {
        directly_sent_block_keys: outcome
            .last_attempt()
            .map(|a| a.subscription.directly_sent_block_keys.clone())
            .unwrap_or_default(),
        auto_compaction_completed: outcome.compaction_count > 0,
        fallback_provider: fallback.as_ref().map(|f| f.0.clone()),
        fallback_model: fallback.map(|f| f.1),
        run_result,
        session_id: binding.session_id.clone(),
    }))
}

/// The error log of a run that failed before any reply.
fn log_failed_before_reply(key: &str, run_result: &RunResult) {
    // The error's text, not its Debug form: `clawloop logs` shows this line to the user.
    let error = run_result
        .meta
        .error
        .as_ref()
        .map_or("", |e| e.message.as_str());
    tracing::error!(session_key = key, error, "turn failed before a reply");
}

/// The run's entry in the runtime's active-run registry while it runs: steering reaches its
/// queues, an abort its token. Cleared on every way out, and only if it is still this run's.
struct ActiveRun {
    runtime: crate::runtime::Runtime,
    session_id: String,
    handle: RunHandle,
}

impl ActiveRun {
    fn register(
        runtime: &crate::runtime::Runtime,
        session_id: &str,
        key: &str,
        run_id: &str,
        io: &TurnIo,
    ) -> Self {
        let handle = RunHandle::builder(io.queues.clone(), io.cancel.clone())
            .run_id(run_id)
            .build();
        handle.set_streaming(true);
        runtime
            .active_runs()
            .register(session_id, Some(key), handle.clone());
        ActiveRun {
            runtime: runtime.clone(),
            session_id: session_id.to_owned(),
            handle,
        }
    }
}

impl Drop for ActiveRun {
    fn drop(&mut self) {
        self.runtime
            .active_runs()
            .clear(&self.session_id, &self.handle);
    }
}

/// The user-facing text of an error that escaped the fallback chain.
fn failure_text(env: &TurnEnv, err: &FallbackError) -> String {
    let now_ms = env.runtime.clock().now_ms();
    match err {
        FallbackError::Summary(summary) => {
            let all_rate_limited = !summary.attempts.is_empty()
                && summary.attempts.iter().all(|a| {
                    matches!(
                        a.reason,
                        FailoverReason::RateLimit | FailoverReason::Overloaded
                    )
                });
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let soonest = summary
                .soonest_cooldown_expiry
                .filter(|e| e.is_finite() && *e > 0.0)
                .map(|e| e as u64);
            let reason = summary.attempts.last().map(|a| a.reason);
            turn_failure_text(&TurnFailure {
                message: &summary.message,
                reason,
                all_rate_limited,
                soonest_cooldown_expiry: soonest,
                now_ms,
            })
        }
        FallbackError::Candidate { error, .. } => {
            let (message, reason) = match error {
                CandidateError::Failover(failover) => {
                    (failover.message.clone(), Some(failover.reason))
                }
                CandidateError::Aborted => ("Operation aborted".to_owned(), None),
                CandidateError::Other(message) => (message.clone(), None),
            };
            turn_failure_text(&TurnFailure {
                message: &message,
                reason,
                all_rate_limited: false,
                soonest_cooldown_expiry: None,
                now_ms,
            })
        }
        FallbackError::Aborted { .. } | FallbackError::AuthStore { .. } => {
            turn_failure_text(&TurnFailure {
                message: &err.to_string(),
                reason: None,
                all_rate_limited: false,
                soonest_cooldown_expiry: None,
                now_ms,
            })
        }
    }
}

/// Reference §21 step 4: an overflow that left no reply text gets the turn-level overflow text.
fn adjust_after_run(mut run_result: RunResult, outcome: &RunOutcome) -> RunResult {
    let no_text = run_result
        .payloads
        .iter()
        .all(|p| p.is_error || p.text.as_deref().is_none_or(|t| t.trim().is_empty()));
    let overflow = outcome
        .last_attempt()
        .and_then(|a| a.last_assistant.as_ref())
        .filter(|a| a.stop_reason == StopReason::Error)
        .and_then(|a| a.error_message.as_deref())
        .is_some_and(is_context_overflow_error);
    if no_text && overflow && run_result.meta.error.is_none() {
        run_result.payloads = vec![ReplyPayload::error(TURN_OVERFLOW_NO_REPLY_TEXT)];
    }
    run_result
}

async fn reset_and_say(
    env: &TurnEnv,
    key: &str,
    text: &str,
    session_id: &str,
) -> AgentRunLoopResult {
    match env.sessions.reset(key).await {
        Ok(binding) => AgentRunLoopResult::Final {
            payload: ReplyPayload::error(text),
            session_id: Some(binding.session_id),
            cooling_down: None,
        },
        Err(err) => {
            tracing::warn!(target: "clawloop::turn", "session reset failed: {err}");
            final_error(
                agent_failed_before_reply_text(&err.message),
                Some(session_id.to_owned()),
            )
        }
    }
}

async fn transient_pause(env: &TurnEnv, message: &str) {
    let delay = env.config.defaults().retry.transient_http_retry_delay_ms;
    tracing::warn!(target: "clawloop::turn", "Transient HTTP provider error before reply ({message}). Retrying once in {delay}ms.");
    tokio::time::sleep(Duration::from_millis(delay)).await;
}

/// The model the request names, as `(provider, model)`; an empty part is filled from the
/// configuration by the candidate resolution.
fn requested_model(request: &TurnRequest) -> Option<(String, String)> {
    match (&request.provider, &request.model) {
        (Some(provider), Some(model)) => Some((provider.clone(), model.clone())),
        (None, Some(model)) => match clawloop_providers::catalog::parse_model_ref(model) {
            Some((provider, model)) => Some((provider.to_owned(), model.to_owned())),
            None => Some((String::new(), model.clone())),
        },
        (Some(provider), None) => Some((provider.clone(), String::new())),
        (None, None) => None,
    }
}

/// The model the user chose for the session earlier.
fn session_model(overrides: &SessionOverrides) -> Option<(String, String)> {
    let model = overrides.model.clone().filter(|m| !m.is_empty())?;
    Some((overrides.provider.clone().unwrap_or_default(), model))
}

/// What this turn's request chose explicitly, to be kept for the session's next turns.
fn chosen_overrides(
    request: &TurnRequest,
    explicit: Option<&(String, String)>,
) -> SessionOverrides {
    let (provider, model) = match explicit {
        Some((provider, model)) if !model.is_empty() => (
            Some(provider.clone()).filter(|p| !p.is_empty()),
            Some(model.clone()),
        ),
        _ => (None, None),
    };
    SessionOverrides {
        provider,
        model,
        thinking_level: request.thinking.map(|level| level.as_str().to_owned()),
    }
}

async fn record_turn(env: &TurnEnv, key: &str, outcome: &RunOutcome, overrides: SessionOverrides) {
    let last = outcome
        .last_attempt()
        .and_then(|a| a.last_assistant.as_ref());
    let usage = last.map(|a| a.usage.clone()).unwrap_or_default();
    let record = SessionTurnRecord {
        provider: Some(outcome.provider.clone()),
        model: Some(outcome.model.clone()),
        input_tokens: Some(usage.input),
        output_tokens: Some(usage.output),
        total_tokens: Some(usage.context_tokens()),
        context_tokens: None,
        compactions: outcome.compaction_count,
        message_count: outcome
            .last_attempt()
            // An attempt that failed before loading the session has no snapshot: keep the count.
            .filter(|a| !a.messages_snapshot.is_empty())
            .map(|a| u64::try_from(a.messages_snapshot.len()).unwrap_or(u64::MAX)),
        updated_at: env.runtime.clock().now_ms(),
        overrides,
    };
    if let Err(err) = env.sessions.record_turn(key, record).await {
        tracing::warn!(target: "clawloop::turn", "cannot record the turn in the session store: {err}");
    }
}

/// Carries out the key's fate; returns whether the key was forgotten. A key whose
/// transcript holds an answer (tool work, say) stays whatever the fate, and so does one whose
/// transcript cannot be read.
async fn settle_key(env: &TurnEnv, key: &str, binding: &SessionBinding, fate: KeyFate) -> bool {
    match fate {
        KeyFate::Keep => false,
        KeyFate::ForgetIfUnanswered => {
            transcript_holds_no_answer(&binding.session_file)
                .await
                .unwrap_or(false)
                && forget(env, key).await
        }
    }
}

/// Forgets `key` and its transcript; a failure is logged and leaves the key as it was.
async fn forget(env: &TurnEnv, key: &str) -> bool {
    match env.sessions.delete(key).await {
        Ok(forgotten) => forgotten,
        Err(err) => {
            tracing::warn!(session_key = key, error = %err, "could not forget the unanswered session");
            false
        }
    }
}

fn final_error(text: String, session_id: Option<String>) -> AgentRunLoopResult {
    AgentRunLoopResult::Final {
        payload: ReplyPayload::error(text),
        session_id,
        cooling_down: None,
    }
}
