//! The entries of an open transcript in file order, each typed when first needed.
//!
//! Every entry's id and parent id are known from the start: they make the tree, the index and
//! the leaf. The [`SessionEntry`] of a `message` read from the file is built from its line only
//! when something asks for it — the context rebuild asks for the leaf's path, nothing more —
//! so opening a long session costs a scan of its lines, not the typing of every message in it
//! (see [`crate::envelope`]).
//!
//! A message is typed from its line, read back from the file it was scanned from through the
//! handle the scan read (so a file renamed or replaced since is still the one read): the file's
//! bytes are not held, and a turn on a long session needs memory for the lines its context
//! uses, not for the whole history. Lines are only ever appended after those positions, and a
//! rewrite is a new file; a line that cannot be read back any more (the file was cut by hand)
//! is kept as an unknown entry, as a line this version cannot read is. Content that never was
//! a file (a rewrite's new content) is held in memory instead.
//!
//! [`EntryList::all`] still offers every entry as one slice: built (and kept) on first call,
//! at the full typing cost, and from then on extended by every append.

use std::borrow::Cow;
use std::fs::File;
use std::sync::OnceLock;

use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::entry::SessionEntry;
use crate::entry_id::EntryId;
use crate::entry_index::EntryIndex;
use crate::envelope::Item;
use crate::on_disk::read_at;

/// Room for the entries a turn appends, reserved when a transcript is opened: without it the
/// first append doubles the table of a long session (a 6 000-entry transcript's 390 KB became
/// 781 KB, copied, at every turn), and a turn's transient memory is what an allocator keeps.
const APPEND_HEADROOM: usize = 64;

/// Where a line is in the file: its start and its length without the `\n`.
pub(crate) type LinePos = (usize, usize);

/// One entry: what the tree needs, and the entry itself once typed.
#[derive(Debug)]
struct Slot {
    id: EntryId,
    parent_id: Option<EntryId>,
    /// For a message: whether its role is `assistant` (what an untyped message is asked).
    assistant: bool,
    /// For a message: where its line is in [`EntryList::source`], once known, so it can be
    /// typed from there (again).
    line: Option<LinePos>,
    /// The typed entry; boxed, so an untyped slot stays small.
    typed: OnceLock<Box<SessionEntry>>,
}

/// Where the lines of untyped messages are read from.
#[derive(Debug)]
pub(crate) enum Source {
    /// The file the entries were scanned from, through the handle that read it.
    File(File),
    /// Content held in memory.
    Bytes(Vec<u8>),
}

impl Default for Source {
    fn default() -> Self {
        Source::Bytes(Vec::new())
    }
}

/// The entries of a transcript, in file order.
#[derive(Debug, Default)]
pub(crate) struct EntryList {
    /// Where untyped messages are read from.
    source: Source,
    slots: Vec<Slot>,
    /// Where each id is in `slots`; kept by every push.
    index: EntryIndex,
    /// Every entry as one slice, once asked for (then kept up to date by [`EntryList::push`]).
    all: OnceLock<Vec<SessionEntry>>,
}

impl EntryList {
    /// The entries scanned from `source`, from its scanned lines.
    pub(crate) fn from_items(source: Source, items: Vec<Item>) -> Self {
        let mut list = EntryList::with_capacity(items.len());
        list.source = source;
        list.slots.extend(items.into_iter().map(|item| match item {
            Item::Typed(entry) => Slot::typed(entry),
            Item::Message {
                id,
                parent_id,
                assistant,
                start,
                len,
            } => Slot {
                id,
                parent_id,
                assistant,
                line: Some((start, len)),
                typed: OnceLock::new(),
            },
        }));
        for at in 0..list.slots.len() {
            list.index_slot(at);
        }
        list
    }

    /// An empty list with room for `count` entries and a turn's appends.
    pub(crate) fn with_capacity(count: usize) -> Self {
        let capacity = count.saturating_add(APPEND_HEADROOM);
        EntryList {
            source: Source::default(),
            slots: Vec::with_capacity(capacity),
            index: EntryIndex::with_capacity(capacity),
            all: OnceLock::new(),
        }
    }

