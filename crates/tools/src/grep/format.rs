//! pi's grep output lines: a match reads `path:N: text`, a context line `path-N- text`, every
//! text cut at 500 UTF-16 units; the lines go, joined by `\n`, into a [`HeadCollector`] that
//! keeps what fits the byte limit and counts the rest (for `details.truncation`).

use crate::truncate::{GREP_MAX_LINE_LENGTH, HeadCollector, TruncationOptions, TruncationResult};

/// What follows a cut line (pi's `truncateLine`).
const CUT_MARK: &str = "... [truncated]";

/// A file line as shown: decoded, `\r` removed, cut at [`GREP_MAX_LINE_LENGTH`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Shown {
    /// The text, with the cut mark when cut.
    pub(crate) text: String,
    /// Whether it was cut.
    pub(crate) cut: bool,
}

/// A line as the searcher gives it (its `\n` included) shown the way pi shows it: decoded
/// lossily, without `\r`, and cut by [`crate::truncate::truncate_line`]'s rule. Only the
/// shown part is decoded, so a huge line costs no more than a short one.
pub(crate) fn display_line(bytes: &[u8]) -> Shown {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut text = String::new();
    let mut units = 0usize;
    for chunk in bytes.utf8_chunks() {
        let replacement = (!chunk.invalid().is_empty()).then_some('\u{FFFD}');
        for c in chunk.valid().chars().chain(replacement) {
            if c == '\r' {
                continue;
            }
            if units + c.len_utf16() > GREP_MAX_LINE_LENGTH {
                text.push_str(CUT_MARK);
                return Shown { text, cut: true };
            }
            units += c.len_utf16();
            text.push(c);
        }
    }
    Shown { text, cut: false }
}

/// The output under construction.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    collector: HeadCollector,
    lines: usize,
    lines_truncated: bool,
}

impl Output {
    /// An empty output cut at `max_bytes`.
    pub(crate) fn new(max_bytes: usize) -> Self {
        Output {
            collector: HeadCollector::new(TruncationOptions {
                max_lines: usize::MAX,
                max_bytes,
            }),
            lines: 0,
            lines_truncated: false,
        }
    }

    /// Appends line `number` of the file shown as `path`; `is_match` for the block's match.
    pub(crate) fn push_line(&mut self, path: &str, number: u64, is_match: bool, line: &Shown) {
        if self.lines > 0 {
            self.collector.push("\n");
        }
        self.lines += 1;
        self.lines_truncated |= line.cut;
        let mark = if is_match { ':' } else { '-' };
        // Past the byte limit only the length counts; a path with a newline (a legal file
        // name) is pushed whole so its lines are counted.
        if self.collector.wants_text() || path.contains('\n') {
            self.collector
                .push(&format!("{path}{mark}{number}{mark} {}", line.text));
        } else {
            let digits = number.checked_ilog10().map_or(1, |log| log as usize + 1);
            self.collector
                .push_uncollected(path.len() + 1 + digits + 2 + line.text.len());
        }
    }

    /// The truncated output and whether some line was cut.
    pub(crate) fn finish(self) -> (TruncationResult, bool) {
        (self.collector.finish().0, self.lines_truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truncate::{truncate_head, truncate_line};
    use pretty_assertions::assert_eq;

    #[test]
    fn lines_are_shown_like_pis_lossy_cut_text() {
        for bytes in [
            b"plain\n".as_slice(),
            b"crlf\r\n",
            b"a\rb",
            b"caf\xe9\n",
            "😀".repeat(300).as_bytes(),
            "x".repeat(600).as_bytes(),
            "x".repeat(500).as_bytes(),
        ] {
            let text = String::from_utf8_lossy(bytes.strip_suffix(b"\n").unwrap_or(bytes))
                .replace('\r', "");
            let (text, cut) = truncate_line(&text, GREP_MAX_LINE_LENGTH);
            assert_eq!(display_line(bytes), Shown { text, cut }, "{bytes:?}");
        }
    }

    #[test]
    fn the_output_is_truncate_head_of_the_joined_lines() {
        let shown = Shown {
            text: "y".repeat(40),
            cut: false,
        };
        let mut output = Output::new(200);
        let mut lines = Vec::new();
        for number in 1..=20 {
            output.push_line("dir/f.txt", number, number.is_multiple_of(3), &shown);
            let mark = if number.is_multiple_of(3) { ':' } else { '-' };
            lines.push(format!("dir/f.txt{mark}{number}{mark} {}", shown.text));
        }
        let options = TruncationOptions {
            max_lines: usize::MAX,
            max_bytes: 200,
        };
        assert_eq!(
            output.finish(),
            (truncate_head(&lines.join("\n"), options), false)
        );
    }
}
