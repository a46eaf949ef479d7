//! The answer text of one turn as it streams: the visible text of each assistant message (the
//! subscription's stream, with `<think>` and `<final>` tags and reply directives already taken
//! out), whether the line it is written on is still open, and the final message's text for
//! `--print`.
//!
//! Each text block of a message after the first starts on a new line, as pi's print mode
//! writes each block on its own line. The start of a message that may still become the
//! silent-reply token (`NO`, `NO_RE`) is held back until it is not one, or the message ends
//! and is not silent: the subscription drops the whole token, but it has already let its
//! first pieces through by then.

use std::borrow::Cow;

use clawloop_subscribe::SILENT_REPLY_TOKEN;

/// What was streamed so far in one turn.
#[derive(Debug, Default)]
pub struct StreamedText {
    /// Keep the current message's text (`--print` writes the final one at the end).
    keep: bool,
    /// The current assistant message's shown text, when kept.
    message: String,
    /// Some visible text was shown in this turn.
    any: bool,
    /// Text was written and its line not ended yet.
    line_open: bool,
    /// The current message's text so far, while it may still become the silent token.
    held: String,
    /// Nothing of the current message was shown yet: its text may still be held back.
    at_start: bool,
    /// The current message has visible text: a later text block starts on a new line.
    has_text: bool,
    /// A new text block started after visible text: the next text starts on a new line.
    block_break: bool,
}

impl StreamedText {
    /// A stream that keeps each message's text when `keep` (else only tracks the line).
    pub fn new(keep: bool) -> Self {
        StreamedText {
            keep,
            at_start: true,
            ..StreamedText::default()
        }
    }

    /// A new assistant message starts: the final text is its text from now on.
    pub fn start_message(&mut self) {
        self.message.clear();
        self.held.clear();
        self.at_start = true;
        self.has_text = false;
        self.block_break = false;
    }

    /// A text block of the current message starts.
    pub fn start_block(&mut self) {
        self.block_break = self.has_text;
    }

    /// `delta` was added to the visible text: what to show of it now (nothing while the
    /// message may still be the silent token, the held text with it once it cannot be).
    pub fn push<'a>(&mut self, delta: &'a str) -> Cow<'a, str> {
        if delta.is_empty() {
            return Cow::Borrowed("");
        }
        self.has_text = true;
        let shown = if std::mem::take(&mut self.block_break) {
            Cow::Owned(format!("\n{delta}"))
        } else {
            Cow::Borrowed(delta)
        };
        let shown = if self.at_start {
            self.held.push_str(&shown);
            if may_become_silent(&self.held) {
                return Cow::Borrowed("");
            }
            self.at_start = false;
            Cow::Owned(std::mem::take(&mut self.held))
        } else {
            shown
        };
        self.show(&shown);
        shown
    }

    /// Whether text is held back that [`StreamedText::end_message`] must decide on.
    pub fn holds(&self) -> bool {
        !self.held.is_empty()
    }

    /// The current message ended, `silent` when it is the silent token: the held text to show
    /// now, if any.
    pub fn end_message(&mut self, silent: bool) -> Option<String> {
        self.at_start = false;
        let held = std::mem::take(&mut self.held);
        if silent || held.is_empty() {
            return None;
        }
        self.show(&held);
        Some(held)
    }

    fn show(&mut self, text: &str) {
        if self.keep {
            self.message.push_str(text);
        }
        self.any = true;
        self.line_open = !text.ends_with('\n');
    }

    /// Whether a newline must end the written text now (it is then taken as written).
    pub fn end_line(&mut self) -> bool {
        std::mem::take(&mut self.line_open)
    }

    /// Whether any visible text was shown.
    pub fn any(&self) -> bool {
        self.any
    }

    /// The text of the last assistant message (kept streams only), `None` when no visible text
    /// was shown in the turn.
    pub fn final_text(&self) -> Option<&str> {
        self.any.then_some(self.message.as_str())
    }
}

