//! What a compaction summarizes and keeps (pi 0.58.3's `prepareCompaction`, pi-mono §3.5).
//!
//! Pure: a branch path in, a [`CompactionPreparation`] out. No request is made here.
//!
//! pi 0.58.3 quirk, kept on purpose so our files match pi's: the region looked at starts right
//! after the previous compaction entry, so messages that the previous compaction *kept*
//! (its `firstKeptEntryId` up to the compaction entry) are neither summarized nor kept by the
//! next one. pi 0.73 starts at the previous `firstKeptEntryId` instead.

use std::borrow::Borrow;

use clawloop_core::message::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, JsonObject,
};
use clawloop_core::tokens::estimate_context_tokens;
use clawloop_session::SessionEntry;
use clawloop_session::time::parse_iso;

use super::cut::find_cut_point;
use super::error::CompactionError;
use super::file_ops::FileOperations;
use super::serialize::serialize_message;
use super::settings::CompactionSettings;

/// Everything a summarization needs (pi's `CompactionPreparation`).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPreparation {
    /// Id of the first entry kept verbatim after the summary.
    pub first_kept_entry_id: String,
    /// Messages replaced by the summary.
    pub messages_to_summarize: Vec<AgentMessage>,
    /// The beginning of the turn the cut splits (summarized on its own), empty otherwise.
    pub turn_prefix_messages: Vec<AgentMessage>,
    /// Whether the cut lands inside a turn.
    pub is_split_turn: bool,
    /// Estimated context tokens before the compaction.
    pub tokens_before: u64,
    /// The previous compaction's summary, updated instead of starting over.
    pub previous_summary: Option<String>,
    /// Files read and modified in the summarized part (and by earlier compactions).
    pub file_ops: FileOperations,
    /// The settings the preparation was made with.
    pub settings: CompactionSettings,
}

impl CompactionPreparation {
    /// Whether any message to summarize (or of a split turn's prefix) carries conversation
    /// text for the summarizer; without any there is nothing to compact and no request is
    /// made.
    pub fn has_conversation(&self) -> bool {
        let prefix = if self.is_split_turn {
            self.turn_prefix_messages.as_slice()
        } else {
            &[]
        };
        self.messages_to_summarize
            .iter()
            .chain(prefix)
            .filter_map(AgentMessage::to_llm)
            .any(|m| !serialize_message(&m).is_empty())
    }
}

/// The message an entry contributes to a compaction (pi's `getMessageFromEntry`): a message
/// as is, a custom message as `custom`, a branch summary as `branchSummary` and a compaction
/// as `compactionSummary` (times from the entry's ISO timestamp); nothing for other entries.
pub fn entry_message(entry: &SessionEntry) -> Option<AgentMessage> {
    let ms = |iso: &str| parse_iso(iso).unwrap_or(0);
    match entry {
        SessionEntry::Message(e) => Some(e.message.clone()),
        SessionEntry::CustomMessage(e) => Some(AgentMessage::Custom(CustomMessage {
            custom_type: e.custom_type.clone(),
            content: e.content.clone(),
            display: e.display,
            details: e.details.clone(),
            timestamp: ms(&e.timestamp),
            extra: JsonObject::new(),
        })),
        SessionEntry::BranchSummary(e) => Some(AgentMessage::BranchSummary(BranchSummaryMessage {
            summary: e.summary.clone(),
            from_id: e.from_id.clone(),
            timestamp: ms(&e.timestamp),
            extra: JsonObject::new(),
        })),
        SessionEntry::Compaction(e) => {
            Some(AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: e.summary.clone(),
                tokens_before: e.tokens_before,
                timestamp: ms(&e.timestamp),
                extra: JsonObject::new(),
            }))
        }
        _ => None,
    }
}

fn messages_in<E: Borrow<SessionEntry>>(path: &[E], from: usize, to: usize) -> Vec<AgentMessage> {
    path.get(from..to)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| entry_message(e.borrow()))
        .collect()
}

/// Prepares the compaction of a branch path (root first, leaf last; `Transcript::branch_path`).
///
/// Errors: [`CompactionError::AlreadyCompacted`] when the leaf is a compaction;
/// [`CompactionError::NothingToCompact`] when the path is empty (or the first kept entry has
/// no id, which only an unmigrated file could produce).
///
/// * The region is the part after the last compaction on the path.
/// * `tokens_before` is core's `estimate_context_tokens` over the messages from the last
///   compaction (its summary included) to the leaf.
/// * The cut is [`find_cut_point`] with `keep_recent_tokens`; on a split turn the summarized
///   part ends where the turn starts and the turn's beginning becomes `turn_prefix_messages`.
/// * File operations: the previous compaction's `details` (unless an extension made it) plus
///   the `read`/`write`/`edit` calls of the summarized and prefix messages.
pub fn prepare_compaction<E: Borrow<SessionEntry>>(
    path: &[E],
    settings: &CompactionSettings,
) -> Result<CompactionPreparation, CompactionError> {
    if matches!(
        path.last().map(Borrow::borrow),
        Some(SessionEntry::Compaction(_))
    ) {
        return Err(CompactionError::AlreadyCompacted);
    }
    let previous = path
        .iter()
        .rposition(|e| matches!(e.borrow(), SessionEntry::Compaction(_)));
    let boundary_start = previous.map_or(0, |p| p + 1);
    let boundary_end = path.len();

    let tokens_before =
        estimate_context_tokens(&messages_in(path, previous.unwrap_or(0), boundary_end)).tokens;

    let cut = find_cut_point(
        path,
        boundary_start,
        boundary_end,
        settings.keep_recent_tokens,
    );
    let first_kept_entry_id = match path.get(cut.first_kept_entry_index).map(Borrow::borrow) {
        Some(entry) if !entry.id().is_empty() => entry.id().to_owned(),
        _ => return Err(CompactionError::NothingToCompact),
    };

    let (history_end, turn_prefix_messages) = match cut.turn_start_index {
        Some(turn_start) if cut.is_split_turn => (
            turn_start,
            messages_in(path, turn_start, cut.first_kept_entry_index),
        ),
        _ => (cut.first_kept_entry_index, Vec::new()),
    };
    let messages_to_summarize = messages_in(path, boundary_start, history_end);

    let mut file_ops = FileOperations::default();
    let mut previous_summary = None;
    if let Some(SessionEntry::Compaction(c)) = previous.map(|p| path[p].borrow()) {
        previous_summary = Some(c.summary.clone());
        if c.from_hook != Some(true)
            && let Some(details) = &c.details
        {
            file_ops.record_details(details);
        }
    }
    messages_to_summarize
        .iter()
        .chain(&turn_prefix_messages)
        .for_each(|m| file_ops.record_message(m));

    Ok(CompactionPreparation {
        first_kept_entry_id,
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.is_split_turn,
        tokens_before,
        previous_summary,
        file_ops,
        settings: *settings,
    })
}
