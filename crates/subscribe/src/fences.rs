//! Markdown code-fence detection (reference §19 "Fence parsing", OpenClaw `markdown/fences.ts`).
//!
//! A line matching `` ^( {0,3})(`{3,}|~{3,})(.*)$ `` opens a fence. While a fence is open, a line
//! of the same shape whose marker uses the same character with a run at least as long closes it.
//! An unclosed fence extends to the end of the text. [`FenceSpan`] indices are in `char`s (Unicode
//! scalar values), never bytes; the chunker works with byte offsets internally.
//!
//! The regex is evaluated with JavaScript semantics: `.` does not match `\r`, U+2028 or U+2029, so
//! a line carrying one of those after the marker is not a fence line.

use crate::text_scan::{find_fence_marker, find_newline};
use clawloop_core::js_text::is_js_line_terminator;

/// One fenced code block inside a text.
///
/// `start` is the char index where the opening line starts; `end` is the char index just past
/// the closing line (before its `\n`), or the text length when the fence is never closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenceSpan {
    /// Char index of the first character of the opening line.
    pub start: usize,
    /// Char index just past the closing line (its `\n` excluded), or the text length when the
    /// fence is unclosed.
    pub end: usize,
    /// The whole opening line, e.g. `` ```rust ``, without its newline.
    pub open_line: String,
    /// The opening marker run, e.g. `` ``` `` or `~~~~`.
    pub marker: String,
    /// The opening line's indentation (zero to three spaces).
    pub indent: String,
    /// Char index where the closing line starts; `None` while the fence is unclosed.
    pub close_line_start: Option<usize>,
}

impl FenceSpan {
    /// The line that closes this fence synthetically: `indent + marker`.
    pub fn close_fence_line(&self) -> String {
        format!("{}{}", self.indent, self.marker)
    }

    /// `true` when the text contains this fence's own closing line.
    pub fn is_closed(&self) -> bool {
        self.close_line_start.is_some()
    }
}

/// A line that has the shape of a fence line (`` ^( {0,3})(`{3,}|~{3,})(.*)$ ``).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FenceLine {
    /// Number of leading spaces (0..=3).
    pub indent: usize,
    /// The marker character, `` ` `` or `~`.
    pub marker_char: char,
    /// Length of the marker run (at least 3).
    pub marker_len: usize,
}

/// Matches one line (without its `\n`) against the fence-line regex.
///
/// Works on bytes: the spaces and markers are ASCII, so their byte counts are char counts.
pub(crate) fn match_fence_line(line: &str) -> Option<FenceLine> {
    let bytes = line.as_bytes();
    // ` {0,3}` is greedy; a fourth space can never be followed by a marker, so no backtracking
    // alternative exists.
    let indent = bytes.iter().take(3).take_while(|&&b| b == b' ').count();
    let marker = *bytes.get(indent)?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let marker_len = bytes[indent..].iter().take_while(|&&b| b == marker).count();
    if marker_len < 3 {
        return None;
    }
    // `(.*)$` must reach the end of the line: JS `.` refuses line terminators.
    if line[indent + marker_len..]
        .chars()
        .any(is_js_line_terminator)
    {
        return None;
    }
    Some(FenceLine {
        indent,
        marker_char: char::from(marker),
        marker_len,
    })
}

/// A fenced block located by byte offsets, as the chunker works with it. The fields mirror
/// [`FenceSpan`]'s, in bytes instead of chars, with the opening line's text left in the
/// source instead of copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ByteFence {
    /// Byte offset of the first byte of the opening line.
    pub start: usize,
    /// Byte offset just past the closing line (its `\n` excluded), or the text length when
    /// the fence is unclosed. The chunker may move it past the end of the text.
    pub end: usize,
    /// Byte offset just past the opening line (where its `\n` is, or the text end).
    pub open_end: usize,
    /// Byte offset where the closing line starts; `None` while the fence is unclosed.
    pub close_line_start: Option<usize>,
    /// The opening line's marker and indentation.
    pub line: FenceLine,
}

impl ByteFence {
    /// `true` when the text contains this fence's own closing line.
    pub fn is_closed(&self) -> bool {
        self.close_line_start.is_some()
    }

    /// The opening line, out of the text the fence was parsed from.
    pub fn open_line<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.start..self.open_end).unwrap_or_default()
    }

    /// The line that closes this fence synthetically: `indent + marker`.
    pub fn close_fence_line(&self) -> String {
        let mut line = " ".repeat(self.line.indent);
        line.extend(std::iter::repeat_n(
            self.line.marker_char,
            self.line.marker_len,
        ));
        line
    }
}

/// Parses every fenced code block in `text`. Spans are sorted and never overlap.
pub fn parse_fence_spans(text: &str) -> Vec<FenceSpan> {
    let mut fences = Vec::new();
    parse_fences_into(text, &mut fences);
    // Byte offsets to char indices in one pass: the offsets only grow.
    let mut chars = 0usize;
    let mut at = 0usize;
    let mut to_chars = |offset: usize| {
        chars += text.get(at..offset).map_or(0, |s| s.chars().count());
        at = offset;
        chars
    };
    fences
        .iter()
        .map(|fence| {
            let start = to_chars(fence.start);
            let close_line_start = fence.close_line_start.map(&mut to_chars);
            let end = to_chars(fence.end);
            let open_line = fence.open_line(text).to_owned();
            FenceSpan {
                start,
                end,
                open_line,
                marker: std::iter::repeat_n(fence.line.marker_char, fence.line.marker_len)
                    .collect(),
                indent: " ".repeat(fence.line.indent),
                close_line_start,
            }
        })
        .collect()
}

