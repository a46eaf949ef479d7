//! Entry ids as a transcript keeps them: inline when short, as pi's eight hex digits always
//! are, so the tree of a long session is a few flat tables rather than three small heap
//! allocations per entry (which, kept between turns, pinned pages all over the heap).

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

/// The longest id kept inline.
const INLINE: usize = 22;

/// An entry id.
#[derive(Clone)]
pub(crate) enum EntryId {
    /// Up to [`INLINE`] bytes of UTF-8, in place.
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A longer id.
    Heap(Box<str>),
}

impl EntryId {
    /// The id as text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            // Always whole UTF-8: copied from a `str`, cut nowhere else.
            EntryId::Inline { len, bytes } => {
                std::str::from_utf8(bytes.get(..usize::from(*len)).unwrap_or_default())
                    .unwrap_or_default()
            }
            EntryId::Heap(id) => id,
        }
    }
}

impl From<&str> for EntryId {
    fn from(id: &str) -> Self {
        match u8::try_from(id.len()) {
            Ok(len) if id.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..id.len()].copy_from_slice(id.as_bytes());
                EntryId::Inline { len, bytes }
            }
            _ => EntryId::Heap(id.into()),
        }
    }
}

impl std::fmt::Debug for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_str().fmt(f)
    }
}

impl PartialEq for EntryId {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for EntryId {}

/// Hashed as its text, so a map keyed by ids is searched with a `&str` ([`Borrow`]).
impl Hash for EntryId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Borrow<str> for EntryId {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn ids_of_any_length_read_back_and_are_found_by_text() {
        let (long, longer, wide) = ("x".repeat(22), "y".repeat(23), "\u{1F600}".repeat(6));
        let ids = ["", "a1b2c3d4", "é", &long, &longer, &wide];
        let mut index = HashMap::new();
        for (at, id) in ids.iter().enumerate() {
            let kept = EntryId::from(*id);
            assert_eq!(kept.as_str(), *id);
            assert_eq!(
                matches!(kept, EntryId::Inline { .. }),
                id.len() <= INLINE,
                "{id}"
            );
            index.insert(kept, at);
        }
        for (at, id) in ids.iter().enumerate() {
            assert_eq!(index.get(*id), Some(&at));
        }
        assert_eq!(std::mem::size_of::<EntryId>(), 24);
    }
}
