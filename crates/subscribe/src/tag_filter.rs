//! Streaming `<think>` / `<final>` tag filter (reference §18.5, OpenClaw `stripBlockTags`).
//!
//! OpenClaw runs three regex passes over each text it is given:
//!
//! 1. **thinking**: `/<\s*(\/?)\s*(?:think(?:ing)?|thought|antthinking)\s*>/gi`; an open tag drops
//!    text until the next close tag, tags themselves are removed, matches inside code spans are
//!    text;
//! 2. **final**, over the output of pass 1 with its own code-span index: without
//!    `enforceFinalTag` the `/<\s*(\/?)\s*final\s*>/gi` tags outside code are removed; with it only
//!    the text between `<final>` and `</final>` is kept;
//! 3. with `enforceFinalTag`, any `<final>` tag left in that kept text (outside code) is removed.
//!
//! Code spans are fenced blocks (see [`crate::fences`]) and inline backtick runs that close on a
//! run of the same length; an unclosed one extends to the end of the text.
//!
//! [`TagFilter`] computes exactly what those passes give for the whole text so far, but
//! incrementally: every pass is a stage that looks at each character once and holds back only
//! what it cannot decide yet (a possible tag such as `<thi`, or a line that may turn out to be a
//! fence line). So the output never depends on how the text was split into deltas, text once
//! returned is never retracted, and the work per delta is proportional to the delta.

use crate::text_scan::{find_newline, find_newline_lt_or_backtick};
use clawloop_core::js_text::{is_js_line_terminator, is_js_whitespace};

/// Tag names recognized by the thinking pass (ASCII case-insensitive).
const THINKING_TAG_NAMES: &[&str] = &["think", "thinking", "thought", "antthinking"];
/// Tag names recognized by the final pass (ASCII case-insensitive).
const FINAL_TAG_NAMES: &[&str] = &["final"];

/// Options of a [`TagFilter`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TagFilterOptions {
    /// Show only text inside `<final>…</final>` (OpenClaw `enforceFinalTag`). When no `<final>`
    /// tag is ever seen, nothing is shown.
    pub enforce_final_tag: bool,
}

/// Stateful filter that removes thinking blocks and `<final>` tags from streamed assistant text.
///
/// ```
/// use clawloop_subscribe::{TagFilter, TagFilterOptions};
///
/// let mut filter = TagFilter::new(TagFilterOptions::default());
/// let mut shown = filter.push("Hi <thi");
/// assert_eq!(shown, "Hi "); // `<thi` is held back: it may become a tag
/// shown += &filter.push("nk>plan</think>there");
/// shown += &filter.finish();
/// assert_eq!(shown, "Hi there");
/// assert_eq!(filter.reasoning(), "plan");
/// ```
#[derive(Debug, Clone)]
pub struct TagFilter {
    options: TagFilterOptions,
    thinking: Stage,
    finals: Stage,
    /// Pass 3, present only with `enforce_final_tag`.
    cleanup: Option<Stage>,
    reasoning: String,
    /// Reused buffers for the text between passes, so a push allocates nothing of its own.
    between: [String; 2],
}

impl TagFilter {
    /// A filter in its initial state: outside any thinking or final block.
    pub fn new(options: TagFilterOptions) -> Self {
        let (finals, cleanup) = if options.enforce_final_tag {
            (
                Stage::new(StageKind::FinalExtract),
                Some(Stage::new(StageKind::FinalStrip)),
            )
        } else {
            (Stage::new(StageKind::FinalStrip), None)
        };
        Self {
            options,
            thinking: Stage::new(StageKind::Thinking),
            finals,
            cleanup,
            reasoning: String::new(),
            between: Default::default(),
        }
    }

    /// The options this filter was built with.
    pub fn options(&self) -> TagFilterOptions {
        self.options
    }

    /// One-shot filtering of a complete text (`push` then `finish` on a fresh filter).
    pub fn strip(text: &str, options: TagFilterOptions) -> String {
        let mut filter = Self::new(options);
        let mut out = filter.push(text);
        out.push_str(&filter.finish());
        out
    }

    /// Feeds the next delta and returns the text that became visible because of it.
    ///
    /// Text that may still turn into a tag (or a fence line) is held back until a later delta
    /// or [`finish`](Self::finish) decides it.
    pub fn push(&mut self, delta: &str) -> String {
        // Sized for the usual case (little held back or hidden) so pushes rarely reallocate.
        let mut shown = String::with_capacity(delta.len());
        self.push_into(delta, &mut shown);
        shown
    }

