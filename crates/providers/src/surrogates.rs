//! Lone UTF-16 surrogate halves in the JSON of a stream.
//!
//! Proxies that cut text by UTF-16 units send an emoji as two escaped halves in two events
//! (`"\ud83e"` in one delta, `"\udd9e"` in the next). pi accepts that, because JS strings hold
//! lone surrogates and the two deltas concatenate into the emoji; serde_json refuses a lone
//! half and Rust strings cannot hold one, so without care the event, and with it the reply,
//! would be lost.
//!
//! Two steps, both free for a stream without lone halves:
//!
//! * [`HalfJoiner::parse`], on the JSON text of an event that serde_json refused: a half that
//!   ends a string (a high one) or starts it (a low one) might pair with the neighbouring
//!   event, so it is carried through serde_json as a marker, the private-use character
//!   `U+100000 + unit` (`U+10D800..=U+10DFFF`); any other lone half can pair with nothing and
//!   becomes U+FFFD right there.
//! * [`HalfJoiner::text`], on every text, thinking and tool-argument delta of a block: a high
//!   marker at the end of a delta is held back; when the block's next delta starts with the
//!   low marker the two become the one character, otherwise the held half becomes U+FFFD
//!   (also when the block ends: [`HalfJoiner::end`]). Markers anywhere else are U+FFFD
//!   ([`HalfJoiner::clean`] for fields that are not deltas).
//!
//! Markers are only read in events whose text had lone halves, so a real `U+10D800..` character
//! elsewhere in a stream passes unchanged.

use std::borrow::Cow;
use std::collections::HashMap;

use clawloop_core::AssistantMessage;
use clawloop_core::message::ContentBlock;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Where the markers of lone halves start: `U+100000 + unit`.
const MARKER_BASE: u32 = 0x10_0000;

/// The replacement for a half that pairs with nothing, as a delta.
pub(crate) const REPLACEMENT: &str = "\u{fffd}";

/// The lone-half state of one stream: whether the event being decoded carries markers, and
/// the high halves held back per content block.
#[derive(Debug, Default)]
pub(crate) struct HalfJoiner {
    /// The event being decoded had lone halves (its strings may carry markers).
    markers: bool,
    /// High halves held back, by content index.
    held: HashMap<usize, u16>,
}

impl HalfJoiner {
    /// Parses the JSON text of an event. serde_json refuses a lone half in every string it
    /// reads (ignored fields are skipped unchecked), so only an event that fails is looked at
    /// again: with lone halves at the edge of a string turned into markers and other lone
    /// halves into U+FFFD, it is parsed once more. A failure is reported with the first
    /// parse's error. An event without lone halves costs nothing extra.
    // Called once per event: inlined into the decoder.
    #[inline]
    pub(crate) fn parse<T: DeserializeOwned>(&mut self, json: &str) -> serde_json::Result<T> {
        self.markers = false;
        let error = match serde_json::from_str(json) {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        self.parse_marked(json, error)
    }

    /// [`parse`](Self::parse) once serde_json refused the event.
    #[cold]
    fn parse_marked<T: DeserializeOwned>(
        &mut self,
        json: &str,
        error: serde_json::Error,
    ) -> serde_json::Result<T> {
        let Cow::Owned(marked) = mark_lone_halves(json) else {
            return Err(error);
        };
        let value = serde_json::from_str(&marked).map_err(|_| error)?;
        self.markers = true;
        Ok(value)
    }

    /// A delta of the block at `content_index`, with a held half joined or replaced and lone
    /// halves resolved; the block's trailing high half is held back for its next delta.
    // Called once per delta: inlined, with the rare work out of line.
    #[inline]
    pub(crate) fn text(&mut self, content_index: usize, text: String) -> String {
        if !self.markers && (self.held.is_empty() || text.is_empty()) {
            return text;
        }
        self.join(content_index, text)
    }

    /// [`text`](Self::text) when there are markers or a held half.
    #[cold]
    fn join(&mut self, content_index: usize, text: String) -> String {
        let held = self.held.remove(&content_index);
        if held.is_none() && !self.markers {
            return text;
        }
        let mut out = String::with_capacity(text.len() + 4);
        let mut chars = text.chars().peekable();
        if let Some(high) = held {
            match chars.peek().copied().and_then(|c| self.half(c)) {
                Some(low @ 0xDC00..=0xDFFF) => {
                    chars.next();
                    out.push(pair(high, low));
                }
                _ => out.push_str(REPLACEMENT),
            }
        }
        while let Some(c) = chars.next() {
            match self.half(c) {
                None => out.push(c),
                Some(high @ 0xD800..=0xDBFF) if chars.peek().is_none() => {
                    self.held.insert(content_index, high);
                }
                Some(_) => out.push_str(REPLACEMENT),
            }
        }
        out
    }

    /// The block at `content_index` ends: a high half still held back becomes U+FFFD, the
    /// last delta to emit for the block.
    pub(crate) fn end(&mut self, content_index: usize) -> Option<&'static str> {
        if self.held.is_empty() {
            return None;
        }
        self.held.remove(&content_index).map(|_| REPLACEMENT)
    }

