//! Cutting a byte string into reads, deterministically from its content.

/// FNV-1a over `bytes`: the seed of everything a target derives from its input.
pub fn seed_of(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A small deterministic generator (xorshift64*), enough to vary read sizes.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Rng(seed_of(bytes) | 1)
    }

    /// The next value.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        let span = (high - low) as u64 + 1;
        low + (self.next() % span) as usize
    }
}

/// `bytes` cut into reads of 1 to `max_read` bytes (sizes from `rng`); every cut may fall
/// inside a line terminator, a UTF-8 character or a BOM.
pub fn reads<'a>(bytes: &'a [u8], rng: &mut Rng, max_read: usize) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = rng.range(1, max_read).min(rest.len());
        let (read, tail) = rest.split_at(n);
        out.push(read);
        rest = tail;
    }
    out
}
