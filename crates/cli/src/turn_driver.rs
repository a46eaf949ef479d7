//! One turn, as `run` and `chat` both drive it: the runner's turn with the renderer's sinks,
//! the spinner ticking while it waits, and the outcome in the terms the CLI reports.

use std::time::Instant;

use clawloop_core::StopReason;
use clawloop_runner::auth::cooldown::CooldownEnd;
use clawloop_runner::payloads::{ReplyPayload, RunStopReason};
use clawloop_runner::turn::{
    AgentRunLoopResult, RunResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_subscribe::SILENT_REPLY_TOKEN;
use tokio_util::sync::CancellationToken;

use crate::render::summary::{TurnStats, run_cost};
use crate::render::term::SpinnerTask;
use crate::render::{Renderer, TurnView};

/// How a turn ended, for the caller's report and exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// The session the turn ran in, when one was bound.
    pub session_id: Option<String>,
    /// The reply text (empty for a silent or interrupted turn).
    pub reply: String,
    /// The user-facing error text of a failed turn.
    pub failure: Option<String>,
    /// Warnings of a turn that answered anyway (a refused `write` the model recovered from),
    /// for stderr.
    pub warnings: Vec<String>,
    /// The turn was cancelled (Ctrl-C).
    pub interrupted: bool,
    /// Tokens, cost (only where the summary line shows it) and duration.
    pub stats: TurnStats,
    /// The turn asked no model because every profile of its provider rests: the one usable
    /// again first, and when.
    pub cooling_down: Option<CooldownEnd>,
}

/// Runs `request` in `env`, showing it through `renderer`; `cancel` aborts it (the runner
/// stops at its next await and leaves the transcript valid). The final reply is shown when the
/// mode wants it; failures and the last line are the caller's to report.
pub async fn drive_turn(
    env: &TurnEnv,
    request: TurnRequest,
    renderer: &Renderer,
    cancel: CancellationToken,
) -> TurnOutcome {
    let started = Instant::now();
    let view: TurnView = renderer.begin_turn();
    let io = TurnIo {
        cancel: cancel.clone(),
        events: view.events(),
        replies: view.replies(),
        ..TurnIo::default()
    };
    let result = {
        let _spinner = SpinnerTask::start(renderer.term());
        let _ticker = view.ticker();
        run_agent_turn_with_fallback(env, request, io).await
    };
    // The cost needs the model catalog, built again here: only for a line that shows it.
    let priced = renderer.shows_summary();
    let mut outcome = outcome_of(env, &result, cancel.is_cancelled(), priced);
    outcome.stats.duration = started.elapsed();
    let answered = outcome.failure.is_none() && !outcome.interrupted;
    renderer.final_reply(&view, answered.then_some(outcome.reply.as_str()));
    for warning in &outcome.warnings {
        renderer.warning(warning);
    }
    outcome
}

fn outcome_of(
    env: &TurnEnv,
    result: &AgentRunLoopResult,
    interrupted: bool,
    priced: bool,
) -> TurnOutcome {
    let mut stats = TurnStats::default();
    let mut warnings = Vec::new();
    let mut cooling_down = None;
    let (session_id, failure, reply) = match result {
        AgentRunLoopResult::Success(success) => {
            let run = &success.run_result;
            let (failure, warned) = judge(&run.payloads, last_call_failed(run));
            warnings = warned;
            if let Some(meta) = &success.run_result.meta.agent_meta
                && let Some(usage) = &meta.usage
            {
                stats.input_tokens = usage.input;
                stats.output_tokens = usage.output;
                if priced {
                    stats.cost_usd = run_cost(&env.config, &meta.provider, &meta.model, usage);
                }
            }
            (
                Some(success.session_id.clone()),
                failure,
                success.run_result.reply_text(),
            )
        }
        AgentRunLoopResult::Final {
            payload,
            session_id,
            cooling_down: resting,
        } => {
            cooling_down.clone_from(resting);
            let text = payload.text.clone().unwrap_or_default();
            if payload.is_error {
                (session_id.clone(), Some(text), String::new())
            } else {
                (session_id.clone(), None, text)
            }
        }
    };
    // An aborted run ends on the silent-reply token: nothing for the user, not a reply.
    let reply = if interrupted || reply.trim() == SILENT_REPLY_TOKEN {
        String::new()
    } else {
        reply
    };
    TurnOutcome {
        session_id,
        reply,
        failure: if interrupted { None } else { failure },
        warnings: if interrupted { Vec::new() } else { warnings },
        interrupted,
        stats,
        cooling_down,
    }
}

/// The failure of a finished run, or its warnings when it answered: the error payloads are
/// the failure when nothing else came of the run, or when its last model call failed (the
/// answer is then partial); next to a complete answer they are warnings (a refused `write` or
/// `edit` the model recovered from), and the answer stands.
fn judge(payloads: &[ReplyPayload], last_call_failed: bool) -> (Option<String>, Vec<String>) {
    let errors: Vec<String> = payloads
        .iter()
        .filter(|payload| payload.is_error)
        .filter_map(|payload| payload.text.clone())
        .collect();
    let answered = payloads
        .iter()
        .any(|payload| !payload.is_error && !payload.is_reasoning && payload.text.is_some());
    if errors.is_empty() {
        (None, Vec::new())
    } else if answered && !last_call_failed {
        (None, errors)
    } else {
        (Some(errors.join("\n")), Vec::new())
    }
}

/// Whether the run ended in an error return or with a model call that failed or was aborted.
fn last_call_failed(run: &RunResult) -> bool {
    run.meta.error.is_some()
        || matches!(
            run.meta.stop_reason,
            Some(RunStopReason::Assistant(
                StopReason::Error | StopReason::Aborted
            ))
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn errors_fail_a_run_unless_a_complete_answer_came_with_them() {
        let warning = || ReplyPayload::error("⚠️ Edit: in note.txt failed");
        let answer = || ReplyPayload::text("It was not there.");
        let reasoning = || ReplyPayload {
            is_reasoning: true,
            ..ReplyPayload::text("hmm")
        };
        let failed = |text: &str| (Some(text.to_owned()), Vec::<String>::new());
        let table = [
            ((vec![answer()], false), (None, vec![])),
            (
                (vec![answer(), warning()], false),
                (None, vec!["⚠️ Edit: in note.txt failed".to_owned()]),
            ),
            (
                (vec![warning()], false),
                failed("⚠️ Edit: in note.txt failed"),
            ),
            (
                (vec![reasoning(), warning()], false),
                failed("⚠️ Edit: in note.txt failed"),
            ),
            (
                (
                    vec![ReplyPayload::error("LLM request failed."), answer()],
                    true,
                ),
                failed("LLM request failed."),
            ),
            ((vec![answer()], true), (None, vec![])),
        ];
        for ((payloads, last_call_failed), expected) in table {
            assert_eq!(judge(&payloads, last_call_failed), expected, "{payloads:?}");
        }
    }
}
