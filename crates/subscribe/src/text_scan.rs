//! Word-at-a-time byte scans for the hot loops of the tag filter, the chunker and payload keys.
//!
//! Each scan reads eight bytes at a time and flags the bytes it looks for with the classic
//! "has zero byte" bit tricks. A flag word may also flag bytes above a real match (a borrow
//! carries upwards), but never below the lowest real one, so only the lowest flag is used.

const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// High bit set in each byte of `word` equal to `byte` (the lowest one is exact).
fn equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// High bit set in each byte of `word` below `limit` (at most 0x80; the lowest one is exact).
fn below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS
}

/// High bit set in each byte of `word` that is a UTF-8 continuation byte (`10xx_xxxx`), all
/// exact: shifting left by one moves each byte's bit 6 under its own bit 7.
fn continuation(word: u64) -> u64 {
    word & !(word << 1) & HIGHS
}

/// How many bytes a flag word flags, each flag being exact: a multiply sums the bytes, with no
/// need for a `popcnt` instruction (not in the baseline x86-64 target).
fn flagged(flags: u64) -> usize {
    ((flags >> 7).wrapping_mul(ONES) >> 56) as usize
}

/// The first eight bytes of `chunk` as a little-endian word (callers pass eight or more).
#[inline]
fn word_at(chunk: &[u8]) -> u64 {
    chunk
        .first_chunk::<8>()
        .map_or(0, |word| u64::from_le_bytes(*word))
}

/// Index of the first byte of `bytes` that `flags` flags in its word, or that `matches`
/// accepts in a text shorter than a word. Both must describe the same set of bytes.
#[inline]
fn find_first(
    bytes: &[u8],
    flags: impl Fn(u64) -> u64,
    matches: impl Fn(u8) -> bool,
) -> Option<usize> {
    let len = bytes.len();
    if len < 8 {
        return bytes.iter().position(|&b| matches(b));
    }
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let hits = flags(word_at(chunk));
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    if at == len {
        return None;
    }
    // The last eight bytes, overlapping bytes already seen to hold no match, so the lowest
    // flag is still exact: cheaper than a byte loop over the tail of a short delta.
    let last = len - 8;
    let hits = flags(word_at(&bytes[last..]));
    (hits != 0).then(|| last + (hits.trailing_zeros() / 8) as usize)
}

/// Index of the first `\n`, `<` or backtick in `bytes`: the bytes the tag filter must look at
/// one by one (most of its work on ordinary text is this scan).
pub(crate) fn find_newline_lt_or_backtick(bytes: &[u8]) -> Option<usize> {
    find_first(
        bytes,
        |w| equal(w, b'\n') | equal(w, b'<') | equal(w, b'`'),
        |b| matches!(b, b'\n' | b'<' | b'`'),
    )
}

/// Index of the first `\n` in `bytes`.
pub(crate) fn find_newline(bytes: &[u8]) -> Option<usize> {
    find_first(bytes, |w| equal(w, b'\n'), |b| b == b'\n')
}

/// Index of the first backtick or `~` in `bytes`: the chars a fence marker is made of.
pub(crate) fn find_fence_marker(bytes: &[u8]) -> Option<usize> {
    find_first(
        bytes,
        |w| equal(w, b'`') | equal(w, b'~'),
        |b| b == b'`' || b == b'~',
    )
}

/// Index of the first `[`, `:` or `_` in `bytes`: the rare bytes of the reply-directive
/// needles (`[[`, `media:`, `no_reply`).
pub(crate) fn find_directive_anchor(bytes: &[u8]) -> Option<usize> {
    find_first(
        bytes,
        |w| equal(w, b'[') | equal(w, b':') | equal(w, b'_'),
        |b| matches!(b, b'[' | b':' | b'_'),
    )
}

/// Index of the first byte a JSON string must escape: a control char below 0x20, `"` or `\`.
pub(crate) fn find_json_escape(bytes: &[u8]) -> Option<usize> {
    find_first(
        bytes,
        |w| below(w, 0x20) | equal(w, b'"') | equal(w, b'\\'),
        |b| b < 0x20 || b == b'"' || b == b'\\',
    )
}

/// Continuation bytes in a 64-byte block: eight words' flags summed bytewise (each byte of
/// the sum stays below 9), then added up across the bytes with one multiply.
fn block_continuations(block: &[u8]) -> usize {
    let sum = block
        .chunks_exact(8)
        .fold(0u64, |sum, chunk| sum + (continuation(word_at(chunk)) >> 7));
    (sum.wrapping_mul(ONES) >> 56) as usize
}

