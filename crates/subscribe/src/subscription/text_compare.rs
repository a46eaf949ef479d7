//! Cheap text measures the block dedupe uses on every delta: the trimmed end of a delta and a
//! non-allocating "certainly different" test of two texts' normalized forms.

use clawloop_core::js_text::{is_js_whitespace, js_trim_end};

#[cfg(doc)]
use crate::messaging_dedupe::normalize_text_for_comparison;

/// `js_trim_end(s).len()`, looking at trailing ASCII bytes directly (most deltas end in one):
/// the generic char search costs more than the short deltas it trims.
#[inline]
pub(super) fn trimmed_end_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut end = bytes.len();
    while let Some(&b) = end.checked_sub(1).and_then(|last| bytes.get(last)) {
        if !b.is_ascii() {
            // `end` follows an ASCII byte (or is the end), so it is a char boundary.
            return s.get(..end).map_or(0, |rest| js_trim_end(rest).len());
        }
        if !is_js_whitespace(char::from(b)) {
            return end;
        }
        end -= 1;
    }
    0
}

/// `true` when [`normalize_text_for_comparison`] certainly gives different results for `a` and
/// `b`, judged without allocating from the normalized forms of their ASCII beginnings. `false`
/// means "equal or undecided".
pub(super) fn normalized_ascii_prefixes_differ(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (AsciiNormalized::new(a), AsciiNormalized::new(b));
    loop {
        match (a.next(), b.next()) {
            (Normalized::Byte(x), Normalized::Byte(y)) if x == y => {}
            (Normalized::End, Normalized::End) => return false,
            (Normalized::Unknown, _) | (_, Normalized::Unknown) => return false,
            // Different bytes, or one form ends where the other goes on.
            _ => return true,
        }
    }
}

/// One step of [`AsciiNormalized`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Normalized {
    /// The next byte of the normalized form.
    Byte(u8),
    /// The normalized form ends here.
    End,
    /// A non-ASCII char: it may be whitespace, an emoji or change when lowercased, so the
    /// normalized form is not known from here on.
    Unknown,
}

/// The normalized form ([`normalize_text_for_comparison`]) of a text's ASCII beginning, byte by
/// byte: ASCII lowercases on its own and is never an emoji, and a whitespace run becomes one
/// space between words.
struct AsciiNormalized<'a> {
    rest: &'a [u8],
    started: bool,
    /// The byte that follows a space already returned.
    held: Option<u8>,
}

impl<'a> AsciiNormalized<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            rest: text.as_bytes(),
            started: false,
            held: None,
        }
    }

    fn next(&mut self) -> Normalized {
        if let Some(byte) = self.held.take() {
            return Normalized::Byte(byte);
        }
        let mut spaced = false;
        while let Some((&byte, rest)) = self.rest.split_first() {
            if !byte.is_ascii() {
                return Normalized::Unknown;
            }
            self.rest = rest;
            if is_js_whitespace(char::from(byte)) {
                spaced = true;
                continue;
            }
            let byte = byte.to_ascii_lowercase();
            if spaced && self.started {
                self.held = Some(byte);
                return Normalized::Byte(b' ');
            }
            self.started = true;
            return Normalized::Byte(byte);
        }
        Normalized::End
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messaging_dedupe::normalize_text_for_comparison;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "a", "A", "b", "Σ", "σ", " ", "  ", "\n", "\t", "\u{A0}", "🎉", "é", "É", "x.", "",
            ]),
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        /// The shortcut never calls two texts different when their normalized forms are equal.
        #[test]
        fn ascii_prefix_shortcut_is_sound(a in text(), b in text()) {
            if normalized_ascii_prefixes_differ(&a, &b) {
                prop_assert_ne!(
                    normalize_text_for_comparison(&a),
                    normalize_text_for_comparison(&b)
                );
            }
        }

        /// The byte-wise trim agrees with the char-wise one.
        #[test]
        fn trimmed_end_len_matches_js_trim_end(text in text()) {
            prop_assert_eq!(trimmed_end_len(&text), js_trim_end(&text).len());
        }
    }

    #[test]
    fn ascii_prefix_shortcut_decides_the_common_cases() {
        assert!(normalized_ascii_prefixes_differ(
            "```rust\nfn a()",
            "```rust\nfn b()"
        ));
        assert!(normalized_ascii_prefixes_differ(
            "Same start",
            "Same start and more"
        ));
        assert!(!normalized_ascii_prefixes_differ(
            "Same  START\n",
            " same start"
        ));
        // Past a non-ASCII char nothing is known.
        assert!(!normalized_ascii_prefixes_differ("é then a", "é then b"));
    }
}
