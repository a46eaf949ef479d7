//! Block chunker for streamed replies (reference §19, OpenClaw `pi-embedded-block-chunker.ts`).
//!
//! Text is appended with [`BlockChunker::push`]; [`BlockChunker::drain`] emits the chunks that
//! are ready. A non-forced drain keeps at least `min_chars` and waits for a good break; a forced
//! drain empties the buffer. Breaks prefer a paragraph, then a newline, then a sentence end, then
//! whitespace, and never fall inside a fenced code block unless a block is longer than
//! `max_chars`: then the chunk closes the fence and the next one reopens it.
//!
//! One deliberate difference from OpenClaw (SPEC §6): when a fence must be split and the fence's
//! own closing line starts at or after `min_chars` and at or before `max_chars`, the chunk ends
//! after that closing line (exceeding `max_chars` by that line) instead of closing synthetically
//! and reopening an empty fence.
//!
//! All lengths (`min_chars`, `max_chars`) are in `char`s (Unicode scalar values). The drain
//! itself works on byte offsets into the buffer and counts chars only where a length is
//! compared: every position it looks at is a char boundary, and the order of two positions is
//! the same in bytes and in chars, so each char-index comparison of OpenClaw's algorithm
//! becomes a byte comparison against the byte offset of the char index it names.

mod cutter;
mod drain_step;

use crate::fences::{ByteFence, byte_fence_index_at, match_fence_line, parse_fences_into};
use crate::text_scan::{char_offset, count_chars, find_newline};
use clawloop_core::js_text::{is_js_blank, is_js_whitespace};
use cutter::{Cutter, Tail};
use drain_step::Drain;

/// Which break the chunker looks for first (reference §19 `breakPreference`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum BreakPreference {
    /// Paragraph break (`\n\n`), then newline, then sentence end, then whitespace.
    #[default]
    Paragraph,
    /// Newline, then whitespace; never a sentence end.
    Newline,
    /// Sentence end (`.`, `!` or `?` before whitespace), then whitespace.
    Sentence,
}

impl BreakPreference {
    /// The configuration spelling: `paragraph`, `newline` or `sentence`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Paragraph => "paragraph",
            Self::Newline => "newline",
            Self::Sentence => "sentence",
        }
    }

    /// Parses the configuration spelling; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "paragraph" => Some(Self::Paragraph),
            "newline" => Some(Self::Newline),
            "sentence" => Some(Self::Sentence),
            _ => None,
        }
    }
}

/// Chunk sizing options (OpenClaw `BlockReplyChunking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkingOptions {
    /// Smallest chunk a non-forced drain emits (values below 1 count as 1).
    pub min_chars: usize,
    /// Largest chunk before a hard break (values below `min_chars` count as `min_chars`).
    pub max_chars: usize,
    /// Which break to look for first.
    pub break_preference: BreakPreference,
    /// Emit each paragraph as soon as it is complete and at least `min_chars` long.
    pub flush_on_paragraph: bool,
}

impl Default for ChunkingOptions {
    /// OpenClaw's auto-reply defaults: 800 / 1200, paragraph preference.
    fn default() -> Self {
        Self {
            min_chars: 800,
            max_chars: 1200,
            break_preference: BreakPreference::Paragraph,
            flush_on_paragraph: false,
        }
    }
}

/// Buffers streamed text and cuts it into reply-sized blocks.
///
/// ```
/// use clawloop_subscribe::{BlockChunker, BreakPreference, ChunkingOptions};
///
/// let mut chunker = BlockChunker::new(ChunkingOptions {
///     min_chars: 10,
///     max_chars: 60,
///     break_preference: BreakPreference::Paragraph,
///     flush_on_paragraph: false,
/// });
/// chunker.push("First paragraph here.\n\nSecond ");
/// assert_eq!(chunker.drain_to_vec(false), vec!["First paragraph here."]);
/// assert_eq!(chunker.buffer(), "Second ");
/// assert_eq!(chunker.drain_to_vec(true), vec!["Second "]);
/// ```
#[derive(Debug, Clone)]
pub struct BlockChunker {
    options: ChunkingOptions,
    buffer: String,
    /// `buffer.chars().count()`, kept so a drain below `min_chars` costs nothing.
    buffer_chars: usize,
    /// How many bytes at the start of `buffer` are a reopened fence line added by the chunker
    /// (not text that was pushed). Only bookkeeping for [`Emitted`].
    synthetic_prefix_bytes: usize,
    /// Set while a non-forced drain is known to emit nothing (see [`FenceStall`]).
    fence_stall: Option<FenceStall>,
    /// Byte length of the buffer at the last non-forced drain that emitted nothing and left
    /// the buffer as it was; `None` once the buffer changed otherwise than by a push.
    ///
    /// Such a drain searched the whole buffer for a break and found none, and a push does
    /// not change that verdict for the text before this offset: a candidate there stays one
    /// or not (fences only grow over later text, and only the last char's lookahead for a
    /// sentence end changes, from "end of text" to a char that must then be whitespace to
    /// count). So while the buffer stays shorter than `max_chars`, which rules out a hard
    /// break, the next drain has to look only at what was pushed since
    /// ([`may_break_after`](Self::may_break_after)). Without this, every drain of a long
    /// text without a usable break (`max_chars` huge, no whitespace) scanned the whole
    /// buffer again, quadratic in the text.
    searched_to: Option<usize>,
    /// Bytes the full searches of non-forced drains looked at, for the linearity tests.
    #[cfg(test)]
    full_drain_bytes: usize,
    /// The fence spans of the last drain, kept for the allocation.
    fences: Vec<ByteFence>,
}

