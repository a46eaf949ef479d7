//! Rebuilding the model's context from the entry tree (pi's `buildSessionContext`,
//! pi-mono §3.3.5).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use clawloop_core::ThinkLevel;
use clawloop_core::message::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, JsonObject,
};

use crate::entry::{CompactionEntry, SessionEntry};
use crate::time::parse_iso;

/// The thinking level of a path without a `thinking_level_change`.
pub const DEFAULT_THINKING_LEVEL: &str = "off";

/// A provider and model id (`{"provider","modelId"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// What the session holds for the model at a leaf: pi's `SessionContext`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The conversation, root first, with summaries and custom messages as messages.
    pub messages: Vec<AgentMessage>,
    /// The thinking level as written in the file (`"off"` when none is set).
    pub thinking_level: String,
    /// The model last set or last answering on the path.
    pub model: Option<ModelRef>,
}

impl SessionContext {
    /// The empty context of a session without entries or with a reset leaf.
    pub fn empty() -> Self {
        SessionContext {
            messages: Vec::new(),
            thinking_level: DEFAULT_THINKING_LEVEL.to_owned(),
            model: None,
        }
    }

    /// The thinking level as a [`ThinkLevel`]; `None` for a level this version does not know.
    pub fn think_level(&self) -> Option<ThinkLevel> {
        // Exact names only: files hold what pi wrote, and `ThinkLevel::from_str` would also
        // accept user-input aliases such as `max`.
        ThinkLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == self.thinking_level)
    }
}

/// Rebuilds the context at `leaf_id` from entries in file order.
///
/// `None` is pi's `null` leaf (after a reset): an empty context. An id not among the entries
/// means the last entry. Entries sharing an id resolve to the later one, as in pi's index.
pub fn build_session_context(entries: &[SessionEntry], leaf_id: Option<&str>) -> SessionContext {
    let mut index = HashMap::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        index.insert(e.id(), i);
    }
    build_with_index(entries, &|id| index.get(id).copied(), leaf_id)
}

/// [`build_session_context`] with a ready id → position lookup.
pub(crate) fn build_with_index(
    entries: &[SessionEntry],
    lookup: &dyn Fn(&str) -> Option<usize>,
    leaf_id: Option<&str>,
) -> SessionContext {
    let Some(leaf_id) = leaf_id else {
        return SessionContext::empty();
    };
    let Some(leaf) = lookup(leaf_id).or_else(|| entries.len().checked_sub(1)) else {
        return SessionContext::empty();
    };
    let path: Vec<&SessionEntry> = path_to(entries, lookup, leaf)
        .into_iter()
        .map(|i| &entries[i])
        .collect();
    context_from_path(&path)
}

/// The context of a path of entries from the root down to the leaf.
pub(crate) fn context_from_path(path: &[&SessionEntry]) -> SessionContext {
    let mut thinking_level = DEFAULT_THINKING_LEVEL.to_owned();
    let mut model = None;
    let mut compaction: Option<(usize, &CompactionEntry)> = None;
    for (at, &entry) in path.iter().enumerate() {
        match entry {
            SessionEntry::ThinkingLevelChange(e) => thinking_level.clone_from(&e.thinking_level),
            SessionEntry::ModelChange(e) => {
                model = Some(ModelRef {
                    provider: e.provider.clone(),
                    model_id: e.model_id.clone(),
                });
            }
            SessionEntry::Message(e) => {
                if let AgentMessage::Assistant(m) = &e.message {
                    model = Some(ModelRef {
                        provider: m.provider.clone(),
                        model_id: m.model.clone(),
                    });
                }
            }
            SessionEntry::Compaction(e) => compaction = Some((at, e)),
            _ => {}
        }
    }

    let mut messages = Vec::with_capacity(path.len() + 1);
    let on_path = path.iter().copied();
    match compaction {
        None => on_path.for_each(|e| push_message(&mut messages, e)),
        Some((at, c)) => {
            messages.push(AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: c.summary.clone(),
                tokens_before: c.tokens_before,
                timestamp: entry_ms(&c.timestamp),
                extra: JsonObject::new(),
            }));
            // Before the compaction only the entries from `firstKeptEntryId` on survive;
            // nothing when that id is not on the path.
            let before = on_path.clone().take(at);
            before
                .skip_while(|e| e.id() != c.first_kept_entry_id)
                .for_each(|e| push_message(&mut messages, e));
            on_path
                .skip(at + 1)
                .for_each(|e| push_message(&mut messages, e));
        }
    }
    SessionContext {
        messages,
        thinking_level,
        model,
    }
}

