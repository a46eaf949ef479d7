//! Replacing the model's `oldText` in a file: found exactly or after pi's fuzzy normalization,
//! unique in normalized space, and written over only the bytes it matched (pi-mono §3.7.1
//! steps 2 to 4, except that pi writes back the whole normalized file).
//!
//! The search runs in a [`MappedText`] of the file, so the match maps back to the file's own
//! bytes; everything outside it (other lines' quotes, dashes, NFKC forms, trailing spaces and
//! line endings) is copied unchanged.

use super::fuzzy::{count_occurrences, normalize_for_fuzzy_match};
use super::line_endings::{line_ending_of, normalize_to_lf, restore_line_endings};
use super::source_map::MappedText;

/// Why nothing was replaced; each case has pi's error text in the edit tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceError {
    /// `oldText` occurs neither exactly nor after normalization.
    NotFound,
    /// `oldText` occurs this many times in normalized space.
    Ambiguous(usize),
    /// The replacement equals the text it replaces.
    Unchanged,
}

/// Replaces the one occurrence of `old_text` in `content` (a file's text without BOM) with
/// `new_text`, whose line breaks take the style of the replaced text; returns the new text
/// of the file (without BOM, like `content`).
///
/// `old_text` is searched exactly (modulo line endings) first, then in pi's fuzzy
/// normalization of both. A match that begins or ends inside a character sequence the
/// normalization rewrote (e.g. inside the ligature `ﬁ`) replaces the whole sequence, keeping
/// the unmatched part in its normalized form.
pub fn replace_unique(
    content: &str,
    old_text: &str,
    new_text: &str,
) -> Result<String, ReplaceError> {
    let old_text = normalize_to_lf(old_text);
    let new_text = normalize_to_lf(new_text);
    let line_feeds = MappedText::line_feeds(content);
    let fuzzy = MappedText::fuzzy(content);
    let fuzzy_old = normalize_for_fuzzy_match(&old_text);

    let (mapped, matched) = match line_feeds.text().find(&old_text) {
        Some(at) => (&line_feeds, at..at + old_text.len()),
        None => match fuzzy.text().find(&fuzzy_old) {
            Some(at) => (&fuzzy, at..at + fuzzy_old.len()),
            None => return Err(ReplaceError::NotFound),
        },
    };
    // Uniqueness is judged in normalized space, so an exact hit that has fuzzy twins is
    // still ambiguous (pi 0.58.3).
    let occurrences = count_occurrences(fuzzy.text(), &fuzzy_old);
    if occurrences > 1 {
        return Err(ReplaceError::Ambiguous(occurrences));
    }
    // pi's check, in the text the model's edit was matched against.
    if mapped.text().get(matched.clone()) == Some(new_text.as_str()) {
        return Err(ReplaceError::Unchanged);
    }

    let range = mapped.source_range(matched);
    let (Some(before), Some(after)) = (
        content.get(..range.source.start),
        content.get(range.source.end..),
    ) else {
        // Spans end on character boundaries, so this is unreachable; refusing beats a
        // corrupted file.
        return Err(ReplaceError::NotFound);
    };
    let ending = line_ending_of(content, range.source.clone());
    let inserted = restore_line_endings(
        &format!("{}{new_text}{}", range.prefix, range.suffix),
        ending,
    );
    let mut replaced = String::with_capacity(before.len() + inserted.len() + after.len());
    replaced.push_str(before);
    replaced.push_str(&inserted);
    replaced.push_str(after);
    // The new text may differ from the normalized match yet spell the file's own bytes
    // (e.g. the NBSP the match folded): nothing would change.
    if replaced == content {
        return Err(ReplaceError::Unchanged);
    }
    Ok(replaced)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn replaced(content: &str, old: &str, new: &str) -> Result<String, ReplaceError> {
        replace_unique(content, old, new)
    }

    #[test]
    fn only_the_matched_bytes_change() {
        assert_eq!(
            replaced(
                "x = \u{2018}a\u{2019};  \nsay(\u{201C}hi\u{201D});\n",
                "say(\"hi\");",
                "say(\"bye\");"
            ),
            Ok("x = \u{2018}a\u{2019};  \nsay(\"bye\");\n".to_owned())
        );
    }

    #[test]
    fn new_line_breaks_follow_the_replaced_text() {
        assert_eq!(
            replaced("a\r\nb\nc\r\n", "b\n", "x\ny\n"),
            Ok("a\r\nx\ny\nc\r\n".to_owned())
        );
        assert_eq!(
            replaced("a\r\nb\nc\r\n", "c", "x\ny"),
            Ok("a\r\nb\nx\r\ny\r\n".to_owned())
        );
        assert_eq!(
            replaced("a\rb\rc", "b", "x\ny"),
            Ok("a\rx\ry\rc".to_owned())
        );
    }

    #[test]
    fn a_match_inside_a_ligature_keeps_the_rest_of_it() {
        assert_eq!(
            replaced("de\u{FB01}ne x\u{B2}\n", "ine", "ault"),
            Ok("default x\u{B2}\n".to_owned())
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(replaced("abc", "x", "y"), Err(ReplaceError::NotFound));
        assert_eq!(
            replaced("a  \na\n", "a", "b"),
            Err(ReplaceError::Ambiguous(2))
        );
        // Identical in the matched text (pi's rule)...
        assert_eq!(
            replaced("a\u{A0}b\n", "a b", "a b"),
            Err(ReplaceError::Unchanged)
        );
        // ...or identical bytes.
        assert_eq!(
            replaced("a\u{A0}b\n", "a b", "a\u{A0}b"),
            Err(ReplaceError::Unchanged)
        );
    }
}
