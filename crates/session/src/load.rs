//! Reading a session file line by line, tolerating what a crash or a stray editor leaves behind
//! (SPEC §5).
//!
//! * The first non-blank line must be a session header (an object with `type: "session"` and
//!   a string `id`); otherwise the file is not a session and is refused.
//! * Blank lines are ignored (pi does the same) and not counted.
//! * The last non-blank line is *torn* when it lacks its `\n` or is not JSON: it is skipped,
//!   counted, and the caller cuts the file back to `keep_len` before its next append.
//! * Any other line that is not JSON, or not an entry this version can use, is skipped and
//!   counted but kept in place (its bytes are kept for whole-file rewrites).

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind};
use std::path::Path;

use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::entry::SessionEntry;
use crate::error::SessionError;
use crate::header::CURRENT_SESSION_VERSION;
use crate::migrate::declared_version;

/// A torn last line found on open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornLine {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset where the line starts; the file is cut back to it before the next append.
    pub offset: u64,
    /// Its length in bytes (through the end of the file).
    pub len: u64,
}

/// One line after the header.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "nearly every line is an entry; boxing would add an allocation per line"
)]
pub(crate) enum Line {
    /// A usable entry (current-version files are typed while reading).
    Entry(SessionEntry),
    /// A JSON object of an older version, typed after migration.
    Object(JsonObject),
    /// A line that was skipped, byte for byte.
    Garbage(Vec<u8>),
}

/// A file as read, before migration.
#[derive(Debug)]
pub(crate) struct Loaded {
    /// The header object.
    pub header: JsonObject,
    /// Every non-blank line after the header except a torn last one, in file order.
    pub lines: Vec<Line>,
    /// Lines that could not be used, the torn one included.
    pub skipped: usize,
    /// The torn last line, if any.
    pub torn: Option<TornLine>,
    /// Bytes to keep: the file length minus a torn tail (and trailing blanks without `\n`).
    pub keep_len: u64,
    /// The kept content ends without `\n` (a header-only file missing its newline).
    pub needs_newline: bool,
    /// The file's length when it was read.
    pub seen_len: u64,
}

/// A complete, unparsable line whose fate depends on whether another line follows.
struct Pending {
    line: usize,
    offset: u64,
    bytes: Vec<u8>,
}

/// Reads `path`. `Ok(None)` when it does not exist or is empty (a new session).
pub(crate) fn load(path: &Path) -> Result<Option<Loaded>, SessionError> {
    let io = |e| SessionError::io(path, "read", e);
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let mut reader = BufReader::new(file);
    let not_a_session = |reason: String| SessionError::NotASession {
        path: path.to_owned(),
        reason,
    };

    let mut header: Option<(JsonObject, bool)> = None;
    let mut lines = Vec::new();
    let mut skipped = 0;
    let mut pending: Option<Pending> = None;
    let mut torn = None;
    let mut trailing_blank_at = None;
    let mut offset = 0u64;
    let mut line_no = 0;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let start = offset;
        offset += n as u64;
        let has_newline = buf.last() == Some(&b'\n');
        let content = if has_newline { &buf[..n - 1] } else { &buf[..] };
        if content.iter().all(u8::is_ascii_whitespace) {
            if !has_newline {
                trailing_blank_at = Some(start);
            }
            continue;
        }
        // Another non-blank line follows the pending one, so it was not the last: garbage.
        if let Some(p) = pending.take() {
            skipped += 1;
            lines.push(Line::Garbage(p.bytes));
        }
        let parsed = serde_json::from_slice::<Value>(content);
        let Some((header_obj, _)) = &header else {
            let obj = match parsed {
                Ok(Value::Object(obj)) if is_header(&obj) => obj,
                Ok(_) => {
                    return Err(not_a_session(format!(
                        "line {line_no} is not a session header"
                    )));
                }
                Err(e) => {
                    return Err(not_a_session(format!(
                        "line {line_no} is not a session header: {e}"
                    )));
                }
            };
            header = Some((obj, !has_newline));
            continue;
        };
        if !has_newline {
            torn = Some(TornLine {
                line: line_no,
                offset: start,
                len: n as u64,
            });
            skipped += 1;
            break;
        }
        match parsed {
            Ok(Value::Object(obj)) => {
                if declared_version(header_obj) >= u64::from(CURRENT_SESSION_VERSION) {
                    match SessionEntry::from_object(obj) {
                        Ok(entry) => lines.push(Line::Entry(entry)),
                        Err(e) => {
                            tracing::warn!(path = %path.display(), line = line_no, error = %e, "skipping unusable session entry");
                            skipped += 1;
                            lines.push(Line::Garbage(content.to_vec()));
                        }
                    }
                } else {
                    lines.push(Line::Object(obj));
                }
            }
            _ => {
                pending = Some(Pending {
                    line: line_no,
                    offset: start,
                    bytes: content.to_vec(),
                });
            }
        }
    }
    let Some((header, needs_newline)) = header else {
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
            line: p.line,
            offset: p.offset,
            len: offset - p.offset,
        });
    }
    if let Some(t) = &torn {
        tracing::warn!(path = %path.display(), line = t.line, bytes = t.len, "torn last line in session file; it will be cut off before the next append");
    }
    let keep_len = torn
        .as_ref()
        .map(|t| t.offset)
        .or(trailing_blank_at)
        .unwrap_or(offset);
    Ok(Some(Loaded {
        header,
        lines,
        skipped,
        torn,
        keep_len,
        needs_newline,
        seen_len: offset,
    }))
}

/// pi's validity rule for a header: `type: "session"` and a string `id`.
fn is_header(obj: &JsonObject) -> bool {
    obj.get("type").and_then(Value::as_str) == Some("session")
        && obj.get("id").is_some_and(Value::is_string)
}