    /// [`push`](Self::push) appending the visible text to `out`, which saves the subscription
    /// an allocation and a copy per delta.
    ///
    /// The three passes run interleaved rather than one after the other: while every stage
    /// that would see a run of text would only pass it on (see [`Stage::absorbable`]), the run
    /// goes straight to where the last of them would put it, found with one scan instead of
    /// one per pass and copied once instead of once per pass. Any other char goes through
    /// pass 1 alone and what it lets out through passes 2 and 3 right away. Each stage still
    /// sees exactly the chars it saw before, in the same order, so its output is the same: a
    /// stage's output never depends on how its input is split.
    pub(crate) fn push_into(&mut self, delta: &str, out: &mut String) {
        let mut first = std::mem::take(&mut self.between[0]);
        first.clear();
        let mut rest = delta;
        while let Some(&next) = rest.as_bytes().first() {
            let newline = next == b'\n';
            if let Some((run, destination)) = self.fused_run(rest, newline) {
                let (plain, tail) = rest.split_at(run.len);
                self.thinking.absorb(plain, run);
                match destination {
                    Destination::Reasoning => self.reasoning.push_str(plain),
                    Destination::Dropped => self.finals.absorb(plain, run),
                    Destination::Shown => {
                        self.finals.absorb(plain, run);
                        if let Some(cleanup) = self.cleanup.as_mut() {
                            cleanup.absorb(plain, run);
                        }
                        push_text(out, plain);
                    }
                }
                rest = tail;
                continue;
            }
            let mut chars = rest.chars();
            if let Some(c) = chars.next() {
                self.thinking.feed(c, &mut first, &mut self.reasoning);
                if !first.is_empty() {
                    self.run_final_passes(&first, false, out);
                    first.clear();
                }
            }
            rest = chars.as_str();
        }
        self.between[0] = first;
    }

    /// The run at the start of `text` (just the `\n` when `newline`) that every stage it
    /// reaches can take whole ([`Stage::absorbable`]), and where the last of them puts it;
    /// `None` when one of them must look at the next char alone. The run's end is searched
    /// once, for the most restrictive of the stages' ends.
    fn fused_run(&self, text: &str, newline: bool) -> Option<(Run, Destination)> {
        let first = *text.as_bytes().first()?;
        // Every stage the run reaches must take it; `end` narrows to what all of them allow.
        let mut end: Option<RunEnd> = None;
        let mut takes = |stage: &Stage| {
            if newline {
                return stage.absorbs_newline();
            }
            let Some(own) = stage.run_end(first) else {
                return false;
            };
            end = Some(end.map_or(own, |end| end.and(own)));
            true
        };
        if !takes(&self.thinking) {
            return None;
        }
        let destination = if self.thinking.scanner.inside {
            // Pass 1 keeps it as reasoning; passes 2 and 3 never see it.
            Destination::Reasoning
        } else if !takes(&self.finals) {
            return None;
        } else {
            match self.cleanup.as_ref() {
                None => Destination::Shown,
                // Pass 2 drops everything outside `<final>`; pass 3 never sees it.
                Some(_) if !self.finals.scanner.inside => Destination::Dropped,
                Some(cleanup) if takes(cleanup) => Destination::Shown,
                Some(_) => return None,
            }
        };
        // Empty when `text` starts with a `<` or backtick that a stage must look at.
        let run = match end {
            _ if newline => Run::NEWLINE,
            Some(end) => end.find(text),
            None => return None,
        };
        (run.len > 0).then_some((run, destination))
    }

    /// Ends the current text and returns everything still held back.
    ///
    /// A pending partial tag (`<thi` at the very end) is literal text, exactly as when the
    /// whole text is scanned at once. Thinking, final and inline-code state persist, while the
    /// line and fence state start over, so the filter can go on with a following block the way
    /// OpenClaw's per-chunk `stripBlockTags(chunk, state)` does: there one inline-code state
    /// carries over, that of the text left after the thinking pass (with `enforce_final_tag`,
    /// of the text kept inside `<final>`), so backticks inside a thinking block or outside
    /// `<final>` do not open a code span for the next block. Use [`reset`](Self::reset) for a
    /// new message.
    pub fn finish(&mut self) -> String {
        let mut shown = String::new();
        self.finish_into(&mut shown);
        shown
    }

    /// [`finish`](Self::finish) appending to `out`.
    pub(crate) fn finish_into(&mut self, out: &mut String) {
        let mut first = std::mem::take(&mut self.between[0]);
        first.clear();
        self.thinking.finish(&mut first, &mut self.reasoning);
        self.run_final_passes(&first, true, out);
        self.between[0] = first;
        // OpenClaw carries one inline-code state from chunk to chunk: the state at the end of
        // the last pass's input (the text left by pass 1, or with enforcement the text kept
        // inside `<final>`), and all three passes of the next chunk start from it. Each stage
        // tracked its own input so far; the next block starts them all from that one.
        let (open, ticks) = {
            let last = self.cleanup.as_ref().unwrap_or(&self.finals);
            (last.code.inline_open, last.code.inline_ticks)
        };
        for stage in [&mut self.thinking, &mut self.finals]
            .into_iter()
            .chain(self.cleanup.as_mut())
        {
            stage.code.inline_open = open;
            stage.code.inline_ticks = ticks;
        }
    }

