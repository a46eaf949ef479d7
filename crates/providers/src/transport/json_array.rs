//! Incremental framing of `streamGenerateContent` without `alt=sse`: Google then streams one
//! JSON array (`[{…}\r\n,{…}]`) whose elements arrive over time.
//!
//! clawloop always asks for SSE, but proxies and recorded traffic use the array form; this
//! framer cuts it into element texts as they complete, so the decoder sees chunks as early as
//! with SSE. Same guarantees as the SSE and NDJSON framers: any split of the byte stream gives
//! the same elements, UTF-8 is checked only on whole elements, and one element larger than the
//! limit is an error instead of unbounded growth. A body that is a single object (a server
//! that answered `generateContent`-style) is one element.

use super::FrameError;

/// Where the framer is in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing but whitespace seen yet.
    Start,
    /// Inside the top-level array, between elements.
    Between,
    /// Inside an element.
    Element,
    /// After the closing `]` (or the end of a single top-level object).
    Done,
}

/// What one more byte did to the element being collected.
enum Step {
    More,
    Complete,
    /// A scalar element ended at the array's closing `]`.
    CompleteAndClosed,
}

/// Why the body could not be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ArrayFrameError {
    /// Too large an element, or one that is not UTF-8.
    #[error("{0}")]
    Frame(#[from] FrameError),
    /// The body does not start like JSON.
    #[error("Unexpected response body: not a JSON array of chunks")]
    NotJson,
}

/// Splits a JSON array (or one object), fed in arbitrary pieces, into the texts of its
/// top-level elements.
#[derive(Debug)]
pub struct JsonArrayFramer {
    max_element_bytes: usize,
    state: State,
    /// Whether the document is a single object rather than an array.
    single: bool,
    element: Vec<u8>,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl JsonArrayFramer {
    /// A framer that fails when one element exceeds `max_element_bytes`.
    pub fn new(max_element_bytes: usize) -> Self {
        JsonArrayFramer {
            max_element_bytes,
            state: State::Start,
            single: false,
            element: Vec::new(),
            depth: 0,
            in_string: false,
            escaped: false,
        }
    }

    /// Feeds the next piece of the body; complete elements are pushed to `out`. Bytes that
    /// cannot start the document (`<html>`, plain text) are an error naming what arrived.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<String>) -> Result<(), ArrayFrameError> {
        for &byte in chunk {
            match self.state {
                State::Start => match byte {
                    b'[' => self.state = State::Between,
                    b'{' => {
                        self.single = true;
                        self.begin(byte);
                    }
                    // A UTF-8 BOM or whitespace may precede the document.
                    b' ' | b'\t' | b'\r' | b'\n' | 0xEF | 0xBB | 0xBF => {}
                    _ => return Err(ArrayFrameError::NotJson),
                },
                State::Between => match byte {
                    b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
                    b']' => self.state = State::Done,
                    _ => self.begin(byte),
                },
                State::Element => {
                    if self.element.len() >= self.max_element_bytes {
                        return Err(ArrayFrameError::Frame(FrameError::TooLarge {
                            limit: self.max_element_bytes,
                        }));
                    }
                    self.element.push(byte);
                    match self.step(byte) {
                        Step::More => {}
                        Step::Complete => self.emit(out)?,
                        Step::CompleteAndClosed => {
                            self.emit(out)?;
                            self.state = State::Done;
                        }
                    }
                }
                // Trailing whitespace (or anything else) after the document is ignored.
                State::Done => {}
            }
        }
        Ok(())
    }

    /// Ends the body: an element cut off by the end of the stream is still delivered, so the
    /// decoder reports it as invalid JSON rather than silently dropping it.
    pub fn finish(&mut self, out: &mut Vec<String>) -> Result<(), ArrayFrameError> {
        if self.state == State::Element && !self.element.is_empty() {
            self.emit(out)?;
        }
        Ok(())
    }

    fn begin(&mut self, byte: u8) {
        self.state = State::Element;
        self.element.clear();
        self.element.push(byte);
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.step_open(byte);
    }

    /// Tracks nesting for the first byte of an element.
    fn step_open(&mut self, byte: u8) {
        match byte {
            b'{' | b'[' => self.depth = 1,
            b'"' => self.in_string = true,
            _ => {}
        }
    }

    /// Tracks strings and nesting after one more byte of the element.
    fn step(&mut self, byte: u8) -> Step {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                // A bare string element ends with its closing quote.
                if self.depth == 0 {
                    return Step::Complete;
                }
            }
            return Step::More;
        }
        match byte {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 0 => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Step::Complete;
                }
            }
            // A scalar element (number, literal) ends at the next separator, which is not
            // part of it; `]` also closes the array.
            b',' | b']' | b' ' | b'\t' | b'\r' | b'\n' if self.depth == 0 => {
                self.element.pop();
                return if byte == b']' {
                    Step::CompleteAndClosed
                } else {
                    Step::Complete
                };
            }
            _ => {}
        }
        Step::More
    }

    fn emit(&mut self, out: &mut Vec<String>) -> Result<(), ArrayFrameError> {
        let bytes = std::mem::take(&mut self.element);
        let text = String::from_utf8(bytes)
            .map_err(|_| ArrayFrameError::Frame(FrameError::InvalidUtf8))?;
        out.push(text);
        self.state = if self.single {
            State::Done
        } else {
            State::Between
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn frame(input: &[u8], cuts: &[usize], limit: usize) -> Result<Vec<String>, ArrayFrameError> {
        let mut framer = JsonArrayFramer::new(limit);
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
    fn any_split_gives_the_same_elements() {
        let input =
            "[{\"a\": \"}],\\\"\u{1f99e}\"}\r\n,{\"b\": [1, {\"c\": 2}]}\n, 3 ,\"s\"]\n".as_bytes();
        let expected = vec![
            "{\"a\": \"}],\\\"\u{1f99e}\"}".to_owned(),
            "{\"b\": [1, {\"c\": 2}]}".to_owned(),
            "3".to_owned(),
            "\"s\"".to_owned(),
        ];
        for cut in 0..=input.len() {
            assert_eq!(frame(input, &[cut], 1024).unwrap(), expected, "cut {cut}");
        }
        let every: Vec<usize> = (1..input.len()).collect();
        assert_eq!(frame(input, &every, 1024).unwrap(), expected);
        assert_eq!(frame(b"[1]", &[], 1024).unwrap(), vec!["1".to_owned()]);
    }

    #[test]
    fn single_object_truncation_and_errors() {
        assert_eq!(
            frame(b" {\"x\": 1} ", &[], 1024).unwrap(),
            vec!["{\"x\": 1}".to_owned()]
        );
        assert_eq!(
            frame(b"[{\"x\": 1}, {\"y\"", &[], 1024).unwrap(),
            vec!["{\"x\": 1}".to_owned(), "{\"y\"".to_owned()]
        );
        assert_eq!(frame(b"<html>", &[], 1024), Err(ArrayFrameError::NotJson));
        assert_eq!(
            frame(b"[{\"x\": \"0123456789\"}]", &[], 8),
            Err(ArrayFrameError::Frame(FrameError::TooLarge { limit: 8 }))
        );
        assert_eq!(
            frame(b"[\"\xff\"]", &[], 8),
            Err(ArrayFrameError::Frame(FrameError::InvalidUtf8))
        );
    }
}
