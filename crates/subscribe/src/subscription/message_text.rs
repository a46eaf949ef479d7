//! The text and reasoning of a finished assistant message, as OpenClaw's `message_end` handler
//! computes them (`promoteThinkingTagsToBlocks`, then `extractAssistantVisibleText` with the
//! `delivery` sanitizer, then `stripBlockTags` with a fresh state).
//!
//! This differs from the streaming filter on purpose, because OpenClaw's does:
//!
//! * `<final>` tags are removed *before* the block-tag strip, so with `enforce_final_tag` the
//!   message text is always empty (the streamed block replies carry the answer);
//! * thinking tags may carry attributes (`<think reason="x">`), and `<thinking>`, `<thought>`,
//!   `<antthinking>` and `antml:` prefixes count too;
//! * code regions are fenced blocks and backtick spans with a closing run (a lone backtick
//!   protects nothing), and `<final>` tags are removed even inside code in a second pass;
//! * each text block is trimmed after its tags are removed;
//! * consecutive duplicate paragraphs collapse into one.
//!
//! Reasoning comes from thinking blocks, else from a closed think block at the *start* of a
//! text block (the promotion); think tags elsewhere are removed with their content and give no
//! reasoning.
//!
//! Not covered (no clawloop input produces them today): message phases (`final_answer` text
//! signatures), the tool-call XML, model special-token, `relevant-memories`, internal runtime
//! context and downgraded tool-call stages of the sanitizer, and the error-text rewrites for
//! errored messages.
//!
//! Everything here runs once per message, on the whole text.

use std::borrow::Cow;
use std::sync::LazyLock;

use clawloop_core::js_text::{is_js_whitespace, js_trim, js_trim_start};
use clawloop_core::message::{AssistantMessage, ContentBlock};
use regex::Regex;

/// JavaScript's `\s` as a regex class.
const WS: &str = r"[\t\n\x0B\x0C\r \u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";

/// Compiles a pattern written with `{ws}` for [`WS`]; `None` never happens for the constant
/// patterns here (a unit test compiles them all).
fn compile(pattern: &str) -> Option<Regex> {
    Regex::new(&pattern.replace("{ws}", WS)).ok()
}

/// Whether `text` may hold a tag at all: every pattern here starts with `<`, so text without
/// one is left as it is without compiling (or running) any of them. Most replies hold no `<`,
/// and compiling these patterns was a fifth of a one-shot turn's instructions.
fn may_hold_tag(text: &str) -> bool {
    text.contains('<')
}

/// `QUICK_TAG_RE`: some reasoning or final tag may be present.
static QUICK_TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile(r"<{ws}*/?{ws}*(?i-u:(?:antml:)?(?:think(?:ing)?|thought)|antthinking|final)(?-u:\b)")
});
/// `FINAL_TAG_RE` of the reasoning-tag stage: attributes allowed.
static FINAL_TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| compile(r"<{ws}*/?{ws}*(?i-u:final)(?-u:\b)[^<>]*>"));
/// `THINKING_TAG_RE` of the reasoning-tag stage: attributes allowed, group 1 is the slash.
static THINKING_TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile(
        r"<{ws}*(/?){ws}*(?i-u:(?:antml:)?(?:think(?:ing)?|thought)|antthinking)(?-u:\b)[^<>]*>",
    )
});
/// `FINAL_TAG_RE` of `sanitizeUserFacingText`: no attributes, code not spared.
static PLAIN_FINAL_TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| compile(r"<{ws}*/?{ws}*(?i-u:final){ws}*>"));
/// The promotion's tag scan (no attributes); group 1 is the slash.
static PROMOTE_TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| compile(r"<{ws}*(/?){ws}*(?i-u:think(?:ing)?|thought|antthinking){ws}*>"));

