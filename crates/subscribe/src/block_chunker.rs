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
//! All lengths and indices are in `char`s (Unicode scalar values).

use crate::fences::{
    FenceSpan, fence_index_at, is_safe_fence_break, match_fence_line, parse_fence_spans_chars,
};
use clawloop_core::js_text::{is_js_blank, is_js_whitespace};

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
    /// How many chars at the start of `buffer` are a reopened fence line added by the chunker
    /// (not text that was pushed). Only bookkeeping for [`Emitted`].
    synthetic_prefix_chars: usize,
    /// Set while a non-forced drain is known to emit nothing (see [`FenceStall`]).
    fence_stall: Option<FenceStall>,
}

/// A non-forced drain emitted nothing because the buffer ends inside a code fence whose
/// complete opening line starts before `min_chars`. Every break candidate at or past
/// `min_chars` then lies inside that fence, so until the buffer reaches `max_chars` or a line
/// closes the fence, every further non-forced drain emits nothing too. Remembering it makes
/// those drains O(1) instead of decoding and parsing the whole buffer again per delta, which
/// dominated streaming a long code block in small deltas.
#[derive(Debug, Clone, Copy)]
struct FenceStall {
    marker_char: char,
    marker_len: usize,
    /// Byte offset in `buffer` of its last line, the only one not yet known not to close the
    /// fence.
    line_start: usize,
}

