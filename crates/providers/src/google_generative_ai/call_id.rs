//! Ids for function calls that arrive without one.
//!
//! pi names them `<name>_<Date.now()>_<counter>`. A clock makes the same response decode to
//! different ids, which breaks reproducible decoding (FORMAT.md's `wire` kind decodes one body
//! three ways and requires the same message). The middle part here is instead a hash of every
//! chunk received before the call: deterministic for one response, and different between
//! responses (each Gemini chunk carries its `responseId`), so ids stay unique across the turns
//! of a conversation, which providers a conversation may be replayed to require.

use crate::call_id::HashedIds;

/// A running hash over the chunks of one response.
#[derive(Debug, Clone, Default)]
pub struct CallIdSource(HashedIds);

impl CallIdSource {
    /// Mixes one received chunk into the hash.
    pub fn absorb(&mut self, chunk: &str) {
        self.0.absorb(chunk);
    }

    /// The next id for a call to `name`: `<name>_<hash in base36>_<n>`, `n` counting from 1.
    pub fn next_id(&mut self, name: &str) -> String {
        self.0.next_id(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call_id::base36;

    #[test]
    fn deterministic_per_response_and_distinct_between_responses() {
        let mut a = CallIdSource::default();
        a.absorb("{\"responseId\":\"one\"}");
        let mut b = a.clone();
        assert_eq!(a.next_id("ls"), b.next_id("ls"));
        assert!(a.next_id("ls").ends_with("_2"));
        let mut c = CallIdSource::default();
        c.absorb("{\"responseId\":\"two\"}");
        assert_ne!(c.next_id("ls"), CallIdSource::default().next_id("ls"));
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(u64::MAX), "3w5e11264sgsf");
    }
}