/// What `message_end` works from: the visible text before the block-tag strip, and the
/// reasoning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct MessageText {
    /// OpenClaw `rawVisibleText`: the sanitized text blocks, joined with `\n`.
    pub(super) visible: String,
    /// OpenClaw `rawThinking` (trimmed), computed only when asked for.
    pub(super) thinking: String,
}

/// OpenClaw `extractAssistantText`: the visible text of a finished assistant message (text
/// blocks without reasoning tags, joined with `\n`), as the final payloads fall back to it when
/// no block reply collected any text.
pub fn extract_assistant_text(message: &AssistantMessage) -> String {
    message_text(message, false).visible
}

/// OpenClaw `extractAssistantThinking`: the message's reasoning (its thinking blocks, else a
/// think block promoted from the start of its text), trimmed.
pub fn extract_assistant_thinking(message: &AssistantMessage) -> String {
    message_text(message, true).thinking
}

/// A text block after the promotion, or a thinking block.
enum Part<'a> {
    Text(&'a str),
    Thinking(&'a str),
}

/// The visible text and (when `with_thinking`) the reasoning of `message`.
pub(super) fn message_text(message: &AssistantMessage, with_thinking: bool) -> MessageText {
    let parts = promoted_parts(message);
    let mut joined = String::new();
    for part in &parts {
        let Part::Text(text) = part else { continue };
        let sanitized = sanitize_visible(text);
        if sanitized.is_empty() {
            continue;
        }
        if !joined.is_empty() {
            joined.push('\n');
        }
        joined.push_str(&sanitized);
    }
    let visible = sanitize_user_facing(&joined).into_owned();
    let thinking = if with_thinking {
        let native: Vec<&str> = parts
            .iter()
            .filter_map(|p| match p {
                Part::Thinking(t) => Some(js_trim(t)),
                Part::Text(_) => None,
            })
            .filter(|t| !t.is_empty())
            .collect();
        if native.is_empty() {
            // `extractAssistantText` is the visible text here (no phases).
            extract_thinking_from_tagged_text(&visible)
        } else {
            js_trim(&native.join("\n")).to_owned()
        }
    } else {
        String::new()
    };
    MessageText { visible, thinking }
}

/// The message's text and thinking blocks after OpenClaw `promoteThinkingTagsToBlocks`: with
/// no thinking block, a text block that starts with a think tag and closes every one it opens
/// becomes thinking blocks and text blocks (start-trimmed).
fn promoted_parts(message: &AssistantMessage) -> Vec<Part<'_>> {
    let has_thinking = message
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Thinking(_)));
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::Thinking(t) => parts.push(Part::Thinking(&t.thinking)),
            // Promoted in place, or kept as it is.
            ContentBlock::Text(t)
                if has_thinking || !split_thinking_tagged_text(&t.text, &mut parts) =>
            {
                parts.push(Part::Text(&t.text));
            }
            _ => {}
        }
    }
    parts
}

/// OpenClaw `splitThinkingTaggedText`, pushing the pieces onto `out`; `false` (and nothing
/// pushed) when the text is not promoted.
fn split_thinking_tagged_text<'a>(text: &'a str, out: &mut Vec<Part<'a>>) -> bool {
    let start = js_trim_start(text);
    if !start.starts_with('<') {
        return false;
    }
    let Some(scan) = PROMOTE_TAG.as_ref() else {
        return false;
    };
    let mut has_open = false;
    let mut has_close = false;
    for captures in scan.captures_iter(text) {
        let is_close = captures.get(1).is_some_and(|m| !m.as_str().is_empty());
        let at_or_after_start = captures
            .get(0)
            .is_some_and(|m| m.start() >= text.len() - start.len());
        has_open |= !is_close && at_or_after_start;
        has_close |= is_close;
    }
    if !has_open || !has_close {
        return false;
    }
    let mut pieces = Vec::new();
    let mut in_thinking = false;
    let mut cursor = 0;
    let mut thinking_start = 0;
    let mut any_thinking = false;
    for captures in scan.captures_iter(text) {
        let Some(tag) = captures.get(0) else { continue };
        let is_close = captures.get(1).is_some_and(|m| !m.as_str().is_empty());
        if !in_thinking && !is_close {
            let before = &text[cursor..tag.start()];
            if !before.is_empty() {
                pieces.push(Part::Text(before));
            }
            thinking_start = tag.end();
            in_thinking = true;
        } else if in_thinking && is_close {
            let thinking = js_trim(&text[thinking_start..tag.start()]);
            if !thinking.is_empty() {
                pieces.push(Part::Thinking(thinking));
                any_thinking = true;
            }
            cursor = tag.end();
            in_thinking = false;
        }
    }
    if in_thinking || !any_thinking {
        return false;
    }
    let rest = &text[cursor..];
    if !rest.is_empty() {
        pieces.push(Part::Text(rest));
    }
    // The promoted text blocks are start-trimmed, and empty ones dropped.
    out.extend(pieces.into_iter().filter_map(|p| {
        match p {
            Part::Text(t) => Some(js_trim_start(t))
                .filter(|t| !t.is_empty())
                .map(Part::Text),
            thinking => Some(thinking),
        }
    }));
    true
}