    /// Forgets everything, as for a new assistant message (the reasoning text included).
    pub fn reset(&mut self) {
        *self = Self::new(self.options);
    }

    /// Text seen inside thinking tags so far (tags removed, not trimmed).
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// `true` while the text so far ends inside an unclosed thinking block.
    pub fn in_thinking(&self) -> bool {
        self.thinking.inside
    }

    /// `true` while (with `enforce_final_tag`) the text so far ends inside a `<final>` block.
    pub fn in_final(&self) -> bool {
        self.cleanup.is_some() && self.finals.inside
    }

    /// Runs passes 2 and 3 over `input`, appending what they let through to `out`.
    fn run_final_passes(&mut self, input: &str, finish: bool, out: &mut String) {
        // Stages other than the thinking one never produce side text; `side` only satisfies
        // the shared signature.
        let mut side = String::new();
        let Some(cleanup) = self.cleanup.as_mut() else {
            self.finals.feed_str(input, out, &mut side);
            if finish {
                self.finals.finish(out, &mut side);
            }
            return;
        };
        let mut second = std::mem::take(&mut self.between[1]);
        second.clear();
        self.finals.feed_str(input, &mut second, &mut side);
        if finish {
            self.finals.finish(&mut second, &mut side);
        }
        cleanup.feed_str(&second, out, &mut side);
        if finish {
            cleanup.finish(out, &mut side);
        }
        self.between[1] = second;
    }
}

/// What ends a run of text a stage can take whole ([`Stage::run_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunEnd {
    /// The next `\n` (inside a fence).
    Newline,
    /// The next `<` or backtick, or a `\n` not followed by a byte that starts a plain line
    /// ([`starts_plain_line`]); outside a fence, such a `\n` and that byte only end one plain
    /// line and start another.
    Lines,
    /// The next `\n`, `<` or backtick: where both of the others may end.
    Special,
}

impl RunEnd {
    /// The end that ends a run where either `self` or `other` would.
    fn and(self, other: Self) -> Self {
        if self == other { self } else { Self::Special }
    }

    /// The run at the start of `text`; the bytes searched for are ASCII, so its length is a
    /// char boundary.
    fn find(self, text: &str) -> Run {
        let bytes = text.as_bytes();
        let len = match self {
            Self::Newline => find_newline(bytes).unwrap_or(text.len()),
            Self::Special => find_newline_lt_or_backtick(bytes).unwrap_or(text.len()),
            Self::Lines => return lines_run(bytes),
        };
        Run {
            len,
            newline: false,
            ticks: 0,
        }
    }
}

/// The [`RunEnd::Lines`] run at the start of `bytes`. It may end with a complete backtick run:
/// in a plain line outside a fence that is text whose only effect is on the inline-code state,
/// which [`Stage::absorb`] applies; the run stops there because that state decides what the
/// `<` chars after it are. Complete means followed by a byte other than a backtick or `<`:
/// every stage then sees that byte right after the backticks, while a `<` may start a tag an
/// earlier stage removes, joining the backticks to a run after it in a later stage's input.
fn lines_run(bytes: &[u8]) -> Run {
    let mut from = 0;
    loop {
        let at = find_newline_lt_or_backtick(&bytes[from..]).map_or(bytes.len(), |p| from + p);
        match bytes.get(at..at + 2) {
            // The byte after the `\n` is neither of the three either.
            Some(&[b'\n', next]) if starts_plain_line(next) => from = at + 2,
            Some(&[b'`', _]) => {
                let ticks = bytes[at..].iter().take_while(|&&b| b == b'`').count();
                let complete = bytes.get(at + ticks).is_some_and(|&b| b != b'<');
                return Run {
                    len: if complete { at + ticks } else { at },
                    newline: false,
                    ticks: if complete { ticks } else { 0 },
                };
            }
            _ => {
                return Run {
                    len: at,
                    newline: false,
                    ticks: 0,
                };
            }
        }
    }
}

/// A run of text a stage takes whole ([`Stage::absorbable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    /// Its length in bytes.
    len: usize,
    /// The run is one `\n` ending a line.
    newline: bool,
    /// The run ends with a complete backtick run of this length, in a plain line outside a
    /// fence (0 for none).
    ticks: usize,
}

impl Run {
    /// A `\n` ending a line that is no fence line.
    const NEWLINE: Self = Self {
        len: 1,
        newline: true,
        ticks: 0,
    };
}

/// `true` when a line starting with `byte` (the first byte of its first char) is known from it
/// to be no fence line, and the byte is no tag start: any byte but a space, a backtick, `~`,
/// `<` or `\n`.
fn starts_plain_line(byte: u8) -> bool {
    !matches!(byte, b' ' | b'`' | b'~' | b'<' | b'\n')
}