    /// The stream fails: every half still held back becomes U+FFFD at the end of its text or
    /// thinking block (no more events are sent, so the message itself is completed).
    pub(crate) fn fail(&mut self, message: &mut AssistantMessage) {
        for (content_index, _) in self.held.drain() {
            match message.content.get_mut(content_index) {
                Some(ContentBlock::Text(block)) => block.text.push_str(REPLACEMENT),
                Some(ContentBlock::Thinking(block)) => block.thinking.push_str(REPLACEMENT),
                _ => {}
            }
        }
    }

    /// A string of the event that is not a delta (a whole value, an id): markers are U+FFFD.
    pub(crate) fn clean(&self, text: &mut String) {
        if self.markers && text.chars().any(|c| self.half(c).is_some()) {
            *text = text
                .chars()
                .map(|c| match self.half(c) {
                    Some(_) => char::REPLACEMENT_CHARACTER,
                    None => c,
                })
                .collect();
        }
    }

    /// [`clean`](Self::clean) for every string (keys included) of a JSON value.
    pub(crate) fn clean_value(&self, value: &mut Value) {
        if !self.markers {
            return;
        }
        match value {
            Value::String(text) => self.clean(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.clean_value(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (mut key, mut item) in entries {
                    self.clean(&mut key);
                    self.clean_value(&mut item);
                    map.insert(key, item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// The surrogate unit a marker stands for, in an event that has markers.
    fn half(&self, c: char) -> Option<u16> {
        if !self.markers {
            return None;
        }
        u32::from(c)
            .checked_sub(MARKER_BASE)
            .filter(|unit| (0xD800..=0xDFFF).contains(unit))
            .and_then(|unit| u16::try_from(unit).ok())
    }
}

/// The character of a high and a low half.
fn pair(high: u16, low: u16) -> char {
    let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The marker of a lone half.
fn marker(unit: u32) -> char {
    char::from_u32(MARKER_BASE + unit).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The value of the four hex digits at `at`, if there are four.
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits
        .iter()
        .try_fold(0, |code, &b| Some(code * 16 + char::from(b).to_digit(16)?))
}

/// Whether `json` may hold an escaped surrogate: a `\u` followed by `d8`–`df`. A search for
/// backslashes rather than `memmem`, whose searcher costs more to build than most events take
/// to scan.
fn may_have_halves(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', bytes).any(|at| {
        bytes.get(at + 1) == Some(&b'u')
            && matches!(bytes.get(at + 2), Some(b'd' | b'D'))
            && matches!(
                bytes.get(at + 3),
                Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
            )
    })
}

/// The JSON text with its lone surrogate escapes resolved (see the module docs); borrowed
/// when it has none. Pairs are left as they are; everything outside strings is copied.
fn mark_lone_halves(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    if !may_have_halves(bytes) {
        return Cow::Borrowed(json);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    // Where the string being read starts (after its quote), if inside one.
    let mut string_start = None;
    while at < bytes.len() {
        let Some(start) = string_start else {
            if bytes[at] == b'"' {
                string_start = Some(at + 1);
            }
            at += 1;
            continue;
        };
        match bytes[at] {
            b'"' => {
                string_start = None;
                at += 1;
            }
            b'\\' if bytes.get(at + 1) == Some(&b'u') => {
                let Some(unit) = hex4(bytes, at + 2) else {
                    at += 2;
                    continue;
                };
                let resolved = match unit {
                    0xD800..=0xDBFF => {
                        let low = (bytes.get(at + 6..at + 8) == Some(b"\\u"))
                            .then(|| hex4(bytes, at + 8))
                            .flatten()
                            .filter(|low| (0xDC00..=0xDFFF).contains(low));
                        if low.is_some() {
                            at += 12;
                            continue;
                        }
                        let ends_string = bytes.get(at + 6) == Some(&b'"');
                        if ends_string {
                            marker(unit)
                        } else {
                            char::REPLACEMENT_CHARACTER
                        }
                    }
                    0xDC00..=0xDFFF if at == start => marker(unit),
                    0xDC00..=0xDFFF => char::REPLACEMENT_CHARACTER,
                    _ => {
                        at += 6;
                        continue;
                    }
                };
                out.push_str(&json[copied..at]);
                out.push(resolved);
                at += 6;
                copied = at;
            }
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parsed(joiner: &mut HalfJoiner, json: &str) -> String {
        joiner.parse::<String>(json).unwrap()
    }

    #[test]
    fn pairs_and_plain_text_are_untouched() {
        let mut joiner = HalfJoiner::default();
        for json in [r#""\ud83e\udd9e""#, r#""caf\u00e9 \\ud83e""#, r#""plain""#] {
            assert!(matches!(mark_lone_halves(json), Cow::Borrowed(_)), "{json}");
        }
        let text = parsed(&mut joiner, r#""a\ud83e\udd9e""#);
        assert_eq!(joiner.text(0, text), "a\u{1f99e}");
    }

    #[test]
    fn halves_across_deltas_join_and_lone_ones_are_replaced() {
        let mut joiner = HalfJoiner::default();
        let first = parsed(&mut joiner, r#""Hi \ud83e""#);
        assert_eq!(joiner.text(3, first), "Hi ");
        let second = parsed(&mut joiner, r#""\udd9e!""#);
        assert_eq!(joiner.text(3, second), "\u{1f99e}!");
        // A high half followed by something else, a low half alone, one inside a string.
        let high = parsed(&mut joiner, r#""\ud83e""#);
        assert_eq!(joiner.text(1, high), "");
        let next = parsed(&mut joiner, r#""a""#);
        assert_eq!(joiner.text(1, next), "\u{fffd}a");
        let low = parsed(&mut joiner, r#""\udd9e b""#);
        assert_eq!(joiner.text(1, low), "\u{fffd} b");
        let inner = parsed(&mut joiner, r#""a\ud83eb\udd9ec""#);
        assert_eq!(joiner.text(1, inner), "a\u{fffd}b\u{fffd}c");
        // A held half at the end of the block.
        let last = parsed(&mut joiner, r#""z\ud83e""#);
        assert_eq!(joiner.text(2, last), "z");
        assert_eq!(joiner.end(2), Some(REPLACEMENT));
        assert_eq!(joiner.end(2), None);
    }

    #[test]
    fn values_are_cleaned_of_markers() {
        let mut joiner = HalfJoiner::default();
        let mut value: Value = joiner.parse(r#"{"\ud83e":["x\ud83e","\udd9e"]}"#).unwrap();
        joiner.clean_value(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"\u{fffd}": ["x\u{fffd}", "\u{fffd}"]})
        );
    }
}
