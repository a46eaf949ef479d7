//! Framing and decoding of a 2xx body, one read at a time, without the socket.

use clawloop_core::AssistantMessageEvent;

use super::{Frame, Framing, WireDecoder};
use crate::transport::{
    ArrayFrameError, FrameError, JsonArrayFramer, NdjsonFramer, SseFramer, TransportError,
};

/// A stream-ending failure after the response head.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// The connection, cancellation or the framer.
    #[error("{0}")]
    Transport(#[from] TransportError),
    /// The provider's own error, or a body that cannot be decoded.
    #[error("{0}")]
    Decode(String),
}

impl From<FrameError> for BodyError {
    fn from(e: FrameError) -> Self {
        BodyError::Transport(TransportError::Frame(e))
    }
}

impl From<ArrayFrameError> for BodyError {
    fn from(e: ArrayFrameError) -> Self {
        match e {
            ArrayFrameError::Frame(frame) => frame.into(),
            ArrayFrameError::NotJson => BodyError::Decode(e.to_string()),
        }
    }
}

/// Where the body stands after a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Keep reading.
    More,
    /// The terminal frame has been decoded: stop reading and close the body.
    Complete,
}

/// The framer of one body, with the buffers it hands frames out of.
#[derive(Debug)]
enum Framer {
    Sse(SseFramer),
    Ndjson {
        framer: NdjsonFramer,
        lines: Vec<String>,
    },
    JsonArray {
        framer: JsonArrayFramer,
        elements: Vec<String>,
    },
    Document {
        bytes: Vec<u8>,
        limit: usize,
    },
}

/// Frames a body fed one read at a time and decodes each frame as soon as it is complete, so
/// the outcome does not depend on how the body was split into reads: frames completed before
/// a framing error in the same read are decoded first.
#[derive(Debug)]
pub struct BodyDecoder<D> {
    decoder: D,
    framer: Framer,
    /// Frames with a payload handed to the decoder so far.
    events: u64,
}

impl<D: WireDecoder> BodyDecoder<D> {
    /// A body framed as `framing`, where one frame may not exceed `max_event_bytes`.
    pub fn new(decoder: D, framing: Framing, max_event_bytes: usize) -> Self {
        let framer = match framing {
            Framing::Sse => Framer::Sse(SseFramer::new(max_event_bytes)),
            Framing::Ndjson => Framer::Ndjson {
                framer: NdjsonFramer::new(max_event_bytes),
                lines: Vec::new(),
            },
            Framing::JsonArray => Framer::JsonArray {
                framer: JsonArrayFramer::new(max_event_bytes),
                elements: Vec::new(),
            },
            Framing::Document => Framer::Document {
                bytes: Vec::new(),
                limit: max_event_bytes,
            },
        };
        BodyDecoder {
            decoder,
            framer,
            events: 0,
        }
    }

    /// The decoder.
    pub fn decoder(&self) -> &D {
        &self.decoder
    }

    /// How many frames with a payload (an SSE event whose data is not blank, an NDJSON line,
    /// an array element, the document) have been decoded so far: the stream's progress. SSE
    /// comments, blank lines and the bytes of an unfinished frame are not progress.
    pub fn events_decoded(&self) -> u64 {
        self.events
    }

    /// The decoder, to end the stream with.
    pub fn into_decoder(self) -> D {
        self.decoder
    }

    /// Frames and decodes the next read of the body; its events are pushed to `out`.
    pub fn feed(
        &mut self,
        chunk: &[u8],
        out: &mut Vec<AssistantMessageEvent>,
    ) -> Result<Progress, BodyError> {
        let decoder = &mut self.decoder;
        let events = &mut self.events;
        let framed = match &mut self.framer {
            Framer::Sse(framer) => framer.feed_with(chunk, |event| {
                decode_frame(decoder, events, Frame::Sse(event), out)
            }),
            Framer::Ndjson { framer, lines } => {
                let framed = framer.feed(chunk, lines);
                decode_all(decoder, events, lines, out).and(framed.map_err(BodyError::from))
            }
            Framer::JsonArray { framer, elements } => {
                let framed = framer.feed(chunk, elements);
                decode_all(decoder, events, elements, out).and(framed.map_err(BodyError::from))
            }
            Framer::Document { bytes, limit } => {
                if bytes.len() + chunk.len() > *limit {
                    Err(FrameError::TooLarge { limit: *limit }.into())
                } else {
                    bytes.extend_from_slice(chunk);
                    Ok(())
                }
            }
        };
        self.settle(framed)
    }

