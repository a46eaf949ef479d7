//! One turn, as `run` and `chat` both drive it: the runner's turn with the renderer's sinks,
//! the spinner ticking while it waits, and the outcome in the terms the CLI reports.

use std::time::Instant;

use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
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
    /// The turn was cancelled (Ctrl-C).
    pub interrupted: bool,
    /// Tokens, cost (only where the summary line shows it) and duration.
    pub stats: TurnStats,
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
        run_agent_turn_with_fallback(env, request, io).await
    };
    // The cost needs the model catalog, built again here: only for a line that shows it.
    let priced = renderer.shows_summary();
    let mut outcome = outcome_of(env, &result, cancel.is_cancelled(), priced);
    outcome.stats.duration = started.elapsed();
    let answered = outcome.failure.is_none() && !outcome.interrupted;
    renderer.final_reply(&view, answered.then_some(outcome.reply.as_str()));
    outcome
}

fn outcome_of(
    env: &TurnEnv,
    result: &AgentRunLoopResult,
    interrupted: bool,
    priced: bool,
) -> TurnOutcome {
    let mut stats = TurnStats::default();
    let (session_id, failure, reply) = match result {
        AgentRunLoopResult::Success(success) => {
            let errors: Vec<&str> = success
                .run_result
                .payloads
                .iter()
                .filter(|payload| payload.is_error)
                .filter_map(|payload| payload.text.as_deref())
                .collect();
            let failure = (!errors.is_empty()).then(|| errors.join("\n"));
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
        } => {
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
        interrupted,
        stats,
    }
}
