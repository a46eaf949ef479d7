//! pi's context blocks rebuilt from one pass of the searcher.
//!
//! pi prints, for every match, the lines from `N - context` to `N + context` (clamped to the
//! file, whose `split("\n")` has an empty last line when it ends with a newline), and repeats
//! the lines nearby blocks share. The searcher reports each line once, matches and their
//! before/after context; this sink keeps the last lines (at most `2 * context + 1`, each
//! already cut to the shown length) and writes each block as soon as its after-context has
//! arrived, so memory is bounded by the context, not by the file.

use std::collections::VecDeque;
use std::io;

use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};
use tokio_util::sync::CancellationToken;

use crate::grep::format::{Output, Shown, display_line};

/// Matches counted across files, against the limit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Found {
    /// Matching lines taken (at most the limit).
    pub(crate) matches: u64,
    /// Whether the limit was reached (pi sets this on the limit-th match even if no more
    /// follow).
    pub(crate) limit_reached: bool,
}

/// The sink for one file.
pub(crate) struct FileBlocks<'a> {
    /// The file as shown in the output.
    path: &'a str,
    context: u64,
    limit: u64,
    found: &'a mut Found,
    output: &'a mut Output,
    cancel: &'a CancellationToken,
    /// Recent lines, by ascending number.
    lines: VecDeque<(u64, Shown)>,
    /// Matches whose block still waits for after-context.
    open: VecDeque<u64>,
    /// The last line seen and whether it ended with a newline.
    last: Option<(u64, bool)>,
}

impl<'a> FileBlocks<'a> {
    /// A sink writing `path`'s blocks to `output`.
    pub(crate) fn new(
        path: &'a str,
        context: u64,
        limit: u64,
        found: &'a mut Found,
        output: &'a mut Output,
        cancel: &'a CancellationToken,
    ) -> Self {
        FileBlocks {
            path,
            context,
            limit,
            found,
            output,
            cancel,
            lines: VecDeque::new(),
            open: VecDeque::new(),
            last: None,
        }
    }

    /// Takes line `number`; `false` when the search of this file can stop.
    fn line(&mut self, number: u64, bytes: &[u8], is_match: bool) -> bool {
        self.last = Some((number, bytes.ends_with(b"\n")));
        if is_match && !self.found.limit_reached {
            self.open.push_back(number);
            self.found.matches += 1;
            self.found.limit_reached = self.found.matches >= self.limit;
        }
        self.lines.push_back((number, display_line(bytes)));
        while let Some(&center) = self.open.front() {
            if center.saturating_add(self.context) > number {
                break;
            }
            self.open.pop_front();
            self.write_block(center, center.saturating_add(self.context));
        }
        // Kept: what an open block still needs, and the before-context of a later match.
        let next_before = number.saturating_add(1).saturating_sub(self.context);
        let keep_from = self.open.front().map_or(next_before, |center| {
            center.saturating_sub(self.context).min(next_before)
        });
        while self.lines.front().is_some_and(|(n, _)| *n < keep_from) {
            self.lines.pop_front();
        }
        // After the limit, only the open blocks' after-context is still wanted.
        let done = self.found.limit_reached && self.open.is_empty();
        !done && !self.cancel.is_cancelled()
    }

    /// Writes the block of the match on line `center`, up to line `end`.
    fn write_block(&mut self, center: u64, end: u64) {
        let start = center.saturating_sub(self.context).max(1);
        let empty = Shown::default();
        for number in start..=end {
            let line = self
                .lines
                .binary_search_by_key(&number, |(n, _)| *n)
                .ok()
                .and_then(|index| self.lines.get(index))
                .map_or(&empty, |(_, line)| line);
            self.output
                .push_line(self.path, number, number == center, line);
        }
    }

    /// Ends the file: blocks still open reach its last line (plus pi's empty line after a
    /// final newline).
    pub(crate) fn close(mut self) {
        let Some((last, terminated)) = self.last else {
            return;
        };
        let end_of_file = last + u64::from(terminated && self.context > 0);
        while let Some(center) = self.open.pop_front() {
            self.write_block(center, center.saturating_add(self.context).min(end_of_file));
        }
    }
}

impl Sink for FileBlocks<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
        let first = found.line_number().unwrap_or(1);
        let mut go_on = true;
        for (offset, line) in (0u64..).zip(found.lines()) {
            go_on = self.line(first + offset, line, true);
        }
        Ok(go_on)
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> io::Result<bool> {
        let number = context.line_number().unwrap_or(1);
        Ok(self.line(number, context.bytes(), false))
    }
}
