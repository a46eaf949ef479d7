//! Reading a whole session file into typed lines, tolerating what a crash or a stray editor
//! leaves behind (SPEC §5; the line rules are in [`crate::scan`]).
//!
//! Every line is parsed here, and lines that are not entries this version can use are kept
//! byte for byte, which is what migrations and whole-file rewrites need. Opening a current
//! file for use reads its messages lazily instead ([`crate::entry_list`]).

use std::path::Path;

use serde_json::Value;

use clawloop_core::message::JsonObject;

use crate::entry::SessionEntry;
use crate::envelope;
use crate::error::SessionError;
use crate::header::CURRENT_SESSION_VERSION;
use crate::migrate::declared_version;
use crate::scan::{Judged, RawLine, scan};

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
    /// The kept content ends without `\n` (its last line parses but lost its newline).
    pub needs_newline: bool,
}

/// Reads the content of `path`, already read. `Ok(None)` when it is empty (a new session).
pub(crate) fn load_bytes(path: &Path, bytes: &[u8]) -> Result<Option<Loaded>, SessionError> {
    let judge = |header: &JsonObject, line: RawLine<'_>| {
        let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(line.content) else {
            return Judged::NotAnObject;
        };
        if declared_version(header) < u64::from(CURRENT_SESSION_VERSION) {
            return Judged::Keep(Line::Object(obj));
        }
        match envelope::type_object(obj) {
            Ok(entry) => Judged::Keep(Line::Entry(entry)),
            Err(e) => {
                tracing::warn!(path = %path.display(), line = line.number, error = %e, "skipping unusable session entry");
                Judged::Unusable(Some(Line::Garbage(line.content.to_vec())))
            }
        }
    };
    let garbage = |content: &[u8]| Some(Line::Garbage(content.to_vec()));
    Ok(scan(path, bytes, judge, garbage)?.map(|s| Loaded {
        header: s.header,
        lines: s.items,
        skipped: s.skipped,
        torn: s.torn,
        keep_len: s.keep_len,
        needs_newline: s.needs_newline,
    }))
}