/// OpenClaw `extractThinkingFromTaggedText`: the text between think tags (code not spared),
/// trimmed.
fn extract_thinking_from_tagged_text(text: &str) -> String {
    if !may_hold_tag(text) {
        return String::new();
    }
    let Some(scan) = PROMOTE_TAG.as_ref() else {
        return String::new();
    };
    let mut result = String::new();
    let mut last = 0;
    let mut in_thinking = false;
    for captures in scan.captures_iter(text) {
        let Some(tag) = captures.get(0) else { continue };
        if in_thinking {
            result.push_str(&text[last..tag.start()]);
        }
        in_thinking = captures.get(1).is_none_or(|m| m.as_str().is_empty());
        last = tag.end();
    }
    js_trim(&result).to_owned()
}

/// The `delivery` profile of `sanitizeAssistantVisibleText` as far as reasoning tags go:
/// `stripReasoningTagsFromText` (strict, trimmed), then trimmed.
fn sanitize_visible(text: &str) -> String {
    js_trim(&strip_reasoning_tags(text)).to_owned()
}

/// OpenClaw `stripReasoningTagsFromText` in strict mode, untrimmed: `<final>` tags outside
/// code removed, then thinking blocks outside code removed (an unclosed one up to the end).
fn strip_reasoning_tags(text: &str) -> Cow<'_, str> {
    if !may_hold_tag(text) {
        return Cow::Borrowed(text);
    }
    let (Some(quick), Some(final_tag), Some(thinking_tag)) = (
        QUICK_TAG.as_ref(),
        FINAL_TAG.as_ref(),
        THINKING_TAG.as_ref(),
    ) else {
        return Cow::Borrowed(text);
    };
    if text.is_empty() || !quick.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut cleaned = Cow::Borrowed(text);
    if final_tag.is_match(text) {
        let regions = CodeRegions::find(text);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for tag in final_tag.find_iter(text) {
            if regions.contains(tag.start()) {
                continue;
            }
            out.push_str(&text[last..tag.start()]);
            last = tag.end();
        }
        out.push_str(&text[last..]);
        cleaned = Cow::Owned(out);
    }
    let regions = CodeRegions::find(&cleaned);
    let mut result = String::with_capacity(cleaned.len());
    let mut last = 0;
    let mut in_thinking = false;
    // `find_iter`, not `captures_iter` (several times slower): the slash of group 1 is the
    // first non-whitespace char after `<`.
    for tag in thinking_tag.find_iter(&cleaned) {
        if regions.contains(tag.start()) {
            continue;
        }
        let is_close = tag
            .as_str()
            .get(1..)
            .and_then(|inner| inner.trim_start_matches(is_js_whitespace).chars().next())
            == Some('/');
        if !in_thinking {
            result.push_str(&cleaned[last..tag.start()]);
            in_thinking = !is_close;
        } else if is_close {
            in_thinking = false;
        }
        last = tag.end();
    }
    if !in_thinking {
        result.push_str(&cleaned[last..]);
    }
    Cow::Owned(result)
}