/// A non-forced drain emitted nothing because the buffer ends inside a code fence whose
/// complete opening line starts before `min_chars`. Every break candidate at or past
/// `min_chars` then lies inside that fence, so until the buffer reaches `max_chars` or a line
/// closes the fence, every further non-forced drain emits nothing too. Remembering it makes
/// those drains O(1) instead of parsing the whole buffer again per delta, which dominated
/// streaming a long code block in small deltas.
#[derive(Debug, Clone, Copy)]
struct FenceStall {
    marker_char: char,
    marker_len: usize,
    /// Byte offset in `buffer` of its last line, the only one not yet known not to close the
    /// fence.
    line_start: usize,
}

impl FenceStall {
    /// `true` when `line` (without its `\n`) closes the fence, as [`parse_fences_into`] would
    /// decide it.
    fn is_closed_by(&self, line: &str) -> bool {
        // Cheap reject first: nearly every line inside a fence is code, not a marker run.
        if !line.trim_start_matches(' ').starts_with(self.marker_char) {
            return false;
        }
        match_fence_line(line)
            .is_some_and(|f| f.marker_char == self.marker_char && f.marker_len >= self.marker_len)
    }
}

/// A chunk together with how much of it the chunker added around the pushed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Emitted {
    pub text: String,
    /// Leading chars that are a reopened fence line.
    // Read only by the property tests, which rebuild the pushed text from the chunks.
    #[cfg_attr(not(test), allow(dead_code))]
    pub synthetic_prefix: usize,
    /// Trailing chars that are a synthetic fence close (its newlines included).
    #[cfg_attr(not(test), allow(dead_code))]
    pub synthetic_suffix: usize,
}

/// Where to cut, as a byte offset relative to the current view, and whether the cut lands
/// inside a fence.
#[derive(Debug, Clone, Copy)]
struct BreakResult {
    /// Break offset relative to `start`; 0 means "no break".
    index: usize,
    /// Index of the fence span being split, if the cut is inside it.
    fence_split: Option<usize>,
}

impl BreakResult {
    const NONE: Self = Self {
        index: 0,
        fence_split: None,
    };

    fn at(index: usize) -> Self {
        Self {
            index,
            fence_split: None,
        }
    }
}

/// The text a drain works on, with its fences; positions are byte offsets into `text`.
struct Source<'a> {
    text: &'a str,
    fences: &'a [ByteFence],
    /// Index of `fences[0]` in the drain's whole fence list.
    first: usize,
}

impl<'a> Source<'a> {
    /// The same text with only the fences that can hold an offset in `from..=to`, so that the
    /// fence lookups of a search there cost as much in a long buffer as in a short one.
    fn near(&self, from: usize, to: usize) -> Source<'a> {
        let low = self.fences.partition_point(|f| f.end <= from);
        let high = low + self.fences[low..].partition_point(|f| f.start < to);
        Source {
            text: self.text,
            fences: &self.fences[low..high],
            first: self.first + low,
        }
    }

    /// `true` when cutting at `index` does not cut through a fenced block.
    fn is_safe_break(&self, index: usize) -> bool {
        byte_fence_index_at(self.fences, index).is_none()
    }

    /// The line that reopens a split fence at the start of the next chunk.
    fn reopen_prefix(&self, fence: usize) -> String {
        let mut prefix = self
            .fences
            .get(fence)
            .map_or("", |f| f.open_line(self.text))
            .to_owned();
        prefix.push('\n');
        prefix
    }

    /// The first offset at or after `from` that is not a `\n`.
    fn skip_newlines(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from.min(bytes.len());
        while bytes.get(i) == Some(&b'\n') {
            i += 1;
        }
        i
    }
}

impl BlockChunker {
    /// An empty chunker.
    pub fn new(options: ChunkingOptions) -> Self {
        Self {
            options,
            buffer: String::new(),
            buffer_chars: 0,
            synthetic_prefix_bytes: 0,
            fence_stall: None,
            searched_to: None,
            #[cfg(test)]
            full_drain_bytes: 0,
            fences: Vec::new(),
        }
    }

    /// The options this chunker was built with.
    pub fn options(&self) -> ChunkingOptions {
        self.options
    }

    /// Appends streamed text to the buffer.
    pub fn push(&mut self, text: &str) {
        let old_len = self.buffer.len();
        self.buffer.push_str(text);
        self.buffer_chars += count_chars(text);
        if let Some(stall) = self.fence_stall.as_mut() {
            // Only the lines this text completes can close the fence; the last, incomplete
            // line is checked by the next drain.
            let bytes = self.buffer.as_bytes();
            let mut from = old_len;
            while let Some(at) = bytes.get(from..).and_then(find_newline) {
                let line_end = from + at;
                if stall.is_closed_by(&self.buffer[stall.line_start..line_end]) {
                    self.fence_stall = None;
                    return;
                }
                stall.line_start = line_end + 1;
                from = line_end + 1;
            }
        }
    }

    /// The text buffered and not yet emitted.
    pub fn buffer(&self) -> &str {
        &self.buffer
    }

