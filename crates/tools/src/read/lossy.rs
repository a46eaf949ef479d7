//! Node's `buffer.toString("utf-8")` over a byte stream: invalid sequences become U+FFFD,
//! exactly as [`String::from_utf8_lossy`] does on the whole input, whatever the chunking.
//!
//! A sequence cut by a chunk boundary is held back (at most three bytes) and decided with the
//! bytes that follow; since the replacement of an invalid sequence depends only on its own
//! bytes, the output equals the one of decoding everything at once.

/// The replacement character Node and Rust put for an invalid sequence.
const REPLACEMENT: &str = "\u{FFFD}";

/// A streaming lossy UTF-8 decoder.
#[derive(Debug, Clone, Default)]
pub(crate) struct LossyDecoder {
    /// The start of a sequence the last chunk ended in.
    pending: Vec<u8>,
}

impl LossyDecoder {
    /// Whether bytes of an unfinished sequence are held back.
    pub(crate) fn is_holding(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Decodes `bytes`, passing the text to `sink` in pieces.
    pub(crate) fn feed(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str)) {
        if self.pending.is_empty() {
            self.decode(bytes, sink);
        } else {
            // Rare (a character split by a read boundary): join and decode the pair.
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(bytes);
            self.decode(&joined, sink);
        }
    }

    /// Ends the input: an unfinished sequence is one invalid sequence.
    pub(crate) fn finish(&mut self, sink: &mut impl FnMut(&str)) {
        if !self.pending.is_empty() {
            self.pending.clear();
            sink(REPLACEMENT);
        }
    }

    fn decode(&mut self, bytes: &[u8], sink: &mut impl FnMut(&str)) {
        let mut chunks = bytes.utf8_chunks().peekable();
        while let Some(chunk) = chunks.next() {
            if !chunk.valid().is_empty() {
                sink(chunk.valid());
            }
            let invalid = chunk.invalid();
            if invalid.is_empty() {
                continue;
            }
            let at_end = chunks.peek().is_none();
            // An invalid tail that more bytes could complete (`error_len() == None`) waits.
            let unfinished = at_end
                && std::str::from_utf8(invalid)
                    .err()
                    .is_some_and(|err| err.error_len().is_none());
            if unfinished {
                self.pending.extend_from_slice(invalid);
            } else {
                sink(REPLACEMENT);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn decode_in_two(bytes: &[u8], cut: usize) -> String {
        let mut out = String::new();
        let mut decoder = LossyDecoder::default();
        let mut sink = |s: &str| out.push_str(s);
        decoder.feed(&bytes[..cut], &mut sink);
        decoder.feed(&bytes[cut..], &mut sink);
        decoder.finish(&mut sink);
        out
    }

    #[test]
    fn every_split_decodes_like_from_utf8_lossy() {
        let inputs: [&[u8]; 8] = [
            b"plain",
            "é😀x".as_bytes(),
            b"caf\xe9 au lait",
            b"\xf0\x9f\x98",
            b"\xf0\x9f\x98\n",
            b"\xe2\x82\xe2\x82\xac",
            b"\xff\xfe\xc3",
            b"a\xed\xa0\x80b",
        ];
        for bytes in inputs {
            let expected = String::from_utf8_lossy(bytes).into_owned();
            for cut in 0..=bytes.len() {
                assert_eq!(decode_in_two(bytes, cut), expected, "{bytes:?} at {cut}");
            }
        }
    }
}
