//! Where each entry of an open transcript is, by id.
//!
//! A table of positions into the [`EntryList`], hashed by the id the list holds at that
//! position: the ids are not copied a second time. The index of a 6 000-entry session is
//! 73 KB this way against 270 KB as a map from ids to positions, and it is rebuilt at every
//! open, so it is part of what every turn allocates and an allocator then keeps.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;

use crate::entry_list::EntryList;

/// Positions of entries by id; the last entry with an id wins, as in pi's `byId` map.
#[derive(Debug, Default)]
pub(crate) struct EntryIndex {
    table: HashTable<usize>,
    hasher: RandomState,
}

impl EntryIndex {
    /// An empty index with room for `capacity` entries.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        EntryIndex {
            table: HashTable::with_capacity(capacity),
            hasher: RandomState::new(),
        }
    }

    /// The position of the entry with this id.
    pub(crate) fn get(&self, entries: &EntryList, id: &str) -> Option<usize> {
        self.table
            .find(self.hasher.hash_one(id), |&at| entries.id(at) == id)
            .copied()
    }

    /// Whether an entry has this id.
    pub(crate) fn contains(&self, entries: &EntryList, id: &str) -> bool {
        self.get(entries, id).is_some()
    }

    /// Takes entry `at` of `entries` in; an earlier entry with the same id is no longer found.
    pub(crate) fn insert(&mut self, entries: &EntryList, at: usize) {
        let id = entries.id(at);
        let hash = self.hasher.hash_one(id);
        let hasher = &self.hasher;
        match self.table.entry(
            hash,
            |&other| entries.id(other) == id,
            |&other| hasher.hash_one(entries.id(other)),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut found) => *found.get_mut() = at,
            hashbrown::hash_table::Entry::Vacant(free) => {
                free.insert(at);
            }
        }
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::entry_id::EntryId;
    use crate::entry_list::Source;
    use crate::envelope::Item;

    fn list(ids: &[&str]) -> EntryList {
        let items = ids
            .iter()
            .enumerate()
            .map(|(n, id)| Item::Message {
                id: EntryId::from(*id),
                parent_id: None,
                assistant: false,
                start: n * 10,
                len: 9,
            })
            .collect();
        EntryList::from_items(Source::default(), items)
    }

    fn indexed(entries: &EntryList) -> EntryIndex {
        let mut index = EntryIndex::with_capacity(entries.len());
        for at in 0..entries.len() {
            index.insert(entries, at);
        }
        index
    }

    #[test]
    fn finds_each_id_and_nothing_else() {
        let long = "an-id-longer-than-twenty-two-bytes";
        let entries = list(&["a1b2c3d4", "e5f6a7b8", long]);
        let index = indexed(&entries);
        let found: Vec<Option<usize>> = ["a1b2c3d4", "e5f6a7b8", long, "a1b2c3d", ""]
            .iter()
            .map(|id| index.get(&entries, id))
            .collect();
        assert_eq!(found, vec![Some(0), Some(1), Some(2), None, None]);
        assert!(index.contains(&entries, long));
        assert!(!index.contains(&entries, "ffffffff"));
    }

    #[test]
    fn the_last_entry_with_an_id_wins_and_clear_forgets_all() {
        let entries = list(&["dup", "other", "dup"]);
        let mut index = indexed(&entries);
        assert_eq!(index.get(&entries, "dup"), Some(2));
        assert_eq!(index.get(&entries, "other"), Some(1));
        index.clear();
        assert_eq!(index.get(&entries, "dup"), None);
    }

    #[test]
    fn keeps_finding_entries_as_the_table_grows() {
        let ids: Vec<String> = (0..5000).map(|n| format!("{n:08x}")).collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let entries = list(&refs);
        // Starts small, so the table is rehashed many times on the way.
        let mut index = EntryIndex::default();
        for at in 0..entries.len() {
            index.insert(&entries, at);
        }
        let misplaced: Vec<&str> = refs
            .iter()
            .enumerate()
            .filter(|(at, id)| index.get(&entries, id) != Some(*at))
            .map(|(_, id)| *id)
            .collect();
        assert_eq!(misplaced, Vec::<&str>::new());
    }
}
