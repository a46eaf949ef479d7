//! The cutting loop of a drain: walks the buffer from its start, emits one chunk per step as
//! [`Drain::step`] decides, and reports what is left to keep buffered.

use super::drain_step::{Drain, Step};
use super::{BlockChunker, BreakResult, Emitted, Source, find_next_paragraph_break};
use crate::fences::ByteFence;
use crate::text_scan::count_chars;
use clawloop_core::js_text::{is_js_blank, is_js_whitespace};

/// A fence line the next chunk starts with: the split fence's index and its open line.
type Reopen = Option<(usize, String)>;

/// What a drain leaves buffered.
pub(super) enum Tail {
    /// Nothing was emitted or skipped: the buffer stays as it is.
    Untouched,
    /// The buffer becomes `prefix` followed by the text from byte `from` (char `from_chars`).
    Keep {
        prefix: String,
        from: usize,
        from_chars: usize,
    },
}

/// The loop state of one drain over a buffer that holds `total_chars` chars.
pub(super) struct Cutter<'a> {
    chunker: &'a BlockChunker,
    drain: Drain,
    src: Source<'a>,
    total_chars: usize,
    /// Bytes at the start of the buffer that are a reopened fence line from an earlier drain.
    carried: usize,
    /// Byte offset of the text not yet emitted or skipped.
    start: usize,
    /// `start` in chars.
    start_chars: usize,
    reopen: Reopen,
}

impl<'a> Cutter<'a> {
    /// A cutter at the start of `chunker`'s buffer, whose fences are `fences`.
    pub(super) fn new(chunker: &'a BlockChunker, fences: &'a [ByteFence], drain: Drain) -> Self {
        Self {
            chunker,
            drain,
            src: Source {
                text: &chunker.buffer,
                fences,
                first: 0,
            },
            total_chars: chunker.buffer_chars,
            carried: chunker.synthetic_prefix_bytes,
            start: 0,
            start_chars: 0,
            reopen: None,
        }
    }

    /// Emits chunks until the text is used up or a step waits.
    pub(super) fn run(&mut self, emit: &mut impl FnMut(Emitted)) {
        while self.start < self.src.text.len() {
            if !self.step(emit) {
                break;
            }
        }
    }

    /// What is left to keep buffered.
    pub(super) fn finish(self) -> Tail {
        let text = self.src.text;
        let (prefix, from) = match self.reopen {
            Some((_, prefix)) => (prefix, self.start.min(text.len())),
            None => {
                let from = self.src.skip_newlines(self.start);
                if from == 0 {
                    return Tail::Untouched;
                }
                (String::new(), from)
            }
        };
        let from_chars = self.start_chars + text.get(self.start..from).map_or(0, count_chars);
        Tail::Keep {
            prefix,
            from,
            from_chars,
        }
    }

    /// One chunk (or a skipped blank one); `false` when the drain ends here.
    fn step(&mut self, emit: &mut impl FnMut(Emitted)) -> bool {
        let prefix = self.reopen.take();
        let prefix_len = prefix.as_ref().map_or(0, |(_, p)| count_chars(p));
        let remaining = prefix_len + (self.total_chars - self.start_chars);
        let step = match self.drain.step(remaining) {
            Step::Paragraph { or_break } => {
                let limit = self.drain.max.saturating_sub(prefix_len).max(1);
                match find_next_paragraph_break(&self.src, self.start, self.drain.min, limit) {
                    Some((index, len)) => {
                        self.flush_paragraph(prefix, prefix_len, index, index + len, emit);
                        return true;
                    }
                    None if or_break => Step::Break,
                    None => Step::Wait,
                }
            }
            step => step,
        };
        let result = match step {
            Step::SoftBreak => self.chunker.pick_soft_break(&self.src, self.start),
            Step::Break => {
                let view_chars = self.total_chars - self.start_chars;
                let force = self.drain.force;
                self.chunker
                    .pick_break(&self.src, self.start, view_chars, force)
            }
            Step::Wait | Step::Paragraph { .. } => {
                self.reopen = prefix;
                return false;
            }
        };
        if result.index == 0 {
            if self.drain.force {
                self.emit_rest(prefix, prefix_len, emit);
            } else {
                self.reopen = prefix;
            }
            return false;
        }
        self.cut(prefix, prefix_len, result, emit);
        let next_prefix_len = self.reopen.as_ref().map_or(0, |(_, p)| count_chars(p));
        let left = next_prefix_len + (self.total_chars - self.start_chars);
        self.drain.goes_on_after_cut(left)
    }

