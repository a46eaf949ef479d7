//! pi's `truncateHead` over text that arrives in pieces, in memory bounded by the limits.
//!
//! `read` and `grep` produce their text while streaming a file; holding all of it to cut it
//! afterwards is what made a huge file cost its whole size in memory. The collector keeps only
//! the lines that will be shown and counts the rest, and its result is the
//! [`TruncationResult`] [`truncate_head`](super::truncate_head) gives for the concatenated
//! text, field for field.

use memchr::memchr;

use super::{TruncatedBy, TruncationOptions, TruncationResult};

/// Collects the head of a text pushed in pieces.
#[derive(Debug, Clone)]
pub(crate) struct HeadCollector {
    options: TruncationOptions,
    /// The kept lines, joined by `\n`.
    kept: String,
    kept_lines: usize,
    /// The current line, while it may still be kept.
    line: String,
    /// UTF-8 bytes of the current line so far.
    line_bytes: usize,
    /// Whether the current line still fits.
    line_fits: bool,
    /// Lines ended so far (`\n` seen).
    ended_lines: usize,
    total_bytes: usize,
    first_line_bytes: Option<usize>,
    /// A line did not fit: nothing after it is kept.
    stopped: bool,
}

impl HeadCollector {
    /// An empty collector for `options`.
    pub(crate) fn new(options: TruncationOptions) -> Self {
        HeadCollector {
            options,
            kept: String::new(),
            kept_lines: 0,
            line: String::new(),
            line_bytes: 0,
            line_fits: true,
            ended_lines: 0,
            total_bytes: 0,
            first_line_bytes: None,
            stopped: false,
        }
    }

    /// Appends `piece` to the text.
    pub(crate) fn push(&mut self, piece: &str) {
        self.total_bytes += piece.len();
        let mut rest = piece;
        while let Some(at) = memchr(b'\n', rest.as_bytes()) {
            self.extend_line(&rest[..at]);
            self.end_line();
            rest = &rest[at + 1..];
        }
        self.extend_line(rest);
    }

    /// Appends `bytes` bytes of text without newlines that need not be kept (see
    /// [`HeadCollector::wants_text`]); only counted.
    pub(crate) fn push_uncollected(&mut self, bytes: usize) {
        self.total_bytes += bytes;
        self.line_bytes += bytes;
        self.line_fits = false;
        self.line.clear();
    }

    /// Whether text pushed now could still be kept. When it could not, only its length and
    /// its newlines matter.
    pub(crate) fn wants_text(&self) -> bool {
        !self.stopped && self.line_fits && self.ended_lines < self.options.max_lines
    }

    /// Newlines pushed so far.
    pub(crate) fn newlines(&self) -> usize {
        self.ended_lines
    }

    fn extend_line(&mut self, text: &str) {
        self.line_bytes += text.len();
        if !self.line_fits || self.stopped {
            return;
        }
        let separator = usize::from(self.ended_lines > 0);
        let fits = self.ended_lines < self.options.max_lines
            && self.kept.len() + separator + self.line_bytes <= self.options.max_bytes;
        if fits {
            self.line.push_str(text);
        } else {
            self.line_fits = false;
            self.line = String::new();
        }
    }

    fn end_line(&mut self) {
        self.first_line_bytes.get_or_insert(self.line_bytes);
        if !self.stopped {
            if self.line_fits && self.ended_lines < self.options.max_lines {
                if self.ended_lines > 0 {
                    self.kept.push('\n');
                }
                self.kept.push_str(&self.line);
                self.kept_lines += 1;
            } else {
                self.stopped = true;
            }
        }
        self.line.clear();
        self.line_bytes = 0;
        self.line_fits = true;
        self.ended_lines += 1;
    }

    /// The truncation of everything pushed, and the UTF-8 length of its first line.
    pub(crate) fn finish(mut self) -> (TruncationResult, usize) {
        self.end_line();
        let options = self.options;
        let total_lines = self.ended_lines;
        let total_bytes = self.total_bytes;
        let first_line_bytes = self.first_line_bytes.unwrap_or(0);
        let base = TruncationResult {
            content: String::new(),
            truncated: true,
            truncated_by: Some(TruncatedBy::Bytes),
            total_lines,
            total_bytes,
            output_lines: 0,
            output_bytes: 0,
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines: options.max_lines,
            max_bytes: options.max_bytes,
        };
        let result = if total_lines <= options.max_lines && total_bytes <= options.max_bytes {
            // Every line fitted, so every line was kept.
            TruncationResult {
                output_lines: total_lines,
                output_bytes: self.kept.len(),
                content: self.kept,
                truncated: false,
                truncated_by: None,
                ..base
            }
        } else if first_line_bytes > options.max_bytes {
            TruncationResult {
                first_line_exceeds_limit: true,
                ..base
            }
        } else {
            TruncationResult {
                truncated_by: Some(if self.kept_lines >= options.max_lines {
                    TruncatedBy::Lines
                } else {
                    TruncatedBy::Bytes
                }),
                output_lines: self.kept_lines,
                output_bytes: self.kept.len(),
                content: self.kept,
                ..base
            }
        };
        (result, first_line_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::truncate::truncate_head;
    use pretty_assertions::assert_eq;

    /// Every way of cutting small texts into pieces gives `truncate_head`'s result.
    #[test]
    fn matches_truncate_head_for_every_split() {
        let texts = [
            "",
            "\n",
            "a",
            "a\n",
            "ab\ncd\nef",
            "abc\n\n\nd\n",
            "ééé\nx\n😀😀\n",
            "aaaa\nb",
            "a\nbbbbbbbb\nc",
            "\n\n\n\n\n\n",
        ];
        for text in texts {
            for max_lines in 0..5 {
                for max_bytes in 0..10 {
                    let options = TruncationOptions {
                        max_lines,
                        max_bytes,
                    };
                    let expected = truncate_head(text, options);
                    let first = text.split('\n').next().map_or(0, str::len);
                    for cut in 0..=text.len() {
                        if !text.is_char_boundary(cut) {
                            continue;
                        }
                        let mut collector = HeadCollector::new(options);
                        collector.push(&text[..cut]);
                        collector.push(&text[cut..]);
                        assert_eq!(
                            collector.finish(),
                            (expected.clone(), first),
                            "{text:?} cut at {cut}, {options:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn uncollected_text_is_counted() {
        let options = TruncationOptions {
            max_lines: 10,
            max_bytes: 5,
        };
        let mut collector = HeadCollector::new(options);
        collector.push("ab\ncd");
        assert!(collector.wants_text());
        collector.push("e");
        assert!(!collector.wants_text());
        collector.push_uncollected(1000);
        collector.push("\nz");
        let text = format!("ab\ncde{}\nz", "\0".repeat(1000));
        assert_eq!(collector.finish(), (truncate_head(&text, options), 2));
    }
}
