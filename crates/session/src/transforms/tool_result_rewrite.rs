//! Writing truncated tool results back into a session file (reference openclaw-runner §10.1
//! `truncateOversizedToolResultsInSession`, SPEC §5): the recovery for a context that
//! overflows because of tool output already in the transcript.
//!
//! OpenClaw re-appends the rewritten branch as new entries, so the file keeps the oversized
//! originals and never shrinks. Here the entries keep their ids and places and the whole file
//! is replaced, under the session's write lock, through a temporary file and a rename: a
//! crash leaves either the old file or the new one, and every other line (other branches,
//! unknown fields, skipped garbage) is written back as it was.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use clawloop_core::message::{AgentMessage, JsonObject};

use crate::atomic::stage;
use crate::context::path_to;
use crate::entry::SessionEntry;
use crate::error::SessionError;
use crate::fsync::FsyncPolicy;
use crate::header::SessionHeader;
use crate::load::{Line, Loaded, load_bytes};
use crate::lock::WriteLock;
use crate::migrate::migrate;
use crate::on_disk::{ReadFile, read_file, verify_whole};
use crate::options::SessionOptions;

use super::tool_result_budget::{
    ToolResultBudget, plan_tool_result_recovery, tool_result_text_chars,
};

/// What [`truncate_oversized_tool_results_in_file`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolResultRewrite {
    /// Whether the file was rewritten.
    pub truncated: bool,
    /// Tool-result entries rewritten.
    pub truncated_count: usize,
    /// Why nothing was rewritten (OpenClaw's wording): `empty session` or
    /// `no oversized or aggregate tool results`.
    pub reason: Option<&'static str>,
    /// Entries over the per-result budget.
    pub oversized_count: usize,
    /// Entries the aggregate pass shortened.
    pub aggregate_count: usize,
    /// Text chars removed in total.
    pub chars_removed: usize,
}

impl ToolResultRewrite {
    pub(crate) fn unchanged(reason: &'static str) -> Self {
        ToolResultRewrite {
            reason: Some(reason),
            ..ToolResultRewrite::default()
        }
    }
}

/// One line of the file after the header, as it will be written back.
enum Slot {
    /// The entry at this position of the entry list.
    Entry(usize),
    /// An object that is not a usable entry, written back as it is.
    Object(JsonObject),
    /// A line that is not JSON, byte for byte.
    Garbage(Vec<u8>),
}

/// Truncates the oversized tool results on the session's current branch (the path from the
/// root to the last entry) and rewrites the file (OpenClaw
/// `truncateOversizedToolResultsInSession`).
///
/// The recovery plan is [`plan_tool_result_recovery`] with `budget`. Takes the file's write
/// lock first (waiting up to `options.lock_timeout`), so it fails with
/// [`SessionError::Locked`] while a [`crate::Transcript`] that has written, or was opened with
/// `open_locked`, holds it: such a transcript truncates through
/// [`crate::Transcript::truncate_oversized_tool_results`] instead, under the lock it holds. A
/// file of an
/// older version is migrated in the same rewrite. The file is refused
/// ([`SessionError::ChangedOnDisk`]) if it is no longer the file read or its content changed
/// in any byte while the rewrite was prepared (a writer that ignores the lock, a file put in
/// its place), and left untouched when
/// there is nothing to truncate; a missing or empty file is an `empty session`.
pub fn truncate_oversized_tool_results_in_file(
    path: &Path,
    budget: &ToolResultBudget,
    options: &SessionOptions,
) -> Result<ToolResultRewrite, SessionError> {
    let lock = WriteLock::acquire(path, options.lock_timeout)?;
    let outcome = rewrite_under_lock(path, budget, options);
    if let Err(e) = lock.release() {
        // The rewrite itself is done (or failed on its own); a lock file that could not be
        // removed is taken over by the next writer once this process is gone.
        tracing::warn!(path = %path.display(), error = %e, "could not remove the session lock file");
    }
    outcome
}

fn rewrite_under_lock(
    path: &Path,
    budget: &ToolResultBudget,
    options: &SessionOptions,
) -> Result<ToolResultRewrite, SessionError> {
    let Some(ReadFile { bytes, id }) = read_file(path)? else {
        return Ok(ToolResultRewrite::unchanged("empty session"));
    };
    let planned = match plan_file_rewrite(path, &bytes, budget, BranchLeaf::LastEntry)? {
        Ok(planned) => planned,
        Err(unchanged) => return Ok(unchanged),
    };
    let io = |e| SessionError::io(path, "rewrite truncated tool results", e);
    let staged = stage(path, &planned.content, options.fsync != FsyncPolicy::Never).map_err(io)?;
    // Checked at the last moment, against every byte read: the lock keeps out only the
    // writers that take it, and whatever else changed the file must not be overwritten.
    verify_whole(path, id, &bytes)?;
    staged.replace().map_err(io)?;
    planned.log(path, budget);
    Ok(planned.outcome)
}

