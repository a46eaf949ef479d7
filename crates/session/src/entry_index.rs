//! Where each entry of an open transcript is, by id.
//!
//! A table of positions into the [`EntryList`](crate::entry_list::EntryList) that owns it,
//! hashed by the id the list holds at that position: the ids are not copied a second time. The
//! index of a 6 000-entry session is 73 KB this way against 270 KB as a map from ids to
//! positions, and it is rebuilt at every open, so it is part of what every turn allocates and
//! an allocator then keeps.

use std::hash::{BuildHasher, RandomState};

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

/// Positions of entries by id; the last entry with an id wins, as in pi's `byId` map. Every
/// call is given `id_of`, the id at a position of the list the positions are in.
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
    pub(crate) fn get<'a>(&self, id: &str, id_of: impl Fn(usize) -> &'a str) -> Option<usize> {
        self.table
            .find(self.hasher.hash_one(id), |&at| id_of(at) == id)
            .copied()
    }

    /// Takes the entry at `at` in; an earlier entry with the same id is no longer found.
    pub(crate) fn insert<'a>(&mut self, at: usize, id_of: impl Fn(usize) -> &'a str) {
        let id = id_of(at);
        let hasher = &self.hasher;
        match self.table.entry(
            hasher.hash_one(id),
            |&other| id_of(other) == id,
            |&other| hasher.hash_one(id_of(other)),
        ) {
            Entry::Occupied(mut found) => *found.get_mut() = at,
            Entry::Vacant(free) => {
                free.insert(at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn indexed(ids: &[&str]) -> EntryIndex {
        let mut index = EntryIndex::with_capacity(ids.len());
        for at in 0..ids.len() {
            index.insert(at, |i| ids[i]);
        }
        index
    }

    #[test]
    fn finds_each_id_and_nothing_else() {
        let long = "an-id-longer-than-twenty-two-bytes";
        let ids = ["a1b2c3d4", "e5f6a7b8", long];
        let index = indexed(&ids);
        let found: Vec<Option<usize>> = ["a1b2c3d4", "e5f6a7b8", long, "a1b2c3d", ""]
            .iter()
            .map(|id| index.get(id, |i| ids[i]))
            .collect();
        assert_eq!(found, vec![Some(0), Some(1), Some(2), None, None]);
        assert!(index.get(long, |i| ids[i]).is_some());
        assert!(index.get("ffffffff", |i| ids[i]).is_none());
    }

    #[test]
    fn the_last_entry_with_an_id_wins() {
        let ids = ["dup", "other", "dup"];
        let index = indexed(&ids);
        assert_eq!(index.get("dup", |i| ids[i]), Some(2));
        assert_eq!(index.get("other", |i| ids[i]), Some(1));
    }

    #[test]
    fn keeps_finding_entries_as_the_table_grows() {
        let ids: Vec<String> = (0..5000).map(|n| format!("{n:08x}")).collect();
        let id_of = |i: usize| ids[i].as_str();
        // Starts small, so the table is rehashed many times on the way.
        let mut index = EntryIndex::default();
        for at in 0..ids.len() {
            index.insert(at, id_of);
        }
        let misplaced: Vec<&str> = ids
            .iter()
            .enumerate()
            .filter(|(at, id)| index.get(id, id_of) != Some(*at))
            .map(|(_, id)| id.as_str())
            .collect();
        assert_eq!(misplaced, Vec::<&str>::new());
    }
}