/// `out.push_str(text)`, with a single ASCII byte pushed as a char: a one-byte delta would
/// otherwise cost a `memcpy` call.
#[inline]
fn push_text(out: &mut String, text: &str) {
    match text.as_bytes() {
        [byte] => out.push(char::from(*byte)),
        _ => out.push_str(text),
    }
}

/// Where [`TagFilter::push_into`] sends a run of plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Destination {
    /// The visible text.
    Shown,
    /// The reasoning text (pass 1 is inside a thinking block).
    Reasoning,
    /// Nowhere (with `enforce_final_tag`, outside `<final>`).
    Dropped,
}

/// What a stage does with tags and the text around them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StageKind {
    /// Pass 1: drop text inside thinking tags (it goes to the side output), remove the tags.
    Thinking,
    /// Pass 2 without enforcement and pass 3 with it: remove `<final>` tags, keep all text.
    FinalStrip,
    /// Pass 2 with enforcement: keep only the text between `<final>` and `</final>`.
    FinalExtract,
}

impl StageKind {
    fn names(self) -> &'static [&'static str] {
        match self {
            Self::Thinking => THINKING_TAG_NAMES,
            Self::FinalStrip | Self::FinalExtract => FINAL_TAG_NAMES,
        }
    }
}

/// One pass: a code-span tracker feeding a tag scanner.
#[derive(Debug, Clone)]
struct Stage {
    code: CodeTracker,
    scanner: TagScanner,
    /// Mirror of `scanner.inside`, kept here so `TagFilter` can read it cheaply.
    inside: bool,
}

impl Stage {
    fn new(kind: StageKind) -> Self {
        Self {
            code: CodeTracker::default(),
            scanner: TagScanner {
                kind,
                pending: None,
                inside: false,
            },
            inside: false,
        }
    }

    /// Feeds every char of `text`, taking runs that only pass through in one go.
    fn feed_str(&mut self, mut text: &str, out: &mut String, side: &mut String) {
        while !text.is_empty() {
            let run = self.absorbable(text);
            if run.len > 0 {
                let (plain, rest) = text.split_at(run.len);
                self.absorb(plain, run);
                self.scanner.text(plain, out, side);
                text = rest;
                continue;
            }
            let mut chars = text.chars();
            if let Some(c) = chars.next() {
                self.feed(c, out, side);
            }
            text = chars.as_str();
        }
    }

    /// The run at the start of `text` this stage can take whole with [`absorb`] (empty when
    /// none): text that [`feed`](Self::feed), char by char, would only pass to
    /// [`TagScanner::text`], while changing no state but the line scan and the inline-code
    /// state in ways known without looking at every char. Copying such runs whole instead of
    /// char by char makes the filter several times faster.
    ///
    /// [`absorb`]: Self::absorb
    #[inline]
    fn absorbable(&self, text: &str) -> Run {
        const NONE: Run = Run {
            len: 0,
            newline: false,
            ticks: 0,
        };
        match text.as_bytes().first() {
            None => NONE,
            Some(b'\n') if self.absorbs_newline() => Run::NEWLINE,
            Some(b'\n') => NONE,
            Some(&first) => self.run_end(first).map_or(NONE, |end| end.find(text)),
        }
    }

    /// With nothing pending (no tag, held line or backtick run), `true` when a `\n` would only
    /// end a line that is not a fence line: nothing opens or closes, and the `\n` is text.
    #[inline]
    fn absorbs_newline(&self) -> bool {
        self.is_idle() && self.code.line.fence_marker().is_none()
    }

    /// What ends a run starting with `first` (not `\n`) that this stage can take whole, if it
    /// can: inside a fence only the next `\n` (`<` and backticks are code there); outside, in a
    /// line already known not to be a fence line or at a line start before a char that cannot
    /// begin one (nor a tag), [`RunEnd::Lines`]. Outside a fence, nothing held means the line
    /// is at its start or plain.
    #[inline]
    fn run_end(&self, first: u8) -> Option<RunEnd> {
        if !self.is_idle() {
            return None;
        }
        if self.code.fence.is_some() {
            return Some(RunEnd::Newline);
        }
        match self.code.line {
            LineScan::Plain => Some(RunEnd::Lines),
            LineScan::Indent(0) if starts_plain_line(first) => Some(RunEnd::Lines),
            _ => None,
        }
    }

    /// No tag, held line or backtick run pending.
    #[inline]
    fn is_idle(&self) -> bool {
        self.scanner.pending.is_none() && self.code.held.is_empty() && self.code.run == 0
    }

