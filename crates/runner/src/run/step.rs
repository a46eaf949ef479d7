//! The run loop's step after an attempt (`next`, reference §4.2–§4.6, SPEC §8.4): one pure
//! function of what the attempt did ([`AttemptFacts`]), what the run did so far ([`RunState`])
//! and what it may do ([`RunPolicy`]). The chains are walked in the seed's order — timeout
//! compaction, the overflow chain, the prompt-error chain, the reply side (thinking fallback,
//! image size, profile rotation, failover) — and each answer is one [`Step`]. A step that
//! tries something (compact, truncate, rotate, mark) is recorded with whether it worked
//! ([`RunState::record`]), and `next` is asked again: the loop only carries steps out.

use clawloop_core::classify::{
    classify_failover_reason, is_failover_error_message, is_role_ordering_error,
    parse_image_size_error,
};
use clawloop_core::error_text::{
    CONTEXT_OVERFLOW_TEXT, RETRY_LIMIT_TEXT, ROLE_ORDERING_TEXT, image_too_large_text,
    retry_limit_error_message,
};
use clawloop_core::think_level::pick_fallback_thinking_level;
use clawloop_core::{FailoverReason, StopReason, ThinkLevel};
use clawloop_session::transforms::session_likely_has_oversized_tool_results;

use crate::attempt::{AttemptResult, PromptErrorSource};
use crate::payloads::RunErrorKind;
use crate::run::decide::{
    DecisionInput, DecisionStage, FailoverDecision, merge_retry_failover_reason,
    resolve_run_failover_decision,
};
use crate::run::limits::{
    MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES, MAX_TIMEOUT_COMPACTION_ATTEMPTS,
    TIMEOUT_COMPACTION_PROMPT_RATIO, tool_round_limit_text,
};
use crate::run::overflow::{OverflowAction, OverflowState, overflow_action, overflow_text};
use crate::run::request::RunEnding;

/// Text of the failover thrown when rate limits persist past the rotation cap.
pub const RATE_LIMITED_FAILOVER_TEXT: &str =
    "The AI service is temporarily rate-limited. Please try again in a moment.";
/// Text of the failover thrown when overloads persist past the rotation cap (the core's
/// overloaded copy).
pub const OVERLOADED_FAILOVER_TEXT: &str = clawloop_core::error_text::OVERLOADED_TEXT;

/// What one attempt did, as the decisions read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AttemptFacts {
    /// The caller cancelled the run.
    pub external_abort: bool,
    /// The attempt was aborted (by the caller, the run timer or the idle watchdog).
    pub aborted: bool,
    /// The run timer or the idle watchdog stopped the attempt.
    pub timed_out: bool,
    /// The idle watchdog (no reply in time) stopped it.
    pub idle_timed_out: bool,
    /// The timeout fired while compacting.
    pub timed_out_during_compaction: bool,
    /// The share of the model's window the last call's prompt used.
    pub prompt_ratio: f64,
    /// Compactions the attempt made itself.
    pub compaction_count: u32,
    /// The overflow text, when the attempt overflowed.
    pub overflow: Option<String>,
    /// The session probably holds tool results a truncation would shorten (read on overflow).
    pub oversized_tool_results: bool,
    /// A failure sending the prompt the prompt-error chain handles (not aborted, not from a
    /// compaction).
    pub prompt_error: Option<String>,
    /// How the last reply stopped.
    pub reply_stop: Option<StopReason>,
    /// The last reply's error message.
    pub reply_error: Option<String>,
    /// Tools that may have changed something ran (no same-model retry then).
    pub side_effects: bool,
    /// The tool-round limit stopped the prompt.
    pub tool_round_limit: Option<u32>,
    /// No prompt error, no errored or aborted reply: the profile worked.
    pub succeeded: bool,
}

impl AttemptFacts {
    /// The facts of `attempt` on a model with `context_window` tokens.
    pub fn of(attempt: &AttemptResult, context_window: u64, external_abort: bool) -> Self {
        let last = attempt.last_assistant.as_ref();
        let reply_stop = last.map(|a| a.stop_reason);
        let errored = reply_stop == Some(StopReason::Error);
        let prompt_error_text = attempt.prompt_error.as_ref().map(|e| e.message.as_str());
        let assistant_error = last
            .filter(|_| errored)
            .and_then(|a| a.error_message.as_deref());
        let overflow = overflow_text(prompt_error_text, assistant_error, attempt.aborted);
        let prompt_tokens = attempt
            .subscription
            .last_call_usage
            .as_ref()
            .map_or(0, |u| {
                u.input
                    .saturating_add(u.cache_read)
                    .saturating_add(u.cache_write)
            });
        #[allow(clippy::cast_precision_loss)]
        let prompt_ratio = prompt_tokens as f64 / context_window.max(1) as f64;
        AttemptFacts {
            external_abort,
            aborted: attempt.aborted,
            timed_out: attempt.timed_out,
            idle_timed_out: attempt.idle_timed_out,
            timed_out_during_compaction: attempt.timed_out_during_compaction,
            prompt_ratio,
            compaction_count: attempt.compaction_count,
            oversized_tool_results: overflow.is_some()
                && session_likely_has_oversized_tool_results(
                    &attempt.messages_snapshot,
                    context_window,
                ),
            overflow,
            prompt_error: attempt
                .prompt_error
                .as_ref()
                .filter(|e| !attempt.aborted && e.source != PromptErrorSource::Compaction)
                .map(|e| e.message.clone()),
            reply_stop,
            reply_error: last.and_then(|a| a.error_message.clone()),
            side_effects: attempt.subscription.had_potential_side_effects,
            tool_round_limit: attempt.tool_round_limit,
            succeeded: !errored && !attempt.aborted && attempt.prompt_error.is_none(),
        }
    }