/// Whether `text` is the silent token or may still become it (ASCII case aside, as the
/// subscription matches it).
fn may_become_silent(text: &str) -> bool {
    SILENT_REPLY_TOKEN
        .as_bytes()
        .get(..text.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(text.as_bytes()))
}

/// Whether a message whose visible text is `text` is the silent token.
pub fn is_silent(text: &str) -> bool {
    text.trim().eq_ignore_ascii_case(SILENT_REPLY_TOKEN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_final_text_is_the_last_message_and_lines_end_once() {
        let mut stream = StreamedText::new(true);
        assert_eq!(stream.final_text(), None);
        stream.start_message();
        stream.push("Let me ");
        stream.push("look.");
        assert!(stream.end_line());
        assert!(!stream.end_line());
        stream.start_message();
        stream.push("It says ");
        stream.push("");
        stream.push("42.");
        assert_eq!(stream.final_text(), Some("It says 42."));
        stream.push("\n");
        assert!(!stream.end_line());
        stream.start_message();
        assert_eq!(stream.final_text(), Some(""));
        assert!(stream.any());
    }

    #[test]
    fn an_unkept_stream_tracks_only_the_line() {
        let mut stream = StreamedText::new(false);
        assert_eq!(stream.push("words"), "words");
        assert_eq!(stream.final_text(), Some(""));
        assert!(stream.end_line());
    }

    #[test]
    fn each_text_block_after_the_first_starts_on_a_new_line() {
        let mut stream = StreamedText::new(true);
        stream.start_message();
        stream.start_block();
        assert_eq!(stream.push("First "), "First ");
        assert_eq!(stream.push("block."), "block.");
        // A block with no visible text (all reasoning) adds no line.
        stream.start_block();
        stream.start_block();
        assert_eq!(stream.push("Second."), "\nSecond.");
        assert_eq!(stream.final_text(), Some("First block.\nSecond."));
        stream.start_message();
        stream.start_block();
        assert_eq!(stream.push("Next message."), "Next message.");
    }

    /// What each delta shows, and what the message's end shows, for a message.
    fn shown(deltas: &[&str], silent: bool) -> (Vec<String>, Option<String>) {
        let mut stream = StreamedText::new(true);
        stream.start_message();
        let shown = deltas.iter().map(|d| stream.push(d).into_owned()).collect();
        (shown, stream.end_message(silent))
    }

    /// Deltas, whether the message is silent, what each delta shows and what its end shows.
    type Case = (
        &'static [&'static str],
        bool,
        &'static [&'static str],
        Option<&'static str>,
    );

    #[test]
    fn only_a_possible_start_of_the_silent_token_is_held_back() {
        let owned = |shown: &[&str]| shown.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let table: [Case; 7] = [
            (&["Hello", " there"], false, &["Hello", " there"], None),
            (&["NO_", "REPLY"], true, &["", ""], None),
            (&["N", "O"], true, &["", ""], None),
            (&["no_re"], true, &[""], None),
            (&["No", " problem."], false, &["", "No problem."], None),
            (&["NO"], false, &[""], Some("NO")),
            // Only the start of a message: a later `NO` is text.
            (&["Say ", "NO_"], false, &["Say ", "NO_"], None),
        ];
        for (deltas, silent, each, at_end) in table {
            assert_eq!(
                shown(deltas, silent),
                (owned(each), at_end.map(str::to_owned)),
                "{deltas:?}"
            );
        }
    }

    #[test]
    fn held_text_is_no_answer_until_shown() {
        let mut stream = StreamedText::new(true);
        stream.start_message();
        stream.push("NO_");
        assert!(stream.holds());
        assert_eq!(stream.final_text(), None);
        assert_eq!(stream.end_message(true), None);
        assert!(!stream.any());
        assert!(!stream.end_line());
    }

    #[test]
    fn silence_is_the_whole_token_in_any_case() {
        for (text, silent) in [
            ("NO_REPLY", true),
            (" no_reply\n", true),
            ("NO_REPLY.", false),
            ("NO", false),
        ] {
            assert_eq!(is_silent(text), silent, "{text:?}");
        }
    }
}
