//! Forking a session into a new file that holds one path of its tree (pi's
//! `createBranchedSession`, pi-mono §3.3.6).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::entry::{LabelEntry, SessionEntry};
use crate::error::SessionError;
use crate::id::unique_entry_id;
use crate::options::SessionOptions;
use crate::transcript::Transcript;

impl Transcript {
    /// Starts a new session at `path` holding the path from the root to `leaf_id` (default:
    /// the current leaf) — the same entries with the same ids — as pi's
    /// `createBranchedSession` does.
    ///
    /// The new header gets a fresh id (or `options.session_id`), this session's `cwd` unless
    /// `options.cwd` is set, and `parentSession` = this session's file path. `label` entries
    /// on the path are left out, the remaining entries re-chained so each one's `parentId` is
    /// the one before it (a compaction whose `firstKeptEntryId` named a dropped label names the
    /// entry after it), and the labels still in force on the path are re-created after it, in
    /// the order pi's label map keeps them, with the time they were set. This is pi's current
    /// behaviour; 0.58.3 copied `parentId`s as they were, cutting the path wherever an entry
    /// had been appended right after a label. Like pi, the file is written at once if the
    /// path holds an assistant message, else at the first one appended. A reset leaf (or an
    /// empty session) forks into an empty session.
    pub fn fork(
        &self,
        leaf_id: Option<&str>,
        path: impl AsRef<Path>,
        mut options: SessionOptions,
    ) -> Result<Transcript, SessionError> {
        let branch = match leaf_id.or(self.leaf_id()) {
            None => Vec::new(),
            Some(id) => {
                let branch = self.branch_path(id);
                if branch.is_empty() {
                    return Err(SessionError::EntryNotFound(id.to_owned()));
                }
                branch
            }
        };
        let mut entries = without_labels(&branch);
        let mut ids: HashSet<String> = entries.iter().map(|e| e.id().to_owned()).collect();
        let mut parent = entries.last().map(|e| e.id().to_owned());
        for (target_id, label) in labels_for(self.typed_entries(), &ids) {
            let id = unique_entry_id(|c| ids.contains(c));
            ids.insert(id.clone());
            entries.push(SessionEntry::Label(LabelEntry {
                id: id.clone(),
                parent_id: parent,
                timestamp: label.timestamp,
                target_id,
                label: Some(label.text),
                extra: JsonObject::new(),
            }));
            parent = Some(id);
        }
        options.parent_session = Some(self.path().to_string_lossy().into_owned());
        if options.cwd.is_none() {
            options.cwd = Some(self.header().cwd.clone());
        }
        Transcript::from_entries(path.as_ref().to_path_buf(), options, entries)
    }
}

/// `branch` without its `label` entries, each entry's parent re-chained to the one kept
/// before it.
fn without_labels(branch: &[&SessionEntry]) -> Vec<SessionEntry> {
    let mut kept = Vec::with_capacity(branch.len());
    // A dropped label → the entry that follows it, for compactions that kept from a label.
    let mut replacement: HashMap<&str, &str> = HashMap::new();
    let mut pending_labels: Vec<&str> = Vec::new();
    let mut parent: Option<String> = None;
    for &entry in branch {
        if let SessionEntry::Label(l) = entry {
            pending_labels.push(&l.id);
            continue;
        }
        for label in pending_labels.drain(..) {
            replacement.insert(label, entry.id());
        }
        let mut copy = entry.clone();
        if let SessionEntry::Compaction(c) = &mut copy
            && c.first_kept_entry_id != c.id
            && let Some(&to) = replacement.get(c.first_kept_entry_id.as_str())
        {
            c.first_kept_entry_id = to.to_owned();
        }
        set_parent_id(&mut copy, parent.take());
        parent = Some(entry.id().to_owned());
        kept.push(copy);
    }
    kept
}

fn set_parent_id(entry: &mut SessionEntry, parent: Option<String>) {
    match entry {
        SessionEntry::Message(e) => e.parent_id = parent,
        SessionEntry::ThinkingLevelChange(e) => e.parent_id = parent,
        SessionEntry::ModelChange(e) => e.parent_id = parent,
        SessionEntry::Compaction(e) => e.parent_id = parent,
        SessionEntry::BranchSummary(e) => e.parent_id = parent,
        SessionEntry::Custom(e) => e.parent_id = parent,
        SessionEntry::CustomMessage(e) => e.parent_id = parent,
        SessionEntry::Label(e) => e.parent_id = parent,
        SessionEntry::SessionInfo(e) => e.parent_id = parent,
        SessionEntry::Other(map) => {
            map.insert("parentId".into(), parent.map_or(Value::Null, Value::from));
        }
    }
}

/// A label in force: its text and when it was set.
struct Label {
    text: String,
    timestamp: String,
}

/// The labels in force after `entries` (every label entry of the session, in file order)
/// whose targets are in `on_path`, as
/// `(target, label)` in the order of pi's `labelsById` map: a label keeps the place of its
/// first setting until it is cleared.
fn labels_for<'a>(
    entries: impl Iterator<Item = &'a SessionEntry>,
    on_path: &HashSet<String>,
) -> Vec<(String, Label)> {
    // JavaScript `Map` semantics: setting a present key keeps its place, deleting it frees
    // the place, setting it again appends it. Slots are emptied rather than removed so the
    // positions in `at` stay valid.
    let mut slots: Vec<Option<(String, Label)>> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for entry in entries {
        let SessionEntry::Label(l) = entry else {
            continue;
        };
        match l.label.as_deref() {
            Some(text) if !text.is_empty() => {
                let label = Label {
                    text: text.to_owned(),
                    timestamp: l.timestamp.clone(),
                };
                match at.get(l.target_id.as_str()) {
                    Some(&i) => slots[i] = Some((l.target_id.clone(), label)),
                    None => {
                        at.insert(&l.target_id, slots.len());
                        slots.push(Some((l.target_id.clone(), label)));
                    }
                }
            }
            _ => {
                if let Some(i) = at.remove(l.target_id.as_str()) {
                    slots[i] = None;
                }
            }
        }
    }
    slots
        .into_iter()
        .flatten()
        .filter(|(target, _)| on_path.contains(target))
        .collect()
}