    /// `true` when something is buffered.
    pub fn has_buffered(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// Drops the buffer.
    pub fn reset(&mut self) {
        self.buffer.clear();
        self.buffer_chars = 0;
        self.synthetic_prefix_bytes = 0;
        self.fence_stall = None;
        self.searched_to = None;
    }

    /// [`drain`](Self::drain) collecting the chunks into a vector.
    pub fn drain_to_vec(&mut self, force: bool) -> Vec<String> {
        let mut chunks = Vec::new();
        self.drain(force, |chunk| chunks.push(chunk));
        chunks
    }

    /// Emits the chunks that are ready, in order (reference §19 `drain`).
    ///
    /// Not forced, it keeps text until a good break exists and leaves the tail buffered. Forced,
    /// it empties the buffer (a buffer of whitespace only that fits in `max_chars` is dropped).
    pub fn drain(&mut self, force: bool, mut emit: impl FnMut(String)) {
        self.drain_detailed(force, |chunk| emit(chunk.text));
    }

    /// [`drain`](Self::drain) that also reports which parts of each chunk are synthetic fence
    /// lines, so tests can rebuild the pushed text from the chunks.
    pub(crate) fn drain_detailed(&mut self, force: bool, mut emit: impl FnMut(Emitted)) {
        let min = self.options.min_chars.max(1);
        let max = self.options.max_chars.max(min);
        if self.skips_drain(force, min, max) {
            return;
        }
        if force && self.buffer_chars <= max {
            self.emit_whole(&mut emit);
            return;
        }
        // One fence parse per drain; the cutter works on offsets so a long forced drain stays
        // linear instead of re-slicing the rest at every chunk.
        let mut fences = std::mem::take(&mut self.fences);
        self.parse_drain_fences(force, &mut fences);
        let drain = Drain {
            force,
            flush_on_paragraph: self.options.flush_on_paragraph,
            min,
            max,
        };
        let mut cutter = Cutter::new(self, &fences, drain);
        cutter.run(&mut emit);
        let tail = cutter.finish();
        self.keep_tail(tail, &fences, drain);
        self.fences = fences;
    }

    /// `true` when a drain can tell without searching that it emits nothing (a non-forced
    /// drain below `min_chars`, in a [`FenceStall`], or with nothing new to break at since
    /// [`searched_to`](Self::searched_to)).
    fn skips_drain(&mut self, force: bool, min: usize, max: usize) -> bool {
        if !force && self.buffer_chars < min {
            return true;
        }
        if !force
            && self.buffer_chars < max
            && let Some(stall) = &self.fence_stall
            && !stall.is_closed_by(&self.buffer[stall.line_start..])
        {
            return true;
        }
        self.fence_stall = None;
        let no_hard_break = !force && self.buffer_chars < max;
        if no_hard_break
            && let Some(searched) = self.searched_to
            && !self.may_break_after(searched)
        {
            self.searched_to = Some(self.buffer.len());
            return true;
        }
        #[cfg(test)]
        if no_hard_break {
            self.full_drain_bytes += self.buffer.len();
        }
        self.searched_to = None;
        false
    }

    /// A forced drain of a buffer that fits in `max_chars`: all of it is one chunk, unless it
    /// is blank.
    fn emit_whole(&mut self, emit: &mut impl FnMut(Emitted)) {
        if !is_js_blank(self.buffer.chars()) {
            let synthetic_prefix = self
                .buffer
                .get(..self.synthetic_prefix_bytes)
                .map_or(0, count_chars);
            emit(Emitted {
                text: std::mem::take(&mut self.buffer),
                synthetic_prefix,
                synthetic_suffix: 0,
            });
        }
        self.reset();
    }

    /// Parses the buffer's fences into `fences` as a drain sees them.
    fn parse_drain_fences(&self, force: bool, fences: &mut Vec<ByteFence>) {
        parse_fences_into(&self.buffer, fences);
        if !force {
            // clawloop (SPEC §6, "never splitting inside a code fence"): while text is still
            // streaming, a fence that is not closed yet goes on past the end of the buffer.
            // OpenClaw treats the buffer end as the fence's end, so a sentence end or the hard
            // break landing exactly there emits an unclosed code block; the next chunk then
            // starts with the fence's closing line, which opens a fence there and turns the
            // rest of that chunk into code, so its think tags are no longer removed (OpenClaw
            // 2026.4.12 leaks reasoning that way).
            if let Some(last) = fences.last_mut().filter(|f| !f.is_closed()) {
                last.end = self.buffer.len() + 1;
            }
        }
    }

    /// Leaves `tail` buffered; `fences` are the drain's.
    fn keep_tail(&mut self, tail: Tail, fences: &[ByteFence], drain: Drain) {
        let Tail::Keep {
            prefix,
            from,
            from_chars,
        } = tail
        else {
            if !drain.force {
                let src = Source {
                    text: &self.buffer,
                    fences,
                    first: 0,
                };
                self.fence_stall = fence_stall(&src, self.buffer_chars, drain.min, drain.max);
                self.searched_to = Some(self.buffer.len());
            }
            return;
        };
        self.synthetic_prefix_bytes = if prefix.is_empty() {
            self.synthetic_prefix_bytes.saturating_sub(from)
        } else {
            prefix.len()
        };
        self.buffer_chars = count_chars(&prefix) + (self.buffer_chars - from_chars);
        // In place: the tail moves to the front of the same allocation.
        self.buffer.replace_range(..from, &prefix);
    }

    /// `true` when the text pushed since byte `from` may give a non-forced drain of a buffer
    /// shorter than `max_chars` a break that the buffer up to `from` did not have (see
    /// [`searched_to`](Self::searched_to)). Such a drain breaks only at a `\n` with
    /// `flush_on_paragraph` (it stops before the other searches) or the newline preference
    /// (no sentence or whitespace break below `max_chars`); otherwise at any whitespace char,
    /// or after a sentence end, which is followed by whitespace or ends the buffer.
    fn may_break_after(&self, from: usize) -> bool {
        let pushed = self.buffer.get(from..).unwrap_or_default();
        if self.options.flush_on_paragraph
            || self.options.break_preference == BreakPreference::Newline
        {
            return find_newline(pushed.as_bytes()).is_some();
        }
        pushed.chars().any(is_js_whitespace) || self.buffer.ends_with(['.', '!', '?'])
    }

    /// Forward search used when a forced remainder fits within `max_chars`
    /// (OpenClaw `pickSoftBreakIndex`, with a minimum of 1).
    fn pick_soft_break(&self, src: &Source<'_>, start: usize) -> BreakResult {
        let view = &src.text[start..];
        let src = &src.near(start, src.text.len());
        // The offset of char 1: a non-empty view has it.
        let Some(min) = char_offset(view, 1) else {
            return BreakResult::NONE;
        };
        let preference = self.options.break_preference;
        if preference == BreakPreference::Paragraph
            && let Some(i) = paragraph_break_forward(src, start, view, min)
        {
            return BreakResult::at(i);
        }
        if matches!(
            preference,
            BreakPreference::Paragraph | BreakPreference::Newline
        ) && let Some(i) = newline_break_forward(src, start, view, min)
        {
            return BreakResult::at(i);
        }
        if preference != BreakPreference::Newline
            && let Some(i) = sentence_break(src, start, view, min)
        {
            return BreakResult::at(i);
        }
        BreakResult::NONE
    }

    /// Backward search inside the `max_chars` window, with the hard break as the last resort
    /// (OpenClaw `pickBreakIndex`; a forced drain searches with a minimum of 1). `view_chars`
    /// is the length in chars of the view, the buffer from `start` on.
    fn pick_break(
        &self,
        src: &Source<'_>,
        start: usize,
        view_chars: usize,
        force: bool,
    ) -> BreakResult {
        let min_chars = if force {
            1
        } else {
            self.options.min_chars.max(1)
        };
        let max_chars = self.options.max_chars.max(min_chars);
        let view = &src.text[start..];
        // `min` and `max` are the byte offsets in `view` of char indices `min_chars` and
        // `max_chars` (`max` capped at the view's end), so `window` is its first `max_chars`.
        let Some(min) = char_offset(view, min_chars) else {
            return BreakResult::NONE;
        };
        let max = char_offset(&view[min..], max_chars - min_chars).map_or(view.len(), |p| min + p);
        let window = &view[..max];
        // Every offset looked up below is at most `start + max`.
        let src = &src.near(start, start + max);
        let preference = self.options.break_preference;

        if preference == BreakPreference::Paragraph
            && let Some(i) = paragraph_break_backward(src, start, window, min)
        {
            return BreakResult::at(i);
        }
        if matches!(
            preference,
            BreakPreference::Paragraph | BreakPreference::Newline
        ) && let Some(i) = newline_break_backward(src, start, window, min)
        {
            return BreakResult::at(i);
        }
        if preference != BreakPreference::Newline
            && let Some(i) = sentence_break(src, start, window, min)
        {
            return BreakResult::at(i);
        }
        if preference == BreakPreference::Newline && view_chars < max_chars {
            return BreakResult::NONE;
        }
        if let Some((i, _)) = window[min..]
            .char_indices()
            .rev()
            .find(|&(i, c)| is_js_whitespace(c) && src.is_safe_break(start + min + i))
        {
            return BreakResult::at(min + i);
        }
        if view_chars < max_chars {
            return BreakResult::NONE;
        }
        // From here on the view holds at least `max_chars` chars: `max` is char `max_chars`.
        if src.is_safe_break(start + max) {
            if !force && cuts_possible_fence_opener(view, max) {
                // clawloop (SPEC §6, "never splitting inside a code fence"): the last line so
                // far may still grow into a fence opener (say a lone backtick of a coming
                // ```); cutting through it would split the fence's open line across chunks,
                // and the next chunk would pair the fence's closing line with whatever fence
                // line follows, leaving the text after it unfiltered as code. It is at most
                // five chars, so wait for the rest of the line.
                return BreakResult::NONE;
            }
            return BreakResult::at(max);
        }
        let Some(fence_index) = byte_fence_index_at(src.fences, start + max) else {
            return BreakResult::at(max);
        };
        let Some(fence) = src.fences.get(fence_index) else {
            return BreakResult::at(max);
        };
        // OpenClaw `findFenceCloseLineStart`: the start of the last line of the fence within
        // the view (for an unclosed fence, the last line buffered so far).
        let fence_end = fence.end.saturating_sub(start).min(view.len());
        let last_line_start = view[..fence_end].rfind('\n').map(|p| p + 1);
        let mut index = match last_line_start {
            Some(s) if s >= min && s < max => s,
            _ => max,
        };

        // clawloop fix (SPEC §6): end the chunk after the fence's own closing line rather than
        // closing synthetically and reopening a fence that would hold nothing. That is the
        // case when the closing line starts within [min, max]; it is also the only sane cut
        // when it starts before min (max then falls inside the closing line itself) or when
        // only blank lines would be left to the reopened fence.
        if let Some(close_start) = fence.close_line_start.and_then(|c| c.checked_sub(start)) {
            let blank_rest = is_js_blank(view[index.min(close_start)..close_start].chars());
            if close_start <= max || blank_rest {
                return BreakResult::at(fence.end - start);
            }
        }

        // clawloop (SPEC §6, "never an empty code block"): a cut that keeps no content line of
        // a fence opening in this chunk would emit its open line (or part of it) right before
        // the synthetic close. Cut at max inside the content when that keeps some, otherwise
        // move the whole fence to the next chunk.
        // The view may begin inside the open line's indentation (the one whitespace char skipped
        // after the previous break), so a fence starting just before `start` still opens here.
        let opens_here = fence.start >= start || is_js_blank(src.text[fence.start..start].chars());
        if opens_here {
            let fence_start = fence.start.saturating_sub(start);
            // Just past the open line's `\n` (one past the view's end while it has none).
            let open_line_end = fence.open_end.saturating_sub(start) + 1;
            if index <= open_line_end {
                if max > open_line_end {
                    index = max;
                } else if fence_start > 0 {
                    return BreakResult::at(fence_start);
                }
            }
        }

        if !force && !fence.is_closed() && may_become_empty(&view[index..], fence) {
            // clawloop (SPEC §6, "never an empty code block"): the text carried under the
            // reopened fence line is blank or may be the start of the closing line still
            // streaming in, which would later form an empty block. Wait for more text; once the
            // closing line is complete the rule above applies.
            return BreakResult::NONE;
        }
        BreakResult {
            index,
            fence_split: Some(src.first + fence_index),
        }
    }
}

/// The [`FenceStall`] of a buffer that a non-forced drain left untouched, if it has one.
/// `src.fences` are the drain's spans, the last one extended past the end of the text, which
/// holds `total_chars` chars, at least `min`.
fn fence_stall(src: &Source<'_>, total_chars: usize, min: usize, max: usize) -> Option<FenceStall> {
    let min_offset = char_offset(src.text, min)?;
    let last = src
        .fences
        .last()
        .filter(|f| !f.is_closed() && f.start < min_offset)?;
    // The opening line must be complete: text appended to it could still unmake the fence.
    let open_line_complete = last.open_end < src.text.len();
    if total_chars >= max || !open_line_complete {
        return None;
    }
    Some(FenceStall {
        marker_char: last.line.marker_char,
        marker_len: last.line.marker_len,
        line_start: src.text.rfind('\n').map_or(0, |p| p + 1),
    })
}

/// `true` when `index` falls strictly inside the view's last (still growing) line and that line
/// may still become a fence line: up to three spaces, then only one kind of marker char.
fn cuts_possible_fence_opener(view: &str, index: usize) -> bool {
    let line_start = view.rfind('\n').map_or(0, |p| p + 1);
    if index <= line_start {
        return false;
    }
    let line = &view.as_bytes()[line_start..];
    let indent = line.iter().take(3).take_while(|&&b| b == b' ').count();
    let rest = &line[indent..];
    match rest.first() {
        Some(&marker) if marker == b'`' || marker == b'~' => rest.iter().all(|&b| b == marker),
        Some(_) => false,
        None => true,
    }
}

/// `true` when `tail`, the text that would follow a reopened fence line, could still end up as
/// an empty block: blank lines, then a last line that may grow into the closing line (up to
/// three spaces, then only marker chars).
fn may_become_empty(tail: &str, fence: &ByteFence) -> bool {
    let marker = fence.line.marker_char;
    let last_line = tail.rfind('\n').map_or(0, |p| p + 1);
    if !is_js_blank(tail[..last_line].chars()) {
        return false;
    }
    let line = &tail[last_line..];
    let indent = line.bytes().take(3).take_while(|&b| b == b' ').count();
    line[indent..].chars().all(|c| c == marker)
}

/// Offset in `view` of the last `\n\n` that starts at or after `min` and before `end`.
fn last_double_newline(view: &[u8], min: usize, end: usize) -> Option<usize> {
    (min..end.min(view.len().saturating_sub(1)))
        .rev()
        .find(|&i| view[i] == b'\n' && view[i + 1] == b'\n')
}

/// Tries the two candidates of a `\n\n` at `at` in `view` (the first newline, then the second):
/// at or past `min`, before the end of `view`, outside fences.
fn paragraph_candidate(
    src: &Source<'_>,
    start: usize,
    view: &str,
    min: usize,
    at: usize,
) -> Option<usize> {
    [at, at + 1]
        .into_iter()
        .find(|&c| c >= min && c < view.len() && src.is_safe_break(start + c))
}

/// The first `\n\n` of `view` (JS `indexOf` from 0, then from past each rejected match) with
/// an acceptable candidate.
fn paragraph_break_forward(
    src: &Source<'_>,
    start: usize,
    view: &str,
    min: usize,
) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = view.get(from..).and_then(|rest| rest.find("\n\n")) {
        let at = from + found;
        if let Some(c) = paragraph_candidate(src, start, view, min, at) {
            return Some(c);
        }
        from = at + 2;
    }
    None
}

