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
    pub(crate) fn push_into(&mut self, delta: &str, out: &mut String) {
        let mut first = std::mem::take(&mut self.between[0]);
        first.clear();
        self.thinking
            .feed_str(delta, &mut first, &mut self.reasoning);
        self.run_final_passes(&first, false, out);
        self.between[0] = first;
    }

    /// Ends the current text and returns everything still held back.
    ///
    /// A pending partial tag (`<thi` at the very end) is literal text, exactly as when the
    /// whole text is scanned at once. Thinking, final and inline-code state persist, while the
    /// line and fence state start over, so the filter can go on with a following block the way
    /// OpenClaw's per-chunk `stripBlockTags(chunk, state)` does. Use [`reset`](Self::reset) for
    /// a new message.
    pub fn finish(&mut self) -> String {
        let mut first = String::new();
        self.thinking.finish(&mut first, &mut self.reasoning);
        let mut shown = String::new();
        self.run_final_passes(&first, true, &mut shown);
        shown
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

    /// Feeds every char of `text`, copying runs that cannot change any state in one go.
    fn feed_str(&mut self, mut text: &str, out: &mut String, side: &mut String) {
        while !text.is_empty() {
            if self.is_passthrough() {
                // In the middle of a line already known not to be a fence line, with no tag or
                // backtick run pending, any char but a newline, `<` or a backtick goes straight
                // to the output its stage state selects and changes nothing (inside a fence,
                // `<` and backticks are code, so only the newline matters). Copying such runs
                // whole instead of char by char makes the filter several times faster.
                let run = if self.code.fence.is_some() {
                    text.find('\n')
                } else {
                    find_newline_lt_or_backtick(text.as_bytes())
                }
                .unwrap_or(text.len());
                if run > 0 {
                    // The three bytes are ASCII, so `run` is a char boundary.
                    let (plain, rest) = text.split_at(run);
                    self.scanner.text(plain, out, side);
                    text = rest;
                    continue;
                }
            }
            let mut chars = text.chars();
            if let Some(c) = chars.next() {
                self.feed(c, out, side);
            }
            text = chars.as_str();
        }
    }

    /// `true` when [`feed`](Self::feed) of a char other than `\n`, `<` and `` ` `` (only `\n`
    /// inside a fence) would only pass it to [`TagScanner::text`].
    fn is_passthrough(&self) -> bool {
        self.scanner.pending.is_none()
            && self.code.line == LineScan::Plain
            && self.code.run == 0
            && self.code.held.is_empty()
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

/// Index of the first `\n`, `<` or backtick in `bytes`.
///
/// Eight bytes at a time (the classic "has zero byte" bit trick on each byte XOR the wanted
/// one): this scan is most of the filter's work on ordinary text.
fn find_newline_lt_or_backtick(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // High bit set in each byte of `word` equal to `byte`; only the lowest flagged byte is
    // guaranteed exact, which is the one used.
    let equal = |word: u64, byte: u8| {
        let x = word ^ (ONES * u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGHS
    };
    let mut words = bytes.chunks_exact(8);
    for (n, chunk) in words.by_ref().enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let hits = equal(word, b'\n') | equal(word, b'<') | equal(word, b'`');
        if hits != 0 {
            return Some(n * 8 + (hits.trailing_zeros() / 8) as usize);
        }
    }
    let done = bytes.len() - words.remainder().len();
    words
        .remainder()
        .iter()
        .position(|&b| matches!(b, b'\n' | b'<' | b'`'))
        .map(|p| done + p)
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
    fn special_byte_scan_finds_the_first_match() {
        let naive = |s: &[u8]| s.iter().position(|&b| matches!(b, b'\n' | b'<' | b'`'));
        let mut text = Vec::new();
        for len in 0usize..40 {
            for (at, special) in [(0, b'<'), (len / 2, b'`'), (len.saturating_sub(1), b'\n')] {
                text.clear();
                text.extend((0..len).map(|i| b"ab\x7f\x80\xff;9=_a"[i % 10]));
                if len > 0 {
                    text[at] = special;
                }
                assert_eq!(find_newline_lt_or_backtick(&text), naive(&text), "{text:?}");
            }
        }
        // Bytes right next to the wanted ones (`;` `=` `_` `a`, 0x0B) never match.
        assert_eq!(
            find_newline_lt_or_backtick(b";=_a\x0b\x09;=_a\x0b\x09;=_a"),
            None
        );
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
    fn finish_keeps_thinking_state_for_next_block() {
        let mut filter = TagFilter::new(opts(false));
        assert_eq!(filter.push("a <think>b"), "a ");
        assert_eq!(filter.finish(), "");
        assert_eq!(filter.push("c</think>d"), "d");
        assert_eq!(filter.finish(), "");
    }
}