    fn errored(&self) -> bool {
        self.reply_stop == Some(StopReason::Error)
    }

    /// The whole-run time limit (not the idle watchdog, not during a compaction) ended it.
    fn whole_run_timed_out(&self) -> bool {
        self.timed_out
            && !self.idle_timed_out
            && !self.timed_out_during_compaction
            && !self.external_abort
    }
}

/// What a run may do, fixed for the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunPolicy {
    /// The model's provider (error texts classify per provider).
    pub provider: String,
    /// The model's id (error texts name it).
    pub model: String,
    /// Another model would be tried after this one.
    pub fallback_configured: bool,
    /// `auth.cooldowns.rateLimitedProfileRotations`.
    pub rate_limit_rotation_cap: u32,
    /// `auth.cooldowns.overloadedProfileRotations`.
    pub overload_rotation_cap: u32,
    /// The thinking level asked for (a new profile starts from it again).
    pub initial_thinking: ThinkLevel,
}

/// What the run did so far (reference §4.1 item 10, §4.2).
#[derive(Debug, Clone, PartialEq)]
pub struct RunState {
    /// Attempts started.
    pub iterations: u32,
    /// The thinking level of the next attempt.
    pub thinking: ThinkLevel,
    /// The levels tried with the current profile.
    pub attempted_thinking: Vec<ThinkLevel>,
    /// Overflow recoveries by compaction (reset once by a truncation that helped).
    pub overflow_compactions: u32,
    /// Tool-result truncation was tried this run.
    pub truncation_attempted: bool,
    /// Timeout-triggered compactions tried.
    pub timeout_compactions: u32,
    /// Profile rotations for rate limits.
    pub rate_limit_rotations: u32,
    /// Profile rotations for overloads.
    pub overload_rotations: u32,
    /// Same-model retries after an idle timeout.
    pub same_model_idle_retries: u32,
    /// The reason the retry-limit decision uses.
    pub last_retry_reason: Option<FailoverReason>,
    /// What was already tried after the current attempt.
    pub tried: Tried,
}

/// The steps already taken after the current attempt (each is taken at most once).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tried {
    /// A timeout compaction was tried and did not compact.
    pub timeout_compaction: bool,
    /// An overflow compaction was tried and did not compact.
    pub overflow_compaction: bool,
    /// The profile's failure was recorded.
    pub failure_marked: bool,
    /// The rotation was counted against its cap.
    pub rotation_counted: bool,
    /// No other profile was left to rotate to.
    pub profiles_exhausted: bool,
}

/// Why the session is compacted between attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactCause {
    /// A timed-out attempt used most of the window (reference §4.3).
    Timeout,
    /// The attempt overflowed (reference §4.4).
    Overflow {
        /// Tokens the provider said the prompt had.
        observed_tokens: Option<u64>,
    },
}

/// What the run loop does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Run another attempt, at `thinking` when it changes.
    Retry {
        /// The lower thinking level the provider accepts.
        thinking: Option<ThinkLevel>,
    },
    /// The attempt compacted on its own: count it as an overflow recovery and run again.
    RetryAfterAttemptCompaction,
    /// The idle watchdog fired without side effects: run the same model once more.
    RetryIdle,
    /// Compact the session; run again when it compacted.
    Compact(CompactCause),
    /// Shorten oversized tool results; run again when anything was cut.
    TruncateToolResults,
    /// Record a failure of the current profile.
    MarkFailure(FailoverReason),
    /// Count a rotation against the cap of its reason.
    CountRotation(FailoverReason),
    /// Keep this reason for the retry-limit decision.
    NoteRetryReason(Option<FailoverReason>),
    /// Move to the next usable profile and run again.
    RotateProfile {
        /// The retry-limit reason once rotated.
        retry_reason: Option<FailoverReason>,
    },
    /// The run ends with this result.
    Finish {
        /// How it ends.
        ending: RunEnding,
        /// The profile worked: record its success.
        mark_success: bool,
    },
    /// Give up on this model: the model fallback tries the next one.
    Failover {
        /// The failure's text.
        message: String,
        /// Its reason.
        reason: FailoverReason,
    },
    /// The run fails with this text.
    Fail(String),
    /// The caller aborted the run.
    Abort,
}

