//! Messaging-tool dedupe (reference §18.6, OpenClaw `messaging-dedupe.ts`).
//!
//! When the agent already sent a text through a messaging tool (`message` with action `send`,
//! `sessions_send`, …), a block reply that repeats it must not reach the user a second time.
//! Texts are compared after [`normalize_text_for_comparison`]; a chunk is a duplicate when both
//! it and a committed sent text are at least [`MIN_DUPLICATE_TEXT_LENGTH`] chars long once
//! normalized and either contains the other.

use std::sync::LazyLock;

use regex::Regex;

use clawloop_core::js_text::is_js_whitespace;

/// Normalized texts shorter than this (in chars) never count as duplicates: short replies such
/// as "Done." are too likely to repeat by accident.
pub const MIN_DUPLICATE_TEXT_LENGTH: usize = 10;

/// How many committed sends are remembered; older ones are dropped first (OpenClaw's cap).
pub const MAX_MESSAGING_SENT_ENTRIES: usize = 200;

/// `\p{Emoji_Presentation}|\p{Extended_Pictographic}`, as OpenClaw strips them.
static EMOJI: LazyLock<Option<Regex>> = LazyLock::new(|| {
    // The pattern is a constant that compiles; `None` only keeps the crate free of `expect`.
    Regex::new(r"\p{Emoji_Presentation}|\p{Extended_Pictographic}").ok()
});

/// Lowercases, removes emoji, collapses whitespace runs (JS `\s`) to one space and trims.
///
/// ```
/// use clawloop_subscribe::messaging_dedupe::normalize_text_for_comparison;
///
/// assert_eq!(normalize_text_for_comparison("  Build  PASSED 🎉\n\nok "), "build passed ok");
/// ```
pub fn normalize_text_for_comparison(text: &str) -> String {
    let lowered = text.to_lowercase();
    let without_emoji = match EMOJI.as_ref() {
        // The regex scan is most of the cost, and most texts hold no char it can match.
        Some(re) if lowered.chars().any(may_be_emoji) => re.replace_all(&lowered, ""),
        _ => lowered.as_str().into(),
    };
    // Words copied whole, one space between them: whitespace runs collapse and both ends are
    // trimmed, without pushing char by char.
    let mut out = String::with_capacity(without_emoji.len());
    for word in without_emoji
        .split(is_js_whitespace)
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `false` for chars [`EMOJI`] never matches: below U+203C only `©` and `®` are emoji (the
/// test `emoji_prefilter_misses_nothing_below_u203c` checks this against the regex tables).
fn may_be_emoji(c: char) -> bool {
    c >= '\u{203C}' || c == '\u{A9}' || c == '\u{AE}'
}

/// `true` when `normalized` (already normalized) duplicates one of `sent_normalized`.
pub fn is_messaging_tool_duplicate_normalized(
    normalized: &str,
    sent_normalized: &[String],
) -> bool {
    if sent_normalized.is_empty() || normalized.chars().count() < MIN_DUPLICATE_TEXT_LENGTH {
        return false;
    }
    sent_normalized.iter().any(|sent| {
        sent.chars().count() >= MIN_DUPLICATE_TEXT_LENGTH
            && (normalized.contains(sent.as_str()) || sent.contains(normalized))
    })
}

/// `true` when `text` duplicates one of `sent_normalized` (normalizes `text` first).
pub fn is_messaging_tool_duplicate(text: &str, sent_normalized: &[String]) -> bool {
    is_messaging_tool_duplicate_normalized(&normalize_text_for_comparison(text), sent_normalized)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn normalization_lowercases_strips_emoji_and_collapses_space() {
        let cases = [
            ("Hello World", "hello world"),
            ("  a \t\n b  ", "a b"),
            ("🚀 Launch done ✅", "launch done"),
            ("", ""),
            ("\u{00A0}x\u{3000}y\u{FEFF}", "x y"),
        ];
        let actual: Vec<(&str, String)> = cases
            .iter()
            .map(|(input, _)| (*input, normalize_text_for_comparison(input)))
            .collect();
        let expected: Vec<(&str, String)> = cases
            .iter()
            .map(|(input, out)| (*input, (*out).to_owned()))
            .collect();
        assert_eq!(actual, expected);
    }

    #[test]
    fn emoji_prefilter_misses_nothing_below_u203c() {
        let Some(re) = EMOJI.as_ref() else {
            panic!("the emoji pattern compiles");
        };
        for c in ('\0'..'\u{203C}').filter(|&c| !may_be_emoji(c)) {
            assert!(
                !re.is_match(c.encode_utf8(&mut [0u8; 4])),
                "{c:?} is an emoji"
            );
        }
        assert_eq!(normalize_text_for_comparison("© ‼ Naïve 🎉 ®"), "naïve");
    }

    #[test]
    fn duplicates_need_ten_chars_on_both_sides_and_containment() {
        let sent = vec![normalize_text_for_comparison(
            "Nightly build passed on all platforms.",
        )];
        let cases = [
            ("Posted: nightly build passed on all platforms.", true),
            ("NIGHTLY build   passed", true),
            ("passed", false),
            ("Something else entirely here", false),
        ];
        let actual: Vec<(&str, bool)> = cases
            .iter()
            .map(|(text, _)| (*text, is_messaging_tool_duplicate(text, &sent)))
            .collect();
        assert_eq!(actual, cases.to_vec());

        let short_sent = vec![normalize_text_for_comparison("ok")];
        assert_eq!(
            is_messaging_tool_duplicate("ok ok ok ok ok ok", &short_sent),
            false
        );
        assert_eq!(is_messaging_tool_duplicate("anything at all", &[]), false);
    }
}