/// The last `\n\n` of `window` (JS `lastIndexOf`, then from just before each rejected match)
/// with an acceptable candidate. Matches before `min` end the search: neither of their
/// candidates can be at or past `min`.
fn paragraph_break_backward(
    src: &Source<'_>,
    start: usize,
    window: &str,
    min: usize,
) -> Option<usize> {
    let bytes = window.as_bytes();
    let mut end = bytes.len();
    while let Some(at) = last_double_newline(bytes, min, end) {
        if let Some(c) = paragraph_candidate(src, start, window, min, at) {
            return Some(c);
        }
        end = at;
    }
    None
}

fn newline_break_forward(src: &Source<'_>, start: usize, view: &str, min: usize) -> Option<usize> {
    view.get(min..)?
        .match_indices('\n')
        .map(|(i, _)| min + i)
        .find(|&i| src.is_safe_break(start + i))
}

fn newline_break_backward(
    src: &Source<'_>,
    start: usize,
    window: &str,
    min: usize,
) -> Option<usize> {
    window
        .get(min..)?
        .rmatch_indices('\n')
        .map(|(i, _)| min + i)
        .find(|&i| src.is_safe_break(start + i))
}

/// The break after the last `[.!?](?=\s|$)` at or past `min` whose break point is outside a
/// fence (OpenClaw `findSafeSentenceBreakIndex`). `$` is the end of `view`, which may be the
/// `max_chars` window rather than the whole buffer.
fn sentence_break(src: &Source<'_>, start: usize, view: &str, min: usize) -> Option<usize> {
    let bytes = view.as_bytes();
    (min..bytes.len()).rev().find_map(|at| {
        let punct = matches!(bytes[at], b'.' | b'!' | b'?');
        if !punct {
            return None;
        }
        // The punctuation is ASCII, so `at + 1` is a char boundary.
        let followed = view[at + 1..].chars().next().is_none_or(is_js_whitespace);
        let candidate = at + 1;
        (followed && src.is_safe_break(start + candidate)).then_some(candidate)
    })
}