/// The step after an attempt with `facts`.
pub fn next(facts: &AttemptFacts, state: &RunState, policy: &RunPolicy) -> Step {
    if let Some(step) = timeout_compaction(facts, state) {
        return step;
    }
    if let Some(text) = &facts.overflow {
        return overflow_step(text, facts, state);
    }
    if let Some(text) = &facts.prompt_error {
        return after_prompt_error(text, facts, state, policy);
    }
    after_reply(facts, state, policy)
}

/// The run's end once it made `max` (`MAX_RUN_LOOP_ITERATIONS`) attempts: the retry-limit
/// payload, or the failover's message and reason when another model may take over.
pub fn at_retry_limit(
    state: &RunState,
    policy: &RunPolicy,
    max: u32,
) -> Result<RunEnding, (String, FailoverReason)> {
    let input = DecisionInput {
        reason: state.last_retry_reason,
        fallback_configured: policy.fallback_configured,
        ..DecisionInput::default()
    };
    let message = retry_limit_error_message(state.iterations, max);
    match resolve_run_failover_decision(DecisionStage::RetryLimit, &input) {
        FailoverDecision::FallbackModel(reason) => Err((message, reason)),
        FailoverDecision::ContinueNormal
        | FailoverDecision::RotateProfile
        | FailoverDecision::SurfaceError
        | FailoverDecision::ReturnErrorPayload => Ok(error_payload(
            RETRY_LIMIT_TEXT,
            RunErrorKind::RetryLimit,
            message,
        )),
    }
}

/// Timeout-triggered compaction (reference §4.3).
fn timeout_compaction(facts: &AttemptFacts, state: &RunState) -> Option<Step> {
    (facts.timed_out
        && !facts.timed_out_during_compaction
        && !facts.external_abort
        && state.timeout_compactions < MAX_TIMEOUT_COMPACTION_ATTEMPTS
        && !state.tried.timeout_compaction
        && facts.prompt_ratio > TIMEOUT_COMPACTION_PROMPT_RATIO)
        .then_some(Step::Compact(CompactCause::Timeout))
}

/// The overflow chain (reference §4.4).
fn overflow_step(text: &str, facts: &AttemptFacts, state: &RunState) -> Step {
    let overflow = OverflowState {
        compaction_attempts: state.overflow_compactions,
        attempt_compaction_count: facts.compaction_count,
        truncation_attempted: state.truncation_attempted,
        has_oversized_tool_results: facts.oversized_tool_results,
        compaction_did_not_compact: state.tried.overflow_compaction,
    };
    match overflow_action(text, &overflow) {
        OverflowAction::RetryAfterAttemptCompaction => Step::RetryAfterAttemptCompaction,
        OverflowAction::Compact { observed_tokens } => {
            Step::Compact(CompactCause::Overflow { observed_tokens })
        }
        OverflowAction::TruncateToolResults => Step::TruncateToolResults,
        OverflowAction::GiveUp { kind, message } => {
            finish(error_payload(CONTEXT_OVERFLOW_TEXT, kind, message))
        }
    }
}

/// The prompt-error chain (reference §4.5).
fn after_prompt_error(
    text: &str,
    facts: &AttemptFacts,
    state: &RunState,
    policy: &RunPolicy,
) -> Step {
    if is_role_ordering_error(text) {
        return finish(error_payload(
            ROLE_ORDERING_TEXT,
            RunErrorKind::RoleOrdering,
            text.to_owned(),
        ));
    }
    if let Some(ending) = image_size_ending(text) {
        return finish(ending);
    }
    let reason = classify_failover_reason(text, Some(&policy.provider));
    if let Some(reason) = reason
        && !state.tried.failure_marked
    {
        return Step::MarkFailure(reason);
    }
    // Only rate limits count towards a cap here (the seed's prompt branch).
    if reason == Some(FailoverReason::RateLimit)
        && let Some(step) = rotation_cap(FailoverReason::RateLimit, state, policy)
    {
        return step;
    }
    let input = DecisionInput {
        reason,
        failover_failure: reason.is_some()
            || is_failover_error_message(text, Some(&policy.provider)),
        fallback_configured: policy.fallback_configured,
        external_abort: facts.external_abort,
        profile_rotated: state.tried.profiles_exhausted,
        ..DecisionInput::default()
    };
    let decision = resolve_run_failover_decision(DecisionStage::Prompt, &input);
    if decision == FailoverDecision::RotateProfile {
        return Step::RotateProfile {
            retry_reason: merge_retry_failover_reason(reason, false, state.last_retry_reason),
        };
    }
    if let Some(level) = pick_fallback_thinking_level(text, &state.attempted_thinking) {
        return Step::Retry {
            thinking: Some(level),
        };
    }
    match decision {
        FailoverDecision::FallbackModel(reason) => Step::Failover {
            message: text.to_owned(),
            reason,
        },
        FailoverDecision::ContinueNormal
        | FailoverDecision::RotateProfile
        | FailoverDecision::SurfaceError
        | FailoverDecision::ReturnErrorPayload
            if facts.external_abort =>
        {
            Step::Abort
        }
        FailoverDecision::ContinueNormal
        | FailoverDecision::RotateProfile
        | FailoverDecision::SurfaceError
        | FailoverDecision::ReturnErrorPayload => Step::Fail(text.to_owned()),
    }
}

