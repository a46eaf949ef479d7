//! The runner's summarizing [`Compactor`] as the agent session's [`TranscriptCompactor`]: the
//! branch is read and the entry appended on the blocking pool, the summary requests run on the
//! runtime in between, so the transcript lock is never held across a model call.

use clawloop_core::tool::BoxFuture;
use clawloop_session::{SessionEntry, SessionError};
use tokio_util::sync::CancellationToken;

use crate::agent::persist::{PersistError, TranscriptHandle};
use crate::agent::session::{CompactionRequest, TranscriptCompactor};
use crate::compaction::{
    CompactionError, CompactionOutcome, Compactor, append_compaction, prepare_compaction,
};

impl TranscriptCompactor for Compactor {
    fn compact<'a>(
        &'a self,
        transcript: &'a TranscriptHandle,
        request: CompactionRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<CompactionOutcome, CompactionError>> {
        Box::pin(async move {
            let settings = *self.settings();
            let preparation = transcript
                .with(move |t| {
                    let leaf = t
                        .leaf_id()
                        .map(str::to_owned)
                        .ok_or(CompactionError::NothingToCompact)?;
                    let path: Vec<SessionEntry> = t
                        .branch_path_since_compaction(&leaf)
                        .into_iter()
                        .cloned()
                        .collect();
                    prepare_compaction(&path, &settings)
                })
                .await
                .map_err(task_error)??;
            let custom = request.custom_instructions.as_deref();
            match Compactor::compact(self, &preparation, custom, &cancel).await? {
                CompactionOutcome::Compacted(result) => {
                    let written = transcript
                        .with(move |t| append_compaction(t, result))
                        .await
                        .map_err(task_error)??;
                    Ok(CompactionOutcome::Compacted(written))
                }
                not_compacted @ CompactionOutcome::NotCompacted { .. } => Ok(not_compacted),
            }
        })
    }
}

/// `with` fails only when its blocking task could not run.
fn task_error(err: PersistError) -> CompactionError {
    CompactionError::Session(SessionError::Io {
        path: std::path::PathBuf::new(),
        action: "compaction",
        source: std::io::Error::other(err.to_string()),
    })
}
