//! Whether the visible text may hold a reply directive or the silent token, searched
//! incrementally, and the cleaned text of a streamed or final assistant event.

use crate::reply_directives::{ReplyDirectiveOptions, parse_reply_directives};
use crate::text_scan::find_directive_anchor;

/// The longest needle [`may_hold_reply_directive`] looks for (`no_reply`).
const DIRECTIVE_NEEDLE_MAX: usize = 8;

/// What [`may_hold_reply_directive`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DirectiveScan {
    /// A needle ends at or after an anchor at or after `from`.
    Found,
    /// None does. A longer text (these bytes and more) holds one exactly when its bytes from
    /// `resume` do: the last `DIRECTIVE_NEEDLE_MAX - 1` bytes when an anchor lies among them
    /// (a needle it belongs to may end in the new bytes), else none of these bytes (every
    /// needle of the longer text that starts among them has its anchor in the new bytes).
    NotFound {
        /// Where to search a longer text from.
        resume: usize,
    },
}

/// Whether `bytes` holds a `[[`, `media:` or `no_reply` (ASCII case-insensitive) whose anchor
/// (its `[`, `:` or `_`) is at or after `from`, the letters before `from` included: without
/// one, [`cleaned_reply_text`] only drops a trailing `[` and trailing whitespace. Only the
/// rare anchor bytes are searched for; the letters around them are checked from there.
///
/// Callers pass the `resume` of the scan of a prefix: skipping the bytes before it instead of
/// always rescanning the last needle length keeps most 16-byte deltas to two word reads.
pub(super) fn may_hold_reply_directive(bytes: &[u8], from: usize) -> DirectiveScan {
    let ends_with = |end: usize, needle: &[u8]| {
        end.checked_sub(needle.len())
            .and_then(|start| bytes.get(start..end))
            .is_some_and(|b| b.eq_ignore_ascii_case(needle))
    };
    let mut at = from;
    let mut last_anchor = None;
    while let Some(offset) = bytes.get(at..).and_then(find_directive_anchor) {
        at += offset;
        let found = match bytes.get(at) {
            Some(b'[') => bytes.get(at + 1) == Some(&b'['),
            Some(b':') => ends_with(at + 1, b"media:"),
            _ => ends_with(at + 1, b"no_") && ends_with(at + 6, b"no_reply"),
        };
        if found {
            return DirectiveScan::Found;
        }
        last_anchor = Some(at);
        at += 1;
    }
    let window = bytes.len().saturating_sub(DIRECTIVE_NEEDLE_MAX - 1);
    let resume = match last_anchor {
        Some(anchor) if anchor >= window => window,
        _ => bytes.len(),
    };
    DirectiveScan::NotFound { resume }
}

/// OpenClaw `stripTrailingDirective`: a trailing `[[` without a later `]]` and what follows
/// it, else a trailing `[`, is dropped (it may open a directive).
fn strip_trailing_directive(text: &str) -> &str {
    match text.rfind("[[") {
        Some(open) if !text[open + 2..].contains("]]") => &text[..open],
        Some(_) => text,
        None => text.strip_suffix('[').unwrap_or(text),
    }
}

/// The text of a streamed or final assistant event (OpenClaw
/// `parseReplyDirectives(stripTrailingDirective(text)).text`): `MEDIA:` lines and `[[…]]` tags
/// removed, empty for the silent token.
pub(super) fn cleaned_reply_text(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    parse_reply_directives(
        strip_trailing_directive(text),
        &ReplyDirectiveOptions::default(),
    )
    .text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Scanning delta by delta from each scan's `resume` finds a needle exactly when a
        /// scan of the whole text so far from its start does.
        #[test]
        fn resumed_directive_scan_matches_a_full_scan(
            pieces in prop::collection::vec(
                prop::collection::vec(
                    prop::sample::select(vec![
                        "[", "[[", "]", ":", "_", "no", "NO", "_re", "ply", "REPLY", "me", "dia",
                        "MEDIA", "x", " ", "é", "\n",
                    ]),
                    0..6,
                ).prop_map(|parts| parts.concat()),
                0..12,
            )
        ) {
            let mut text = String::new();
            let mut resume = 0;
            let mut found = false;
            for piece in &pieces {
                text.push_str(piece);
                if !found {
                    match may_hold_reply_directive(text.as_bytes(), resume) {
                        DirectiveScan::Found => found = true,
                        DirectiveScan::NotFound { resume: next } => resume = next,
                    }
                }
                let full = may_hold_reply_directive(text.as_bytes(), 0) == DirectiveScan::Found;
                prop_assert_eq!(found, full, "{:?}", text);
            }
        }
    }
}
