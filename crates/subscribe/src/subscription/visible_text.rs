//! The current assistant message's visible text: the deltas filtered incrementally through
//! the tag filter, its trim bounds, and what of it was reported as the cleaned text (OpenClaw
//! `lastStreamedAssistantCleaned`). One of the subscription's seams: it only keeps the text
//! and says what to report; the subscription sends it and feeds the block chunker.

use clawloop_core::js_text::js_trim_start;

use super::directive_scan::{DirectiveScan, cleaned_reply_text, may_hold_reply_directive};
use super::text_compare::trimmed_end_len;
use crate::tag_filter::{TagFilter, TagFilterOptions};

/// The visible text of one assistant message.
#[derive(Debug, Clone)]
pub(super) struct VisibleText {
    /// Filters the deltas incrementally into `raw` (OpenClaw re-strips the whole buffer per
    /// delta with a fresh state; the result is the same, minus held-back tags).
    filter: TagFilter,
    raw: String,
    /// Byte offset of the first non-whitespace char of `raw`.
    start: Option<usize>,
    /// Byte offset just after the last non-whitespace char of `raw`.
    end: usize,
    /// End in `raw` of the cleaned text last reported while it was a prefix of the visible
    /// text, 0 for none.
    streamed_end: usize,
    /// The cleaned text last reported once the visible text may hold a directive (then it is
    /// no longer a slice of `raw`).
    streamed_cleaned: Option<String>,
    /// `raw` may hold a reply directive or the silent token: `[[`, `media:` or `no_reply`
    /// (ASCII case-insensitive) appeared in it.
    directive_candidate: bool,
    /// Where the next search of `raw` for a directive candidate starts (see
    /// [`DirectiveScan`]).
    directive_resume: usize,
}

/// What one push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pushed {
    /// Where the text this push showed starts in the visible text.
    pub base: usize,
    /// The filter was inside a thinking block before the push.
    pub was_thinking: bool,
    /// It is after the push.
    pub now_thinking: bool,
}

impl VisibleText {
    /// An empty text filtered with `options`.
    pub(super) fn new(options: TagFilterOptions) -> Self {
        VisibleText {
            filter: TagFilter::new(options),
            raw: String::new(),
            start: None,
            end: 0,
            streamed_end: 0,
            streamed_cleaned: None,
            directive_candidate: false,
            directive_resume: 0,
        }
    }

    /// Empty again, for the next message.
    pub(super) fn reset(&mut self) {
        self.filter.reset();
        self.raw.clear();
        self.start = None;
        self.end = 0;
        self.streamed_end = 0;
        self.streamed_cleaned = None;
        self.directive_candidate = false;
        self.directive_resume = 0;
    }

    /// The tag filter (the block filter starts as a copy of it).
    pub(super) fn filter(&self) -> &TagFilter {
        &self.filter
    }

    /// The tagged reasoning the filter took out so far.
    pub(super) fn reasoning(&self) -> &str {
        self.filter.reasoning()
    }

    /// The visible text from `base` on (what a push showed).
    pub(super) fn shown_since(&self, base: usize) -> &str {
        self.raw.get(base..).unwrap_or_default()
    }

    /// Filters `chunk` into the text and moves the trim bounds.
    pub(super) fn push(&mut self, chunk: &str) -> Pushed {
        let was_thinking = self.filter.in_thinking();
        let base = self.raw.len();
        // The filter shows at most the chunk and what it held back: one reservation instead of
        // repeated growth when a long text arrives at once (small ones grow as usual).
        if chunk.len() > 4096 {
            self.raw.reserve(chunk.len());
        }
        self.filter.push_into(chunk, &mut self.raw);
        let shown = &self.raw[base..];
        // Only the new text is scanned for the trim bounds, keeping the cost per delta. The
        // bounds move only when it holds a non-whitespace char, that is when it is not empty
        // once trimmed at the end.
        let shown_end = trimmed_end_len(shown);
        if shown_end > 0 {
            if self.start.is_none() {
                let offset = shown.len() - js_trim_start(shown).len();
                self.start = Some(base + offset);
            }
            self.end = base + shown_end;
        }
        Pushed {
            base,
            was_thinking,
            now_thinking: self.filter.in_thinking(),
        }
    }

    /// The cleaned text to report now and what is new in it, when it grew since the last
    /// report; `None` otherwise (nothing visible yet, or no growth: output stays monotonic).
    pub(super) fn next_report(&mut self) -> Option<(&str, &str)> {
        let start = self.start?;
        self.scan_directive_candidates();
        if self.directive_candidate {
            self.report_parsed(start)
        } else {
            self.report_prefix(start)
        }
    }

