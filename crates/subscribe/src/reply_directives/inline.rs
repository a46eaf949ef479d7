//! Inline reply tags (OpenClaw `parseInlineDirectives`) and the whitespace normalization it
//! applies outside code blocks, with the whitespace helpers `MEDIA:` splitting shares.

use std::borrow::Cow;
use std::sync::LazyLock;

use clawloop_core::js_text::{is_js_whitespace, js_trim, js_trim_end};
use regex::Regex;

use super::{InlineDirectiveOptions, InlineDirectives};
use crate::text_scan::find_newline;

/// JavaScript's `\s` as a regex class (ECMA-262 WhiteSpace plus LineTerminator).
const JS_WS: &str = r"[\t\n\x0B\x0C\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]";

/// `/\[\[\s*audio_as_voice\s*\]\]/gi` (ASCII case folding, as JavaScript without `u`).
static AUDIO_TAG: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!(r"\[\[{JS_WS}*(?i-u:audio_as_voice){JS_WS}*\]\]")).ok());

/// `/\[\[\s*(?:reply_to_current|reply_to\s*:\s*([^\]\n]+))\s*\]\]/gi`.
static REPLY_TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"\[\[{JS_WS}*(?:(?i-u:reply_to_current)|(?i-u:reply_to){JS_WS}*:{JS_WS}*([^\]\n]+)){JS_WS}*\]\]"
    ))
    .ok()
});

/// The private-use char OpenClaw builds its code-block placeholders from.
const BLOCK_SENTINEL_SEED: char = '\u{E000}';

/// Reads `[[audio_as_voice]]`, `[[reply_to_current]]` and `[[reply_to: id]]` (OpenClaw
/// `parseInlineDirectives`). A stripped tag between two non-space chars leaves one space. The
/// text is then whitespace-normalized outside code blocks: `\r\n` to `\n`, inner runs of spaces
/// and tabs to one space, leading newlines and one leading space removed, spaces before a
/// newline removed, three or more newlines to two, trailing whitespace trimmed.
///
/// ```
/// use clawloop_subscribe::{InlineDirectiveOptions, parse_inline_directives};
///
/// let parsed = parse_inline_directives("Hi[[reply_to: 42]]there", &InlineDirectiveOptions::default());
/// assert_eq!(parsed.text, "Hi there");
/// assert_eq!(parsed.reply_to_id.as_deref(), Some("42"));
/// ```
pub fn parse_inline_directives(
    text: &str,
    options: &InlineDirectiveOptions<'_>,
) -> InlineDirectives {
    if text.is_empty() {
        return InlineDirectives::default();
    }
    if !text.contains("[[") {
        return InlineDirectives {
            text: normalize_directive_whitespace(text),
            ..InlineDirectives::default()
        };
    }
    let mut has_audio_tag = false;
    let cleaned = replace_tags(text, &AUDIO_TAG, options.strip_audio_tag, |_| {
        has_audio_tag = true;
    });
    let mut has_reply_tag = false;
    let mut saw_current = false;
    let mut last_explicit_id: Option<String> = None;
    let cleaned = replace_tags(&cleaned, &REPLY_TAG, options.strip_reply_tags, |id| {
        has_reply_tag = true;
        match id {
            None => saw_current = true,
            Some(raw) => {
                let id = js_trim(raw);
                if !id.is_empty() {
                    last_explicit_id = Some(id.to_owned());
                }
            }
        }
    });
    let reply_to_id = last_explicit_id.clone().or_else(|| {
        saw_current
            .then(|| options.current_message_id.map(js_trim))
            .flatten()
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
    });
    InlineDirectives {
        text: normalize_directive_whitespace(&cleaned),
        audio_as_voice: has_audio_tag,
        reply_to_id,
        reply_to_explicit_id: last_explicit_id,
        reply_to_current: saw_current,
        has_audio_tag,
        has_reply_tag,
    }
}

/// Replaces every match of `pattern` in `source`: with `""` or a space keeping two words apart
/// when `strip`, else with itself. `on_match` sees capture group 1 of each match.
fn replace_tags<'t>(
    source: &'t str,
    pattern: &LazyLock<Option<Regex>>,
    strip: bool,
    mut on_match: impl FnMut(Option<&str>),
) -> Cow<'t, str> {
    let Some(regex) = pattern.as_ref() else {
        return Cow::Borrowed(source);
    };
    let mut out = String::new();
    let mut copied = 0;
    for caps in regex.captures_iter(source) {
        let Some(whole) = caps.get(0) else {
            continue;
        };
        on_match(caps.get(1).map(|m| m.as_str()));
        if strip {
            out.push_str(&source[copied..whole.start()]);
            if preserves_word_boundary(source, whole.start(), whole.end()) {
                out.push(' ');
            }
            copied = whole.end();
        }
    }
    if copied == 0 {
        return Cow::Borrowed(source);
    }
    out.push_str(&source[copied..]);
    Cow::Owned(out)
}

