//! `before_compaction` / `after_compaction` around one compaction: the in-attempt auto
//! compaction and `/compact` of the agent session, and the run loop's explicit compaction all
//! go through [`compact_observed`], so no compaction path skips its hooks.

use clawloop_core::hooks::CompactionEvent;
use clawloop_core::tokens::estimate_context_tokens;
use tokio_util::sync::CancellationToken;

use crate::agent::{CompactionRequest, TranscriptCompactor, TranscriptHandle};
use crate::compaction::{CompactionError, CompactionOutcome};
use crate::hooks::observe::{HookObserver, ObserverEvent};

/// The context's size as the hooks report it.
struct ContextSize {
    messages: usize,
    tokens: u64,
}

async fn context_size(transcript: &TranscriptHandle) -> Option<ContextSize> {
    match transcript
        .with(|t| {
            let messages = t.build_context().messages;
            ContextSize {
                messages: messages.len(),
                tokens: estimate_context_tokens(&messages).tokens,
            }
        })
        .await
    {
        Ok(size) => Some(size),
        Err(err) => {
            tracing::warn!(target: "clawloop::hooks", "cannot read the session for a compaction hook: {err}");
            None
        }
    }
}

/// Runs `compactor` on `transcript`; with an `observer`, `before_compaction` fires first and
/// `after_compaction` once a summary was written (OpenClaw fires it only then).
pub async fn compact_observed(
    compactor: &dyn TranscriptCompactor,
    transcript: &TranscriptHandle,
    request: CompactionRequest,
    cancel: CancellationToken,
    observer: Option<&HookObserver>,
) -> Result<CompactionOutcome, CompactionError> {
    let Some(observer) = observer else {
        return compactor.compact(transcript, request, cancel).await;
    };
    let session_file = Some(transcript.path().to_path_buf());
    let before = context_size(transcript).await;
    observer.notify(ObserverEvent::BeforeCompaction(CompactionEvent {
        message_count: before.as_ref().map_or(0, |s| s.messages),
        compacted_count: None,
        token_count: before.as_ref().map(|s| s.tokens),
        session_file: session_file.clone(),
    }));
    let outcome = compactor.compact(transcript, request, cancel).await;
    if let Ok(CompactionOutcome::Compacted(_)) = &outcome {
        let after = context_size(transcript).await;
        // The summary takes one place in the new context; every other message that left it
        // was summarized away.
        let compacted_count = match (&before, &after) {
            (Some(before), Some(after)) => Some(
                before
                    .messages
                    .saturating_sub(after.messages.saturating_sub(1)),
            ),
            _ => None,
        };
        observer.notify(ObserverEvent::AfterCompaction(CompactionEvent {
            message_count: after.as_ref().map_or(0, |s| s.messages),
            compacted_count,
            token_count: after.as_ref().map(|s| s.tokens),
            session_file,
        }));
    }
    outcome
}