/// The reply side (reference §4.6, §5.2).
fn after_reply(facts: &AttemptFacts, state: &RunState, policy: &RunPolicy) -> Step {
    if facts.whole_run_timed_out() {
        // The user's time limit is for the whole turn: another key or model would only run
        // past it (OpenClaw rotates and falls back here; clawloop fails the turn).
        return finish(RunEnding::Completed);
    }
    let error = facts.reply_error.as_deref();
    if !facts.aborted
        && let Some(level) =
            error.and_then(|m| pick_fallback_thinking_level(m, &state.attempted_thinking))
    {
        return Step::Retry {
            thinking: Some(level),
        };
    }
    // A provider's size rejection of an image reaches the run as an errored reply (HTTP errors
    // are never prompt errors), so it is checked here too, before any rotation: no profile or
    // model takes the same image, and the user gets the image copy of SPEC §9 instead of the
    // raw rejection.
    if facts.errored()
        && !facts.aborted
        && let Some(ending) = error.and_then(image_size_ending)
    {
        return finish(ending);
    }
    let reason = classify_failover_reason(error.unwrap_or(""), Some(&policy.provider));
    let input = DecisionInput {
        reason,
        failover_failure: facts.errored()
            && error.is_some_and(|m| is_failover_error_message(m, Some(&policy.provider))),
        fallback_configured: policy.fallback_configured,
        external_abort: facts.external_abort,
        aborted: facts.aborted && !facts.timed_out,
        timed_out: facts.timed_out,
        timed_out_during_compaction: facts.timed_out_during_compaction,
        profile_rotated: state.tried.profiles_exhausted,
    };
    let decision = resolve_run_failover_decision(DecisionStage::Assistant, &input);
    if decision == FailoverDecision::RotateProfile {
        return reply_rotation(reason, facts, state, policy);
    }
    let idle_retry = same_model_idle_retry(facts, state, policy);
    if state.tried.profiles_exhausted && idle_retry {
        return Step::RetryIdle;
    }
    match decision {
        FailoverDecision::FallbackModel(reason) => {
            return Step::Failover {
                message: fallback_message(facts, policy, reason),
                reason,
            };
        }
        FailoverDecision::SurfaceError if idle_retry && !facts.external_abort => {
            return Step::RetryIdle;
        }
        FailoverDecision::ContinueNormal
        | FailoverDecision::SurfaceError
        | FailoverDecision::RotateProfile
        | FailoverDecision::ReturnErrorPayload => {}
    }
    let ending = match facts.tool_round_limit {
        Some(limit) => error_payload(
            tool_round_limit_text(limit),
            RunErrorKind::ToolRoundLimit,
            format!("the model asked for tools after {limit} tool rounds"),
        ),
        None => RunEnding::Completed,
    };
    Step::Finish {
        ending,
        mark_success: facts.succeeded,
    }
}

/// A rotation after a failed reply: the profile's failure recorded, the rotation counted
/// against its cap, the retry reason kept, then the next profile.
fn reply_rotation(
    reason: Option<FailoverReason>,
    facts: &AttemptFacts,
    state: &RunState,
    policy: &RunPolicy,
) -> Step {
    if !state.tried.failure_marked {
        return Step::MarkFailure(if facts.timed_out {
            FailoverReason::Timeout
        } else {
            reason.unwrap_or(FailoverReason::Unknown)
        });
    }
    if let Some(capped @ (FailoverReason::Overloaded | FailoverReason::RateLimit)) = reason
        && let Some(step) = rotation_cap(capped, state, policy)
    {
        return step;
    }
    let retry_reason =
        merge_retry_failover_reason(reason, facts.timed_out, state.last_retry_reason);
    if retry_reason != state.last_retry_reason {
        return Step::NoteRetryReason(retry_reason);
    }
    Step::RotateProfile { retry_reason }
}

/// Counts a rotation for `reason` once, then the failover when its cap
/// (`auth.cooldowns.{rateLimited,overloaded}ProfileRotations`) is passed and another model can
/// take over.
fn rotation_cap(reason: FailoverReason, state: &RunState, policy: &RunPolicy) -> Option<Step> {
    if !state.tried.rotation_counted {
        return Some(Step::CountRotation(reason));
    }
    let (count, cap) = if reason == FailoverReason::Overloaded {
        (state.overload_rotations, policy.overload_rotation_cap)
    } else {
        (state.rate_limit_rotations, policy.rate_limit_rotation_cap)
    };
    (count > cap && policy.fallback_configured).then(|| {
        let text = if reason == FailoverReason::Overloaded {
            OVERLOADED_FAILOVER_TEXT
        } else {
            RATE_LIMITED_FAILOVER_TEXT
        };
        Step::Failover {
            message: text.to_owned(),
            reason,
        }
    })
}

fn same_model_idle_retry(facts: &AttemptFacts, state: &RunState, policy: &RunPolicy) -> bool {
    facts.timed_out
        && facts.idle_timed_out
        && !facts.timed_out_during_compaction
        && !policy.fallback_configured
        && !facts.side_effects
        && state.same_model_idle_retries < MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES
}

