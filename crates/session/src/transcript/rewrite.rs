//! Tool-result truncation on an open transcript (reference openclaw-runner §10.1
//! `truncateOversizedToolResultsInSession`, which rewrites through the session manager it has
//! open): the file is replaced under the lock the transcript already holds, and the
//! transcript's memory is rebuilt from exactly the bytes written, so appends go on from there.

use clawloop_core::message::JsonObject;

use super::Transcript;
use crate::entry_list::{EntryList, Source};
use crate::envelope;
use crate::error::SessionError;
use crate::scan::{RawLine, scan};
use crate::transforms::tool_result_rewrite::{BranchLeaf, plan_file_rewrite};
use crate::transforms::{ToolResultBudget, ToolResultRewrite};

impl Transcript {
    /// Truncates the oversized tool results on the branch ending at the leaf and rewrites the
    /// session file in place, without letting go of the write lock (OpenClaw
    /// `truncateOversizedToolResultsInSession`).
    ///
    /// The recovery plan is [`crate::transforms::plan_tool_result_recovery`] with `budget`;
    /// entries keep their ids and places, and every other line of the file is written back as
    /// it was. The write lock is taken first if this transcript does not hold it yet (waiting
    /// up to [`crate::SessionOptions::lock_timeout`]) and kept afterwards, so no other writer
    /// gets in between the read, the rewrite and the appends that follow. The file is read
    /// back and must be exactly what this transcript read and wrote, and is checked once more
    /// in full just before a temporary file is renamed over it; otherwise the call fails with
    /// [`SessionError::ChangedOnDisk`] and neither the file nor the transcript changes.
    ///
    /// On success the transcript holds what the file now holds: its entries read back from
    /// the new content, the leaf where it was, and the next append extends the new file. A
    /// session not written yet, or with no leaf, is an `empty session`; a branch with nothing
    /// to truncate leaves the file alone.
    pub fn truncate_oversized_tool_results(
        &mut self,
        budget: &ToolResultBudget,
    ) -> Result<ToolResultRewrite, SessionError> {
        let Some(leaf_id) = self.leaf_id().map(str::to_owned) else {
            return Ok(ToolResultRewrite::unchanged("empty session"));
        };
        if !self.writer.is_written() {
            return Ok(ToolResultRewrite::unchanged("empty session"));
        }
        let bytes = self.writer.read_verified()?;
        let path = self.path().to_path_buf();
        let planned = match plan_file_rewrite(&path, &bytes, budget, BranchLeaf::Id(&leaf_id))? {
            Ok(planned) => planned,
            Err(unchanged) => return Ok(unchanged),
        };
        // Parsed before anything is written, so a content this transcript could not hold is
        // never put on disk.
        let judge = |_: &JsonObject, line: RawLine<'_>| envelope::judge(&path, line);
        let scanned = scan(&path, &planned.content, judge, |_| None)?.ok_or_else(|| {
            SessionError::NotASession {
                path: path.clone(),
                reason: "the rewritten content has no session header".to_owned(),
            }
        })?;
        self.writer.rewrite(&planned.content, &bytes)?;
        planned.log(&path, budget);

        let count = scanned.items.len();
        self.entries = EntryList::from_items(Source::Bytes(planned.content), scanned.items);
        self.labels.clear();
        for at in 0..count {
            self.note(at);
        }
        self.leaf = self.entries.position(&leaf_id);
        Ok(planned.outcome)
    }
}
