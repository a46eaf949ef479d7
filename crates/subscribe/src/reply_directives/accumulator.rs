//! Directive parsing across streamed block replies (OpenClaw
//! `createStreamingDirectiveAccumulator` in `streaming-directives.ts`).

use super::silent::{
    is_silent_reply_prefix_text, is_silent_reply_text, starts_with_silent_token,
    strip_leading_silent_token,
};
use super::{ReplyDirectives, SILENT_REPLY_TOKEN, parse_media_and_reply_tags};

/// The accumulator's per-chunk parse (OpenClaw `parseChunk` in `streaming-directives.ts`):
/// like [`parse_reply_directives`](super::parse_reply_directives) without a current message
/// id, except that a prefix of the silent token is silent too and a silent token glued to the
/// text is removed.
fn parse_chunk(raw: &str, token: &str) -> (ReplyDirectives, Option<String>) {
    let (mut parsed, explicit_id) = parse_media_and_reply_tags(raw, None);
    parsed.is_silent = is_silent_reply_text(&parsed.text, token)
        || is_silent_reply_prefix_text(&parsed.text, token);
    if parsed.is_silent {
        parsed.text.clear();
    } else if starts_with_silent_token(&parsed.text, token) {
        parsed.text = strip_leading_silent_token(&parsed.text, token).to_owned();
    }
    (parsed, explicit_id)
}

/// Reply-to state carried between chunks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ReplyState {
    explicit_id: Option<String>,
    saw_current: bool,
    has_tag: bool,
}

/// Directive parsing across streamed block replies (OpenClaw
/// `createStreamingDirectiveAccumulator`).
///
/// Each chunk is parsed with the text held back from the one before. A trailing `[[` without a
/// later `]]` is held back (it may be the start of a directive), unless the chunk is final. A
/// reply-to tag applies to the first chunk with content at or after it, and then to every later
/// chunk until [`reset`](Self::reset) (a new assistant message).
///
/// ```
/// use clawloop_subscribe::StreamingDirectiveAccumulator;
///
/// let mut acc = StreamingDirectiveAccumulator::new();
/// let first = acc.consume("Sure. [[reply_", false).map(|r| r.text);
/// assert_eq!(first.as_deref(), Some("Sure."));
/// let second = acc.consume("to_current]] Done.", false);
/// assert_eq!(second.as_ref().map(|r| (r.text.as_str(), r.reply_to_current)), Some(("Done.", true)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamingDirectiveAccumulator {
    pending_tail: String,
    pending_reply: ReplyState,
    active_reply: ReplyState,
    silent_token: Option<String>,
}

impl StreamingDirectiveAccumulator {
    /// An empty accumulator using [`SILENT_REPLY_TOKEN`].
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty accumulator with another silent token.
    pub fn with_silent_token(token: impl Into<String>) -> Self {
        Self {
            silent_token: Some(token.into()),
            ..Self::default()
        }
    }

    /// Forgets the held-back text and the reply-to state.
    pub fn reset(&mut self) {
        self.pending_tail.clear();
        self.pending_reply = ReplyState::default();
        self.active_reply = ReplyState::default();
    }

    /// The text held back because it may begin a directive.
    pub fn pending_tail(&self) -> &str {
        &self.pending_tail
    }

    /// Parses the next chunk. `final_chunk` parses the held-back text too, closed or not.
    ///
    /// `None` when there is nothing to send yet: the text is held back, silent, or holds only
    /// directives (a reply-to tag is then kept for the next chunk with content).
    pub fn consume(&mut self, raw: &str, final_chunk: bool) -> Option<ReplyDirectives> {
        let mut combined = std::mem::take(&mut self.pending_tail);
        combined.push_str(raw);
        if !final_chunk && let Some(open) = trailing_directive_start(&combined) {
            self.pending_tail = combined.split_off(open);
        }
        if combined.is_empty() {
            return None;
        }
        let token = self.silent_token.as_deref().unwrap_or(SILENT_REPLY_TOKEN);
        let (mut parsed, parsed_explicit_id) = parse_chunk(&combined, token);
        let has_tag =
            self.active_reply.has_tag || self.pending_reply.has_tag || parsed.reply_to_tag;
        let saw_current = self.active_reply.saw_current
            || self.pending_reply.saw_current
            || parsed.reply_to_current;
        let explicit_id = parsed_explicit_id
            .or_else(|| self.pending_reply.explicit_id.clone())
            .or_else(|| self.active_reply.explicit_id.clone());
        parsed.reply_to_id.clone_from(&explicit_id);
        parsed.reply_to_current = saw_current;
        parsed.reply_to_tag = has_tag;
        let state = ReplyState {
            explicit_id,
            saw_current,
            has_tag,
        };
        if !parsed.is_renderable() {
            if has_tag {
                self.pending_reply = state;
            }
            return None;
        }
        self.active_reply = state;
        self.pending_reply = ReplyState::default();
        Some(parsed)
    }
}

