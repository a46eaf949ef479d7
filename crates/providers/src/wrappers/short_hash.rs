//! pi's `shortHash`: a fast, deterministic, non-cryptographic string hash rendered in base 36,
//! used to derive stable replacement tool-call ids.

/// pi's `shortHash(text)`: two 32-bit multiplicative hashes over the UTF-16 code units of
/// `text`, rendered in base 36 and concatenated (at most 14 characters, all `[0-9a-z]`).
///
/// Bit-for-bit the JavaScript function, so the ids derived from it match pi's for the same
/// input.
pub fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    let mut out = base36(h2);
    out.push_str(&base36(h1));
    out
}

/// JavaScript's `n.toString(36)` for an unsigned 32-bit `n`.
fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut digits = Vec::with_capacity(7);
    loop {
        digits.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.iter().rev().map(|&d| char::from(d)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base36_matches_javascript() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(u32::MAX), "1z141z3");
    }

    #[test]
    fn matches_pi_bit_for_bit() {
        // Values printed by pi's `shortHash` under Node.
        assert_eq!(short_hash(""), "k4n83c7h0j2b");
        assert_eq!(short_hash("call_abc"), "py36n51ekigv6");
        assert_eq!(short_hash("toolu_01XyZ|fc_9"), "1fwonl7629on");
        assert_eq!(short_hash("\u{1f99e}x"), "1plfkhf1i4j8v5");
    }

    #[test]
    fn hashes_are_stable_and_alphanumeric() {
        let a = short_hash("call_abc");
        assert_eq!(a, short_hash("call_abc"));
        assert_ne!(a, short_hash("call_abd"));
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric()) && a.len() <= 14);
        assert!(!short_hash("").is_empty());
    }
}
