//! Ids for tool calls that arrive without one (older Ollama versions send none).
//!
//! OpenClaw names them `ollama_call_<uuid>`. Randomness makes the same response decode to
//! different ids, which breaks reproducible decoding (FORMAT.md's `wire` kind decodes one body
//! three ways and requires the same message). Here the id is `ollama_call_<hash>_<n>`, the hash
//! covering every line received before the call: deterministic for one response, and different
//! between responses (each line carries its `created_at`), so ids stay unique across the turns
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

    /// The next id: `ollama_call_<hash in base36>_<n>`, `n` counting from 1.
    pub fn next_id(&mut self) -> String {
        self.0.next_id("ollama_call")
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
        assert_eq!(a.next_id(), b.next_id());
        assert!(a.next_id().starts_with("ollama_call_") && a.next_id().ends_with("_3"));
        let mut c = CallIdSource::default();
        c.absorb("{\"created_at\":\"two\"}");
        assert_ne!(c.next_id(), CallIdSource::default().next_id());
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(u64::MAX), "3w5e11264sgsf");
    }
}
