//! The session repairs of a run (reference §4.3, §4.4, §10.1): a compaction between attempts
//! (after a timeout or an overflow), the truncation of oversized tool results, and `/compact`
//! ([`compact_run_session`]). Each opens the transcript under its lock and summarizes with the
//! run's [`AttemptSpec`].

use std::sync::Arc;

use clawloop_session::SessionOptions;
use clawloop_session::transforms::ToolResultBudget;
use tokio_util::sync::CancellationToken;

use crate::agent::{CompactionRequest, CompactionTrigger, TranscriptHandle};
use crate::attempt::AttemptSpec;
use crate::compaction::{CompactionError, CompactionOutcome};
use crate::hooks::{HookObserver, compact_observed};
use crate::run::model_key::{compaction_spec, spec_compactor};
use crate::run::request::{RunError, RunRequest};

/// Compacts the session of `request` now (`/compact`; OpenClaw's
/// `compactEmbeddedPiSessionDirect`): the model, its window and the key are resolved as a run
/// resolves them, and the summary is written under the transcript's lock.
/// [`CompactionOutcome::NotCompacted`] when there was nothing to summarize.
pub async fn compact_run_session(
    request: &RunRequest,
    custom_instructions: Option<String>,
    cancel: &CancellationToken,
) -> Result<CompactionOutcome, RunError> {
    let spec = compaction_spec(request).await?;
    let transcript = TranscriptHandle::open_locked(&request.session_file, session_options(request))
        .await
        .map_err(|err| RunError::Failed(err.to_string()))?;
    let compaction_request = CompactionRequest {
        reason: CompactionTrigger::Manual,
        custom_instructions,
    };
    compact(
        request,
        &spec,
        &transcript,
        compaction_request,
        cancel.clone(),
    )
    .await
    .map_err(|err| match err {
        CompactionError::Cancelled => RunError::Aborted,
        other => RunError::Failed(other.to_string()),
    })
}

/// An explicit compaction between attempts, under the transcript's lock. True when a summary
/// was written.
pub(crate) async fn compact_session(request: &RunRequest, spec: &AttemptSpec) -> bool {
    let Some(transcript) = open_session(request, "compact it").await else {
        return false;
    };
    let compaction_request = CompactionRequest {
        reason: CompactionTrigger::Auto(clawloop_core::agent_event::CompactionReason::Overflow),
        custom_instructions: None,
    };
    match compact(
        request,
        spec,
        &transcript,
        compaction_request,
        CancellationToken::new(),
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
pub(crate) async fn truncate_tool_results(request: &RunRequest, context_window: u64) -> bool {
    let Some(transcript) = open_session(request, "truncate tool results").await else {
        return false;
    };
    let budget = ToolResultBudget::for_context_window(context_window);
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

/// A compaction with the run's model and key, its hooks observed.
async fn compact(
    request: &RunRequest,
    spec: &AttemptSpec,
    transcript: &TranscriptHandle,
    compaction_request: CompactionRequest,
    cancel: CancellationToken,
) -> Result<CompactionOutcome, CompactionError> {
    let compactor = spec_compactor(spec, request);
    let observer = HookObserver::new(Arc::clone(&request.hooks), request.hook_context());
    compact_observed(
        &compactor,
        transcript,
        compaction_request,
        cancel,
        Some(&observer),
    )
    .await
}

/// The run's transcript under its lock, for a repair between attempts (`purpose` names it in
/// the warning when the file cannot be opened).
async fn open_session(request: &RunRequest, purpose: &str) -> Option<TranscriptHandle> {
    match TranscriptHandle::open_locked(&request.session_file, session_options(request)).await {
        Ok(transcript) => Some(transcript),
        Err(err) => {
            tracing::warn!(target: "clawloop::run", "cannot open the session to {purpose}: {err}");
            None
        }
    }
}

fn session_options(request: &RunRequest) -> SessionOptions {
    SessionOptions {
        clock: Arc::clone(&request.clock),
        ..SessionOptions::default()
    }
}
