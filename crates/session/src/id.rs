//! Entry ids (8 lowercase hex digits) and session ids (UUID v4), as pi generates them.
//!
//! pi takes the first 8 characters of `crypto.randomUUID()`. The randomness here comes from
//! std's `RandomState`, which the standard library seeds from the operating system once per
//! thread and perturbs for every new instance; a process-wide counter and the time are mixed
//! in as well. Ids need to be unpredictable enough not to collide, not to be secret, so this
//! avoids a dependency.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many short ids are tried before falling back to a full UUID (pi's `generateId`).
const SHORT_ID_TRIES: usize = 100;

/// A fresh 64-bit random number.
fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one((n, nanos, std::process::id()))
}

/// A random 8-hex-digit id.
pub fn short_id() -> String {
    format!("{:08x}", random_u64() & 0xffff_ffff)
}

/// A random UUID v4, lowercase with dashes (`crypto.randomUUID()`).
pub fn uuid_v4() -> String {
    let hi = random_u64();
    let lo = random_u64();
    // Version nibble 4 and the RFC 4122 variant bits `10`.
    let hi = (hi & !0xf000) | 0x4000;
    let lo = (lo & !(0b11 << 62)) | (0b10 << 62);
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

/// An entry id not yet taken: a short id, checked against `taken` up to 100 times, then a full
/// UUID (pi's `generateId`).
pub fn unique_entry_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..SHORT_ID_TRIES {
        let id = short_id();
        if !taken(&id) {
            return id;
        }
    }
    uuid_v4()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn short_ids_are_eight_lowercase_hex_digits_and_differ() {
        let ids: HashSet<String> = (0..1000).map(|_| short_id()).collect();
        // 1000 draws from 2^32 values: a collision is a broken generator, not bad luck.
        assert_eq!(ids.len(), 1000);
        for id in &ids {
            assert_eq!(id.len(), 8);
            assert!(
                id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
                "{id}"
            );
        }
    }

    #[test]
    fn uuids_are_version_4() {
        let u = uuid_v4();
        let parts: Vec<&str> = u.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'), "{u}");
        assert!(
            matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'),
            "{u}"
        );
    }

    #[test]
    fn falls_back_to_a_uuid_when_every_short_id_is_taken() {
        assert_eq!(unique_entry_id(|_| true).len(), 36);
        assert_eq!(unique_entry_id(|_| false).len(), 8);
    }
}