impl FenceStall {
    /// `true` when `line` (without its `\n`) closes the fence, as [`parse_fence_spans_chars`]
    /// would decide it.
    fn is_closed_by(&self, line: &str) -> bool {
        // Cheap reject first: nearly every line inside a fence is code, not a marker run.
        if !line.trim_start_matches(' ').starts_with(self.marker_char) {
            return false;
        }
        let chars: Vec<char> = line.chars().collect();
        match_fence_line(&chars)
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

/// Where to cut, relative to the current view, and whether the cut lands inside a fence.
#[derive(Debug, Clone, Copy)]
struct BreakResult {
    /// Break index relative to `start`; 0 means "no break".
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

impl BlockChunker {
    /// An empty chunker.
    pub fn new(options: ChunkingOptions) -> Self {
        Self {
            options,
            buffer: String::new(),
            buffer_chars: 0,
            synthetic_prefix_chars: 0,
            fence_stall: None,
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
        self.buffer_chars += text.chars().count();
        if let Some(stall) = self.fence_stall.as_mut() {
            // Only the lines this text completes can close the fence; the last, incomplete
            // line is checked by the next drain.
            for (at, _) in text.match_indices('\n') {
                let line_end = old_len + at;
                if stall.is_closed_by(&self.buffer[stall.line_start..line_end]) {
                    self.fence_stall = None;
                    return;
                }
                stall.line_start = line_end + 1;
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
        self.synthetic_prefix_chars = 0;
        self.fence_stall = None;
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

        if !force && self.buffer_chars < min {
            return;
        }
        if !force
            && self.buffer_chars < max
            && let Some(stall) = &self.fence_stall
            && !stall.is_closed_by(&self.buffer[stall.line_start..])
        {
            return;
        }
        self.fence_stall = None;
        if force && self.buffer_chars <= max {
            if !is_js_blank(self.buffer.chars()) {
                emit(Emitted {
                    text: std::mem::take(&mut self.buffer),
                    synthetic_prefix: self.synthetic_prefix_chars,
                    synthetic_suffix: 0,
                });
            }
            self.reset();
            return;
        }

        // One decoded copy and one fence parse per drain; the loop below works on indices so
        // a long forced drain stays linear instead of re-slicing the rest at every chunk.
        // Filled through a zip rather than pushed one by one: decoding is a hot loop here.
        let mut source = vec!['\0'; self.buffer_chars];
        for (slot, c) in source.iter_mut().zip(self.buffer.chars()) {
            *slot = c;
        }
        let mut spans = parse_fence_spans_chars(&source);
        if !force {
            // clawloop (SPEC §6, "never splitting inside a code fence"): while text is still
            // streaming, a fence that is not closed yet goes on past the end of the buffer.
            // OpenClaw treats the buffer end as the fence's end, so a sentence end or the hard
            // break landing exactly there would emit an unclosed code block.
            if let Some(last) = spans.last_mut().filter(|s| !s.is_closed()) {
                last.end = source.len() + 1;
            }
        }
        // Chunks are copied from `buffer` as bytes rather than re-encoded char by char.
        let mut bytes = ByteOffsets::new(&source);
        let text = self.buffer.as_str();
        let carried = self.synthetic_prefix_chars;
        let synthetic_before = |start: usize, end: usize| carried.min(end).saturating_sub(start);
        let mut start = 0usize;
        let mut reopen: Option<usize> = None;

        while start < source.len() {
            let prefix = reopen.map(|i| reopen_prefix(&spans[i]));
            let prefix_len = prefix.as_ref().map_or(0, |p| p.chars().count());
            let remaining = prefix_len + (source.len() - start);

            if !force && remaining < min {
                break;
            }

            if self.options.flush_on_paragraph && !force {
                let limit = max.saturating_sub(prefix_len).max(1);
                if let Some((index, len)) =
                    find_next_paragraph_break(&source, &spans, start, min, limit)
                {
                    let mut chunk = prefix.clone().unwrap_or_default();
                    chunk.push_str(&text[bytes.range(start, index)]);
                    if !is_js_blank(chunk.chars()) {
                        emit(Emitted {
                            text: chunk,
                            synthetic_prefix: prefix_len + synthetic_before(start, index),
                            synthetic_suffix: 0,
                        });
                    }
                    start = skip_newlines(&source, index + len);
                    reopen = None;
                    continue;
                }
                if remaining < max {
                    break;
                }
            }

            let result = if force && remaining <= max {
                self.pick_soft_break(&source, start, &spans, 1)
            } else {
                self.pick_break(&source, start, &spans, force)
            };
            if result.index == 0 {
                if force {
                    let mut chunk = prefix.unwrap_or_default();
                    chunk.push_str(&text[bytes.range(start, source.len())]);
                    emit(Emitted {
                        text: chunk,
                        synthetic_prefix: prefix_len + synthetic_before(start, source.len()),
                        synthetic_suffix: 0,
                    });
                    start = source.len();
                    reopen = None;
                }
                break;
            }

            let absolute = start + result.index;
            let synthetic_prefix = prefix_len + synthetic_before(start, absolute);
            let mut chunk = prefix.unwrap_or_default();
            chunk.push_str(&text[bytes.range(start, absolute)]);
            if is_js_blank(chunk.chars()) {
                start = skip_newlines(&source, absolute);
                reopen = None;
            } else if let Some(fence_index) = result.fence_split {
                // Close the block here and reopen it at the start of the next chunk.
                let before = chunk.chars().count();
                if !chunk.ends_with('\n') {
                    chunk.push('\n');
                }
                chunk.push_str(&spans[fence_index].close_fence_line());
                chunk.push('\n');
                let synthetic_suffix = chunk.chars().count() - before;
                emit(Emitted {
                    text: chunk,
                    synthetic_prefix,
                    synthetic_suffix,
                });
                start = absolute;
                reopen = Some(fence_index);
            } else {
                emit(Emitted {
                    text: chunk,
                    synthetic_prefix,
                    synthetic_suffix: 0,
                });
                // OpenClaw skips one whitespace char after the break. clawloop keeps it when it
                // is the indent of a fence's open line (a whitespace break lands exactly at the
                // fence start): skipping it would start the next chunk inside the fence.
                let skip_one = source.get(absolute).is_some_and(|&c| is_js_whitespace(c))
                    && !starts_fence(&spans, absolute);
                let next = if skip_one { absolute + 1 } else { absolute };
                start = skip_newlines(&source, next);
                reopen = None;
            }

            let next_prefix_len = reopen.map_or(0, |i| reopen_prefix(&spans[i]).chars().count());
            let next_length = next_prefix_len + (source.len() - start);
            if !force && next_length < min {
                break;
            }
            if !force && next_length < max && !self.options.flush_on_paragraph {
                break;
            }
        }

        let (mut rest, from) = match reopen {
            Some(i) => {
                let prefix = reopen_prefix(&spans[i]);
                self.synthetic_prefix_chars = prefix.chars().count();
                (prefix, start.min(source.len()))
            }
            None => {
                let from = skip_newlines(&source, start);
                if from == 0 {
                    // Nothing was emitted or skipped: the buffer stays as it is.
                    if !force {
                        self.fence_stall = fence_stall(&source, &spans, min, max, &self.buffer);
                    }
                    return;
                }
                self.synthetic_prefix_chars = carried.saturating_sub(from);
                (String::new(), from)
            }
        };
        let tail = bytes.range(from, source.len());
        rest.push_str(&self.buffer[tail]);
        self.buffer_chars = rest.chars().count();
        self.buffer = rest;
    }

    /// Forward search used when a forced remainder fits within `max_chars`
    /// (OpenClaw `pickSoftBreakIndex`).
    fn pick_soft_break(
        &self,
        source: &[char],
        offset: usize,
        spans: &[FenceSpan],
        min_override: usize,
    ) -> BreakResult {
        let min = min_override.max(1);
        let view = &source[offset..];
        if view.len() < min {
            return BreakResult::NONE;
        }
        let preference = self.options.break_preference;
        if preference == BreakPreference::Paragraph
            && let Some(i) = paragraph_break_forward(view, spans, min, offset)
        {
            return BreakResult::at(i);
        }
        if matches!(
            preference,
            BreakPreference::Paragraph | BreakPreference::Newline
        ) && let Some(i) = newline_break_forward(view, spans, min, offset)
        {
            return BreakResult::at(i);
        }
        if preference != BreakPreference::Newline
            && let Some(i) = sentence_break(view, spans, min, offset)
        {
            return BreakResult::at(i);
        }
        BreakResult::NONE
    }

    /// Backward search inside the `max_chars` window, with the hard break as the last resort
    /// (OpenClaw `pickBreakIndex`; a forced drain searches with a minimum of 1).
    fn pick_break(
        &self,
        source: &[char],
        offset: usize,
        spans: &[FenceSpan],
        force: bool,
    ) -> BreakResult {
        let min = if force {
            1
        } else {
            self.options.min_chars.max(1)
        };
        let max = self.options.max_chars.max(min);
        let view = &source[offset..];
        if view.len() < min {
            return BreakResult::NONE;
        }
        let window = &view[..view.len().min(max)];
        let preference = self.options.break_preference;

        if preference == BreakPreference::Paragraph
            && let Some(i) = paragraph_break_backward(window, spans, min, offset)
        {
            return BreakResult::at(i);
        }
        if matches!(
            preference,
            BreakPreference::Paragraph | BreakPreference::Newline
        ) && let Some(i) = newline_break_backward(window, spans, min, offset)
        {
            return BreakResult::at(i);
        }
        if preference != BreakPreference::Newline
            && let Some(i) = sentence_break(window, spans, min, offset)
        {
            return BreakResult::at(i);
        }
        if preference == BreakPreference::Newline && view.len() < max {
            return BreakResult::NONE;
        }
        for i in (min..window.len()).rev() {
            if is_js_whitespace(window[i]) && is_safe_fence_break(spans, offset + i) {
                return BreakResult::at(i);
            }
        }
        if view.len() < max {
            return BreakResult::NONE;
        }
        if is_safe_fence_break(spans, offset + max) {
            if !force && cuts_possible_fence_opener(view, max) {
                // clawloop (SPEC §6, "never splitting inside a code fence"): the last line so
                // far may still grow into a fence opener (say a lone backtick of a coming
                // ```); cutting through it would split the fence's open line across chunks.
                // It is at most five chars, so wait for the rest of the line.
                return BreakResult::NONE;
            }
            return BreakResult::at(max);
        }
        let Some(fence_index) = fence_index_at(spans, offset + max) else {
            return BreakResult::at(max);
        };
        let fence = &spans[fence_index];
        // OpenClaw `findFenceCloseLineStart`: the start of the last line of the fence within
        // the view (for an unclosed fence, the last line buffered so far).
        let fence_end = fence.end.saturating_sub(offset).min(view.len());
        let last_line_start = view[..fence_end]
            .iter()
            .rposition(|&c| c == '\n')
            .map(|p| p + 1);
        let mut index = match last_line_start {
            Some(s) if s >= min && s < max => s,
            _ => max,
        };

        // clawloop fix (SPEC §6): end the chunk after the fence's own closing line rather than
        // closing synthetically and reopening a fence that would hold nothing. That is the
        // case when the closing line starts within [min, max]; it is also the only sane cut
        // when it starts before min (max then falls inside the closing line itself) or when
        // only blank lines would be left to the reopened fence.
        if let Some(close_start) = fence.close_line_start.and_then(|c| c.checked_sub(offset)) {
            let blank_rest = is_js_blank(view[index.min(close_start)..close_start].iter().copied());
            if close_start <= max || blank_rest {
                return BreakResult::at(fence.end - offset);
            }
        }

        // clawloop (SPEC §6, "never an empty code block"): a cut that keeps no content line of
        // a fence opening in this chunk would emit its open line (or part of it) right before
        // the synthetic close. Cut at max inside the content when that keeps some, otherwise
        // move the whole fence to the next chunk.
        if let Some(fence_start) = fence.start.checked_sub(offset) {
            let open_line_end = fence_start + fence.open_line.chars().count() + 1;
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
            fence_split: Some(fence_index),
        }
    }
}

/// Byte offsets in a text of char indices into its decoded `source`, for indices asked in
/// (mostly) increasing order, as a drain does: each call costs the distance from the last.
struct ByteOffsets<'a> {
    source: &'a [char],
    char_index: usize,
    byte_index: usize,
}

impl<'a> ByteOffsets<'a> {
    fn new(source: &'a [char]) -> Self {
        Self {
            source,
            char_index: 0,
            byte_index: 0,
        }
    }

    /// The byte offset of char index `index` (at most `source.len()`).
    fn at(&mut self, index: usize) -> usize {
        if index < self.char_index {
            self.char_index = 0;
            self.byte_index = 0;
        }
        let index = index.min(self.source.len());
        self.byte_index += self.source[self.char_index..index]
            .iter()
            .map(|c| c.len_utf8())
            .sum::<usize>();
        self.char_index = index;
        self.byte_index
    }

    /// The byte range of the chars `start..end`.
    fn range(&mut self, start: usize, end: usize) -> std::ops::Range<usize> {
        let start = self.at(start);
        start..self.at(end)
    }
}

/// The [`FenceStall`] of a buffer that a non-forced drain left untouched, if it has one.
/// `spans` are the drain's spans, the last one extended past the end of `source`.
fn fence_stall(
    source: &[char],
    spans: &[FenceSpan],
    min: usize,
    max: usize,
    buffer: &str,
) -> Option<FenceStall> {
    let last = spans.last().filter(|s| !s.is_closed() && s.start < min)?;
    // The opening line must be complete: text appended to it could still unmake the fence.
    let open_line_complete = last.start + last.open_line.chars().count() < source.len();
    if source.len() >= max || !open_line_complete {
        return None;
    }
    Some(FenceStall {
        marker_char: last.marker.chars().next()?,
        marker_len: last.marker.chars().count(),
        line_start: buffer.rfind('\n').map_or(0, |p| p + 1),
    })
}

/// `true` when a fence span starts exactly at `index`.
fn starts_fence(spans: &[FenceSpan], index: usize) -> bool {
    let at = spans.partition_point(|s| s.start < index);
    spans.get(at).is_some_and(|s| s.start == index)
}

/// `true` when `index` falls strictly inside the view's last (still growing) line and that line
/// may still become a fence line: up to three spaces, then only one kind of marker char.
fn cuts_possible_fence_opener(view: &[char], index: usize) -> bool {
    let line_start = view.iter().rposition(|&c| c == '\n').map_or(0, |p| p + 1);
    if index <= line_start {
        return false;
    }
    let line = &view[line_start..];
    let indent = line.iter().take(3).take_while(|&&c| c == ' ').count();
    let rest = &line[indent..];
    match rest.first() {
        Some(&marker) if marker == '`' || marker == '~' => rest.iter().all(|&c| c == marker),
        Some(_) => false,
        None => true,
    }
}

/// `true` when `tail`, the text that would follow a reopened fence line, could still end up as
/// an empty block: blank lines, then a last line that may grow into the closing line (up to
/// three spaces, then only marker chars).
fn may_become_empty(tail: &[char], fence: &FenceSpan) -> bool {
    let Some(marker) = fence.marker.chars().next() else {
        return false;
    };
    let last_line = tail.iter().rposition(|&c| c == '\n').map_or(0, |p| p + 1);
    if !is_js_blank(tail[..last_line].iter().copied()) {
        return false;
    }
    let line = &tail[last_line..];
    let indent = line.iter().take(3).take_while(|&&c| c == ' ').count();
    line[indent..].iter().all(|&c| c == marker)
}

/// The line that reopens a split fence at the start of the next chunk.
fn reopen_prefix(span: &FenceSpan) -> String {
    format!("{}\n", span.open_line)
}

fn skip_newlines(source: &[char], from: usize) -> usize {
    let mut i = from.min(source.len());
    while source.get(i) == Some(&'\n') {
        i += 1;
    }
    i
}

/// First occurrence of `\n\n` in `text` at or after `from` (JS `indexOf`).
fn index_of_double_newline(text: &[char], from: usize) -> Option<usize> {
    (from..text.len().saturating_sub(1)).find(|&i| text[i] == '\n' && text[i + 1] == '\n')
}

/// Last occurrence of `\n\n` in `text` starting at or before `from` (JS `lastIndexOf`).
fn last_index_of_double_newline(text: &[char], from: usize) -> Option<usize> {
    let last_start = text.len().checked_sub(2)?;
    (0..=from.min(last_start))
        .rev()
        .find(|&i| text[i] == '\n' && text[i + 1] == '\n')
}

/// Tries the two candidates of a `\n\n` at `at` (the first newline, then the second).
fn paragraph_candidate(
    text: &[char],
    spans: &[FenceSpan],
    min: usize,
    offset: usize,
    at: usize,
) -> Option<usize> {
    [at, at + 1]
        .into_iter()
        .find(|&c| c >= min && c < text.len() && is_safe_fence_break(spans, offset + c))
}

fn paragraph_break_forward(
    text: &[char],
    spans: &[FenceSpan],
    min: usize,
    offset: usize,
) -> Option<usize> {
    let mut at = index_of_double_newline(text, 0);
    while let Some(i) = at {
        if let Some(c) = paragraph_candidate(text, spans, min, offset, i) {
            return Some(c);
        }
        at = index_of_double_newline(text, i + 2);
    }
    None
}

fn paragraph_break_backward(
    text: &[char],
    spans: &[FenceSpan],
    min: usize,
    offset: usize,
) -> Option<usize> {
    let mut at = last_index_of_double_newline(text, text.len());
    while let Some(i) = at.filter(|&i| i >= min) {
        if let Some(c) = paragraph_candidate(text, spans, min, offset, i) {
            return Some(c);
        }
        at = i
            .checked_sub(1)
            .and_then(|from| last_index_of_double_newline(text, from));
    }
    None
}

fn newline_break_forward(
    text: &[char],
    spans: &[FenceSpan],
    min: usize,
    offset: usize,
) -> Option<usize> {
    (min..text.len()).find(|&i| text[i] == '\n' && is_safe_fence_break(spans, offset + i))
}

fn newline_break_backward(
    text: &[char],
    spans: &[FenceSpan],
    min: usize,
    offset: usize,
) -> Option<usize> {
    (min..text.len())
        .rev()
        .find(|&i| text[i] == '\n' && is_safe_fence_break(spans, offset + i))
}

/// The break after the last `[.!?](?=\s|$)` at index ≥ `min` whose break point is outside a
/// fence (OpenClaw `findSafeSentenceBreakIndex`). `$` is the end of `text`, which may be the
/// `max_chars` window rather than the whole buffer.
fn sentence_break(text: &[char], spans: &[FenceSpan], min: usize, offset: usize) -> Option<usize> {
    (min..text.len()).rev().find_map(|at| {
        let punct = matches!(text[at], '.' | '!' | '?');
        let followed = text.get(at + 1).is_none_or(|&c| is_js_whitespace(c));
        let candidate = at + 1;
        (punct && followed && is_safe_fence_break(spans, offset + candidate)).then_some(candidate)
    })
}

/// The first paragraph break (`/\n[\t ]*\n+/`) found scanning from `start` that lies at least
/// `min` chars after `start` and outside fences, if it lies within `limit` chars of `start`.
/// Returns `(index, match length)`.
///
/// The scan stops once a match could only start past `limit`, which gives the same answer as
/// OpenClaw's unbounded regex scan followed by its `index - start <= limit` check, without
/// rescanning a long paragraph-less tail on every loop of a drain.
fn find_next_paragraph_break(
    source: &[char],
    spans: &[FenceSpan],
    start: usize,
    min: usize,
    limit: usize,
) -> Option<(usize, usize)> {
    let mut i = start;
    while i < source.len() {
        if source[i] != '\n' {
            i += 1;
            continue;
        }
        if i - start > limit {
            return None;
        }
        let mut j = i + 1;
        while source.get(j).is_some_and(|&c| c == '\t' || c == ' ') {
            j += 1;
        }
        if source.get(j) != Some(&'\n') {
            i += 1;
            continue;
        }
        let end = skip_newlines(source, j);
        if i - start >= min && is_safe_fence_break(spans, i) {
            return Some((i, end - i));
        }
        // A skipped match is consumed whole, as the global regex's `lastIndex` moves past it.
        i = end;
    }
    None
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
    fn indented_fence_is_not_entered_by_the_whitespace_skip() {
        let mut c = chunker(1, 12, BreakPreference::Sentence, false);
        c.push("ab cd\n  ```\nxy\n  ```");
        let chunks = c.drain_to_vec(true);
        assert_eq!(chunks[0], "ab cd\n");
        assert!(
            chunks[1..].iter().all(|k| k.starts_with("  ```")),
            "{chunks:?}"
        );
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
