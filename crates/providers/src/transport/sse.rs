//! Incremental Server-Sent Events framing (WHATWG "event stream interpretation").
//!
//! Written by hand rather than taken from `eventsource-stream` because the framer must be
//! bounded: a single event larger than a configured limit is an error instead of unbounded
//! buffer growth (issue 3). It works on bytes, so a multi-byte UTF-8 character split across
//! reads needs no special care: line terminators are ASCII and never occur inside a multi-byte
//! sequence, and the data is checked as UTF-8 only once the event is complete.

use super::FrameError;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` name; empty when the event had none (the spec's `"message"`).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` seen, if any.
    pub id: Option<String>,
}

/// One dispatched event, borrowed from the framer's buffers (see [`SseFramer::feed_with`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEventRef<'a> {
    /// The `event:` name; empty when the event had none (the spec's `"message"`).
    pub event: &'a str,
    /// The `data:` lines joined with `\n`.
    pub data: &'a str,
    /// The last `id:` seen, if any.
    pub id: Option<&'a str>,
}

impl SseEventRef<'_> {
    /// The event as an owned [`SseEvent`].
    pub fn to_owned_event(&self) -> SseEvent {
        SseEvent {
            event: self.event.to_owned(),
            data: self.data.to_owned(),
            id: self.id.map(str::to_owned),
        }
    }
}

/// Turns a byte stream, fed in arbitrary pieces, into [`SseEvent`]s.
///
/// Handles `\r\n`, `\r` and `\n` line endings (also when a `\r\n` pair is split across two
/// reads), multi-line `data:`, comments (`:` lines), `event:` and `id:` fields, a leading BOM,
/// and one optional space after the colon. `retry:` is ignored: reconnection is the runner's
/// business, never the transport's.
#[derive(Debug)]
pub struct SseFramer {
    max_event_bytes: usize,
    /// The current line when it was cut by the end of a read.
    line: Vec<u8>,
    /// `data:` payload of the event being assembled, each line followed by `\n`; cleared, not
    /// reallocated, after each event.
    data: Vec<u8>,
    /// The `event:` name of the event being assembled; cleared after each event.
    event: String,
    id: Option<String>,
    /// Whether a data line was seen for the event being assembled (empty `data:` counts).
    has_data: bool,
    /// The previous read ended in `\r`: a `\n` starting the next read belongs to it.
    after_cr: bool,
    /// Bytes of the stream start still to check against the UTF-8 BOM.
    bom_checked: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseFramer {
    /// A framer that fails when one event (its pending line plus data) exceeds
    /// `max_event_bytes`.
    pub fn new(max_event_bytes: usize) -> Self {
        SseFramer {
            max_event_bytes,
            line: Vec::new(),
            data: Vec::new(),
            event: String::new(),
            id: None,
            has_data: false,
            after_cr: false,
            bom_checked: false,
        }
    }

    /// Feeds the next piece of the byte stream; complete events are pushed to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), FrameError> {
        self.feed_with(chunk, |event| {
            out.push(event.to_owned_event());
            Ok::<_, FrameError>(())
        })
    }