    /// Notes whether the visible text got a `[[`, `media:` or `no_reply` (ASCII
    /// case-insensitive, as OpenClaw matches them), searching only what is new plus, when the
    /// text searched before ended near a `[`, `:` or `_`, the bytes a needle split across
    /// deltas may have begun in.
    fn scan_directive_candidates(&mut self) {
        if self.directive_candidate {
            return;
        }
        match may_hold_reply_directive(self.raw.as_bytes(), self.directive_resume) {
            DirectiveScan::Found => self.directive_candidate = true,
            DirectiveScan::NotFound { resume } => self.directive_resume = resume,
        }
    }

    /// The cleaned text when the visible text holds no directive: the visible text without a
    /// trailing `[` (it may open one), which stays a slice of `raw`.
    fn report_prefix(&mut self, start: usize) -> Option<(&str, &str)> {
        let mut end = self.end;
        if let Some(open) = self.raw.get(start..end).and_then(|v| v.strip_suffix('[')) {
            end = start + trimmed_end_len(open);
        }
        let prev = self.streamed_end.max(start);
        if end <= prev {
            return None;
        }
        self.streamed_end = end;
        Some((self.raw.get(start..end)?, self.raw.get(prev..end)?))
    }

    /// The cleaned text (OpenClaw `parseReplyDirectives(stripTrailingDirective(next))`) when
    /// the visible text may hold a directive: parsed from the whole visible text, reported
    /// only when it extends what was reported.
    fn report_parsed(&mut self, start: usize) -> Option<(&str, &str)> {
        let visible = self.raw.get(start..self.end)?;
        let cleaned = cleaned_reply_text(visible);
        let previous = match &self.streamed_cleaned {
            Some(previous) => previous.as_str(),
            None => self
                .raw
                .get(start..self.streamed_end.max(start))
                .unwrap_or_default(),
        };
        if cleaned.len() <= previous.len() || !cleaned.starts_with(previous) {
            return None;
        }
        let prev = previous.len();
        let cleaned = self.streamed_cleaned.insert(cleaned);
        Some((cleaned.as_str(), cleaned.get(prev..).unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// One report: the cleaned text and what is new in it.
    type Report = Option<(String, String)>;

    /// The reports of `deltas`, pushed one by one.
    fn reports(deltas: &[&str]) -> Vec<Report> {
        let mut text = VisibleText::new(TagFilterOptions::default());
        deltas
            .iter()
            .map(|delta| {
                text.push(delta);
                text.next_report()
                    .map(|(text, delta)| (text.to_owned(), delta.to_owned()))
            })
            .collect()
    }

    fn some(text: &str, delta: &str) -> Report {
        Some((text.to_owned(), delta.to_owned()))
    }

    #[test]
    fn the_cleaned_text_grows_monotonically() {
        // (case, deltas, a report per delta)
        let table: [(&str, &[&str], Vec<Report>); 6] = [
            (
                "plain text grows by its deltas",
                &["Hello", " world"],
                vec![some("Hello", "Hello"), some("Hello world", " world")],
            ),
            (
                "leading and trailing whitespace wait",
                &["  ", "Hi", " \n"],
                vec![None, some("Hi", "Hi"), None],
            ),
            (
                "a trailing [ may open a directive",
                &["Look [", "here"],
                vec![some("Look", "Look"), some("Look [here", " [here")],
            ),
            (
                "thinking is not visible",
                &["<think>plan", "</think>Answer"],
                vec![None, some("Answer", "Answer")],
            ),
            (
                "a reply directive is cleaned out",
                &["[[reply_to_current]] Sure", ", done"],
                vec![some("Sure", "Sure"), some("Sure, done", ", done")],
            ),
            (
                "an unfinished directive waits, a finished one adds nothing",
                &["Sure [[reply_to", "_current]]", " thing"],
                vec![some("Sure", "Sure"), None, some("Sure thing", " thing")],
            ),
        ];
        for (case, deltas, expected) in table {
            assert_eq!(reports(deltas), expected, "{case}");
        }
    }

    #[test]
    fn push_tells_the_thinking_transitions_and_what_it_showed() {
        let mut text = VisibleText::new(TagFilterOptions::default());
        let pushed = text.push("a<think>b");
        assert_eq!((pushed.was_thinking, pushed.now_thinking), (false, true));
        assert_eq!(text.shown_since(pushed.base), "a");
        let pushed = text.push("</think>c");
        assert_eq!((pushed.was_thinking, pushed.now_thinking), (true, false));
        assert_eq!(text.shown_since(pushed.base), "c");
        assert_eq!(text.reasoning(), "b");
        text.reset();
        assert_eq!(text.next_report(), None);
    }
}
