//! Where a compaction cuts the branch (pi 0.58.3's `findValidCutPoints`, `findTurnStartIndex`,
//! `findCutPoint`; pi-mono §3.5).
//!
//! Entries before the cut are summarized, entries from it on stay verbatim. A tool result is
//! never a cut point: cutting at the assistant message that called the tool keeps its results
//! after it, and a cut can never land between a call and its result.

use std::borrow::Borrow;

use clawloop_core::message::AgentMessage;
use clawloop_core::tokens::estimate_tokens;
use clawloop_session::SessionEntry;

/// Where to cut a branch path (pi's `CutPointResult`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Index of the first entry kept verbatim.
    pub first_kept_entry_index: usize,
    /// Index of the entry that starts the turn the cut splits (pi's `turnStartIndex`, `-1`
    /// there is `None` here).
    pub turn_start_index: Option<usize>,
    /// Whether the cut lands inside a turn, so the turn's beginning needs its own summary.
    pub is_split_turn: bool,
}

/// Whether a `message` entry's role may start the kept part: everything the conversation
/// continues from, but never a tool result (it must follow its call) nor an unknown role.
fn is_cut_role(message: &AgentMessage) -> bool {
    match message {
        AgentMessage::User(_)
        | AgentMessage::Assistant(_)
        | AgentMessage::BashExecution(_)
        | AgentMessage::Custom(_)
        | AgentMessage::BranchSummary(_)
        | AgentMessage::CompactionSummary(_) => true,
        AgentMessage::ToolResult(_) | AgentMessage::Other(_) => false,
    }
}

/// Indices in `[start, end)` where the kept part may begin: `message` entries of a cut role
/// plus `branch_summary` and `custom_message` entries (the model reads them as user messages).
pub fn find_valid_cut_points<E: Borrow<SessionEntry>>(
    entries: &[E],
    start: usize,
    end: usize,
) -> Vec<usize> {
    let end = end.min(entries.len());
    (start..end)
        .filter(|&i| match entries[i].borrow() {
            SessionEntry::Message(e) => is_cut_role(&e.message),
            SessionEntry::BranchSummary(_) | SessionEntry::CustomMessage(_) => true,
            _ => false,
        })
        .collect()
}

/// The nearest index at or before `entry_index` (and not before `start`) that starts a turn:
/// a `branch_summary`, a `custom_message`, or a user or shell-command message.
pub fn find_turn_start_index<E: Borrow<SessionEntry>>(
    entries: &[E],
    entry_index: usize,
    start: usize,
) -> Option<usize> {
    if entries.is_empty() || entry_index < start {
        return None;
    }
    let from = entry_index.min(entries.len() - 1);
    (start..=from).rev().find(|&i| match entries[i].borrow() {
        SessionEntry::BranchSummary(_) | SessionEntry::CustomMessage(_) => true,
        SessionEntry::Message(e) => matches!(
            e.message,
            AgentMessage::User(_) | AgentMessage::BashExecution(_)
        ),
        _ => false,
    })
}

/// Chooses the cut in `[start, end)` that keeps about `keep_recent_tokens` of recent history.
///
/// Walking back from the newest `message` entry and summing [`estimate_tokens`], the first
/// entry where the sum reaches `keep_recent_tokens` decides: the cut is the first valid cut
/// point at or after it (so the kept part can be smaller than the budget when the budget is
/// reached on a tool result). A budget never reached keeps everything from the first cut
/// point. The cut then moves back over directly preceding non-message entries (model and
/// thinking changes, labels, …) up to a message or a compaction. A cut at anything but a user
/// message splits the turn that contains it.
pub fn find_cut_point<E: Borrow<SessionEntry>>(
    entries: &[E],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let end = end.min(entries.len());
    let cut_points = find_valid_cut_points(entries, start, end);
    let Some(&first_cut_point) = cut_points.first() else {
        return CutPoint {
            first_kept_entry_index: start,
            turn_start_index: None,
            is_split_turn: false,
        };
    };

    let mut cut = first_cut_point;
    let mut kept_tokens = 0u64;
    for i in (start..end).rev() {
        let SessionEntry::Message(e) = entries[i].borrow() else {
            continue;
        };
        kept_tokens = kept_tokens.saturating_add(estimate_tokens(&e.message));
        if kept_tokens >= keep_recent_tokens {
            if let Some(&at) = cut_points.iter().find(|&&c| c >= i) {
                cut = at;
            }
            break;
        }
    }

    while cut > start {
        match entries[cut - 1].borrow() {
            SessionEntry::Message(_) | SessionEntry::Compaction(_) => break,
            _ => cut -= 1,
        }
    }

    let at_user_message = matches!(
        entries[cut].borrow(),
        SessionEntry::Message(e) if matches!(e.message, AgentMessage::User(_))
    );
    let turn_start_index = if at_user_message {
        None
    } else {
        find_turn_start_index(entries, cut, start)
    };
    CutPoint {
        first_kept_entry_index: cut,
        turn_start_index,
        is_split_turn: turn_start_index.is_some(),
    }
}