    /// Ends the stream: a last line without terminator and a last event without the closing
    /// blank line are still delivered. (The spec drops them; servers that omit the final
    /// newline exist, and dropping their last event would turn a success into a failure.)
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), FrameError> {
        self.finish_with(|event| {
            out.push(event.to_owned_event());
            Ok::<_, FrameError>(())
        })
    }

    /// [`feed`](Self::feed) without owned events: each complete event is handed to
    /// `on_event`, borrowed from buffers the framer reuses, so framing allocates nothing per
    /// event. The first error, the framer's or `on_event`'s, stops the read and is returned.
    pub fn feed_with<E: From<FrameError>>(
        &mut self,
        mut chunk: &[u8],
        mut on_event: impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.bom_checked {
            // The BOM may itself arrive split; collect up to three bytes before deciding.
            if self.line.len() + chunk.len() < BOM.len()
                && BOM.starts_with(&[&self.line[..], chunk].concat())
            {
                self.line.extend_from_slice(chunk);
                return Ok(());
            }
            self.bom_checked = true;
            let mut head = std::mem::take(&mut self.line);
            head.extend_from_slice(chunk);
            let rest = head.strip_prefix(BOM).unwrap_or(&head).to_vec();
            return self.feed_lines(&rest, &mut on_event);
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        self.feed_lines(chunk, &mut on_event)
    }

    /// [`finish`](Self::finish) with borrowed events, as [`feed_with`](Self::feed_with).
    pub fn finish_with<E: From<FrameError>>(
        &mut self,
        mut on_event: impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.bom_checked {
            self.bom_checked = true;
        }
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, &mut on_event)?;
        }
        self.dispatch(&mut on_event)
    }

    fn feed_lines<E: From<FrameError>>(
        &mut self,
        mut chunk: &[u8],
        on_event: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        // `memchr2` rather than a byte loop: the byte-at-a-time search for line ends was the
        // framer's largest cost, a third of the whole decode path (issue 3 bench).
        while let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) {
            let terminator = chunk[end];
            // Every line counts whole against the limit, whether it arrived in one read or
            // was pieced together across reads: the outcome must not depend on the cuts (a
            // `data:` line that fit when read whole failed when split, because only the
            // pieced line counted its `data: ` prefix; found by the sse_framer fuzz target).
            self.check_size(end)?;
            if self.line.is_empty() {
                self.process_line(&chunk[..end], on_event)?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&chunk[..end]);
                let result = self.process_line(&line, on_event);
                line.clear();
                self.line = line;
                result?;
            }
            chunk = &chunk[end + 1..];
            if terminator == b'\r' {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        if !chunk.is_empty() {
            self.check_size(chunk.len())?;
            self.line.extend_from_slice(chunk);
        }
        Ok(())
    }

    fn check_size(&self, extra: usize) -> Result<(), FrameError> {
        if self.line.len() + self.data.len() + extra > self.max_event_bytes {
            return Err(FrameError::TooLarge {
                limit: self.max_event_bytes,
            });
        }
        Ok(())
    }

    fn process_line<E: From<FrameError>>(
        &mut self,
        line: &[u8],
        on_event: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if line.is_empty() {
            return self.dispatch(on_event);
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if self.data.len() + value.len() + 1 > self.max_event_bytes {
                    return Err(FrameError::TooLarge {
                        limit: self.max_event_bytes,
                    }
                    .into());
                }
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.has_data = true;
            }
            b"event" => {
                // Into the reused buffer: a fresh `String` per event was an allocation (and a
                // free) per event on the decode path (issue 3 bench).
                self.event.clear();
                match std::str::from_utf8(value) {
                    Ok(text) => self.event.push_str(text),
                    Err(_) => self.event.push_str(&String::from_utf8_lossy(value)),
                }
            }
            // An id containing NUL is ignored, as the spec says.
            b"id" if !value.contains(&0) => self.id = Some(lossy_string(value)),
            _ => {}
        }
        Ok(())
    }

    fn dispatch<E: From<FrameError>>(
        &mut self,
        on_event: &mut impl FnMut(SseEventRef<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !self.has_data {
            // The spec: an event without data is not dispatched; its name is reset.
            self.event.clear();
            return Ok(());
        }
        self.has_data = false;
        let result = match std::str::from_utf8(self.data.strip_suffix(b"\n").unwrap_or(&self.data))
        {
            Ok(data) => on_event(SseEventRef {
                event: &self.event,
                data,
                id: self.id.as_deref(),
            }),
            Err(_) => Err(FrameError::InvalidUtf8.into()),
        };
        self.event.clear();
        self.data.clear();
        result
    }
}