/// OpenClaw `replacementPreservesWordBoundary`: a non-space char on both sides of the tag.
fn preserves_word_boundary(source: &str, start: usize, end: usize) -> bool {
    let before = source[..start].chars().next_back();
    let after = source[end..].chars().next();
    matches!((before, after), (Some(b), Some(a)) if !is_js_whitespace(b) && !is_js_whitespace(a))
}

/// OpenClaw `normalizeDirectiveWhitespace`: whitespace cleanup outside code blocks (fenced
/// blocks and indented lines are swapped for placeholders first and put back after).
fn normalize_directive_whitespace(text: &str) -> String {
    let sentinel = block_sentinel(text);
    let mut blocks = Vec::new();
    let protected = protect_code_blocks(text, &sentinel, &mut blocks);
    let unified = protected.replace("\r\n", "\n");
    let collapsed = collapse_inner_space_runs(&unified);
    let mut rest = collapsed.trim_start_matches('\n');
    let mut leading = rest.chars();
    if let (Some(' ' | '\t'), Some(next)) = (leading.next(), leading.next())
        && !is_js_whitespace(next)
    {
        rest = &rest[1..];
    }
    let spaced = remove_spaces_before_newlines(rest);
    let capped = collapse_newline_runs(&spaced, 3, "\n\n");
    let trimmed = js_trim_end(&capped);
    if blocks.is_empty() {
        return trimmed.to_owned();
    }
    restore_code_blocks(trimmed, &sentinel, &blocks)
}

/// The shortest run of [`BLOCK_SENTINEL_SEED`] that does not occur in `text`.
fn block_sentinel(text: &str) -> String {
    let mut sentinel = String::from(BLOCK_SENTINEL_SEED);
    while text.contains(sentinel.as_str()) {
        sentinel.push(BLOCK_SENTINEL_SEED);
    }
    sentinel
}

/// Replaces each code block of
/// `` /(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1[^\n]*|(?:(?:^|\n)(?:    |\t)[^\n]*)+/gm `` with
/// `sentinel + index + sentinel`, collecting the blocks.
fn protect_code_blocks<'t>(
    text: &'t str,
    sentinel: &str,
    blocks: &mut Vec<&'t str>,
) -> Cow<'t, str> {
    let bytes = text.as_bytes();
    let mut lines: Option<LineRuns> = None;
    let mut out = String::new();
    let mut copied = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        let found = match bytes[pos] {
            b'`' | b'~' => {
                fenced_block_end(text, pos, lines.get_or_insert_with(|| LineRuns::new(bytes)))
            }
            _ => None,
        }
        .or_else(|| indented_block_end(text, pos));
        match found {
            Some(end) => {
                out.push_str(&text[copied..pos]);
                out.push_str(sentinel);
                out.push_str(&blocks.len().to_string());
                out.push_str(sentinel);
                blocks.push(&text[pos..end]);
                copied = end;
                pos = end;
            }
            None => pos += utf8_len(bytes[pos]),
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// For each line that follows a `\n`: where it starts and how long its leading backtick and
/// tilde runs are, with suffix maxima of the run lengths.
struct LineRuns {
    starts: Vec<usize>,
    runs: Vec<[usize; 2]>,
    suffix_max: Vec<[usize; 2]>,
}

impl LineRuns {
    fn new(bytes: &[u8]) -> Self {
        let mut starts = Vec::new();
        let mut runs = Vec::new();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                let start = i + 1;
                let rest = &bytes[start..];
                let count = |c: u8| rest.iter().take_while(|&&x| x == c).count();
                starts.push(start);
                runs.push([count(b'`'), count(b'~')]);
            }
        }
        let mut suffix_max = vec![[0, 0]; runs.len() + 1];
        for i in (0..runs.len()).rev() {
            suffix_max[i] = [
                runs[i][0].max(suffix_max[i + 1][0]),
                runs[i][1].max(suffix_max[i + 1][1]),
            ];
        }
        Self {
            starts,
            runs,
            suffix_max,
        }
    }
}