/// The first paragraph break (`/\n[\t ]*\n+/`) found scanning from `start` that lies at least
/// `min` chars after `start` and outside fences, if it lies within `limit` chars of `start`.
/// Returns its byte offset and the byte length of the match (all ASCII).
///
/// The scan stops once a match could only start past `limit`, which gives the same answer as
/// OpenClaw's unbounded regex scan followed by its `index - start <= limit` check, without
/// rescanning a long paragraph-less tail on every loop of a drain.
fn find_next_paragraph_break(
    src: &Source<'_>,
    start: usize,
    min: usize,
    limit: usize,
) -> Option<(usize, usize)> {
    let text = src.text;
    let bytes = text.as_bytes();
    // A match is taken only within `limit` chars of `start`.
    let reach = char_offset(&text[start..], limit).map_or(text.len(), |p| start + p);
    let src = &src.near(start, reach);
    // `i` is a byte offset, `distance` the chars from `start` to it.
    let mut i = start;
    let mut distance = 0usize;
    loop {
        let newline = i + text.get(i..)?.find('\n')?;
        distance += count_chars(&text[i..newline]);
        i = newline;
        if distance > limit {
            return None;
        }
        let mut j = i + 1;
        while bytes.get(j).is_some_and(|&b| b == b'\t' || b == b' ') {
            j += 1;
        }
        if bytes.get(j) != Some(&b'\n') {
            i += 1;
            distance += 1;
            continue;
        }
        let end = src.skip_newlines(j);
        if distance >= min && src.is_safe_break(i) {
            return Some((i, end - i));
        }
        // A skipped match is consumed whole, as the global regex's `lastIndex` moves past it.
        distance += end - i;
        i = end;
    }
}