/// Where a trailing `[[` without a later `]]` starts (OpenClaw `splitTrailingDirective`).
fn trailing_directive_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let open = rfind_double_bracket(bytes)?;
    let after = bytes.get(open + 2..).unwrap_or_default();
    memchr::memmem::find(after, b"]]").is_none().then_some(open)
}

/// `memchr::memmem::rfind(bytes, b"[[")`: the last `[` followed by another. Searched byte by
/// byte from the end with `memrchr`, because `memmem::rfind` builds a searcher on every call,
/// which cost more than scanning a whole block chunk without a `[`.
fn rfind_double_bracket(bytes: &[u8]) -> Option<usize> {
    let mut end = bytes.len();
    while let Some(open) = memchr::memrchr(b'[', bytes.get(..end)?) {
        if bytes.get(open + 1) == Some(&b'[') {
            return Some(open);
        }
        end = open;
    }
    None
}

#[cfg(test)]
mod tests {
    //! Expected values are OpenClaw 2026.4.12's own results for the same inputs
    //! (`createStreamingDirectiveAccumulator`, run under node); fields left out of an expected
    //! value are the type's defaults.

    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn streaming_accumulator_matches_openclaw() {
        // Each chunk in turn, then `consume("", final)`.
        let cases: [(&[&str], Vec<Option<ReplyDirectives>>); _] = [
            (
                &["Sure. [[reply_", "to_current]] Done.", "More."],
                vec![
                    Some(ReplyDirectives {
                        text: "Sure.".to_owned(),
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        text: "Done.".to_owned(),
                        reply_to_current: true,
                        reply_to_tag: true,
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        text: "More.".to_owned(),
                        reply_to_current: true,
                        reply_to_tag: true,
                        ..Default::default()
                    }),
                    None,
                ],
            ),
            (
                &["[[reply_to: 7]]", "", "First.", "Second [[reply_to: 8]]"],
                vec![
                    None,
                    None,
                    Some(ReplyDirectives {
                        text: "First.".to_owned(),
                        reply_to_id: Some("7".to_owned()),
                        reply_to_tag: true,
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        text: "Second".to_owned(),
                        reply_to_id: Some("8".to_owned()),
                        reply_to_tag: true,
                        ..Default::default()
                    }),
                    None,
                ],
            ),
            (
                &["NO", "_RE", "PLY"],
                vec![
                    None,
                    Some(ReplyDirectives {
                        text: "_RE".to_owned(),
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        text: "PLY".to_owned(),
                        ..Default::default()
                    }),
                    None,
                ],
            ),
            (
                &["NO_REPLYHello there"],
                vec![
                    Some(ReplyDirectives {
                        text: "Hello there".to_owned(),
                        ..Default::default()
                    }),
                    None,
                ],
            ),
            (
                &["Look [[audio_", "as_voice]]", "MEDIA: /tmp/x.ogg"],
                vec![
                    Some(ReplyDirectives {
                        text: "Look".to_owned(),
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        audio_as_voice: true,
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        media_urls: vec!["/tmp/x.ogg".to_owned()],
                        ..Default::default()
                    }),
                    None,
                ],
            ),
            (
                &["a [[b", "c [[d ]] e"],
                vec![
                    Some(ReplyDirectives {
                        text: "a".to_owned(),
                        ..Default::default()
                    }),
                    Some(ReplyDirectives {
                        text: "[[bc [[d ]] e".to_owned(),
                        ..Default::default()
                    }),
                    None,
                ],
            ),
        ];
        for (chunks, expected) in cases {
            let mut acc = StreamingDirectiveAccumulator::new();
            let mut got: Vec<Option<ReplyDirectives>> =
                chunks.iter().map(|c| acc.consume(c, false)).collect();
            got.push(acc.consume("", true));
            assert_eq!(got, expected, "{chunks:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn double_bracket_search_matches_memmem(text in "[\\[\\]a é]{0,24}") {
            proptest::prop_assert_eq!(
                rfind_double_bracket(text.as_bytes()),
                memchr::memmem::rfind(text.as_bytes(), b"[[")
            );
        }
    }

    #[test]
    fn accumulator_holds_an_open_directive_until_reset() {
        let mut acc = StreamingDirectiveAccumulator::new();
        assert_eq!(acc.consume("[[reply_to", false), None);
        assert_eq!(acc.pending_tail(), "[[reply_to");
        acc.reset();
        assert_eq!(acc, StreamingDirectiveAccumulator::new());
    }
}