/// The end of a fenced block opening at `pos` (a run of three or more backticks or tildes, not
/// necessarily at a line start), as the backtracking regex finds it: the longest usable marker
/// length first, then the earliest closing line. The closing line starts with the marker and is
/// at least the second line after the opening one.
fn fenced_block_end(text: &str, pos: usize, lines: &LineRuns) -> Option<usize> {
    let bytes = text.as_bytes();
    let marker = bytes[pos];
    let which = usize::from(marker == b'~');
    let run = bytes[pos..].iter().take_while(|&&b| b == marker).count();
    if run < 3 {
        return None;
    }
    let opening_end = pos + run + find_newline(&bytes[pos + run..])?;
    let body = opening_end + 1;
    // Closing lines start after a `\n` at or after `body`, so strictly after `body`.
    let first = lines.starts.partition_point(|&start| start <= body);
    let longest = lines.suffix_max.get(first).map_or(0, |m| m[which]);
    let len = run.min(longest);
    if len < 3 {
        return None;
    }
    let line = (first..lines.starts.len()).find(|&i| lines.runs[i][which] >= len)?;
    let after_marker = lines.starts[line] + len;
    Some(find_newline(&bytes[after_marker..]).map_or(bytes.len(), |i| after_marker + i))
}

/// The end of a run of indented lines at `pos` (`(?:(?:^|\n)(?:    |\t)[^\n]*)+` with `m`).
fn indented_block_end(text: &str, pos: usize) -> Option<usize> {
    let mut end = indented_line_end(text, pos)?;
    while let Some(next) = indented_line_end(text, end) {
        end = next;
    }
    Some(end)
}

