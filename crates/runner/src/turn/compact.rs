//! Compaction asked for directly (`/compact`, `clawloop compact`): the session of a key,
//! admitted on the same lanes as its turns (SPEC §8.2), so it never overlaps one.

use tokio_util::sync::CancellationToken;

use crate::compaction::CompactionOutcome;
use crate::fallback::resolve_fallback_candidates;
use crate::lanes::RunLanes;
use crate::run::{RunError, compact_run_session};
use crate::turn::env::TurnEnv;
use crate::turn::run::{NO_MODEL_TEXT, TurnRequest};
use crate::turn::scope::RunScope;

/// Compacts the session `session_key` continues, with the turn's primary model.
pub async fn compact_session_direct(
    env: &TurnEnv,
    session_key: &str,
    custom_instructions: Option<String>,
    cancel: &CancellationToken,
) -> Result<CompactionOutcome, RunError> {
    let binding = env
        .sessions
        .bind(session_key)
        .await
        .map_err(|err| RunError::Failed(err.message))?;
    let candidates = resolve_fallback_candidates(None, &env.config.defaults().model, None);
    let Some(candidate) = candidates.first() else {
        return Err(RunError::Failed(NO_MODEL_TEXT.to_owned()));
    };
    let turn = TurnRequest {
        session_key: session_key.to_owned(),
        ..TurnRequest::default()
    };
    let request =
        RunScope::new(env, &turn, "compact", &binding).for_candidate(candidate, false, true);
    let lanes = RunLanes::for_run(Some(session_key), &binding.session_id, None);
    env.runtime
        .lanes()
        .run_in(
            &lanes,
            compact_run_session(&request, custom_instructions, cancel),
        )
        .await
        .map_err(|lane| RunError::Failed(lane.to_string()))?
}
