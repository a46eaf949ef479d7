//! Splitting a session file into lines and judging them as SPEC §5 asks, whatever each caller
//! then makes of the lines it keeps.
//!
//! * The first non-blank line must be a session header (an object with `type: "session"` and
//!   a string `id`); otherwise the file is not a session and is refused.
//! * Blank lines are ignored (pi does the same) and not counted.
//! * The last non-blank line is *torn* when it is not a JSON object (with or without its
//!   `\n`): it is skipped, counted, and the caller cuts the file back to `keep_len` before its
//!   next append. A last line that parses but lacks its `\n` is complete and kept; the caller
//!   writes the newline before its next append (`needs_newline`).
//! * Any other line that is not a JSON object, or that the caller cannot use, is skipped and
//!   counted but stays in the file.
//!
//! The rules live in one [`Scanner`] fed a line at a time, so a file held in memory
//! ([`scan`]) and a file read as a stream ([`scan_reader`], which never holds more than one
//! line) are judged alike.

use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::error::SessionError;
use crate::load::TornLine;
use crate::migrate::declared_version;

/// What a caller makes of one complete, non-blank line after the header.
pub(crate) enum Judged<T> {
    /// A usable line.
    Keep(T),
    /// A JSON object the caller cannot use: counted as skipped, kept as `T` if given.
    Unusable(Option<T>),
    /// Not a JSON object: garbage if another line follows, torn if it is the last.
    NotAnObject,
}

/// One line handed to the judge.
pub(crate) struct RawLine<'a> {
    /// The bytes without the final `\n`.
    pub content: &'a [u8],
    /// The same as text, when the whole file is known to be UTF-8 (it nearly always is, and
    /// checking it once is cheaper than line by line).
    pub text: Option<&'a str>,
    /// Where the line starts in the file.
    pub start: usize,
    /// 1-based line number.
    pub number: usize,
}

/// A file as scanned.
pub(crate) struct Scanned<T> {
    /// The header object.
    pub header: JsonObject,
    /// The kept lines after the header, garbage included as the caller chose, in file order.
    pub items: Vec<T>,
    /// Lines that could not be used, a torn one included.
    pub skipped: usize,
    /// The torn last line, if any.
    pub torn: Option<TornLine>,
    /// Bytes to keep: the file length minus a torn tail (and trailing blanks without `\n`).
    pub keep_len: u64,
    /// The kept content ends without `\n` (its last line parses but lost its newline).
    pub needs_newline: bool,
    /// How many bytes were scanned: the file's length as read.
    pub len: u64,
}

/// A complete line that is not an object, whose fate depends on whether another line follows.
/// Its content is copied: a streamed line's buffer is reused for the next one.
struct Pending {
    number: usize,
    start: usize,
    content: Vec<u8>,
}

/// The rules of the module documentation, applied one line at a time.
struct Scanner<'p, T> {
    path: &'p Path,
    header: Option<JsonObject>,
    items: Vec<T>,
    skipped: usize,
    pending: Option<Pending>,
    torn: Option<TornLine>,
    trailing_blank_at: Option<usize>,
    /// Bytes fed so far, which is where the next line starts.
    offset: usize,
    /// Lines fed so far, blank ones included.
    lines: usize,
    /// The last byte fed.
    last_byte: Option<u8>,
}

impl<'p, T> Scanner<'p, T> {
    fn new(path: &'p Path) -> Self {
        Scanner {
            path,
            header: None,
            items: Vec::new(),
            skipped: 0,
            pending: None,
            torn: None,
            trailing_blank_at: None,
            offset: 0,
            lines: 0,
            last_byte: None,
        }
    }

    fn not_a_session(&self, reason: String) -> SessionError {
        SessionError::NotASession {
            path: self.path.to_owned(),
            reason,
        }
    }