/// `String::from_utf8_lossy(bytes).into_owned()`, with a fast path for valid UTF-8: field
/// values are almost always short and ASCII, and checking them with `from_utf8` costs a
/// fraction of the lossy decoder's chunk iteration, which ran once per event (issue 3 bench).
fn lossy_string(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_in_pieces(input: &[u8], cuts: &[usize]) -> Result<Vec<SseEvent>, FrameError> {
        let mut framer = SseFramer::new(1 << 20);
        let mut out = Vec::new();
        let mut start = 0;
        for &cut in cuts {
            framer.feed(&input[start..cut], &mut out)?;
            start = cut;
        }
        framer.feed(&input[start..], &mut out)?;
        framer.finish(&mut out)?;
        Ok(out)
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
            id: None,
        }
    }

    #[test]
    fn every_single_cut_gives_the_same_events() {
        let input = "\u{feff}: comment\r\nevent: delta\r\ndata: {\"t\":\"caf\u{e9} \u{1f99e}\"}\r\n\r\ndata: a\rdata:b\r\rdata: [DONE]\n\n".as_bytes();
        let expected = vec![
            ev("delta", "{\"t\":\"caf\u{e9} \u{1f99e}\"}"),
            ev("", "a\nb"),
            ev("", "[DONE]"),
        ];
        assert_eq!(frame_in_pieces(input, &[]).unwrap(), expected);
        for cut in 0..=input.len() {
            assert_eq!(
                frame_in_pieces(input, &[cut]).unwrap(),
                expected,
                "cut {cut}"
            );
        }
        let every: Vec<usize> = (1..input.len()).collect();
        assert_eq!(frame_in_pieces(input, &every).unwrap(), expected);
    }

    #[test]
    fn fields_follow_the_spec() {
        let input = b"data\n\nevent: x\n\ndata:  two spaces\nid: 7\nretry: 10\nunknown: y\n\n";
        let out = frame_in_pieces(input, &[]).unwrap();
        assert_eq!(
            out,
            vec![
                ev("", ""),
                SseEvent {
                    event: String::new(),
                    data: " two spaces".into(),
                    id: Some("7".into())
                }
            ]
        );
    }

    #[test]
    fn last_event_without_blank_line_is_delivered() {
        assert_eq!(
            frame_in_pieces(b"data: [DONE]", &[]).unwrap(),
            vec![ev("", "[DONE]")]
        );
    }

    #[test]
    fn oversized_event_is_an_error_not_growth() {
        let mut framer = SseFramer::new(16);
        let mut out = Vec::new();
        assert!(framer.feed(b"data: 0123456789", &mut out).is_ok());
        assert_eq!(
            framer.feed(b"0123456789", &mut out),
            Err(FrameError::TooLarge { limit: 16 })
        );
        let mut framer = SseFramer::new(16);
        assert_eq!(
            framer.feed(b"data: 0123456789\ndata: 0123456789\n", &mut out),
            Err(FrameError::TooLarge { limit: 16 })
        );
    }

    #[test]
    fn invalid_utf8_in_names_and_ids_is_replaced() {
        assert_eq!(
            frame_in_pieces(b"event: a\xffb\nid: \xfe\ndata: x\n\n", &[]).unwrap(),
            vec![SseEvent {
                event: "a\u{fffd}b".into(),
                data: "x".into(),
                id: Some("\u{fffd}".into()),
            }]
        );
    }

    #[test]
    fn borrowed_events_reuse_buffers_and_stop_at_the_first_error() {
        let mut framer = SseFramer::new(1 << 20);
        let mut seen = Vec::new();
        let result = framer.feed_with(
            b"event: a\ndata: 1\n\ndata: 2\n\nevent: c\ndata: 3\n\n",
            |event| {
                seen.push((event.event.to_owned(), event.data.to_owned()));
                if event.data == "2" {
                    return Err(FrameError::InvalidUtf8);
                }
                Ok(())
            },
        );
        assert_eq!(result, Err(FrameError::InvalidUtf8));
        assert_eq!(
            seen,
            [
                ("a".to_owned(), "1".to_owned()),
                (String::new(), "2".to_owned())
            ]
        );
        // The rest of that read is dropped; the next read starts clean.
        let mut rest = Vec::new();
        framer.feed(b"data: 4\n\n", &mut rest).unwrap();
        assert_eq!(rest, vec![ev("", "4")]);
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        assert_eq!(
            frame_in_pieces(b"data: \xff\xfe\n\n", &[]),
            Err(FrameError::InvalidUtf8)
        );
    }
}