    /// The state change of feeding `text`, a run that [`absorbable`](Self::absorbable)
    /// allowed, char by char; the caller passes its text on.
    #[inline]
    fn absorb(&mut self, text: &str, run: Run) {
        if run.newline {
            self.code.line = LineScan::default();
        } else if self.code.fence.is_none() {
            if run.ticks > 0 {
                // The char after the backticks would end their run first thing.
                self.code.run = run.ticks;
                self.code.finish_run();
            }
            self.code.line = LineScan::Plain;
        } else if !matches!(
            self.code.line,
            LineScan::Plain | LineScan::Rest { valid: false, .. }
        ) {
            self.absorb_code_line(text);
        }
    }

    /// [`absorb`](Self::absorb) inside a fence, in a line still unsettled: the line scan
    /// decides whether this line will close the fence, until it settles.
    fn absorb_code_line(&mut self, text: &str) {
        self.code.line = text
            .chars()
            .try_fold(self.code.line, |line, c| match line.advance(c) {
                settled @ (LineScan::Plain | LineScan::Rest { valid: false, .. }) => Err(settled),
                open => Ok(open),
            })
            .unwrap_or_else(|settled| settled);
    }

    fn feed(&mut self, c: char, out: &mut String, side: &mut String) {
        let scanner = &mut self.scanner;
        self.code.feed(c, &mut |ch, in_code| {
            scanner.on_char(ch, in_code, out, side)
        });
        self.inside = self.scanner.inside;
    }

    fn finish(&mut self, out: &mut String, side: &mut String) {
        let scanner = &mut self.scanner;
        self.code
            .finish(&mut |ch, in_code| scanner.on_char(ch, in_code, out, side));
        self.scanner.flush_pending(out, side);
        self.inside = self.scanner.inside;
    }
}

/// Where a partially read tag stands, following
/// `<\s*(\/?)\s*NAME\s*>` one character at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagPhase {
    /// After `<`: whitespace, `/` or the first name letter may follow.
    Lead,
    /// After `/`: whitespace or the first name letter may follow.
    AfterSlash,
    /// Inside the name.
    Name,
    /// After a complete name: whitespace or `>` may follow.
    AfterName,
}

#[derive(Debug, Clone)]
struct PendingTag {
    /// The raw text read so far, starting with `<`.
    raw: String,
    phase: TagPhase,
    close: bool,
    /// Lower-cased name letters read so far (at most 11).
    name: String,
}

#[derive(Debug, Clone)]
struct TagScanner {
    kind: StageKind,
    pending: Option<PendingTag>,
    /// Thinking: inside a thinking block. FinalExtract: inside `<final>`. FinalStrip: unused.
    inside: bool,
}

/// Outcome of offering one character to a pending tag.
enum Step {
    Continue,
    Matched,
    Failed,
}

impl TagScanner {
    /// Handles one character whose code-span status is known. `in_code` matters only for `<`:
    /// the reference checks whether a tag's start index lies inside a code span.
    fn on_char(&mut self, c: char, in_code: bool, out: &mut String, side: &mut String) {
        if let Some(pending) = self.pending.as_mut() {
            match step(pending, c, self.kind.names()) {
                Step::Continue => return,
                Step::Matched => {
                    if let Some(tag) = self.pending.take() {
                        self.on_tag(tag, out, side);
                    }
                    return;
                }
                Step::Failed => {
                    // The `<…` read so far is literal text. Its characters after `<` can never
                    // start a tag, but `c` may (it may be a new `<`), so it is rescanned.
                    if let Some(tag) = self.pending.take() {
                        self.text(&tag.raw, out, side);
                    }
                }
            }
        }
        if c == '<' && !in_code {
            self.pending = Some(PendingTag {
                raw: String::from('<'),
                phase: TagPhase::Lead,
                close: false,
                name: String::new(),
            });
        } else {
            let mut buf = [0u8; 4];
            self.text(c.encode_utf8(&mut buf), out, side);
        }
    }

    /// End of text: an unfinished tag is literal text (the regex never matched it).
    fn flush_pending(&mut self, out: &mut String, side: &mut String) {
        if let Some(tag) = self.pending.take() {
            self.text(&tag.raw, out, side);
        }
    }

    fn text(&self, s: &str, out: &mut String, side: &mut String) {
        match self.kind {
            StageKind::Thinking if self.inside => side.push_str(s),
            StageKind::Thinking | StageKind::FinalStrip => out.push_str(s),
            StageKind::FinalExtract if self.inside => out.push_str(s),
            StageKind::FinalExtract => {}
        }
    }

    fn on_tag(&mut self, tag: PendingTag, out: &mut String, side: &mut String) {
        match self.kind {
            // `inThinking = !isClose`: a stray close tag is removed, a nested open is absorbed.
            StageKind::Thinking => self.inside = !tag.close,
            StageKind::FinalStrip => {}
            StageKind::FinalExtract => {
                if !self.inside && !tag.close {
                    self.inside = true;
                } else if self.inside && tag.close {
                    self.inside = false;
                } else {
                    // The reference leaves such a tag in the text: kept inside `<final>`
                    // (pass 3 removes it), dropped with everything else outside.
                    self.text(&tag.raw, out, side);
                }
            }
        }
    }
}