/// [`parse_fence_spans`] in byte offsets, into `fences` (cleared first) so a caller parsing
/// again and again keeps one allocation.
pub(crate) fn parse_fences_into(text: &str, fences: &mut Vec<ByteFence>) {
    fences.clear();
    let bytes = text.as_bytes();
    let mut open: Option<(usize, usize, FenceLine)> = None;
    // Only lines with a marker char after at most three spaces can be fence lines, and every
    // other line leaves the state as it is. So rather than looking at every line, this looks
    // at every marker char (far fewer in prose than line starts), and at a line only when one
    // begins it.
    let mut from = 0;
    while let Some(hit) = bytes.get(from..).and_then(find_fence_marker) {
        let hit = from + hit;
        let spaces = bytes[..hit]
            .iter()
            .rev()
            .take(4)
            .take_while(|&&b| b == b' ')
            .count();
        let line_start = hit - spaces;
        if spaces > 3 || (line_start > 0 && bytes[line_start - 1] != b'\n') {
            from = hit + 1;
            continue;
        }
        let line_end = find_newline(&bytes[hit..]).map_or(text.len(), |p| hit + p);
        if let Some(found) = text.get(line_start..line_end).and_then(match_fence_line) {
            match open {
                None => open = Some((line_start, line_end, found)),
                Some((start, open_end, current))
                    if current.marker_char == found.marker_char
                        && found.marker_len >= current.marker_len =>
                {
                    fences.push(ByteFence {
                        start,
                        end: line_end,
                        open_end,
                        close_line_start: Some(line_start),
                        line: current,
                    });
                    open = None;
                }
                Some(_) => {}
            }
        }
        from = line_end + 1;
    }
    if let Some((start, open_end, line)) = open {
        fences.push(ByteFence {
            start,
            end: text.len(),
            open_end,
            close_line_start: None,
            line,
        });
    }
}

/// The span that strictly contains `index` (`start < index < end`), found by binary search.
///
/// A break exactly at a span's start or end is outside it, so the fence stays whole.
pub fn find_fence_span_at(spans: &[FenceSpan], index: usize) -> Option<&FenceSpan> {
    fence_index_at(spans, index).map(|i| &spans[i])
}

/// Position in `spans` of the span that strictly contains `index`.
pub(crate) fn fence_index_at(spans: &[FenceSpan], index: usize) -> Option<usize> {
    span_index_at(spans, index, |s| (s.start, s.end))
}

/// [`fence_index_at`] for [`ByteFence`]s.
pub(crate) fn byte_fence_index_at(fences: &[ByteFence], index: usize) -> Option<usize> {
    span_index_at(fences, index, |f| (f.start, f.end))
}

/// Binary search for the span whose `(start, end)` strictly contains `index`.
fn span_index_at<T>(
    spans: &[T],
    index: usize,
    bounds: impl Fn(&T) -> (usize, usize),
) -> Option<usize> {
    let mut low = 0usize;
    let mut high = spans.len();
    while low < high {
        let mid = low + (high - low) / 2;
        let (start, end) = bounds(&spans[mid]);
        if index <= start {
            high = mid;
        } else if index >= end {
            low = mid + 1;
        } else {
            return Some(mid);
        }
    }
    None
}

/// `true` when breaking the text at `index` does not cut through a fenced block.
pub fn is_safe_fence_break(spans: &[FenceSpan], index: usize) -> bool {
    find_fence_span_at(spans, index).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_line_shapes() {
        assert!(match_fence_line("```").is_some());
        assert!(match_fence_line("   ```js").is_some());
        assert!(match_fence_line("    ```").is_none(), "four spaces");
        assert!(match_fence_line("``").is_none());
        assert!(match_fence_line("~~~~ sh").is_some());
        assert!(match_fence_line("```js\r").is_none(), "JS `.` refuses CR");
        assert!(match_fence_line("x```").is_none());
        let line = match_fence_line("  ````` a").unwrap();
        assert_eq!(
            (line.indent, line.marker_char, line.marker_len),
            (2, '`', 5)
        );
    }

    #[test]
    fn spans_closed_unclosed_and_mismatched_markers() {
        let text = "a\n```js\ncode\n~~~\n````\nb\n~~~\nopen";
        let spans = parse_fence_spans(text);
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[0].start, 2);
        assert_eq!(spans[0].open_line, "```js");
        assert_eq!(spans[0].marker, "```");
        // `~~~` does not close a backtick fence; the longer ```` run does.
        let close = text.find("````").unwrap();
        assert_eq!(spans[0].close_line_start, Some(close));
        assert_eq!(spans[0].end, close + 4);
        assert_eq!(spans[1].open_line, "~~~");
        assert_eq!(spans[1].end, text.chars().count());
        assert!(!spans[1].is_closed());
    }

    #[test]
    fn shorter_run_does_not_close() {
        let spans = parse_fence_spans("````\nx\n```\ny");
        assert_eq!(spans.len(), 1);
        assert!(!spans[0].is_closed());
    }

    #[test]
    fn safe_break_is_strictly_inside() {
        let text = "ab\n```\nc\n```\nd";
        let spans = parse_fence_spans(text);
        assert_eq!((spans[0].start, spans[0].end), (3, 12));
        assert!(is_safe_fence_break(&spans, 3));
        assert!(!is_safe_fence_break(&spans, 4));
        assert!(!is_safe_fence_break(&spans, 11));
        assert!(is_safe_fence_break(&spans, 12));
        assert_eq!(spans[0].close_fence_line(), "```");
    }

    #[test]
    fn char_indices_with_multibyte_text() {
        let text = "é🎉\n```\n😀\n```";
        let spans = parse_fence_spans(text);
        assert_eq!(spans[0].start, 3);
        assert_eq!(spans[0].end, text.chars().count());
    }
}