/// Where the branch whose tool results are truncated ends.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BranchLeaf<'a> {
    /// The last entry in file order (the leaf of a file just opened).
    LastEntry,
    /// The entry with this id (an open transcript's leaf).
    Id(&'a str),
}

/// The new content of a session file with the oversized tool results of one branch
/// truncated, and what that changes.
pub(crate) struct PlannedRewrite {
    /// The whole file to write.
    pub content: Vec<u8>,
    /// What the rewrite does, for the caller to report once it is written.
    pub outcome: ToolResultRewrite,
}

impl PlannedRewrite {
    pub(crate) fn log(&self, path: &Path, budget: &ToolResultBudget) {
        tracing::info!(
            path = %path.display(),
            rewritten = self.outcome.truncated_count,
            oversized = self.outcome.oversized_count,
            aggregate = self.outcome.aggregate_count,
            max_chars = budget.max_chars,
            aggregate_budget_chars = budget.aggregate_budget_chars,
            "truncated tool results in session"
        );
    }
}

/// Plans the rewrite of the session file content `bytes` (read from `path`): the recovery plan
/// ([`plan_tool_result_recovery`] with `budget`) over the branch ending at `leaf`, applied to
/// the entries in place, every other line (other branches, unusable objects, garbage) written
/// back as it was, an older version migrated, a torn last line dropped.
///
/// `Err` carries the outcome when nothing is to be written: an empty session, or nothing to
/// truncate on a current-version file.
pub(crate) fn plan_file_rewrite(
    path: &Path,
    bytes: &[u8],
    budget: &ToolResultBudget,
    leaf: BranchLeaf<'_>,
) -> Result<Result<PlannedRewrite, ToolResultRewrite>, SessionError> {
    let Some(loaded) = load_bytes(path, bytes)? else {
        return Ok(Err(ToolResultRewrite::unchanged("empty session")));
    };
    let Loaded {
        mut header,
        mut lines,
        ..
    } = loaded;
    // The same check as opening: a header that cannot be used is never rewritten.
    serde_json::from_value::<SessionHeader>(Value::Object(header.clone())).map_err(|e| {
        SessionError::NotASession {
            path: path.to_owned(),
            reason: format!("invalid session header: {e}"),
        }
    })?;
    let mut objects: Vec<&mut JsonObject> = lines
        .iter_mut()
        .filter_map(|l| match l {
            Line::Object(o) => Some(o),
            _ => None,
        })
        .collect();
    let migrated = migrate(&mut header, &mut objects).is_some();

    let (entries, slots) = split_entries(lines);
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        index.insert(e.id(), i);
    }
    let leaf = match leaf {
        BranchLeaf::LastEntry => entries.len().checked_sub(1),
        BranchLeaf::Id(id) => index.get(id).copied(),
    };
    let Some(leaf) = leaf else {
        return Ok(Err(ToolResultRewrite::unchanged("empty session")));
    };
    let branch = path_to(&entries, &|id| index.get(id).copied(), leaf);
    drop(index);

    let on_branch: Vec<(usize, AgentMessage)> = branch
        .iter()
        .filter_map(|&at| match &entries[at] {
            SessionEntry::Message(m) => Some((at, m.message.clone())),
            _ => None,
        })
        .collect();
    let messages: Vec<AgentMessage> = on_branch.iter().map(|(_, m)| m.clone()).collect();
    let plan = plan_tool_result_recovery(&messages, budget);
    if plan.is_empty() && !migrated {
        return Ok(Err(ToolResultRewrite::unchanged(
            "no oversized or aggregate tool results",
        )));
    }

    let mut entries = entries;
    let mut chars_removed = 0;
    for (i, replacement) in &plan.replacements {
        let (at, original) = &on_branch[*i];
        if let SessionEntry::Message(m) = &mut entries[*at] {
            chars_removed += tool_result_text_chars(original)
                .saturating_sub(tool_result_text_chars(replacement));
            m.message = replacement.clone();
        }
    }
    Ok(Ok(PlannedRewrite {
        content: file_content(&header, &entries, &slots)?,
        outcome: ToolResultRewrite {
            truncated: !plan.is_empty(),
            truncated_count: plan.replacements.len(),
            reason: None,
            oversized_count: plan.oversized_count,
            aggregate_count: plan.aggregate_count,
            chars_removed,
        },
    }))
}

