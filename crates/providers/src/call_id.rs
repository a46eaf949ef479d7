//! Deterministic ids for tool calls that arrive without one (Gemini, Ollama).
//!
//! pi and OpenClaw use a clock or randomness, which makes the same response decode to
//! different ids and breaks reproducible decoding (FORMAT.md's `wire` kind decodes one body
//! three ways and requires the same message). The middle part here is instead a hash of every
//! chunk received before the call: deterministic for one response, and different between
//! responses, so ids stay unique across the turns of a conversation.

/// A running FNV-1a hash over the chunks of one response.
#[derive(Debug, Clone)]
pub(crate) struct HashedIds {
    hash: u64,
    counter: u64,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Default for HashedIds {
    fn default() -> Self {
        HashedIds {
            hash: FNV_OFFSET,
            counter: 0,
        }
    }
}

impl HashedIds {
    /// Mixes one received chunk into the hash.
    pub(crate) fn absorb(&mut self, chunk: &str) {
        for byte in chunk.bytes() {
            self.hash ^= u64::from(byte);
            self.hash = self.hash.wrapping_mul(FNV_PRIME);
        }
    }

    /// The next id: `<prefix>_<hash in base36>_<n>`, `n` counting from 1.
    pub(crate) fn next_id(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}_{}_{}", base36(self.hash), self.counter)
    }
}

pub(crate) fn base36(mut n: u64) -> String {
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