    /// Ends the body: what the framer still holds is framed and decoded.
    pub fn end(&mut self, out: &mut Vec<AssistantMessageEvent>) -> Result<(), BodyError> {
        let decoder = &mut self.decoder;
        let events = &mut self.events;
        let framed = match &mut self.framer {
            Framer::Sse(framer) => {
                framer.finish_with(|event| decode_frame(decoder, events, Frame::Sse(event), out))
            }
            Framer::Ndjson { framer, lines } => {
                let framed = framer.finish(lines);
                decode_all(decoder, events, lines, out).and(framed.map_err(BodyError::from))
            }
            Framer::JsonArray { framer, elements } => {
                let framed = framer.finish(elements);
                decode_all(decoder, events, elements, out).and(framed.map_err(BodyError::from))
            }
            Framer::Document { bytes, .. } => match std::str::from_utf8(bytes) {
                Ok(text) => decode_frame(decoder, events, Frame::Document(text), out),
                Err(_) => Err(FrameError::InvalidUtf8.into()),
            },
        };
        self.settle(framed).map(|_| ())
    }

    /// The outcome of one read: a decode error always counts, a framing error only before
    /// the terminal frame.
    fn settle(&self, framed: Result<(), BodyError>) -> Result<Progress, BodyError> {
        let progress = if self.decoder.is_terminal() {
            Progress::Complete
        } else {
            Progress::More
        };
        match (framed, progress) {
            (Ok(()), _) | (Err(BodyError::Transport(_)), Progress::Complete) => Ok(progress),
            (Err(error @ BodyError::Decode(_)), _)
            | (Err(error @ BodyError::Transport(_)), Progress::More) => Err(error),
        }
    }
}

/// Decodes one frame, unless the terminal frame came before it, and counts it in `events`
/// when it has a payload.
// Called once per frame: inlined into the framer loop.
#[inline(always)]
fn decode_frame<D: WireDecoder>(
    decoder: &mut D,
    events: &mut u64,
    frame: Frame<'_>,
    out: &mut Vec<AssistantMessageEvent>,
) -> Result<(), BodyError> {
    if decoder.is_terminal() {
        return Ok(());
    }
    let payload = match frame {
        Frame::Sse(event) => event.data,
        Frame::Json(text) | Frame::Document(text) => text,
    };
    // An SSE event with blank data is a keep-alive too: no decoder reads anything from it.
    if !payload.trim_ascii().is_empty() {
        *events = events.saturating_add(1);
    }
    decoder.decode(frame, out).map_err(BodyError::Decode)
}