/// `sanitizeUserFacingText` outside an error context, as far as model text goes: plain
/// `<final>` tags removed everywhere, leading blank lines dropped, consecutive duplicate
/// paragraphs collapsed.
fn sanitize_user_facing(text: &str) -> Cow<'_, str> {
    if text.is_empty() {
        return Cow::Borrowed(text);
    }
    let plain_final_tag = if may_hold_tag(text) {
        PLAIN_FINAL_TAG.as_ref()
    } else {
        None
    };
    let stripped = match plain_final_tag {
        Some(re) => re.replace_all(text, ""),
        None => Cow::Borrowed(text),
    };
    if js_trim(&stripped).is_empty() {
        return Cow::Borrowed("");
    }
    let without_blank_lines = strip_leading_blank_lines(&stripped);
    match collapse_consecutive_duplicate_blocks(without_blank_lines) {
        Cow::Owned(collapsed) => Cow::Owned(collapsed),
        Cow::Borrowed(same) => Cow::Owned(same.to_owned()),
    }
}

/// `text.replace(/^(?:[ \t]*\r?\n)+/, "")`.
fn strip_leading_blank_lines(mut text: &str) -> &str {
    loop {
        let rest = text.trim_start_matches([' ', '\t']);
        let rest = rest.strip_prefix('\r').unwrap_or(rest);
        match rest.strip_prefix('\n') {
            Some(after) => text = after,
            None => return text,
        }
    }
}

/// OpenClaw `collapseConsecutiveDuplicateBlocks`: paragraphs (split at two or more newlines)
/// equal to the one before once whitespace runs are collapsed are dropped; when any is, the
/// rest are trimmed and joined with a blank line.
fn collapse_consecutive_duplicate_blocks(text: &str) -> Cow<'_, str> {
    let trimmed = js_trim(text);
    if trimmed.is_empty() {
        return Cow::Borrowed(text);
    }
    let blocks = split_paragraphs(trimmed);
    if blocks.len() < 2 {
        return Cow::Borrowed(text);
    }
    let mut kept: Vec<&str> = Vec::with_capacity(blocks.len());
    let mut last: Option<&str> = None;
    for block in &blocks {
        // An empty paragraph never counts as a repeat (`lastNormalized` is falsy).
        if last.is_some_and(|l| {
            !js_trim(l).is_empty()
                && !super::text_compare::normalized_ascii_prefixes_differ(l, block)
                && same_words(l, block)
        }) {
            continue;
        }
        kept.push(js_trim(block));
        last = Some(block);
    }
    if kept.len() == blocks.len() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(kept.join("\n\n"))
}

/// `text.split(/\n{2,}/)`.
fn split_paragraphs(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut blocks = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(bytes.get(from..).unwrap_or_default(), b"\n\n") {
        let at = from + at;
        let end = at + bytes[at..].iter().take_while(|&&b| b == b'\n').count();
        blocks.push(&text[start..at]);
        start = end;
        from = end;
    }
    blocks.push(&text[start..]);
    blocks
}

/// `a.trim().replace(/\s+/g, " ") === b.trim().replace(/\s+/g, " ")`, without allocating.
fn same_words(a: &str, b: &str) -> bool {
    let mut x = a.split(is_js_whitespace).filter(|w| !w.is_empty());
    let mut y = b.split(is_js_whitespace).filter(|w| !w.is_empty());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q => {}
            _ => return false,
        }
    }
}

/// OpenClaw `findCodeRegions` as a sorted union of byte ranges: fenced blocks (a ```` ``` ````
/// or `~~~` line at a line start, up to the same marker after a newline or the end), and
/// backtick spans with a closing run.
struct CodeRegions {
    merged: Vec<(usize, usize)>,
}

