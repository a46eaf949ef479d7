//! Markdown code-fence detection (reference §19 "Fence parsing", OpenClaw `markdown/fences.ts`).
//!
//! A line matching `` ^( {0,3})(`{3,}|~{3,})(.*)$ `` opens a fence. While a fence is open, a line
//! of the same shape whose marker uses the same character with a run at least as long closes it.
//! An unclosed fence extends to the end of the text. All indices are in `char`s (Unicode scalar
//! values), never bytes.
//!
//! The regex is evaluated with JavaScript semantics: `.` does not match `\r`, U+2028 or U+2029, so
//! a line carrying one of those after the marker is not a fence line.

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
pub(crate) fn match_fence_line(line: &[char]) -> Option<FenceLine> {
    // ` {0,3}` is greedy; a fourth space can never be followed by a marker, so no backtracking
    // alternative exists.
    let indent = line.iter().take(3).take_while(|&&c| c == ' ').count();
    let marker_char = *line.get(indent)?;
    if marker_char != '`' && marker_char != '~' {
        return None;
    }
    let marker_len = line[indent..]
        .iter()
        .take_while(|&&c| c == marker_char)
        .count();
    if marker_len < 3 {
        return None;
    }
    // `(.*)$` must reach the end of the line: JS `.` refuses line terminators.
    if line[indent + marker_len..]
        .iter()
        .any(|&c| is_js_line_terminator(c))
    {
        return None;
    }
    Some(FenceLine {
        indent,
        marker_char,
        marker_len,
    })
}

/// Parses every fenced code block in `text`. Spans are sorted and never overlap.
pub fn parse_fence_spans(text: &str) -> Vec<FenceSpan> {
    let chars: Vec<char> = text.chars().collect();
    parse_fence_spans_chars(&chars)
}

/// [`parse_fence_spans`] over an already decoded char slice.
pub(crate) fn parse_fence_spans_chars(chars: &[char]) -> Vec<FenceSpan> {
    struct Open {
        start: usize,
        line: FenceLine,
        open_line: String,
    }

    let mut spans = Vec::new();
    let mut open: Option<Open> = None;
    let mut offset = 0;
    loop {
        let line_end = chars[offset..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(chars.len(), |p| offset + p);
        let line = &chars[offset..line_end];
        if let Some(found) = match_fence_line(line) {
            match &open {
                None => {
                    open = Some(Open {
                        start: offset,
                        line: found,
                        open_line: line.iter().collect(),
                    });
                }
                Some(current)
                    if current.line.marker_char == found.marker_char
                        && found.marker_len >= current.line.marker_len =>
                {
                    spans.push(make_span(
                        current.start,
                        line_end,
                        &current.line,
                        &current.open_line,
                        Some(offset),
                    ));
                    open = None;
                }
                Some(_) => {}
            }
        }
        if line_end >= chars.len() {
            break;
        }
        offset = line_end + 1;
    }
    if let Some(current) = open {
        spans.push(make_span(
            current.start,
            chars.len(),
            &current.line,
            &current.open_line,
            None,
        ));
    }
    spans
}

fn make_span(
    start: usize,
    end: usize,
    line: &FenceLine,
    open_line: &str,
    close_line_start: Option<usize>,
) -> FenceSpan {
    FenceSpan {
        start,
        end,
        open_line: open_line.to_owned(),
        marker: std::iter::repeat_n(line.marker_char, line.marker_len).collect(),
        indent: " ".repeat(line.indent),
        close_line_start,
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
    let mut low = 0usize;
    let mut high = spans.len();
    while low < high {
        let mid = low + (high - low) / 2;
        let span = &spans[mid];
        if index <= span.start {
            high = mid;
        } else if index >= span.end {
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

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn fence_line_shapes() {
        assert!(match_fence_line(&chars("```")).is_some());
        assert!(match_fence_line(&chars("   ```js")).is_some());
        assert!(match_fence_line(&chars("    ```")).is_none(), "four spaces");
        assert!(match_fence_line(&chars("``")).is_none());
        assert!(match_fence_line(&chars("~~~~ sh")).is_some());
        assert!(
            match_fence_line(&chars("```js\r")).is_none(),
            "JS `.` refuses CR"
        );
        assert!(match_fence_line(&chars("x```")).is_none());
        let line = match_fence_line(&chars("  ````` a")).unwrap();
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