/// Decodes (and removes) the framed JSON values, up to the terminal one.
fn decode_all<D: WireDecoder>(
    decoder: &mut D,
    events: &mut u64,
    values: &mut Vec<String>,
    out: &mut Vec<AssistantMessageEvent>,
) -> Result<(), BodyError> {
    for value in values.drain(..) {
        decode_frame(decoder, events, Frame::Json(&value), out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clawloop_core::StopReason;
    use pretty_assertions::assert_eq;

    use super::*;

    /// Records the frames it sees; `end` is terminal, `bad` a decode error.
    #[derive(Debug, Default)]
    struct Recorder {
        seen: Vec<String>,
        terminal: bool,
    }

    impl WireDecoder for Recorder {
        fn framing(_content_type: Option<&str>) -> Framing {
            Framing::Sse
        }

        fn start(&self) -> AssistantMessageEvent {
            AssistantMessageEvent::Start { partial: None }
        }

        fn decode(
            &mut self,
            frame: Frame<'_>,
            _out: &mut Vec<AssistantMessageEvent>,
        ) -> Result<(), String> {
            let text = match frame {
                Frame::Sse(event) => event.data,
                Frame::Json(text) | Frame::Document(text) => text,
            };
            self.seen.push(text.to_owned());
            match text {
                "bad" => Err("bad frame".to_owned()),
                "end" => {
                    self.terminal = true;
                    Ok(())
                }
                _ => Ok(()),
            }
        }

        fn is_terminal(&self) -> bool {
            self.terminal
        }

        fn finish(self, _out: &mut Vec<AssistantMessageEvent>) {}

        fn fail(
            self,
            _reason: StopReason,
            _message: String,
            _out: &mut Vec<AssistantMessageEvent>,
        ) {
        }
    }

    fn too_large(limit: usize) -> BodyError {
        FrameError::TooLarge { limit }.into()
    }

    #[test]
    fn frames_after_the_terminal_one_are_skipped_and_a_later_framing_error_ignored() {
        let mut out = Vec::new();
        let mut body = BodyDecoder::new(Recorder::default(), Framing::Sse, 16);
        let read = b"data: a\n\ndata: end\n\ndata: b\n\ndata: 0123456789abcdef\n\n";
        assert_eq!(body.feed(read, &mut out), Ok(Progress::Complete));
        assert_eq!(body.decoder().seen, ["a", "end"]);

        let mut lines = BodyDecoder::new(Recorder::default(), Framing::Ndjson, 8);
        assert_eq!(
            lines.feed(b"a\nend\nb\n0123456789\n", &mut out),
            Ok(Progress::Complete)
        );
        assert_eq!(lines.into_decoder().seen, ["a", "end"]);
        assert!(out.is_empty());
    }

    #[test]
    fn frames_before_a_framing_error_are_decoded_and_decode_errors_win() {
        let mut out = Vec::new();
        let mut body = BodyDecoder::new(Recorder::default(), Framing::Ndjson, 8);
        assert_eq!(body.feed(b"a\n0123456789\n", &mut out), Err(too_large(8)));
        assert_eq!(body.decoder().seen, ["a"]);

        let mut body = BodyDecoder::new(Recorder::default(), Framing::Ndjson, 8);
        assert_eq!(
            body.feed(b"bad\n0123456789\n", &mut out),
            Err(BodyError::Decode("bad frame".to_owned()))
        );

        let mut body = BodyDecoder::new(Recorder::default(), Framing::JsonArray, 64);
        assert_eq!(
            body.feed(b"<html>", &mut out).map_err(|e| e.to_string()),
            Err("Unexpected response body: not a JSON array of chunks".to_owned())
        );
    }

    #[test]
    fn a_document_is_decoded_whole_at_the_end_within_the_limit() {
        let mut out = Vec::new();
        let mut body = BodyDecoder::new(Recorder::default(), Framing::Document, 8);
        assert_eq!(body.feed(b"{\"a\":", &mut out), Ok(Progress::More));
        assert_eq!(body.feed(b"1}", &mut out), Ok(Progress::More));
        assert!(body.decoder().seen.is_empty());
        assert_eq!(body.end(&mut out), Ok(()));
        assert_eq!(body.decoder().seen, ["{\"a\":1}"]);

        let mut body = BodyDecoder::new(Recorder::default(), Framing::Document, 8);
        assert_eq!(body.feed(b"{\"a\":123456}", &mut out), Err(too_large(8)));
        let mut body = BodyDecoder::new(Recorder::default(), Framing::Document, 8);
        assert_eq!(body.feed(b"\xff", &mut out), Ok(Progress::More));
        assert_eq!(body.end(&mut out), Err(FrameError::InvalidUtf8.into()));
    }
}