    /// Emits the paragraph that ends at byte `index` (unless blank) and moves past the break
    /// that ends at `break_end` and the newlines after it.
    fn flush_paragraph(
        &mut self,
        prefix: Reopen,
        prefix_len: usize,
        index: usize,
        break_end: usize,
        emit: &mut impl FnMut(Emitted),
    ) {
        let text = self.src.text;
        let mut chunk = prefix.map(|(_, p)| p).unwrap_or_default();
        chunk.push_str(&text[self.start..index]);
        if !is_js_blank(chunk.chars()) {
            emit(Emitted {
                text: chunk,
                synthetic_prefix: prefix_len + self.synthetic_before(index),
                synthetic_suffix: 0,
            });
        }
        self.advance(self.src.skip_newlines(break_end));
    }

    /// A forced drain found no break: the rest is one chunk.
    fn emit_rest(&mut self, prefix: Reopen, prefix_len: usize, emit: &mut impl FnMut(Emitted)) {
        let text = self.src.text;
        let mut chunk = prefix.map(|(_, p)| p).unwrap_or_default();
        chunk.push_str(&text[self.start..]);
        emit(Emitted {
            text: chunk,
            synthetic_prefix: prefix_len + self.synthetic_before(text.len()),
            synthetic_suffix: 0,
        });
        self.advance(text.len());
    }

    /// Cuts at `result`: emits the chunk before it (skipped when blank) and moves past it.
    fn cut(
        &mut self,
        prefix: Reopen,
        prefix_len: usize,
        result: BreakResult,
        emit: &mut impl FnMut(Emitted),
    ) {
        let text = self.src.text;
        let absolute = self.start + result.index;
        let synthetic_prefix = prefix_len + self.synthetic_before(absolute);
        let mut chunk = prefix.map(|(_, p)| p).unwrap_or_default();
        chunk.push_str(&text[self.start..absolute]);
        if is_js_blank(chunk.chars()) {
            self.advance(self.src.skip_newlines(absolute));
        } else if let Some(fence_index) = result.fence_split {
            self.split_fence(chunk, synthetic_prefix, absolute, fence_index, emit);
        } else {
            emit(Emitted {
                text: chunk,
                synthetic_prefix,
                synthetic_suffix: 0,
            });
            // Skip one whitespace char after the break, as OpenClaw does (even the first
            // indent space of a fence's open line: the fence stays one with less indent).
            let skipped = text[absolute..]
                .chars()
                .next()
                .filter(|&c| is_js_whitespace(c))
                .map_or(0, char::len_utf8);
            self.advance(self.src.skip_newlines(absolute + skipped));
        }
    }

    /// Emits `chunk`, which ends at byte `absolute` inside fence `fence_index`, with a closing
    /// fence line, and reopens the fence at the start of the next chunk.
    fn split_fence(
        &mut self,
        mut chunk: String,
        synthetic_prefix: usize,
        absolute: usize,
        fence_index: usize,
        emit: &mut impl FnMut(Emitted),
    ) {
        let mut synthetic_suffix = 0;
        if !chunk.ends_with('\n') {
            chunk.push('\n');
            synthetic_suffix += 1;
        }
        let close = self
            .src
            .fences
            .get(fence_index)
            .map(ByteFence::close_fence_line)
            .unwrap_or_default();
        // The closing line is spaces and marker chars: ASCII.
        synthetic_suffix += close.len() + 1;
        chunk.push_str(&close);
        chunk.push('\n');
        emit(Emitted {
            text: chunk,
            synthetic_prefix,
            synthetic_suffix,
        });
        self.advance(absolute);
        self.reopen = Some((fence_index, self.src.reopen_prefix(fence_index)));
    }

    /// Chars of the reopened fence line the buffer started with, inside `start..end`.
    fn synthetic_before(&self, end: usize) -> usize {
        let end = end.min(self.carried);
        self.src.text.get(self.start..end).map_or(0, count_chars)
    }

    /// Moves `start` to byte `to`.
    fn advance(&mut self, to: usize) {
        self.start_chars += self.src.text.get(self.start..to).map_or(0, count_chars);
        self.start = to;
    }
}
