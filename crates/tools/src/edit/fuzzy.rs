//! pi's fuzzy normalization, under which the model's `oldText` is searched when it does not
//! occur exactly (pi-mono §3.7.1 steps 2 and 3).
//!
//! Models retype code: they drop trailing spaces, straighten quotes, turn dashes and exotic
//! spaces into ASCII, and write compatibility characters (full-width punctuation) in their
//! plain form. The fuzzy pass folds all of these on both sides before searching again.

use clawloop_core::js_text::is_js_whitespace;
use unicode_normalization::UnicodeNormalization;

/// pi's `normalizeForFuzzyMatch`: NFKC; trailing whitespace of every line removed; smart single
/// quotes → `'`, smart double quotes → `"`; Unicode hyphens, dashes and minus → `-`; special
/// spaces → ` `.
pub fn normalize_for_fuzzy_match(text: &str) -> String {
    let nfkc: String = text.nfkc().collect();
    let mut out = String::with_capacity(nfkc.len());
    for (index, line) in nfkc.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        // JS `trimEnd`, whose whitespace set differs from Rust's `char::is_whitespace`.
        for c in line.trim_end_matches(is_js_whitespace).chars() {
            out.push(fold_char(c));
        }
    }
    out
}

/// The per-character folds of [`normalize_for_fuzzy_match`].
pub(crate) fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// pi's occurrence count `haystack.split(needle).length - 1`: non-overlapping occurrences.
///
/// For an empty needle JS splits between UTF-16 units, which gives `units - 1` (and `-1`, here
/// 0, for an empty haystack); kept so the uniqueness error reads as pi's.
pub fn count_occurrences(haystack: &str, needle: &str) -> usize {
    if needle.is_empty() {
        return haystack.encode_utf16().count().saturating_sub(1);
    }
    haystack.matches(needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn normalization_folds_what_models_retype() {
        assert_eq!(
            normalize_for_fuzzy_match("a \t\nb\u{00A0}\n\u{2018}x\u{2019} \u{201C}y\u{201D}"),
            "a\nb\n'x' \"y\""
        );
        assert_eq!(
            normalize_for_fuzzy_match("1\u{2013}2\u{2014}3\u{2212}4\u{2011}5"),
            "1-2-3-4-5"
        );
        assert_eq!(normalize_for_fuzzy_match("a\u{2003}b\u{3000}c"), "a b c");
        assert_eq!(
            normalize_for_fuzzy_match("ＡＢＣ１２３ cafe\u{301}"),
            "ABC123 café"
        );
    }

    #[test]
    fn occurrences_count_like_js_split() {
        assert_eq!(count_occurrences("aaaa", "aa"), 2);
        assert_eq!(count_occurrences("abc", "x"), 0);
        assert_eq!(count_occurrences("abc", ""), 2);
        assert_eq!(count_occurrences("", ""), 0);
    }
}