/// Advances a pending tag by one character.
fn step(tag: &mut PendingTag, c: char, names: &[&str]) -> Step {
    let space = is_js_whitespace(c);
    match tag.phase {
        TagPhase::Lead | TagPhase::AfterSlash if space => {}
        TagPhase::Lead if c == '/' => {
            tag.close = true;
            tag.phase = TagPhase::AfterSlash;
        }
        TagPhase::Lead | TagPhase::AfterSlash => {
            if !extend_name(tag, c, names) {
                return Step::Failed;
            }
            tag.phase = TagPhase::Name;
        }
        TagPhase::Name => {
            if extend_name(tag, c, names) {
                // Still a name prefix, e.g. `think` + `i` on the way to `thinking`.
            } else if !names.contains(&tag.name.as_str()) {
                return Step::Failed;
            } else if c == '>' {
                tag.raw.push(c);
                return Step::Matched;
            } else if space {
                tag.phase = TagPhase::AfterName;
            } else {
                return Step::Failed;
            }
        }
        TagPhase::AfterName if space => {}
        TagPhase::AfterName if c == '>' => {
            tag.raw.push(c);
            return Step::Matched;
        }
        TagPhase::AfterName => return Step::Failed,
    }
    tag.raw.push(c);
    Step::Continue
}

/// Appends `c` to the tag name when the result is still a prefix of an allowed name. Matching is
/// ASCII case-insensitive, like a JS `/i` regex without the `u` flag.
fn extend_name(tag: &mut PendingTag, c: char, names: &[&str]) -> bool {
    if !c.is_ascii_alphabetic() {
        return false;
    }
    let lower = c.to_ascii_lowercase();
    let len = tag.name.len();
    let fits = names.iter().any(|name| {
        name.len() > len && name.starts_with(tag.name.as_str()) && name[len..].starts_with(lower)
    });
    if fits {
        tag.name.push(lower);
    }
    fits
}

/// How far the current line has been classified against the fence-line regex
/// `` ^( {0,3})(`{3,}|~{3,})(.*)$ ``.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineScan {
    /// At the start of the line, after this many spaces (0..=3).
    Indent(u8),
    /// Inside the marker run.
    Marker { ch: char, len: usize },
    /// After a marker run of at least 3; `valid` turns false on a JS line terminator.
    Rest { ch: char, len: usize, valid: bool },
    /// Not a fence line.
    Plain,
}

impl Default for LineScan {
    fn default() -> Self {
        Self::Indent(0)
    }
}

impl LineScan {
    fn advance(self, c: char) -> Self {
        match self {
            Self::Indent(n) if c == ' ' && n < 3 => Self::Indent(n + 1),
            Self::Indent(_) if c == '`' || c == '~' => Self::Marker { ch: c, len: 1 },
            Self::Indent(_) | Self::Plain => Self::Plain,
            Self::Marker { ch, len } if c == ch => Self::Marker { ch, len: len + 1 },
            Self::Marker { ch, len } if len >= 3 => Self::Rest {
                ch,
                len,
                valid: !is_js_line_terminator(c),
            },
            Self::Marker { .. } => Self::Plain,
            Self::Rest { ch, len, valid } => Self::Rest {
                ch,
                len,
                valid: valid && !is_js_line_terminator(c),
            },
        }
    }

    /// The marker of a complete line, when the line is a fence line.
    fn fence_marker(self) -> Option<(char, usize)> {
        match self {
            Self::Marker { ch, len } if len >= 3 => Some((ch, len)),
            Self::Rest {
                ch,
                len,
                valid: true,
            } => Some((ch, len)),
            _ => None,
        }
    }

    /// `true` while the line may still turn out to be a fence line.
    fn undecided(self) -> bool {
        match self {
            Self::Indent(_) | Self::Marker { .. } => true,
            Self::Rest { valid, .. } => valid,
            Self::Plain => false,
        }
    }
}

/// Streaming equivalent of OpenClaw's `buildCodeSpanIndex(text, inlineState).isInside`.
///
/// Characters come out in input order, each with whether it lies inside a code span. Characters
/// of a line that may be a fence opener are held until the line ends, because a fence opener
/// makes its whole line code while a non-fence line's backticks count as inline runs.
#[derive(Debug, Clone, Default)]
struct CodeTracker {
    /// Marker of the open fence, if the text is inside one.
    fence: Option<(char, usize)>,
    line: LineScan,
    /// Characters of the current line held while it may open a fence (outside fences only).
    held: Vec<char>,
    inline_open: bool,
    inline_ticks: usize,
    /// Length of the backtick run being read outside fences.
    run: usize,
}