#[cfg(test)]
mod props;

#[cfg(test)]
mod tests {
    use super::*;

    fn chunker(min: usize, max: usize, pref: BreakPreference, flush: bool) -> BlockChunker {
        BlockChunker::new(ChunkingOptions {
            min_chars: min,
            max_chars: max,
            break_preference: pref,
            flush_on_paragraph: flush,
        })
    }

    const F: &str = "```";

    #[test]
    fn reference_vector_paragraph_after_fence_close() {
        let mut c = chunker(1, 40, BreakPreference::Paragraph, false);
        c.push(&format!(
            "Intro\n{F}js\nconsole.log('x')\n{F}\n\nAfter first line\nAfter second line"
        ));
        let chunks = c.drain_to_vec(false);
        assert_eq!(chunks, vec![format!("Intro\n{F}js\nconsole.log('x')\n{F}")]);
        assert!(c.buffer().starts_with("After"));
    }

    #[test]
    fn reference_vectors_flush_on_paragraph() {
        let mut c = chunker(30, 200, BreakPreference::Paragraph, true);
        c.push("First paragraph.\n\nSecond paragraph.\n\nThird paragraph.");
        assert_eq!(
            c.drain_to_vec(false),
            vec!["First paragraph.\n\nSecond paragraph."]
        );
        assert_eq!(c.buffer(), "Third paragraph.");

        let mut c = chunker(100, 200, BreakPreference::Paragraph, true);
        c.push("First paragraph.\n \nSecond paragraph.");
        assert!(c.drain_to_vec(false).is_empty());
        assert_eq!(
            c.drain_to_vec(true),
            vec!["First paragraph.\n \nSecond paragraph."]
        );
        assert_eq!(c.buffer(), "");

        let mut c = chunker(1, 10, BreakPreference::Paragraph, true);
        c.push("abcdefghijKLMNOP");
        assert_eq!(c.drain_to_vec(false), vec!["abcdefghij"]);
        assert_eq!(c.buffer(), "KLMNOP");

        let mut c = chunker(1, 10, BreakPreference::Paragraph, true);
        c.push("abcdefghijk\n\nRest");
        assert_eq!(c.drain_to_vec(false), vec!["abcdefghij", "k"]);
        assert_eq!(c.buffer(), "Rest");

        let mut c = chunker(10, 200, BreakPreference::Paragraph, true);
        c.push(&format!(
            "Intro\n{F}js\nconst a = 1;\n\nconst b = 2;\n{F}\n\nAfter fence"
        ));
        assert_eq!(
            c.drain_to_vec(false),
            vec![format!("Intro\n{F}js\nconst a = 1;\n\nconst b = 2;\n{F}")]
        );
        assert_eq!(c.buffer(), "After fence");
    }