/// One `(?:^|\n)(?:    |\t)[^\n]*` at `pos`.
fn indented_line_end(text: &str, pos: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let indent_at = |at: usize| {
        let rest = bytes.get(at..)?;
        if rest.starts_with(b"    ") {
            Some(4)
        } else if rest.starts_with(b"\t") {
            Some(1)
        } else {
            None
        }
    };
    let line_end = |from: usize| find_newline(&bytes[from..]).map_or(bytes.len(), |i| from + i);
    let at_line_start = pos == 0
        || text[..pos]
            .chars()
            .next_back()
            .is_some_and(|c| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'));
    if at_line_start && let Some(indent) = indent_at(pos) {
        return Some(line_end(pos + indent));
    }
    if bytes.get(pos) == Some(&b'\n')
        && let Some(indent) = indent_at(pos + 1)
    {
        return Some(line_end(pos + 1 + indent));
    }
    None
}

/// Puts the code blocks back (`new RegExp(sentinel + "(\\d+)" + sentinel, "g")`); an index
/// without a block becomes `undefined`, as in JavaScript.
fn restore_code_blocks(text: &str, sentinel: &str, blocks: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut pos = 0;
    while let Some(found) = text[pos..].find(sentinel) {
        let start = pos + found;
        let digits_start = start + sentinel.len();
        let digits = text[digits_start..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        let digits_end = digits_start + digits;
        if digits > 0 && text[digits_end..].starts_with(sentinel) {
            out.push_str(&text[copied..start]);
            let block = text[digits_start..digits_end]
                .parse::<usize>()
                .ok()
                .and_then(|i| blocks.get(i));
            out.push_str(block.copied().unwrap_or("undefined"));
            copied = digits_end + sentinel.len();
            pos = copied;
        } else {
            pos = start + BLOCK_SENTINEL_SEED.len_utf8();
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// `/([^\s])[ \t]{2,}([^\s])/g` → `"$1 $2"`. A match ends after its second char, so that char
/// starts no new match, except that JavaScript matches code units: the low surrogate of an
/// astral second char can start the next match.
fn collapse_inner_space_runs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(first) = rest.chars().next() {
        let after_first = &rest[first.len_utf8()..];
        if !is_js_whitespace(first) {
            let run = after_first
                .bytes()
                .take_while(|&b| b == b' ' || b == b'\t')
                .count();
            if run >= 2
                && let Some(second) = after_first[run..].chars().next()
                && !is_js_whitespace(second)
            {
                out.push(first);
                out.push(' ');
                if second.len_utf16() == 2 {
                    // Its low surrogate may start the next match: keep it in `rest`.
                    rest = &after_first[run..];
                } else {
                    out.push(second);
                    rest = &after_first[run + second.len_utf8()..];
                }
                continue;
            }
        }
        out.push(first);
        rest = after_first;
    }
    out
}

/// `/[ \t]+\n/g` → `"\n"`.
pub(super) fn remove_spaces_before_newlines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\n') {
        out.push_str(rest[..at].trim_end_matches([' ', '\t']));
        out.push('\n');
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out
}

/// Replaces each run of at least `min` newlines with `replacement`.
pub(super) fn collapse_newline_runs(text: &str, min: usize, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\n') {
        out.push_str(&rest[..at]);
        let run = rest[at..].bytes().take_while(|&b| b == b'\n').count();
        if run >= min {
            out.push_str(replacement);
        } else {
            out.push_str(&rest[at..at + run]);
        }
        rest = &rest[at + run..];
    }
    out.push_str(rest);
    out
}

/// The length of the UTF-8 sequence a lead byte starts (1 for anything else).
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    //! Expected values are OpenClaw 2026.4.12's own results for the same inputs
    //! (`parseInlineDirectives`, run under node); fields left out of an expected value are the
    //! type's defaults.

    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regexes_compile() {
        assert!(AUDIO_TAG.is_some());
        assert!(REPLY_TAG.is_some());
    }

    #[test]
    fn parse_inline_directives_matches_openclaw() {
        let cases = [
            (
                "Hi[[reply_to: 42]]there",
                InlineDirectiveOptions {
                    current_message_id: Some("m1"),
                    ..Default::default()
                },
                InlineDirectives {
                    text: "Hi there".to_owned(),
                    reply_to_id: Some("42".to_owned()),
                    reply_to_explicit_id: Some("42".to_owned()),
                    has_reply_tag: true,
                    ..Default::default()
                },
            ),
            (
                "[[reply_to_current]] On it.",
                InlineDirectiveOptions {
                    current_message_id: Some(" m1 "),
                    ..Default::default()
                },
                InlineDirectives {
                    text: "On it.".to_owned(),
                    reply_to_id: Some("m1".to_owned()),
                    reply_to_current: true,
                    has_reply_tag: true,
                    ..Default::default()
                },
            ),
            (
                "[[reply_to_current]] On it.",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "On it.".to_owned(),
                    reply_to_current: true,
                    has_reply_tag: true,
                    ..Default::default()
                },
            ),
            (
                "[[ Reply_To : abc ]] [[reply_to: def]] x",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "  x".to_owned(),
                    reply_to_id: Some("def".to_owned()),
                    reply_to_explicit_id: Some("def".to_owned()),
                    has_reply_tag: true,
                    ..Default::default()
                },
            ),
            (
                "[[reply_to:   ]] empty id",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "empty id".to_owned(),
                    has_reply_tag: true,
                    ..Default::default()
                },
            ),
            (
                "a  [[audio_as_voice]]  b",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "a b".to_owned(),
                    audio_as_voice: true,
                    has_audio_tag: true,
                    ..Default::default()
                },
            ),
            (
                "a[[audio_as_voice]]b",
                InlineDirectiveOptions {
                    current_message_id: None,
                    strip_audio_tag: false,
                    strip_reply_tags: true,
                },
                InlineDirectives {
                    text: "a[[audio_as_voice]]b".to_owned(),
                    audio_as_voice: true,
                    has_audio_tag: true,
                    ..Default::default()
                },
            ),
            (
                "\n\n text   with    runs  \n\n\n\nend   ",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "text with runs\n\nend".to_owned(),
                    ..Default::default()
                },
            ),
            (
                "keep\r\n```\ncode   with  runs\n```\n    indented   code\nafter  x",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "keep\n```\ncode   with  runs\n```\n    indented   code\nafter x"
                        .to_owned(),
                    ..Default::default()
                },
            ),
            (
                "[[reply_to_current]]\n```js\nlet  a = 1;\n```",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "```js\nlet  a = 1;\n```".to_owned(),
                    reply_to_current: true,
                    has_reply_tag: true,
                    ..Default::default()
                },
            ),
            (
                "no tags  here",
                InlineDirectiveOptions::default(),
                InlineDirectives {
                    text: "no tags here".to_owned(),
                    ..Default::default()
                },
            ),
            (
                "",
                InlineDirectiveOptions::default(),
                InlineDirectives::default(),
            ),
        ];
        for (input, options, expected) in cases {
            assert_eq!(
                parse_inline_directives(input, &options),
                expected,
                "{input:?}"
            );
        }
    }

    #[test]
    fn whitespace_normalization_skips_code_blocks_like_openclaw() {
        let cases = [
            ("a  \u{1f600}  b  c", "a \u{1f600} b  c"),
            (
                "x\u{e000}  y\n```\nkeep  this\n```",
                "x\u{e000} y\n```\nkeep  this\n```",
            ),
            (
                "````\nfour  a\n```\nthree  b\n````\nafter  c",
                "````\nfour  a\n```\nthree  b\n````\nafter c",
            ),
            ("~~~\nt  1\n~~~~\nt  2", "~~~\nt  1\n~~~~\nt 2"),
            ("```\n```\nnot  protected", "```\n```\nnot protected"),
            (
                "line\u{2028}    code  here\nnext  line",
                "line\u{2028}    code  here\nnext line",
            ),
            ("a\r\n    b  c\r\n\td  e", "a\r\n    b  c\r\n\td  e"),
        ];
        for (input, expected) in cases {
            let parsed = parse_inline_directives(input, &InlineDirectiveOptions::default());
            assert_eq!(parsed.text, expected, "{input:?}");
        }
    }
}