impl CodeTracker {
    fn feed(&mut self, c: char, sink: &mut impl FnMut(char, bool)) {
        if c == '\n' {
            self.end_line(sink);
            self.line = LineScan::default();
            // The newline after an opening line is inside the fence; the one after a closing
            // line is not (the span ends where the closing line ends).
            if self.fence.is_some() {
                sink(c, true);
            } else {
                self.plain(c, sink);
            }
            return;
        }
        self.line = self.line.advance(c);
        if self.fence.is_some() {
            // Everything up to the end of the closing line is code; whether this line closes
            // the fence is settled at its end.
            sink(c, true);
            return;
        }
        if self.line.undecided() {
            self.held.push(c);
            return;
        }
        self.release_plain(sink);
        self.plain(c, sink);
    }

    /// End of text: settle the last line and the pending backtick run, then start over at a
    /// line start outside any fence (inline-code state carries over, as in the reference).
    fn finish(&mut self, sink: &mut impl FnMut(char, bool)) {
        self.end_line(sink);
        self.finish_run();
        self.line = LineScan::default();
        self.fence = None;
    }

    fn end_line(&mut self, sink: &mut impl FnMut(char, bool)) {
        let marker = self.line.fence_marker();
        match (self.fence, marker) {
            (Some((open_ch, open_len)), Some((ch, len))) if ch == open_ch && len >= open_len => {
                self.fence = None;
            }
            (Some(_), _) => {}
            (None, Some(found)) => {
                self.fence = Some(found);
                for c in self.held.drain(..) {
                    sink(c, true);
                }
            }
            (None, None) => self.release_plain(sink),
        }
    }

    fn release_plain(&mut self, sink: &mut impl FnMut(char, bool)) {
        if self.held.is_empty() {
            return;
        }
        let held = std::mem::take(&mut self.held);
        for &c in &held {
            self.plain(c, sink);
        }
        // Keep the allocation for the next line.
        self.held = held;
        self.held.clear();
    }

    /// A character outside any fence: inline backtick runs open and close code spans.
    fn plain(&mut self, c: char, sink: &mut impl FnMut(char, bool)) {
        if c == '`' {
            self.run += 1;
        } else {
            self.finish_run();
        }
        sink(c, self.inline_open);
    }