    #[test]
    fn reference_vector_forced_fence_split() {
        let mut c = chunker(10, 30, BreakPreference::Paragraph, false);
        c.push(&format!("{F}txt\n{}\n{F}", "a".repeat(80)));
        let chunks = c.drain_to_vec(true);
        assert!(chunks.len() > 1);
        for chunk in &chunks {
            assert!(chunk.starts_with("```txt"), "{chunk:?}");
            assert!(chunk.matches(F).count() >= 2, "{chunk:?}");
            assert!(!chunk.ends_with("``") || chunk.ends_with(F), "{chunk:?}");
            assert!(!chunk.contains("```txt\n```"), "empty fence in {chunk:?}");
        }
        assert_eq!(c.buffer(), "");
    }

    #[test]
    fn unclosed_fence_splits_at_last_line_and_reopens() {
        // The last buffered line starts inside [min, max): cut there.
        let mut c = chunker(5, 20, BreakPreference::Paragraph, false);
        c.push("```py\nab\ncd\nefghijklmnop");
        assert_eq!(c.drain_to_vec(false), vec!["```py\nab\ncd\n```\n"]);
        assert_eq!(c.buffer(), "```py\nefghijklmnop");

        // It starts past max: hard cut at max, as OpenClaw does.
        let mut c = chunker(5, 20, BreakPreference::Paragraph, false);
        c.push("```py\nline one\nline two\nline th");
        assert_eq!(c.drain_to_vec(false), vec!["```py\nline one\nline \n```\n"]);
        assert_eq!(c.buffer(), "```py\ntwo\nline th");
    }

    #[test]
    fn streaming_never_ends_a_chunk_inside_an_open_fence() {
        // OpenClaw would take the sentence end at the buffer end (the end of the still-open
        // fence) and emit `Intro.\n```py\nprint(1).` with no closing line.
        let mut c = chunker(5, 60, BreakPreference::Sentence, false);
        c.push("Intro.\n```py\nprint(1).");
        assert_eq!(c.drain_to_vec(false), vec!["Intro."]);
        assert_eq!(c.buffer(), "```py\nprint(1).");
        // Same with the hard break: the buffer is exactly max chars long.
        let mut c = chunker(5, 12, BreakPreference::Paragraph, false);
        c.push("```\nabcdefgh");
        assert!(c.drain_to_vec(false).is_empty());
        c.push("ij\n```");
        assert_eq!(
            c.drain_to_vec(true),
            vec!["```\nabcdefgh\n```\n", "```\nij\n```"]
        );
    }

    #[test]
    fn streaming_waits_for_a_partial_closing_line() {
        // OpenClaw would cut before `\n``` and carry `` under a reopened fence, so the block
        // it completes into later would be empty.
        let mut c = chunker(5, 20, BreakPreference::Paragraph, false);
        c.push("```\naaaaaaaaaaaaaaa\n``");
        assert!(c.drain_to_vec(false).is_empty());
        c.push("`\n\nAfter");
        assert_eq!(c.drain_to_vec(false), vec!["```\naaaaaaaaaaaaaaa\n```"]);
        assert_eq!(c.buffer(), "After");
    }

    #[test]
    fn closing_line_before_min_still_ends_the_chunk() {
        // max falls inside the closing line while it starts before min: end after it rather
        // than cutting the marker in two.
        let mut c = chunker(30, 30, BreakPreference::Paragraph, false);
        c.push(&format!(
            "{F}txt\n{}\n{F}\n\nNext paragraph text",
            "b".repeat(21)
        ));
        assert_eq!(
            c.drain_to_vec(false),
            vec![format!("{F}txt\n{}\n{F}", "b".repeat(21))]
        );
        assert_eq!(c.buffer(), "Next paragraph text");
    }

    #[test]
    fn whitespace_skip_after_a_break_takes_a_fence_indent_space() {
        // As in OpenClaw: one whitespace char after the break is skipped, here the first
        // indent space of the fence's open line; the line stays a fence line.
        let mut c = chunker(1, 12, BreakPreference::Sentence, false);
        c.push("ab cd\n  ```\nxy\n  ```");
        assert_eq!(c.drain_to_vec(true), vec!["ab cd\n", " ```\nxy\n  ```"]);
    }

    #[test]
    fn hard_cut_waits_for_a_possible_fence_opener() {
        let mut c = chunker(13, 13, BreakPreference::Paragraph, false);
        c.push("lorem lorem\n`");
        assert!(c.drain_to_vec(false).is_empty());
        c.push("``\nlorem\n```");
        // The fence moves whole to the next chunk (a cut at max would keep only its open line).
        assert_eq!(c.drain_to_vec(false), vec!["lorem lorem\n"]);
        assert_eq!(c.drain_to_vec(true), vec!["```\nlorem\n```"]);
    }

