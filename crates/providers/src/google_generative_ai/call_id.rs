//! Ids for function calls that arrive without one.
//!
//! pi names them `<name>_<Date.now()>_<counter>`. A clock makes the same response decode to
//! different ids, which breaks reproducible decoding (FORMAT.md's `wire` kind decodes one body
//! three ways and requires the same message). The middle part here is instead a hash of every
//! chunk received before the call: deterministic for one response, and different between
//! responses (each Gemini chunk carries its `responseId`), so ids stay unique across the turns
//! of a conversation, which providers a conversation may be replayed to require.

/// A running FNV-1a hash over the chunks of one response.
#[derive(Debug, Clone)]
pub struct CallIdSource {
    hash: u64,
    counter: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Default for CallIdSource {
    fn default() -> Self {
        CallIdSource {
            hash: FNV_OFFSET,
            counter: 0,
        }
    }
}

impl CallIdSource {
    /// Mixes one received chunk into the hash.
    pub fn absorb(&mut self, chunk: &str) {
        for byte in chunk.bytes() {
            self.hash ^= u64::from(byte);
            self.hash = self.hash.wrapping_mul(FNV_PRIME);
        }
    }

    /// The next id for a call to `name`: `<name>_<hash in base36>_<n>`, `n` counting from 1.
    pub fn next_id(&mut self, name: &str) -> String {
        self.counter += 1;
        format!("{name}_{}_{}", base36(self.hash), self.counter)
    }
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        // `n % 36 < 36`, so the index is in range.
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

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