/// Positions of the entries from the root down to `leaf`, following `parentId`.
///
/// Stops at a missing parent (an orphan yields its own chain) and at an entry already on the
/// path, so a cyclic file cannot hang the rebuild.
pub(crate) fn path_to(
    entries: &[SessionEntry],
    lookup: &dyn Fn(&str) -> Option<usize>,
    leaf: usize,
) -> Vec<usize> {
    path_by(&|at| entries[at].parent_id().and_then(lookup), leaf)
}

/// [`path_to`] over any list: `parent_of` gives the position of an entry's parent.
pub(crate) fn path_by(parent_of: &dyn Fn(usize) -> Option<usize>, leaf: usize) -> Vec<usize> {
    let mut path = vec![leaf];
    // Appends make every parent come earlier in the file, so a path only ever goes back and
    // cannot meet itself; only a parent further on (a file edited by hand) can close a
    // circle, and from the first one on every step is checked.
    let mut seen: Option<HashSet<usize>> = None;
    let mut current = leaf;
    while let Some(parent) = parent_of(current) {
        if parent >= current && seen.is_none() {
            seen = Some(path.iter().copied().collect());
        }
        if let Some(seen) = &mut seen
            && !seen.insert(parent)
        {
            break;
        }
        path.push(parent);
        current = parent;
    }
    path.reverse();
    path
}

/// The message an entry contributes to the context, if any.
fn push_message(out: &mut Vec<AgentMessage>, entry: &SessionEntry) {
    match entry {
        SessionEntry::Message(e) => out.push(e.message.clone()),
        SessionEntry::CustomMessage(e) => out.push(AgentMessage::Custom(CustomMessage {
            custom_type: e.custom_type.clone(),
            content: e.content.clone(),
            display: e.display,
            details: e.details.clone(),
            timestamp: entry_ms(&e.timestamp),
            extra: JsonObject::new(),
        })),
        SessionEntry::BranchSummary(e) if !e.summary.is_empty() => {
            out.push(AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: e.summary.clone(),
                from_id: e.from_id.clone(),
                timestamp: entry_ms(&e.timestamp),
                extra: JsonObject::new(),
            }));
        }
        _ => {}
    }
}

/// An entry's ISO time in milliseconds; 0 where JavaScript would produce `NaN`.
fn entry_ms(iso: &str) -> u64 {
    parse_iso(iso).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_of(parents: &[(usize, usize)], leaf: usize) -> Vec<usize> {
        let parents: HashMap<usize, usize> = parents.iter().copied().collect();
        path_by(&|at| parents.get(&at).copied(), leaf)
    }

    #[test]
    fn a_path_stops_where_it_would_meet_itself_whichever_way_its_parents_point() {
        assert_eq!(path_of(&[(3, 2), (2, 0)], 3), [0, 2, 3]);
        assert_eq!(path_of(&[], 4), [4]);
        // Entered at 6, the circle 6 → 2 → 8 → 6 has one parent further on (2 → 8).
        assert_eq!(path_of(&[(9, 6), (6, 2), (2, 8), (8, 6)], 9), [8, 2, 6, 9]);
        assert_eq!(path_of(&[(1, 5), (5, 3), (3, 1)], 5), [1, 3, 5]);
        assert_eq!(path_of(&[(4, 4)], 4), [4]);
    }
}