impl RunState {
    /// A run that has made no attempt yet, starting at `thinking`.
    pub fn new(thinking: ThinkLevel) -> Self {
        RunState {
            iterations: 0,
            thinking,
            attempted_thinking: Vec::new(),
            overflow_compactions: 0,
            truncation_attempted: false,
            timeout_compactions: 0,
            rate_limit_rotations: 0,
            overload_rotations: 0,
            same_model_idle_retries: 0,
            last_retry_reason: None,
            tried: Tried::default(),
        }
    }

    /// A new attempt starts at the current thinking level.
    pub fn begin_attempt(&mut self) {
        self.iterations += 1;
        if !self.attempted_thinking.contains(&self.thinking) {
            self.attempted_thinking.push(self.thinking);
        }
        self.tried = Tried::default();
    }

    /// Records that `step` was carried out; `worked`: its compaction compacted, its truncation
    /// cut something, its rotation found a profile.
    pub fn record(&mut self, step: &Step, worked: bool, policy: &RunPolicy) {
        match step {
            Step::Retry { thinking } => {
                if let Some(level) = thinking {
                    self.thinking = *level;
                }
            }
            Step::RetryAfterAttemptCompaction => self.overflow_compactions += 1,
            Step::RetryIdle => self.same_model_idle_retries += 1,
            Step::Compact(CompactCause::Timeout) => {
                self.timeout_compactions += 1;
                self.tried.timeout_compaction = !worked;
            }
            Step::Compact(CompactCause::Overflow { .. }) => {
                self.overflow_compactions += 1;
                self.tried.overflow_compaction = !worked;
            }
            Step::TruncateToolResults => {
                self.truncation_attempted = true;
                // The seed resets the compaction counter after a truncation that helped.
                if worked {
                    self.overflow_compactions = 0;
                }
            }
            Step::MarkFailure(_) => self.tried.failure_marked = true,
            Step::CountRotation(reason) => {
                self.tried.rotation_counted = true;
                match reason {
                    FailoverReason::Overloaded => self.overload_rotations += 1,
                    _ => self.rate_limit_rotations += 1,
                }
            }
            Step::NoteRetryReason(reason) => self.last_retry_reason = *reason,
            Step::RotateProfile { retry_reason } if worked => {
                self.last_retry_reason = *retry_reason;
                self.thinking = policy.initial_thinking;
                self.attempted_thinking.clear();
            }
            Step::RotateProfile { .. } => self.tried.profiles_exhausted = true,
            Step::Finish { .. } | Step::Failover { .. } | Step::Fail(_) | Step::Abort => {}
        }
    }
}

/// The run's end for an image the provider refused for its size (reference §4.5 step 4).
fn image_size_ending(error_text: &str) -> Option<RunEnding> {
    let image = parse_image_size_error(error_text)?;
    Some(error_payload(
        image_too_large_text(image.max_mb),
        RunErrorKind::ImageSize,
        error_text.to_owned(),
    ))
}

