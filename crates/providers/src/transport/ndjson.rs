//! Incremental newline-delimited JSON framing (native Ollama `/api/chat`).
//!
//! Same guarantees as the SSE framer: any split of the byte stream gives the same lines, a
//! multi-byte character split across reads is reassembled before UTF-8 is checked, and a line
//! longer than the limit is an error instead of unbounded growth.

use super::FrameError;

/// Splits a byte stream, fed in arbitrary pieces, into non-blank lines (without terminator).
///
/// Trailing JSON whitespace is removed from a line, the `\r` of a `\r\n` among it: it means
/// nothing to the JSON a line carries, and a line that kept some (`{}\r\r\n` read as `{}\r`)
/// would read back differently once written out one per line.
#[derive(Debug)]
pub struct NdjsonFramer {
    max_line_bytes: usize,
    line: Vec<u8>,
}

impl NdjsonFramer {
    /// A framer that fails when one line exceeds `max_line_bytes`.
    pub fn new(max_line_bytes: usize) -> Self {
        NdjsonFramer {
            max_line_bytes,
            line: Vec::new(),
        }
    }

    /// Feeds the next piece of the byte stream; complete lines are pushed to `out`.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<String>) -> Result<(), FrameError> {
        while let Some(end) = chunk.iter().position(|&b| b == b'\n') {
            if self.line.len() + end > self.max_line_bytes {
                return Err(self.too_large());
            }
            if self.line.is_empty() {
                Self::emit(&chunk[..end], out)?;
            } else {
                self.line.extend_from_slice(&chunk[..end]);
                let line = std::mem::take(&mut self.line);
                Self::emit(&line, out)?;
            }
            chunk = &chunk[end + 1..];
        }
        if self.line.len() + chunk.len() > self.max_line_bytes {
            return Err(self.too_large());
        }
        self.line.extend_from_slice(chunk);
        Ok(())
    }

    /// Ends the stream: a last line without newline is still delivered.
    pub fn finish(&mut self, out: &mut Vec<String>) -> Result<(), FrameError> {
        let line = std::mem::take(&mut self.line);
        Self::emit(&line, out)
    }

    fn too_large(&self) -> FrameError {
        FrameError::TooLarge {
            limit: self.max_line_bytes,
        }
    }

    fn emit(line: &[u8], out: &mut Vec<String>) -> Result<(), FrameError> {
        let end = line
            .iter()
            .rposition(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
            .map_or(0, |at| at + 1);
        let line = &line[..end];
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let text = std::str::from_utf8(line).map_err(|_| FrameError::InvalidUtf8)?;
        out.push(text.to_owned());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(input: &[u8], cuts: &[usize]) -> Result<Vec<String>, FrameError> {
        let mut framer = NdjsonFramer::new(64);
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

    #[test]
    fn any_split_gives_the_same_lines() {
        let input = "{\"a\":\"\u{1f99e}\"}\r\n\n  \n{\"b\":2}".as_bytes();
        let expected = vec!["{\"a\":\"\u{1f99e}\"}".to_owned(), "{\"b\":2}".to_owned()];
        for cut in 0..=input.len() {
            assert_eq!(frame(input, &[cut]).unwrap(), expected, "cut {cut}");
        }
        let every: Vec<usize> = (1..input.len()).collect();
        assert_eq!(frame(input, &every).unwrap(), expected);
    }

    #[test]
    fn limits_and_utf8() {
        let long = vec![b'x'; 65];
        assert_eq!(frame(&long, &[]), Err(FrameError::TooLarge { limit: 64 }));
        assert_eq!(frame(b"\xff\n", &[]), Err(FrameError::InvalidUtf8));
    }
}
