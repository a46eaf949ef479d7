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
}

/// A complete line that is not an object, whose fate depends on whether another line follows.
struct Pending<'a> {
    number: usize,
    start: usize,
    content: &'a [u8],
}

/// Scans `bytes`, the content of `path`. `Ok(None)` for an empty file (a new session).
///
/// `judge` sees every complete non-blank line after the header with the header; `garbage`
/// turns a not-an-object line that turned out not to be the last into an item, if the caller
/// keeps such lines.
pub(crate) fn scan<'a, T>(
    path: &Path,
    bytes: &'a [u8],
    mut judge: impl FnMut(&JsonObject, RawLine<'a>) -> Judged<T>,
    mut garbage: impl FnMut(&'a [u8]) -> Option<T>,
) -> Result<Option<Scanned<T>>, SessionError> {
    let not_a_session = |reason: String| SessionError::NotASession {
        path: path.to_owned(),
        reason,
    };
    let mut header: Option<JsonObject> = None;
    let mut items = Vec::new();
    let mut skipped = 0;
    let mut pending: Option<Pending> = None;
    let mut torn = None;
    let mut trailing_blank_at = None;
    let mut offset = 0usize;
    // Splitting a `str` searches for `\n` a word at a time, a byte slice byte by byte; and a
    // file checked as UTF-8 once need not be checked line by line.
    type Lines<'a> = Box<dyn Iterator<Item = (&'a [u8], Option<&'a str>)> + 'a>;
    let lines: Lines<'a> = match std::str::from_utf8(bytes) {
        Ok(text) => Box::new(
            text.split_inclusive('\n')
                .map(|l| (l.as_bytes(), Some(l.strip_suffix('\n').unwrap_or(l)))),
        ),
        Err(_) => Box::new(bytes.split_inclusive(|&b| b == b'\n').map(|l| (l, None))),
    };
    for (index, (line, text)) in lines.enumerate() {
        let number = index + 1;
        let start = offset;
        offset += line.len();
        let has_newline = line.last() == Some(&b'\n');
        let content = if has_newline {
            &line[..line.len() - 1]
        } else {
            line
        };
        if content.iter().all(u8::is_ascii_whitespace) {
            if !has_newline {
                trailing_blank_at = Some(start);
            }
            continue;
        }
        // Another non-blank line follows the pending one, so it was not the last: garbage.
        if let Some(p) = pending.take() {
            skipped += 1;
            items.extend(garbage(p.content));
        }
        let Some(header_obj) = &header else {
            let obj = match serde_json::from_slice::<Value>(content) {
                Ok(Value::Object(obj)) if is_header(&obj) => obj,
                Ok(_) => {
                    return Err(not_a_session(format!(
                        "line {number} is not a session header"
                    )));
                }
                Err(e) => {
                    return Err(not_a_session(format!(
                        "line {number} is not a session header: {e}"
                    )));
                }
            };
            header = Some(obj);
            continue;
        };
        let raw = RawLine {
            content,
            text,
            start,
            number,
        };
        match judge(header_obj, raw) {
            // A last line that parses is complete whether or not its `\n` made it to disk (a
            // crash between the line and its newline, or an editor that drops the final
            // one): it is kept, and the newline is written before the next append.
            Judged::Keep(item) => items.push(item),
            Judged::Unusable(item) => {
                skipped += 1;
                items.extend(item);
            }
            Judged::NotAnObject if !has_newline => {
                torn = Some(TornLine {
                    line: number,
                    offset: start as u64,
                    len: line.len() as u64,
                });
                skipped += 1;
            }
            Judged::NotAnObject => {
                pending = Some(Pending {
                    number,
                    start,
                    content,
                });
            }
        }
    }
    let Some(header) = header else {
        // Every non-blank line either is the header or fails above, so only blanks are left.
        return if offset == 0 {
            Ok(None)
        } else {
            Err(not_a_session("it holds only blank space".to_owned()))
        };
    };
    if let Some(p) = pending {
        skipped += 1;
        torn = Some(TornLine {
            line: p.number,
            offset: p.start as u64,
            len: (offset - p.start) as u64,
        });
    }
    if let Some(t) = &torn {
        tracing::warn!(path = %path.display(), line = t.line, bytes = t.len, "torn last line in session file; it will be cut off before the next append");
    }
    let keep_len = torn
        .as_ref()
        .map(|t| t.offset)
        .or(trailing_blank_at.map(|at| at as u64))
        .unwrap_or(offset as u64);
    // What is kept may end without its `\n`: a last line (the header, say) that parses.
    let needs_newline = usize::try_from(keep_len)
        .ok()
        .and_then(|at| at.checked_sub(1))
        .and_then(|at| bytes.get(at))
        .is_some_and(|&b| b != b'\n');
    Ok(Some(Scanned {
        header,
        items,
        skipped,
        torn,
        keep_len,
        needs_newline,
    }))
}

/// The version the header of `bytes` declares (v1 without one); `None` when the first
/// non-blank line is not a header.
pub(crate) fn header_version(bytes: &[u8]) -> Option<u64> {
    let first = bytes
        .split(|&b| b == b'\n')
        .find(|line| !line.iter().all(u8::is_ascii_whitespace))?;
    match serde_json::from_slice::<Value>(first) {
        Ok(Value::Object(obj)) if is_header(&obj) => Some(declared_version(&obj)),
        _ => None,
    }
}

/// pi's validity rule for a header: `type: "session"` and a string `id`.
fn is_header(obj: &JsonObject) -> bool {
    obj.get("type").and_then(Value::as_str) == Some("session")
        && obj.get("id").is_some_and(Value::is_string)
}