/// The failover message of an errored reply (reference §5.2): the formatted error, the raw
/// error, or a synthetic text by reason.
fn fallback_message(facts: &AttemptFacts, policy: &RunPolicy, reason: FailoverReason) -> String {
    use clawloop_core::error_text::{BILLING_TEXT, ErrorTextContext, format_assistant_error_text};
    let ctx = ErrorTextContext {
        provider: Some(&policy.provider),
        model: Some(&policy.model),
    };
    if let Some(stop) = facts.reply_stop
        && let Some(text) = format_assistant_error_text(stop, facts.reply_error.as_deref(), &ctx)
    {
        return text;
    }
    if let Some(raw) = facts.reply_error.clone().filter(|m| !m.trim().is_empty()) {
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

fn finish(ending: RunEnding) -> Step {
    Step::Finish {
        ending,
        mark_success: false,
    }
}

/// A run that gives up with `text` for the user.
pub(crate) fn error_payload(
    text: impl Into<String>,
    kind: RunErrorKind,
    message: String,
) -> RunEnding {
    RunEnding::ErrorPayload {
        text: text.into(),
        kind,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailoverReason as R;
    use pretty_assertions::assert_eq;

    const RATE_LIMIT: &str = "429 Rate limit reached for requests per minute.";
    const OVERLOADED: &str = "overloaded_error: Overloaded";
    const OVERFLOW: &str = "400 prompt is too long: 250000 tokens > 200000 maximum";
    const THINKING: &str = "Unsupported value: 'high'. Supported values are: 'low' and 'medium'.";

    fn policy() -> RunPolicy {
        RunPolicy {
            provider: "acme".to_owned(),
            model: "m1".to_owned(),
            fallback_configured: false,
            rate_limit_rotation_cap: 1,
            overload_rotation_cap: 1,
            initial_thinking: ThinkLevel::High,
        }
    }

    fn fallback() -> RunPolicy {
        RunPolicy {
            fallback_configured: true,
            ..policy()
        }
    }

    fn state() -> RunState {
        let mut state = RunState::new(ThinkLevel::High);
        state.begin_attempt();
        state
    }

    fn tried(tried: Tried) -> RunState {
        RunState { tried, ..state() }
    }

    fn answered() -> AttemptFacts {
        AttemptFacts {
            reply_stop: Some(StopReason::Stop),
            succeeded: true,
            ..AttemptFacts::default()
        }
    }

    fn reply_error(text: &str) -> AttemptFacts {
        AttemptFacts {
            reply_stop: Some(StopReason::Error),
            reply_error: Some(text.to_owned()),
            ..AttemptFacts::default()
        }
    }

    fn prompt_error(text: &str) -> AttemptFacts {
        AttemptFacts {
            prompt_error: Some(text.to_owned()),
            ..AttemptFacts::default()
        }
    }

    fn overflow(compaction_count: u32, oversized: bool) -> AttemptFacts {
        AttemptFacts {
            overflow: Some(OVERFLOW.to_owned()),
            compaction_count,
            oversized_tool_results: oversized,
            ..reply_error(OVERFLOW)
        }
    }

    fn idle_timeout() -> AttemptFacts {
        AttemptFacts {
            aborted: true,
            timed_out: true,
            idle_timed_out: true,
            ..reply_error("LLM idle timeout (60s): no response from model")
        }
    }

    fn finish(ending: RunEnding, mark_success: bool) -> Step {
        Step::Finish {
            ending,
            mark_success,
        }
    }

    fn payload(text: &str, kind: RunErrorKind, message: &str) -> RunEnding {
        error_payload(text, kind, message.to_owned())
    }

    /// One row per branch of the chains of reference §4.2–§4.6, in the order `next` walks them.
    #[test]
    fn steps_follow_the_chains() {
        let exhausted = Tried {
            failure_marked: true,
            rotation_counted: true,
            profiles_exhausted: true,
            ..Tried::default()
        };
        let marked = Tried {
            failure_marked: true,
            rotation_counted: true,
            ..Tried::default()
        };
        let timed_out_big = AttemptFacts {
            aborted: true,
            timed_out: true,
            idle_timed_out: true,
            prompt_ratio: 0.9,
            ..AttemptFacts::default()
        };
        let rows: Vec<(&str, AttemptFacts, RunState, RunPolicy, Step)> = vec![
            (
                "an answer finishes and marks the profile good",
                answered(),
                state(),
                policy(),
                finish(RunEnding::Completed, true),
            ),
            (
                "the tool-round limit finishes with its payload",
                AttemptFacts {
                    tool_round_limit: Some(3),
                    ..answered()
                },
                state(),
                policy(),
                finish(
                    payload(
                        &tool_round_limit_text(3),
                        RunErrorKind::ToolRoundLimit,
                        "the model asked for tools after 3 tool rounds",
                    ),
                    true,
                ),
            ),
            (
                "a timeout with most of the window used compacts",
                timed_out_big.clone(),
                state(),
                policy(),
                Step::Compact(CompactCause::Timeout),
            ),
            (
                "a timeout whose compaction did nothing goes on to rotation",
                timed_out_big.clone(),
                tried(Tried {
                    timeout_compaction: true,
                    ..Tried::default()
                }),
                policy(),
                Step::MarkFailure(R::Timeout),
            ),
            (
                "a timeout past the compaction cap goes on to rotation",
                timed_out_big,
                RunState {
                    timeout_compactions: MAX_TIMEOUT_COMPACTION_ATTEMPTS,
                    ..state()
                },
                policy(),
                Step::MarkFailure(R::Timeout),
            ),
            (
                "the whole-run time limit finishes without rotating",
                AttemptFacts {
                    aborted: true,
                    timed_out: true,
                    ..AttemptFacts::default()
                },
                state(),
                fallback(),
                finish(RunEnding::Completed, false),
            ),
            (
                "a first overflow compacts with the observed count",
                overflow(0, false),
                state(),
                policy(),
                Step::Compact(CompactCause::Overflow {
                    observed_tokens: Some(250_000),
                }),
            ),
            (
                "an overflow after the attempt's own compaction runs again",
                overflow(1, false),
                state(),
                policy(),
                Step::RetryAfterAttemptCompaction,
            ),
            (
                "an overflow whose compaction did nothing truncates tool results",
                overflow(0, true),
                tried(Tried {
                    overflow_compaction: true,
                    ..Tried::default()
                }),
                policy(),
                Step::TruncateToolResults,
            ),
            (
                "an overflow with nothing left to try gives up",
                overflow(0, true),
                RunState {
                    overflow_compactions: 3,
                    truncation_attempted: true,
                    ..state()
                },
                fallback(),
                finish(
                    payload(
                        CONTEXT_OVERFLOW_TEXT,
                        RunErrorKind::ContextOverflow,
                        OVERFLOW,
                    ),
                    false,
                ),
            ),
            (
                "a role-ordering prompt error finishes with its payload",
                prompt_error("400 roles must alternate"),
                state(),
                fallback(),
                finish(
                    payload(
                        ROLE_ORDERING_TEXT,
                        RunErrorKind::RoleOrdering,
                        "400 roles must alternate",
                    ),
                    false,
                ),
            ),
            (
                "an image too large finishes with the image copy",
                prompt_error("image exceeds 5 MB maximum"),
                state(),
                fallback(),
                finish(
                    payload(
                        &image_too_large_text(Some(5.0)),
                        RunErrorKind::ImageSize,
                        "image exceeds 5 MB maximum",
                    ),
                    false,
                ),
            ),
            (
                "a prompt rate limit marks the profile first",
                prompt_error(RATE_LIMIT),
                state(),
                policy(),
                Step::MarkFailure(R::RateLimit),
            ),
            (
                "a prompt rate limit is counted against its cap",
                prompt_error(RATE_LIMIT),
                tried(Tried {
                    failure_marked: true,
                    ..Tried::default()
                }),
                policy(),
                Step::CountRotation(R::RateLimit),
            ),
            (
                "a prompt rate limit under the cap rotates",
                prompt_error(RATE_LIMIT),
                RunState {
                    rate_limit_rotations: 1,
                    ..tried(marked)
                },
                fallback(),
                Step::RotateProfile {
                    retry_reason: Some(R::RateLimit),
                },
            ),
            (
                "a prompt rate limit past the cap falls back",
                prompt_error(RATE_LIMIT),
                RunState {
                    rate_limit_rotations: 2,
                    ..tried(marked)
                },
                fallback(),
                Step::Failover {
                    message: RATE_LIMITED_FAILOVER_TEXT.to_owned(),
                    reason: R::RateLimit,
                },
            ),
            (
                "a prompt rate limit past the cap without fallback still rotates",
                prompt_error(RATE_LIMIT),
                RunState {
                    rate_limit_rotations: 2,
                    ..tried(marked)
                },
                policy(),
                Step::RotateProfile {
                    retry_reason: Some(R::RateLimit),
                },
            ),
            (
                "a prompt rate limit with no profile left falls back",
                prompt_error(RATE_LIMIT),
                RunState {
                    rate_limit_rotations: 1,
                    ..tried(exhausted)
                },
                fallback(),
                Step::Failover {
                    message: RATE_LIMIT.to_owned(),
                    reason: R::RateLimit,
                },
            ),
            (
                "a prompt rate limit with no profile and no fallback fails",
                prompt_error(RATE_LIMIT),
                RunState {
                    rate_limit_rotations: 1,
                    ..tried(exhausted)
                },
                policy(),
                Step::Fail(RATE_LIMIT.to_owned()),
            ),
            (
                "a prompt error after the caller's abort aborts",
                AttemptFacts {
                    external_abort: true,
                    ..prompt_error("the tool registry refused a duplicate name")
                },
                state(),
                fallback(),
                Step::Abort,
            ),
            (
                "a refused thinking level in the prompt lowers it",
                prompt_error(THINKING),
                state(),
                policy(),
                Step::Retry {
                    thinking: Some(ThinkLevel::Low),
                },
            ),
            (
                "a refused thinking level in the reply lowers it",
                reply_error(THINKING),
                state(),
                policy(),
                Step::Retry {
                    thinking: Some(ThinkLevel::Low),
                },
            ),
            (
                "an errored reply refusing an image finishes with the image copy",
                reply_error("image exceeds 5 MB maximum"),
                state(),
                fallback(),
                finish(
                    payload(
                        &image_too_large_text(Some(5.0)),
                        RunErrorKind::ImageSize,
                        "image exceeds 5 MB maximum",
                    ),
                    false,
                ),
            ),
            (
                "an overloaded reply marks the profile first",
                reply_error(OVERLOADED),
                state(),
                policy(),
                Step::MarkFailure(R::Overloaded),
            ),
            (
                "an overloaded reply is counted against its cap",
                reply_error(OVERLOADED),
                tried(Tried {
                    failure_marked: true,
                    ..Tried::default()
                }),
                policy(),
                Step::CountRotation(R::Overloaded),
            ),
            (
                "an overloaded reply keeps its reason for the retry limit",
                reply_error(OVERLOADED),
                RunState {
                    overload_rotations: 1,
                    ..tried(marked)
                },
                fallback(),
                Step::NoteRetryReason(Some(R::Overloaded)),
            ),
            (
                "an overloaded reply under the cap rotates",
                reply_error(OVERLOADED),
                RunState {
                    overload_rotations: 1,
                    last_retry_reason: Some(R::Overloaded),
                    ..tried(marked)
                },
                fallback(),
                Step::RotateProfile {
                    retry_reason: Some(R::Overloaded),
                },
            ),
            (
                "an overloaded reply past the cap falls back with the overloaded copy",
                reply_error(OVERLOADED),
                RunState {
                    overload_rotations: 2,
                    ..tried(marked)
                },
                fallback(),
                Step::Failover {
                    message: OVERLOADED_FAILOVER_TEXT.to_owned(),
                    reason: R::Overloaded,
                },
            ),
            (
                "an idle timeout with no profile left retries the same model once",
                idle_timeout(),
                tried(exhausted),
                policy(),
                Step::RetryIdle,
            ),
            (
                "an idle timeout already retried finishes",
                idle_timeout(),
                RunState {
                    same_model_idle_retries: MAX_SAME_MODEL_IDLE_TIMEOUT_RETRIES,
                    ..tried(exhausted)
                },
                policy(),
                finish(RunEnding::Completed, false),
            ),
            (
                "an idle timeout after tools with side effects finishes",
                AttemptFacts {
                    side_effects: true,
                    ..idle_timeout()
                },
                tried(exhausted),
                policy(),
                finish(RunEnding::Completed, false),
            ),
            (
                "an idle timeout with no profile left falls back as a timeout",
                idle_timeout(),
                tried(exhausted),
                fallback(),
                Step::Failover {
                    message: "LLM request timed out.".to_owned(),
                    reason: R::Timeout,
                },
            ),
            (
                "an aborted reply finishes without rotating",
                AttemptFacts {
                    aborted: true,
                    reply_stop: Some(StopReason::Aborted),
                    ..AttemptFacts::default()
                },
                state(),
                fallback(),
                finish(RunEnding::Completed, false),
            ),
        ];
        for (name, facts, state, policy, expected) in rows {
            assert_eq!(next(&facts, &state, &policy), expected, "{name}");
        }
    }

    /// The executor's contract over whole sequences: each recorded step is taken once, then
    /// `next` moves on, until a step runs another attempt or ends the run.
    #[test]
    fn recorded_steps_lead_to_the_next_one() {
        fn walk(facts: &AttemptFacts, policy: &RunPolicy, works: bool) -> (Vec<Step>, RunState) {
            let mut state = state();
            let mut steps = Vec::new();
            for _ in 0..16 {
                let step = next(facts, &state, policy);
                state.record(&step, works, policy);
                let more = matches!(
                    step,
                    Step::MarkFailure(_) | Step::CountRotation(_) | Step::NoteRetryReason(_)
                ) || (!works
                    && matches!(
                        step,
                        Step::Compact(_) | Step::TruncateToolResults | Step::RotateProfile { .. }
                    ));
                steps.push(step);
                if !more {
                    break;
                }
            }
            (steps, state)
        }
        let (steps, state) = walk(&reply_error(RATE_LIMIT), &fallback(), true);
        assert_eq!(
            steps,
            vec![
                Step::MarkFailure(R::RateLimit),
                Step::CountRotation(R::RateLimit),
                Step::NoteRetryReason(Some(R::RateLimit)),
                Step::RotateProfile {
                    retry_reason: Some(R::RateLimit)
                },
            ]
        );
        assert_eq!(
            (
                state.rate_limit_rotations,
                state.thinking,
                state.attempted_thinking
            ),
            (1, ThinkLevel::High, Vec::new())
        );

        let (steps, _) = walk(&reply_error(RATE_LIMIT), &fallback(), false);
        assert_eq!(
            steps.last(),
            Some(&Step::Failover {
                message: "⚠\u{fe0f} Rate limit reached for requests per minute.".to_owned(),
                reason: R::RateLimit,
            })
        );

        let (steps, state) = walk(&overflow(0, true), &policy(), false);
        assert_eq!(
            steps,
            vec![
                Step::Compact(CompactCause::Overflow {
                    observed_tokens: Some(250_000)
                }),
                Step::TruncateToolResults,
                finish(
                    payload(
                        CONTEXT_OVERFLOW_TEXT,
                        RunErrorKind::ContextOverflow,
                        OVERFLOW
                    ),
                    false
                ),
            ]
        );
        assert_eq!(
            (state.overflow_compactions, state.truncation_attempted),
            (1, true)
        );

        let (_, state) = walk(&overflow(0, true), &policy(), true);
        assert_eq!(
            state.overflow_compactions, 1,
            "a compaction that worked counts"
        );
    }

    #[test]
    fn a_rotation_that_worked_starts_the_profile_at_the_asked_level() {
        let mut state = state();
        state.record(
            &Step::Retry {
                thinking: Some(ThinkLevel::Low),
            },
            true,
            &policy(),
        );
        state.begin_attempt();
        assert_eq!(
            state.attempted_thinking,
            vec![ThinkLevel::High, ThinkLevel::Low]
        );
        state.record(&Step::TruncateToolResults, true, &policy());
        state.record(
            &Step::RotateProfile {
                retry_reason: Some(R::Auth),
            },
            true,
            &policy(),
        );
        assert_eq!(
            (
                state.thinking,
                state.attempted_thinking.len(),
                state.last_retry_reason
            ),
            (ThinkLevel::High, 0, Some(R::Auth))
        );
    }

    #[test]
    fn the_retry_limit_falls_back_only_for_reasons_another_model_may_fix() {
        let mut state = state();
        state.last_retry_reason = Some(R::RateLimit);
        assert_eq!(
            at_retry_limit(&state, &fallback(), 32),
            Err((retry_limit_error_message(1, 32), R::RateLimit))
        );
        assert_eq!(
            at_retry_limit(&state, &policy(), 32),
            Ok(payload(
                RETRY_LIMIT_TEXT,
                RunErrorKind::RetryLimit,
                &retry_limit_error_message(1, 32)
            ))
        );
    }
}
