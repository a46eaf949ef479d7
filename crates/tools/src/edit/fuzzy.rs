//! Finding the model's `oldText` in a file: exactly first, then after pi's fuzzy normalization
//! (pi-mono §3.7.1 steps 2 and 3).
//!
//! Models retype code: they drop trailing spaces, straighten quotes, turn dashes and exotic
//! spaces into ASCII, and write compatibility characters (full-width punctuation) in their
//! plain form. The fuzzy pass folds all of these on both sides before searching again.

use std::borrow::Cow;

use clawloop_core::js_text::is_js_whitespace;
use unicode_normalization::UnicodeNormalization;

/// Where `old_text` was found and the text the replacement applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzyMatch<'a> {
    /// Byte offset of the match in [`FuzzyMatch::content_for_replacement`].
    pub index: usize,
    /// Byte length of the matched text there.
    pub match_length: usize,
    /// Whether only the normalized texts matched.
    pub used_fuzzy_match: bool,
    /// The file content as given for an exact match; its normalized form for a fuzzy one (so
    /// the whole file is written back normalized, as pi does).
    pub content_for_replacement: Cow<'a, str>,
}

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
fn fold_char(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// pi's `fuzzyFindText`: the first exact occurrence of `old_text` in `content`, else the first
/// occurrence of the normalized `old_text` in the normalized `content`; `None` if neither.
pub fn fuzzy_find_text<'a>(content: &'a str, old_text: &str) -> Option<FuzzyMatch<'a>> {
    if let Some(index) = content.find(old_text) {
        return Some(FuzzyMatch {
            index,
            match_length: old_text.len(),
            used_fuzzy_match: false,
            content_for_replacement: Cow::Borrowed(content),
        });
    }
    let fuzzy_content = normalize_for_fuzzy_match(content);
    let fuzzy_old = normalize_for_fuzzy_match(old_text);
    let index = fuzzy_content.find(&fuzzy_old)?;
    Some(FuzzyMatch {
        index,
        match_length: fuzzy_old.len(),
        used_fuzzy_match: true,
        content_for_replacement: Cow::Owned(fuzzy_content),
    })
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
    fn exact_match_is_preferred() {
        let found = fuzzy_find_text("x = 'a';\ny = \u{2018}a\u{2019};\n", "y = \u{2018}a");
        assert_eq!(
            found,
            Some(FuzzyMatch {
                index: 9,
                match_length: 8,
                used_fuzzy_match: false,
                content_for_replacement: Cow::Borrowed("x = 'a';\ny = \u{2018}a\u{2019};\n"),
            })
        );
    }

    #[test]
    fn fuzzy_match_works_in_normalized_space() {
        let found = fuzzy_find_text("one  \ntwo\u{2014}2\n", "one\ntwo-2");
        assert_eq!(
            found,
            Some(FuzzyMatch {
                index: 0,
                match_length: 9,
                used_fuzzy_match: true,
                content_for_replacement: Cow::Owned("one\ntwo-2\n".to_owned()),
            })
        );
        assert_eq!(fuzzy_find_text("abc", "xyz"), None);
    }

    #[test]
    fn occurrences_count_like_js_split() {
        assert_eq!(count_occurrences("aaaa", "aa"), 2);
        assert_eq!(count_occurrences("abc", "x"), 0);
        assert_eq!(count_occurrences("abc", ""), 2);
        assert_eq!(count_occurrences("", ""), 0);
    }
}
