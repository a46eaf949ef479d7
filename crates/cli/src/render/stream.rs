//! The answer text of one turn as it streams: the visible text of each assistant message (the
//! subscription's stream, with `<think>` and `<final>` tags and reply directives already taken
//! out), whether the line it is written on is still open, and the final message's text for
//! `--print`.

/// What was streamed so far in one turn.
#[derive(Debug, Default)]
pub struct StreamedText {
    /// Keep the current message's text (`--print` writes the final one at the end).
    keep: bool,
    /// The current assistant message's visible text, when kept.
    message: String,
    /// Some visible text arrived in this turn.
    any: bool,
    /// Text was written and its line not ended yet.
    line_open: bool,
}

impl StreamedText {
    /// A stream that keeps each message's text when `keep` (else only tracks the line).
    pub fn new(keep: bool) -> Self {
        StreamedText {
            keep,
            ..StreamedText::default()
        }
    }

    /// A new assistant message starts: the final text is its text from now on.
    pub fn start_message(&mut self) {
        self.message.clear();
    }

    /// `delta` was added to the visible text.
    pub fn push(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        if self.keep {
            self.message.push_str(delta);
        }
        self.any = true;
        self.line_open = !delta.ends_with('\n');
    }

    /// Whether a newline must end the written text now (it is then taken as written).
    pub fn end_line(&mut self) -> bool {
        std::mem::take(&mut self.line_open)
    }

    /// Whether any visible text arrived.
    pub fn any(&self) -> bool {
        self.any
    }

    /// The text of the last assistant message (kept streams only), `None` when no visible text
    /// arrived in the turn.
    pub fn final_text(&self) -> Option<&str> {
        self.any.then_some(self.message.as_str())
    }
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
        stream.push("words");
        assert_eq!(stream.final_text(), Some(""));
        assert!(stream.end_line());
    }
}