impl CodeRegions {
    fn find(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut regions: Vec<(usize, usize)> = Vec::new();
        // `/(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(?:\n\2|$)/g`
        let mut pos = 0;
        while pos <= bytes.len() {
            let Some((start, end)) = next_fence(bytes, pos) else {
                break;
            };
            regions.push((start, end));
            pos = end;
        }
        let fences = regions.len();
        // `/`+[^`]+`+/g`, skipping spans inside a fence.
        let mut pos = 0;
        while let Some(open) = find_byte(bytes, b'`', pos) {
            let run_end = run_of(bytes, open, b'`');
            let Some(close) = find_byte(bytes, b'`', run_end) else {
                break;
            };
            if close == run_end {
                // `run_of` took every backtick, so this is the end of the text.
                break;
            }
            let end = run_of(bytes, close, b'`');
            // Fences are sorted and disjoint: only the last one starting at or before `open`
            // can contain the span.
            let fence = regions[..fences].partition_point(|&(s, _)| s <= open);
            if fence == 0 || regions[fence - 1].1 < end {
                regions.push((open, end));
            }
            pos = end;
        }
        regions.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(regions.len());
        for (start, end) in regions {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        Self { merged }
    }

    /// `isInsideCode`: `pos` lies in some region.
    fn contains(&self, pos: usize) -> bool {
        let after = self.merged.partition_point(|&(start, _)| start <= pos);
        after > 0 && self.merged[after - 1].1 > pos
    }
}

/// The next fenced region whose match starts at or after `pos`: its marker is at the very
/// start (`^`, only when searching from 0) or just after a newline.
fn next_fence(bytes: &[u8], pos: usize) -> Option<(usize, usize)> {
    if pos == 0
        && let Some(end) = fence_match_at(bytes, 0)
    {
        return Some((0, end));
    }
    let mut from = pos;
    while let Some(newline) = find_byte(bytes, b'\n', from) {
        if let Some(end) = fence_match_at(bytes, newline + 1) {
            return Some((newline + 1, end));
        }
        from = newline + 1;
    }
    None
}

/// The end of a fenced region whose marker is at `at`: the opening line needs its newline, and
/// the region runs to the first newline followed by the same marker, or to the end.
fn fence_match_at(bytes: &[u8], at: usize) -> Option<usize> {
    let marker = fence_at(bytes, at)?;
    let line_end = find_byte(bytes, b'\n', at + marker.len())?;
    Some(find_closing_fence(bytes, line_end + 1, marker).unwrap_or(bytes.len()))
}

/// The fence marker (```` ``` ```` or `~~~`) at `at`.
fn fence_at(bytes: &[u8], at: usize) -> Option<&'static [u8]> {
    let rest = bytes.get(at..)?;
    if rest.starts_with(b"```") {
        Some(b"```")
    } else if rest.starts_with(b"~~~") {
        Some(b"~~~")
    } else {
        None
    }
}

/// The end of the first `\n` + `marker` at or after `from`.
fn find_closing_fence(bytes: &[u8], from: usize, marker: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(newline) = find_byte(bytes, b'\n', at) {
        if bytes.get(newline + 1..)?.starts_with(marker) {
            return Some(newline + 1 + marker.len());
        }
        at = newline + 1;
    }
    None
}

fn find_byte(bytes: &[u8], byte: u8, from: usize) -> Option<usize> {
    memchr::memchr(byte, bytes.get(from..)?).map(|i| from + i)
}

fn run_of(bytes: &[u8], from: usize, byte: u8) -> usize {
    bytes.get(from..).map_or(from, |rest| {
        from + rest.iter().take_while(|&&b| b == byte).count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile() {
        assert!(QUICK_TAG.is_some());
        assert!(FINAL_TAG.is_some());
        assert!(THINKING_TAG.is_some());
        assert!(PLAIN_FINAL_TAG.is_some());
        assert!(PROMOTE_TAG.is_some());
    }
}