/// How many chars `text` holds (its bytes that are not UTF-8 continuation bytes). The same as
/// `text.chars().count()`, without its per-call overhead on the short texts of a delta.
#[inline]
pub(crate) fn count_chars(text: &str) -> usize {
    let bytes = text.as_bytes();
    if bytes.len() == 1 {
        // One ASCII char: a lone byte of a longer char is no `str`.
        return 1;
    }
    let mut blocks = bytes.chunks_exact(64);
    let mut continuations: usize = blocks.by_ref().map(block_continuations).sum();
    let mut words = blocks.remainder().chunks_exact(8);
    for chunk in words.by_ref() {
        continuations += flagged(continuation(word_at(chunk)));
    }
    continuations += words
        .remainder()
        .iter()
        .filter(|&&b| b & 0xC0 == 0x80)
        .count();
    bytes.len() - continuations
}

/// The byte offset in `text` of char index `n` (`text.len()` for `n` equal to the char count),
/// or `None` when `text` has fewer than `n` chars. Lets the chunker compare lengths in chars
/// while it works on byte offsets.
pub(crate) fn char_offset(text: &str, n: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut left = n;
    let mut at = 0usize;
    // Whole blocks, then whole words, while they hold no more char starts than are left to
    // skip. A block or word may end inside a char: its continuation bytes open the next one
    // and are not counted there.
    for block in bytes.chunks_exact(64) {
        let starts = 64 - block_continuations(block);
        if starts > left {
            break;
        }
        left -= starts;
        at += 64;
    }
    for chunk in bytes[at..].chunks_exact(8) {
        let starts = 8 - flagged(continuation(word_at(chunk)));
        if starts > left {
            break;
        }
        left -= starts;
        at += 8;
    }
    for (i, &b) in bytes[at..].iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if left == 0 {
                return Some(at + i);
            }
            left -= 1;
        }
    }
    (left == 0).then_some(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_byte_scan_finds_the_first_match() {
        let naive = |s: &[u8]| s.iter().position(|&b| matches!(b, b'\n' | b'<' | b'`'));
        let mut text = Vec::new();
        for len in 0usize..40 {
            for (at, special) in [(0, b'<'), (len / 2, b'`'), (len.saturating_sub(1), b'\n')] {
                text.clear();
                text.extend((0..len).map(|i| b"ab\x7f\x80\xff;9=_a"[i % 10]));
                if len > 0 {
                    text[at] = special;
                }
                assert_eq!(find_newline_lt_or_backtick(&text), naive(&text), "{text:?}");
            }
        }
        // Bytes right next to the wanted ones (`;` `=` `_` `a`, 0x0B) never match.
        assert_eq!(
            find_newline_lt_or_backtick(b";=_a\x0b\x09;=_a\x0b\x09;=_a"),
            None
        );
    }

    #[test]
    fn json_escape_scan_finds_the_first_match() {
        let naive = |s: &[u8]| s.iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\');
        let mut text = Vec::new();
        for len in 0usize..40 {
            for special in [0x00, 0x1F, b'"', b'\\', b'\n'] {
                for at in [0, len / 3, len.saturating_sub(1)] {
                    text.clear();
                    // 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F and high bytes sit next to the set.
                    text.extend((0..len).map(|i| b" !#[]\x7f\x80\xffa"[i % 9]));
                    if len > 0 {
                        text[at] = special;
                    }
                    assert_eq!(find_json_escape(&text), naive(&text), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn char_counts_and_offsets_match_chars() {
        let samples = [
            "",
            "a",
            "plain ascii text that is longer than a word",
            "é",
            "naïve résumé é🎉 日本語 and more ascii after it",
            "🎉🎉🎉🎉🎉🎉🎉🎉🎉",
            "abcdefgé🎉hijklmnopq\u{A0}\u{3000}x",
            "a long line of ascii text, long enough for whole 64-byte blocks, and then naïve \
             résumé 🎉🎉 日本語 past the first block and into the second, with more words after",
        ];
        for sample in samples {
            for skip in 0..sample.len() {
                if !sample.is_char_boundary(skip) {
                    continue;
                }
                let text = &sample[skip..];
                assert_eq!(count_chars(text), text.chars().count(), "{text:?}");
                let offsets: Vec<usize> = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([text.len()])
                    .collect();
                for (n, &offset) in offsets.iter().enumerate() {
                    assert_eq!(char_offset(text, n), Some(offset), "{text:?} char {n}");
                }
                assert_eq!(char_offset(text, offsets.len()), None, "{text:?}");
            }
        }
    }
}