    fn finish_run(&mut self) {
        if self.run == 0 {
            return;
        }
        if !self.inline_open {
            self.inline_open = true;
            self.inline_ticks = self.run;
        } else if self.run == self.inline_ticks {
            self.inline_open = false;
            self.inline_ticks = 0;
        }
        self.run = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(enforce: bool) -> TagFilterOptions {
        TagFilterOptions {
            enforce_final_tag: enforce,
        }
    }

    /// Feeds `chunks` as given, then char by char, then whole; all three must agree.
    fn run(chunks: &[&str], enforce: bool) -> String {
        let mut filter = TagFilter::new(opts(enforce));
        let mut chunked = String::new();
        for chunk in chunks {
            chunked.push_str(&filter.push(chunk));
        }
        chunked.push_str(&filter.finish());

        let whole: String = chunks.concat();
        let mut filter = TagFilter::new(opts(enforce));
        let mut by_char = String::new();
        for c in whole.chars() {
            by_char.push_str(&filter.push(c.encode_utf8(&mut [0u8; 4])));
        }
        by_char.push_str(&filter.finish());

        let at_once = TagFilter::strip(&whole, opts(enforce));
        assert_eq!(chunked, at_once, "chunked vs whole for {chunks:?}");
        assert_eq!(by_char, at_once, "per char vs whole for {chunks:?}");
        at_once
    }

    #[test]
    fn tag_syntax_variants() {
        assert_eq!(run(&["a< think >b</ THINK >c"], false), "ac");
        assert_eq!(run(&["a<\n/\nthinking\n>b"], false), "ab");
        assert_eq!(run(&["a<AntThinking>b</antthinking>c"], false), "ac");
        assert_eq!(run(&["a<thinkin>b"], false), "a<thinkin>b");
        assert_eq!(run(&["a<thinkingx>b"], false), "a<thinkingx>b");
        assert_eq!(run(&["a<think x>b"], false), "a<think x>b");
        assert_eq!(run(&["a<//think>b"], false), "a<//think>b");
        assert_eq!(run(&["a<<think>b</think>c"], false), "a<c");
        assert_eq!(run(&["a</think>b"], false), "ab", "stray close is removed");
        assert_eq!(
            run(&["<think>a<think>b</think>c"], false),
            "c",
            "no nesting count"
        );
    }

    #[test]
    fn partial_tag_is_held_then_released_at_finish() {
        let mut filter = TagFilter::new(opts(false));
        assert_eq!(filter.push("ok <thin"), "ok ");
        assert_eq!(filter.finish(), "<thin");
        let mut filter = TagFilter::new(opts(false));
        assert_eq!(filter.push("x <"), "x ");
        assert_eq!(filter.push("b"), "<b");
    }

    #[test]
    fn code_spans_protect_tags() {
        assert_eq!(run(&["`<think>` x"], false), "`<think>` x");
        assert_eq!(
            run(&["``a ` <think>`` b<think>c"], false),
            "``a ` <think>`` b"
        );
        assert_eq!(run(&["`open <think>x"], false), "`open <think>x");
        assert_eq!(
            run(&["~~~\n<think>\n~~~\n<think>x"], false),
            "~~~\n<think>\n~~~\n"
        );
        assert_eq!(
            run(&["```<think>\nx</think>y\n```\nz"], false),
            "```<think>\nx</think>y\n```\nz"
        );
        // Four spaces of indent is not a fence: the backticks open an inline span instead.
        assert_eq!(run(&["    ```\n<think>x"], false), "    ```\n<think>x");
        assert_eq!(
            run(&["    ```\n<think>x`<think>y"], false),
            "    ```\n<think>x`<think>y",
            "a run of 1 does not close a run of 3"
        );
        assert_eq!(
            run(&["    ```\n<think>x```<think>y"], false),
            "    ```\n<think>x```"
        );
        // A CR after the marker makes the line a non-fence line (JS `.` semantics); its
        // backticks then open an inline span that protects the tag.
        assert_eq!(run(&["```\r\n<think>x"], false), "```\r\n<think>x");
        assert_eq!(run(&["``\n<think>x"], false), "``\n<think>x");
    }

    #[test]
    fn final_tags() {
        assert_eq!(run(&["<final>a</final> b"], false), "a b");
        assert_eq!(run(&["`<final>` b"], false), "`<final>` b");
        assert_eq!(run(&["x<final>a</final>y"], true), "a");
        assert_eq!(run(&["x<final>a<final>b</final>y<final>c"], true), "abc");
        assert_eq!(run(&["no tags"], true), "");
        assert_eq!(run(&["`<final>` not a tag"], true), "");
        assert_eq!(run(&["<final>`</final>` more"], true), "`</final>` more");
        // Thinking is removed before the final pass, so pieces can join into a tag.
        assert_eq!(run(&["a <fin<think>x</think>al>b"], false), "a b");
    }

    #[test]
    fn reasoning_is_collected() {
        let mut filter = TagFilter::new(opts(false));
        let shown = filter.push("<think>abc</think>d<thinking>e");
        assert_eq!(shown, "d");
        assert!(filter.in_thinking());
        assert_eq!(filter.reasoning(), "abce");
        filter.reset();
        assert_eq!(filter.reasoning(), "");
        assert!(!filter.in_thinking());
    }

    #[test]
    fn multibyte_text_survives_any_split() {
        let text = "héllo 🎉 <think>ß😀</think>ü `<final>` ✓";
        assert_eq!(run(&[text], false), "héllo 🎉 ü `<final>` ✓");
    }

    #[test]
    fn finish_carries_the_inline_code_state_of_the_kept_text() {
        // One block: push then finish, as the subscription strips each block chunk.
        fn block(filter: &mut TagFilter, text: &str) -> String {
            let mut shown = filter.push(text);
            shown.push_str(&filter.finish());
            shown
        }
        // OpenClaw `stripBlockTags(chunk, state)`: the next chunk starts from the inline-code
        // state of the text left after the thinking pass, so a backtick inside a thinking
        // block opens no code span for it. (In its own chunk that backtick does protect the
        // close tag, so the block stays open.)
        let mut filter = TagFilter::new(opts(false));
        assert_eq!(block(&mut filter, "a <think>x ` y</think>b"), "a ");
        assert!(filter.in_thinking());
        assert_eq!(block(&mut filter, "<think>s</think>c"), "c");
        // An inline span left open in the kept text does carry over.
        let mut filter = TagFilter::new(opts(false));
        assert_eq!(block(&mut filter, "a `b"), "a `b");
        assert_eq!(block(&mut filter, "<think>c"), "<think>c");
        // With enforcement it is the state of the text kept inside `<final>`; a chunk that never
        // saw `<final>` leaves the state as it was.
        let mut filter = TagFilter::new(opts(true));
        assert_eq!(block(&mut filter, "`x <final>a</final>"), "");
        assert_eq!(block(&mut filter, "<final>b</final>"), "b");
        let mut filter = TagFilter::new(opts(true));
        assert_eq!(block(&mut filter, "</final>``<"), "");
        assert_eq!(block(&mut filter, "<final>ok"), "ok");
    }

    #[test]
    fn finish_keeps_thinking_state_for_next_block() {
        let mut filter = TagFilter::new(opts(false));
        assert_eq!(filter.push("a <think>b"), "a ");
        assert_eq!(filter.finish(), "");
        assert_eq!(filter.push("c</think>d"), "d");
        assert_eq!(filter.finish(), "");
    }
}
