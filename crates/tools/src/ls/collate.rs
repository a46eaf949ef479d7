//! The order `ls` lists names in: pi sorts with `a.toLowerCase().localeCompare(b.toLowerCase())`,
//! which is ICU's root collation, not code-point order (`_` before `-` before `.`, punctuation
//! before digits before letters, `é` next to `e`).
//!
//! This is an approximation of that collation, exact for ASCII names: ASCII characters get
//! ICU's primary weights; other characters are decomposed (NFD), their combining marks only
//! break ties, and what remains sorts after the ASCII letters by code point. Names equal under
//! all of that keep a deterministic order by their code points.

use std::cmp::Ordering;

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// ICU root order of the ASCII whitespace, punctuation and symbols, which all sort before
/// digits and letters.
const ASCII_SYMBOL_ORDER: &str = "\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Compares two names the way pi's `ls` sorts them.
pub fn compare_names(a: &str, b: &str) -> Ordering {
    let (a_lower, b_lower) = (a.to_lowercase(), b.to_lowercase());
    let (a_nfd, b_nfd): (Vec<char>, Vec<char>) = (a_lower.nfd().collect(), b_lower.nfd().collect());
    primary_key(&a_nfd)
        .cmp(&primary_key(&b_nfd))
        .then_with(|| a_nfd.cmp(&b_nfd))
        .then_with(|| a.cmp(b))
}

/// The primary weights of a decomposed, lower-cased name: combining marks and control
/// characters are ignorable at this level.
fn primary_key(chars: &[char]) -> Vec<u32> {
    chars
        .iter()
        .filter(|c| !is_combining_mark(**c) && !is_ignorable_control(**c))
        .map(|c| primary_weight(*c))
        .collect()
}

/// Symbols first (in ICU's order), then digits, then letters, then everything else.
fn primary_weight(c: char) -> u32 {
    const DIGITS: u32 = 0x100;
    const LETTERS: u32 = 0x200;
    const OTHER: u32 = 0x300;
    if let Some(position) = ASCII_SYMBOL_ORDER.chars().position(|s| s == c) {
        // The table is a few dozen characters long, so the position fits.
        return u32::try_from(position).unwrap_or(0);
    }
    match c {
        '0'..='9' => DIGITS + u32::from(c),
        'a'..='z' => LETTERS + u32::from(c),
        _ => OTHER + u32::from(c),
    }
}

/// C0 controls (other than the whitespace ones) and DEL, which ICU ignores completely.
fn is_ignorable_control(c: char) -> bool {
    (c.is_ascii_control() && !ASCII_SYMBOL_ORDER.contains(c)) || ('\u{80}'..='\u{9F}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        names.sort_by(|a, b| compare_names(a, b));
        names
    }

    #[test]
    fn ascii_follows_icu_root_order() {
        assert_eq!(
            sorted(&[
                "b", "a.b", "A_b", "ab", "a-b", "10", "9", ".hidden", "_x", "-x", "B"
            ]),
            vec![
                "_x", "-x", ".hidden", "10", "9", "A_b", "a-b", "a.b", "ab", "B", "b"
            ]
        );
    }

    #[test]
    fn accents_sort_next_to_their_letter() {
        assert_eq!(
            sorted(&["f", "é", "e", "z", "ä"]),
            vec!["ä", "e", "é", "f", "z"]
        );
    }

    #[test]
    fn case_only_differences_stay_deterministic() {
        assert_eq!(sorted(&["readme", "README"]), vec!["README", "readme"]);
    }
}