/// The usable entries in file order, and every line's place.
fn split_entries(lines: Vec<Line>) -> (Vec<SessionEntry>, Vec<Slot>) {
    let mut entries = Vec::with_capacity(lines.len());
    let mut slots = Vec::with_capacity(lines.len());
    for line in lines {
        let entry = match line {
            Line::Entry(e) => Some(e),
            // A migrated object is an entry when it now reads as one; otherwise it is written
            // back as it is, like a migration's own rewrite does.
            Line::Object(o) => match crate::envelope::type_object(o.clone()) {
                Ok(e) => Some(e),
                Err(_) => {
                    slots.push(Slot::Object(o));
                    None
                }
            },
            Line::Garbage(bytes) => {
                slots.push(Slot::Garbage(bytes));
                None
            }
        };
        if let Some(e) = entry {
            slots.push(Slot::Entry(entries.len()));
            entries.push(e);
        }
    }
    (entries, slots)
}

/// The whole file: the header, then every line in its place.
fn file_content(
    header: &JsonObject,
    entries: &[SessionEntry],
    slots: &[Slot],
) -> Result<Vec<u8>, SessionError> {
    let mut out = serde_json::to_vec(header)?;
    out.push(b'\n');
    for slot in slots {
        match slot {
            Slot::Entry(i) => serde_json::to_writer(&mut out, &entries[*i])?,
            Slot::Object(o) => serde_json::to_writer(&mut out, o)?,
            Slot::Garbage(bytes) => out.extend_from_slice(bytes),
        }
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    use clawloop_core::StopReason;
    use clawloop_core::message::{
        AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserMessage,
    };
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::Transcript;
    use crate::transforms::truncate_tool_result_message;

    fn options() -> SessionOptions {
        SessionOptions {
            fsync: FsyncPolicy::Never,
            cwd: Some("/w".into()),
            lock_timeout: Duration::ZERO,
            ..SessionOptions::default()
        }
    }

    fn calling(id: &str) -> AssistantMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 1);
        m.content.push(ContentBlock::ToolCall(ToolCall::new(
            id,
            "exec",
            json!({"cmd": "make"}),
        )));
        m.stop_reason = StopReason::ToolUse;
        m
    }

    fn answer(text: &str) -> AssistantMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 3);
        m.content.push(ContentBlock::text(text));
        m
    }

    fn output(id: &str, text: String) -> ToolResultMessage {
        ToolResultMessage::text(id, "exec", text, false, 2)
    }

    /// A session with a big tool result on the current branch and another on an old branch.
    fn write_session(path: &Path) -> Vec<String> {
        let mut t = Transcript::open(path, options()).unwrap();
        let root = t.append_message(UserMessage::text("build it", 0)).unwrap();
        let old_call = t.append_message(calling("old")).unwrap();
        t.append_message(output("old", "o".repeat(5000))).unwrap();
        t.branch(&root).unwrap();
        let call = t.append_message(calling("t1")).unwrap();
        let result = t
            .append_message(output("t1", "line\n".repeat(1000)))
            .unwrap();
        let done = t.append_message(answer("done")).unwrap();
        vec![root, old_call, call, result, done]
    }

    fn context_texts(path: &Path) -> Vec<String> {
        let t = Transcript::open(path, options()).unwrap();
        t.build_context()
            .messages
            .iter()
            .map(AgentMessage::text)
            .collect()
    }

    fn dir_names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn rewrites_the_current_branch_and_keeps_everything_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let ids = write_session(&path);
        let before = fs::read_to_string(&path).unwrap();

        let outcome = truncate_oversized_tool_results_in_file(
            &path,
            &ToolResultBudget::for_context_window(1000),
            &options(),
        )
        .unwrap();
        assert_eq!(
            outcome,
            ToolResultRewrite {
                truncated: true,
                truncated_count: 1,
                reason: None,
                oversized_count: 1,
                aggregate_count: 0,
                chars_removed: 3800,
            }
        );

        let reopened = Transcript::open(&path, options()).unwrap();
        assert_eq!(reopened.report().skipped_lines, 0);
        let entry_ids: Vec<&str> = reopened.entries().iter().map(SessionEntry::id).collect();
        assert_eq!(entry_ids.len(), 6);
        assert_eq!(reopened.leaf_id(), Some(ids[4].as_str()));
        let expected_result =
            truncate_tool_result_message(&output("t1", "line\n".repeat(1000)).into(), 1200, 0);
        assert_eq!(
            reopened.build_context().messages,
            vec![
                UserMessage::text("build it", 0).into(),
                calling("t1").into(),
                expected_result,
                answer("done").into(),
            ]
        );
        // Only the rewritten line differs; the old branch's big result is untouched.
        let after = fs::read_to_string(&path).unwrap();
        let changed: Vec<usize> = before
            .lines()
            .zip(after.lines())
            .enumerate()
            .filter(|(_, (b, a))| b != a)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            (changed, before.lines().count(), after.lines().count()),
            (vec![5], 7, 7)
        );
        assert_eq!(dir_names(dir.path()), ["s.jsonl"]);

        // A second pass finds nothing to do and leaves the bytes alone.
        let again = truncate_oversized_tool_results_in_file(
            &path,
            &ToolResultBudget::for_context_window(1000),
            &options(),
        )
        .unwrap();
        assert_eq!(
            again,
            ToolResultRewrite::unchanged("no oversized or aggregate tool results")
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), after);
        assert_eq!(context_texts(&path).len(), 4);
    }

    #[test]
    fn garbage_lines_survive_the_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        write_session(&path);
        let mut text = fs::read_to_string(&path).unwrap();
        let second_line_end = text.find('\n').unwrap() + 1;
        text.insert_str(second_line_end, "not json at all\n");
        fs::write(&path, &text).unwrap();

        let outcome = truncate_oversized_tool_results_in_file(
            &path,
            &ToolResultBudget::for_context_window(1000),
            &options(),
        )
        .unwrap();
        assert_eq!(outcome.truncated_count, 1);
        let after = fs::read_to_string(&path).unwrap();
        assert_eq!(after.lines().nth(1), Some("not json at all"));
        let reopened = Transcript::open(&path, options()).unwrap();
        assert_eq!(
            (reopened.report().skipped_lines, reopened.entries().len()),
            (1, 6)
        );
    }

    #[test]
    fn empty_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.jsonl");
        let budget = ToolResultBudget::for_context_window(1000);
        assert_eq!(
            truncate_oversized_tool_results_in_file(&missing, &budget, &options()).unwrap(),
            ToolResultRewrite::unchanged("empty session")
        );
        assert!(!missing.exists());
        let header_only = dir.path().join("h.jsonl");
        fs::write(&header_only, "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2024-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n").unwrap();
        assert_eq!(
            truncate_oversized_tool_results_in_file(&header_only, &budget, &options()).unwrap(),
            ToolResultRewrite::unchanged("empty session")
        );
        assert_eq!(dir_names(dir.path()), ["h.jsonl"]);
    }

    #[test]
    fn refuses_non_sessions_and_waits_for_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let budget = ToolResultBudget::for_context_window(1000);
        let alien = dir.path().join("notes.jsonl");
        fs::write(&alien, "hello\n").unwrap();
        assert!(matches!(
            truncate_oversized_tool_results_in_file(&alien, &budget, &options()),
            Err(SessionError::NotASession { .. })
        ));
        assert_eq!(fs::read_to_string(&alien).unwrap(), "hello\n");

        let path = dir.path().join("s.jsonl");
        write_session(&path);
        let before = fs::read_to_string(&path).unwrap();
        let held = WriteLock::acquire(&path, Duration::ZERO).unwrap();
        assert!(matches!(
            truncate_oversized_tool_results_in_file(&path, &budget, &options()),
            Err(SessionError::Locked { .. })
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        drop(held);
        assert!(
            truncate_oversized_tool_results_in_file(&path, &budget, &options())
                .unwrap()
                .truncated
        );
        assert_eq!(dir_names(dir.path()), ["notes.jsonl", "s.jsonl"]);
    }

    #[test]
    fn aggregate_pass_rewrites_several_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut t = Transcript::open(&path, options()).unwrap();
        t.append_message(UserMessage::text("q", 0)).unwrap();
        for id in ["a", "b", "c"] {
            t.append_message(calling(id)).unwrap();
            t.append_message(output(id, "r".repeat(900))).unwrap();
        }
        t.append_message(answer("ok")).unwrap();
        drop(t);
        let outcome = truncate_oversized_tool_results_in_file(
            &path,
            &ToolResultBudget::for_context_window(1000),
            &options(),
        )
        .unwrap();
        assert_eq!(
            (
                outcome.truncated_count,
                outcome.oversized_count,
                outcome.aggregate_count,
                outcome.chars_removed
            ),
            (2, 0, 2, 1500)
        );
        let lengths: Vec<usize> = Transcript::open(&path, options())
            .unwrap()
            .build_context()
            .messages
            .iter()
            .map(tool_result_text_chars)
            .filter(|&n| n > 0)
            .collect();
        // Newest first: `c` down to its notice (865 removed), then `b` gives the other 635.
        assert_eq!(lengths, vec![900, 265, 35]);
    }
}