    /// Takes the next line: its bytes with the `\n` that ends it (none for a last line that
    /// lost it), and the same as text when known to be UTF-8.
    fn feed(
        &mut self,
        line: &[u8],
        text: Option<&str>,
        judge: &mut impl FnMut(&JsonObject, RawLine<'_>) -> Judged<T>,
        garbage: &mut impl FnMut(&[u8]) -> Option<T>,
    ) -> Result<(), SessionError> {
        self.lines += 1;
        let number = self.lines;
        let start = self.offset;
        self.offset += line.len();
        if let Some(&last) = line.last() {
            self.last_byte = Some(last);
        }
        let has_newline = line.last() == Some(&b'\n');
        let content = if has_newline {
            &line[..line.len() - 1]
        } else {
            line
        };
        if content.iter().all(u8::is_ascii_whitespace) {
            if !has_newline {
                self.trailing_blank_at = Some(start);
            }
            return Ok(());
        }
        // Another non-blank line follows the pending one, so it was not the last: garbage.
        if let Some(p) = self.pending.take() {
            self.skipped += 1;
            self.items.extend(garbage(&p.content));
        }
        let Some(header) = &self.header else {
            let obj = match serde_json::from_slice::<Value>(content) {
                Ok(Value::Object(obj)) if is_header(&obj) => obj,
                Ok(_) => {
                    return Err(
                        self.not_a_session(format!("line {number} is not a session header"))
                    );
                }
                Err(e) => {
                    return Err(
                        self.not_a_session(format!("line {number} is not a session header: {e}"))
                    );
                }
            };
            self.header = Some(obj);
            return Ok(());
        };
        let raw = RawLine {
            content,
            text: text.map(|t| t.strip_suffix('\n').unwrap_or(t)),
            start,
            number,
        };
        match judge(header, raw) {
            // A last line that parses is complete whether or not its `\n` made it to disk (a
            // crash between the line and its newline, or an editor that drops the final
            // one): it is kept, and the newline is written before the next append.
            Judged::Keep(item) => self.items.push(item),
            Judged::Unusable(item) => {
                self.skipped += 1;
                self.items.extend(item);
            }
            Judged::NotAnObject if !has_newline => {
                self.torn = Some(TornLine {
                    line: number,
                    offset: start as u64,
                    len: line.len() as u64,
                });
                self.skipped += 1;
            }
            Judged::NotAnObject => {
                self.pending = Some(Pending {
                    number,
                    start,
                    content: content.to_vec(),
                });
            }
        }
        Ok(())
    }

    /// What the lines fed add up to; `Ok(None)` for an empty file (a new session).
    fn finish(mut self) -> Result<Option<Scanned<T>>, SessionError> {
        let Some(header) = self.header.take() else {
            // Every non-blank line either is the header or fails above, so only blanks are left.
            return if self.offset == 0 {
                Ok(None)
            } else {
                Err(self.not_a_session("it holds only blank space".to_owned()))
            };
        };
        if let Some(p) = self.pending.take() {
            self.skipped += 1;
            self.torn = Some(TornLine {
                line: p.number,
                offset: p.start as u64,
                len: (self.offset - p.start) as u64,
            });
        }
        if let Some(t) = &self.torn {
            tracing::warn!(path = %self.path.display(), line = t.line, bytes = t.len, "torn last line in session file; it will be cut off before the next append");
        }
        let len = self.offset as u64;
        let keep_len = self
            .torn
            .as_ref()
            .map(|t| t.offset)
            .or(self.trailing_blank_at.map(|at| at as u64))
            .unwrap_or(len);
        // What is kept may end without its `\n`: a last line (the header, say) that parses.
        // A cut always falls where a line starts, just after a `\n`, so only keeping
        // everything can leave the content without one.
        let needs_newline = keep_len == len && self.last_byte.is_some_and(|b| b != b'\n');
        Ok(Some(Scanned {
            header,
            items: self.items,
            skipped: self.skipped,
            torn: self.torn,
            keep_len,
            needs_newline,
            len,
        }))
    }
}

/// Scans `bytes`, the content of `path`. `Ok(None)` for an empty file (a new session).
///
/// `judge` sees every complete non-blank line after the header with the header; `garbage`
/// turns a not-an-object line that turned out not to be the last into an item, if the caller
/// keeps such lines.
pub(crate) fn scan<T>(
    path: &Path,
    bytes: &[u8],
    mut judge: impl FnMut(&JsonObject, RawLine<'_>) -> Judged<T>,
    mut garbage: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Option<Scanned<T>>, SessionError> {
    let mut scanner = Scanner::new(path);
    // Splitting a `str` searches for `\n` a word at a time, a byte slice byte by byte; and a
    // file checked as UTF-8 once need not be checked line by line.
    match std::str::from_utf8(bytes) {
        Ok(text) => {
            for line in text.split_inclusive('\n') {
                scanner.feed(line.as_bytes(), Some(line), &mut judge, &mut garbage)?;
            }
        }
        Err(_) => {
            for line in bytes.split_inclusive(|&b| b == b'\n') {
                scanner.feed(line, None, &mut judge, &mut garbage)?;
            }
        }
    }
    scanner.finish()
}

/// [`scan`] over a stream, holding one line at a time: what opening a long session reads it
/// through, so its memory does not grow with the file. Each line is checked as UTF-8 on its
/// own.
pub(crate) fn scan_reader<T>(
    path: &Path,
    mut reader: impl BufRead,
    mut judge: impl FnMut(&JsonObject, RawLine<'_>) -> Judged<T>,
    mut garbage: impl FnMut(&[u8]) -> Option<T>,
) -> Result<Option<Scanned<T>>, SessionError> {
    let mut scanner = Scanner::new(path);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| SessionError::io(path, "read", e))?;
        if read == 0 {
            break;
        }
        scanner.feed(&line, None, &mut judge, &mut garbage)?;
    }
    scanner.finish()
}

/// The version the header at the start of `reader` declares (v1 without one); `None` when the
/// first non-blank line is not a header. Reads through that line.
pub(crate) fn header_version(mut reader: impl BufRead) -> std::io::Result<Option<u64>> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    Ok(match serde_json::from_slice::<Value>(&line) {
        Ok(Value::Object(obj)) if is_header(&obj) => Some(declared_version(&obj)),
        _ => None,
    })
}

/// pi's validity rule for a header: `type: "session"` and a string `id`.
fn is_header(obj: &JsonObject) -> bool {
    obj.get("type").and_then(Value::as_str) == Some("session")
        && obj.get("id").is_some_and(Value::is_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a scan found, as comparable data: kept lines by number, skipped, torn line,
    /// keep length, missing newline, length.
    type Summary = (Vec<usize>, usize, Option<(usize, u64, u64)>, u64, bool, u64);

    fn summary(scanned: Option<Scanned<usize>>) -> Option<Summary> {
        scanned.map(|s| {
            (
                s.items,
                s.skipped,
                s.torn.map(|t| (t.line, t.offset, t.len)),
                s.keep_len,
                s.needs_newline,
                s.len,
            )
        })
    }

    /// Keeps objects by line number; garbage that is not the last line as 0.
    fn judge(_: &JsonObject, line: RawLine<'_>) -> Judged<usize> {
        match serde_json::from_slice::<Value>(line.content) {
            Ok(Value::Object(_)) => Judged::Keep(line.number),
            _ => Judged::NotAnObject,
        }
    }

    #[test]
    fn a_streamed_scan_judges_every_line_as_a_scan_of_the_whole_content() {
        let header = r#"{"type":"session","id":"s"}"#;
        let cases: Vec<(Vec<u8>, Option<Summary>)> = vec![
            (b"".to_vec(), None),
            (
                header.as_bytes().to_vec(),
                Some((vec![], 0, None, 27, true, 27)),
            ),
            (
                format!("\n{header}\n{{}}\n\n{{}}").into_bytes(),
                Some((vec![3, 5], 0, None, 35, true, 35)),
            ),
            (
                format!("{header}\n{{}}\nnot json\n{{}}\n{{\"torn").into_bytes(),
                Some((vec![2, 0, 4], 2, Some((5, 43, 6)), 43, false, 49)),
            ),
            (
                format!("{header}\n{{}}\nnot json\n  ").into_bytes(),
                Some((vec![2], 1, Some((3, 31, 11)), 31, false, 42)),
            ),
            (
                format!("{header}\n{{}}\n   ").into_bytes(),
                Some((vec![2], 0, None, 31, false, 34)),
            ),
            (
                b"{\"type\":\"session\",\"id\":\"s\",\"x\":\"\xff\"}\n{}\n".to_vec(),
                None,
            ),
        ];
        let path = Path::new("s.jsonl");
        for (content, expected) in cases {
            let whole = scan(path, &content, judge, |_| Some(0)).map(summary);
            let streamed = scan_reader(path, content.as_slice(), judge, |_| Some(0)).map(summary);
            let shown = String::from_utf8_lossy(&content);
            match (&whole, &streamed) {
                (Ok(w), Ok(s)) => {
                    assert_eq!(w, s, "{shown:?}");
                    if !content.contains(&0xff) {
                        assert_eq!(w, &expected, "{shown:?}");
                    }
                }
                (Err(w), Err(s)) => assert_eq!(w.to_string(), s.to_string(), "{shown:?}"),
                _ => panic!(
                    "{shown:?}: {whole:?} vs {streamed:?}",
                    whole = whole.is_ok(),
                    streamed = streamed.is_ok()
                ),
            }
        }
    }

    #[test]
    fn the_header_version_is_read_from_the_first_line_that_is_not_blank() {
        let version = |text: &str| header_version(text.as_bytes()).map_err(|e| e.to_string());
        assert_eq!(
            version("\n  \n{\"type\":\"session\",\"id\":\"s\",\"version\":3}\n{}"),
            Ok(Some(3))
        );
        assert_eq!(version("{\"type\":\"session\",\"id\":\"s\"}"), Ok(Some(1)));
        assert_eq!(version("{\"type\":\"message\",\"id\":\"s\"}\n"), Ok(None));
        assert_eq!(version("\n\n"), Ok(None));
    }
}