    #[test]
    fn open_fence_stalls_cheaply_until_a_line_closes_it() {
        let mut c = chunker(10, 80, BreakPreference::Paragraph, false);
        c.push("```py\nline one\nline two\n");
        assert!(c.drain_to_vec(false).is_empty());
        assert!(c.fence_stall.is_some(), "the fence opened before min_chars");
        // A shorter run or another marker does not close it; the closing line may arrive in
        // pieces and close it before its newline.
        c.push("``\n~~~\n`");
        assert!(c.drain_to_vec(false).is_empty());
        assert!(c.fence_stall.is_some());
        c.push("``");
        assert_eq!(c.drain_to_vec(false), Vec::<String>::new());
        c.push("\n\nAfter the fence.");
        assert_eq!(
            c.drain_to_vec(false),
            vec!["```py\nline one\nline two\n``\n~~~\n```"]
        );
        assert!(c.fence_stall.is_none());
        assert_eq!(c.buffer(), "After the fence.");
    }

    /// Pushes `unit` repeated to about `len` bytes in 16-byte deltas (cut at char boundaries),
    /// draining after each; returns the chunks and the bytes full drain searches looked at.
    fn stream_without_a_usable_break(
        options: ChunkingOptions,
        unit: &str,
        len: usize,
    ) -> (Vec<String>, usize) {
        let text = unit.repeat(len / unit.len());
        let mut c = BlockChunker::new(options);
        let mut chunks = Vec::new();
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(16);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (piece, tail) = rest.split_at(cut);
            c.push(piece);
            c.drain(false, |chunk| chunks.push(chunk));
            rest = tail;
        }
        (chunks, c.full_drain_bytes)
    }

    #[test]
    fn drains_without_a_usable_break_look_at_each_pushed_byte_once() {
        // Text no drain below `max_chars` may break, for each kind of search: before, every
        // drain searched the whole buffer again (quadratic: here ~130 MB of scanning each).
        let len = 64 * 1024;
        let cases = [
            (BreakPreference::Paragraph, false, "abcdefghij"),
            // Sentence ends inside words, never at the end of a 16-byte delta.
            (BreakPreference::Sentence, false, "a.b!c?d.e!f?gh.i"),
            (BreakPreference::Paragraph, true, "abcdefghij"),
            (BreakPreference::Sentence, true, "words and a sentence. "),
            (BreakPreference::Newline, false, "words and spaces "),
            (BreakPreference::Paragraph, false, "日本語のテキスト"),
        ];
        for (break_preference, flush_on_paragraph, unit) in cases {
            let options = ChunkingOptions {
                min_chars: 800,
                max_chars: 1_000_000_000,
                break_preference,
                flush_on_paragraph,
            };
            let (chunks, scanned) = stream_without_a_usable_break(options, unit, len);
            assert!(chunks.is_empty(), "{options:?}: {} chunks", chunks.len());
            // One full search when the buffer first reaches `min_chars`, then only new bytes.
            assert!(scanned < 4 * 1024, "{options:?}: {scanned} bytes searched");
        }
    }

    #[test]
    fn a_break_after_a_long_searched_prefix_is_still_found() {
        let options = ChunkingOptions {
            min_chars: 10,
            max_chars: 1_000_000_000,
            break_preference: BreakPreference::Paragraph,
            flush_on_paragraph: false,
        };
        let mut c = BlockChunker::new(options);
        c.push(&"x".repeat(5000));
        assert!(c.drain_to_vec(false).is_empty());
        // A sentence end at the very end is a break (`$` follows it) ...
        c.push("y.");
        assert_eq!(
            c.drain_to_vec(false),
            vec![format!("{}y.", "x".repeat(5000))]
        );
        // ... and one followed by a letter is not, until whitespace comes.
        c.push(&"z".repeat(3000));
        c.push("a.b");
        assert!(c.drain_to_vec(false).is_empty());
        c.push(" tail");
        assert_eq!(
            c.drain_to_vec(false),
            vec![format!("{}a.b", "z".repeat(3000))]
        );
        assert_eq!(c.buffer(), "tail");
    }

    #[test]
    fn whitespace_only_forced_buffer_is_dropped() {
        let mut c = chunker(5, 20, BreakPreference::Paragraph, false);
        c.push(" \n\t ");
        assert!(c.drain_to_vec(true).is_empty());
        assert!(!c.has_buffered());
    }

    #[test]
    fn lengths_are_chars_not_bytes() {
        let mut c = chunker(1, 5, BreakPreference::Paragraph, false);
        c.push("ééééééé🎉🎉🎉");
        assert_eq!(c.drain_to_vec(false), vec!["ééééé", "éé🎉🎉🎉"]);
        assert_eq!(c.buffer(), "");
        c.push("ééééééé🎉");
        assert_eq!(c.drain_to_vec(false), vec!["ééééé"]);
        assert_eq!(c.buffer(), "éé🎉");
        assert_eq!(c.drain_to_vec(true), vec!["éé🎉"]);
    }

    #[test]
    fn preference_parse_round_trip() {
        for p in [
            BreakPreference::Paragraph,
            BreakPreference::Newline,
            BreakPreference::Sentence,
        ] {
            assert_eq!(BreakPreference::parse(p.as_str()), Some(p));
        }
        assert_eq!(BreakPreference::parse("word"), None);
    }
}