    /// The position of the last entry with this id.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.index.get(id, |at| self.id(at))
    }

    /// Whether an entry has this id.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.position(id).is_some()
    }

    fn index_slot(&mut self, at: usize) {
        let slots = &self.slots;
        self.index.insert(at, |i| slots[i].id.as_str());
    }

    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The id of entry `at`.
    pub(crate) fn id(&self, at: usize) -> &str {
        self.slots[at].id.as_str()
    }

    /// The parent id of entry `at`.
    pub(crate) fn parent_id(&self, at: usize) -> Option<&str> {
        self.slots[at].parent_id.as_ref().map(EntryId::as_str)
    }

    /// Entry `at`, typed now if it was not yet.
    pub(crate) fn get(&self, at: usize) -> &SessionEntry {
        if let Some(all) = self.all.get() {
            return &all[at];
        }
        let slot = &self.slots[at];
        slot.typed.get_or_init(|| Box::new(self.parse(slot)))
    }

    /// Entry `at` if it is typed already (every entry but a message read from the file and
    /// not asked for yet).
    pub(crate) fn peek(&self, at: usize) -> Option<&SessionEntry> {
        match self.all.get() {
            Some(all) => Some(&all[at]),
            None => self.slots[at].typed.get().map(|b| &**b),
        }
    }

    /// Whether entry `at` is an assistant message, typing it only if it may be one.
    pub(crate) fn is_assistant_message(&self, at: usize) -> bool {
        match self.peek(at) {
            Some(entry) => entry.is_assistant_message(),
            None => self.slots[at].assistant && self.get(at).is_assistant_message(),
        }
    }

    /// Every entry, typing those not typed yet (once; kept from then on).
    pub(crate) fn all(&self) -> &[SessionEntry] {
        self.all.get_or_init(|| {
            self.slots
                .iter()
                .map(|slot| match slot.typed.get() {
                    Some(entry) => (**entry).clone(),
                    None => self.parse(slot),
                })
                .collect()
        })
    }

    /// Adds an entry at the end; `line` is where it is in the file, once written.
    pub(crate) fn push(&mut self, entry: SessionEntry, line: Option<LinePos>) {
        let mut slot = Slot {
            id: entry.id().into(),
            parent_id: entry.parent_id().map(Into::into),
            assistant: entry.is_assistant_message(),
            line: line.filter(|_| matches!(entry, SessionEntry::Message(_))),
            typed: OnceLock::new(),
        };
        match self.all.get_mut() {
            // The slice holds it; the slot only needs what the tree needs.
            Some(all) => all.push(entry),
            None => slot.typed = OnceLock::from(Box::new(entry)),
        }
        self.slots.push(slot);
        self.index_slot(self.slots.len() - 1);
    }

    /// Records where entry `at`, held so far only in memory, was written.
    pub(crate) fn set_line(&mut self, at: usize, line: LinePos) {
        if matches!(self.peek(at), Some(SessionEntry::Message(_)))
            && let Some(slot) = self.slots.get_mut(at)
        {
            slot.line = Some(line);
        }
    }

    /// Forgets every typed message whose line is known, so a transcript kept between turns
    /// holds the tree, not the history: they are typed again from `source` when asked for.
    /// Every other entry stays typed (the tree reads compactions, labels and state changes
    /// without typing anything).
    pub(crate) fn forget_messages(&mut self, source: Source) {
        if let Some(all) = self.all.take() {
            for (slot, entry) in self.slots.iter_mut().zip(all) {
                if slot.typed.get().is_none() {
                    slot.typed = OnceLock::from(Box::new(entry));
                }
            }
        }
        for slot in &mut self.slots {
            if slot.line.is_some() {
                slot.typed = OnceLock::new();
            }
        }
        self.source = source;
    }

    /// Types the message in `slot`'s line.
    fn parse(&self, slot: &Slot) -> SessionEntry {
        let line = self.line(slot);
        match serde_json::from_slice::<SessionEntry>(&line) {
            Ok(entry) => entry,
            Err(e) => {
                // Its envelope was fine (that is how it got here), its message is not one this
                // version can read: kept, like an entry of an unknown type, out of the context.
                tracing::warn!(id = slot.id.as_str(), error = %e, "session entry cannot be read; keeping it as an unknown entry");
                let object = serde_json::from_slice::<JsonObject>(&line).unwrap_or_else(|_| {
                    let mut object = JsonObject::new();
                    object.insert("id".into(), Value::from(slot.id.as_str()));
                    object.insert(
                        "parentId".into(),
                        slot.parent_id
                            .as_ref()
                            .map_or(Value::Null, |p| Value::from(p.as_str())),
                    );
                    object
                });
                SessionEntry::Other(object)
            }
        }
    }

    /// The bytes of `slot`'s line; empty when it has none or it cannot be read back.
    fn line(&self, slot: &Slot) -> Cow<'_, [u8]> {
        let Some((start, len)) = slot.line else {
            return Cow::Borrowed(&[]);
        };
        match &self.source {
            Source::Bytes(bytes) => Cow::Borrowed(
                start
                    .checked_add(len)
                    .and_then(|end| bytes.get(start..end))
                    .unwrap_or_default(),
            ),
            Source::File(file) => {
                let mut line = vec![0; len];
                match read_at(file, start as u64, &mut line) {
                    Ok(()) => Cow::Owned(line),
                    Err(e) => {
                        tracing::warn!(id = slot.id.as_str(), error = %e, "session entry cannot be read back from its file");
                        Cow::Borrowed(&[])
                    }
                }
            }
        }
    }
}

impl Slot {
    fn typed(entry: Box<SessionEntry>) -> Self {
        Slot {
            id: entry.id().into(),
            parent_id: entry.parent_id().map(Into::into),
            assistant: false,
            line: None,
            typed: OnceLock::from(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn message_item(n: usize) -> Item {
        Item::Message {
            id: EntryId::from(format!("{n:08x}").as_str()),
            parent_id: n
                .checked_sub(1)
                .map(|p| EntryId::from(format!("{p:08x}").as_str())),
            assistant: n % 2 == 1,
            start: n * 100,
            len: 99,
        }
    }

    fn other_entry(id: &str) -> SessionEntry {
        let Value::Object(map) = json!({"type": "future", "id": id}) else {
            unreachable!("an object literal")
        };
        SessionEntry::Other(map)
    }

    #[test]
    fn a_turns_appends_fit_in_the_table_the_open_reserved() {
        let mut list =
            EntryList::from_items(Source::default(), (0..6000).map(message_item).collect());
        let table = list.slots.as_ptr();
        assert!(list.slots.capacity() >= 6000 + APPEND_HEADROOM);
        for n in 0..APPEND_HEADROOM {
            list.push(other_entry(&format!("new{n}")), None);
        }
        assert_eq!(list.len(), 6000 + APPEND_HEADROOM);
        assert_eq!(list.slots.as_ptr(), table, "the appends moved the table");
        assert_eq!(list.id(5999), "0000176f");
        assert_eq!(list.parent_id(5999), Some("0000176e"));
        assert_eq!(list.id(6000 + APPEND_HEADROOM - 1), "new63");
    }
}
