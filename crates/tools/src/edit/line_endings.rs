//! The envelope of a text file the edit tool keeps intact: a UTF-8 byte-order mark and the
//! line-ending style (pi-mono §3.7.1 steps 1 and 4).
//!
//! Models write `\n` and never the invisible BOM, so matching happens on LF text without BOM,
//! and both are put back when the file is written.

/// The byte-order mark pi strips before matching and restores on write.
pub const BOM: char = '\u{FEFF}';

/// A file's line-ending style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

/// Splits off a leading BOM: `(had_bom, rest)`.
pub fn strip_bom(content: &str) -> (bool, &str) {
    match content.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, content),
    }
}

/// pi's `detectLineEnding`: CRLF when the first `\n` of the file is part of a `\r\n`, LF
/// otherwise (also for a file with no `\n` at all).
pub fn detect_line_ending(content: &str) -> LineEnding {
    match content.find('\n') {
        Some(index) if index > 0 && content.as_bytes().get(index - 1) == Some(&b'\r') => {
            LineEnding::CrLf
        }
        _ => LineEnding::Lf,
    }
}

/// pi's `normalizeToLF`: `\r\n` and then every lone `\r` become `\n`.
pub fn normalize_to_lf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// pi's `restoreLineEndings`: LF text back to the file's style.
pub fn restore_line_endings(text: &str, ending: LineEnding) -> String {
    match ending {
        LineEnding::Lf => text.to_owned(),
        LineEnding::CrLf => text.replace('\n', "\r\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn first_newline_decides_the_style() {
        assert_eq!(detect_line_ending("a\r\nb\nc"), LineEnding::CrLf);
        assert_eq!(detect_line_ending("a\nb\r\nc"), LineEnding::Lf);
        assert_eq!(detect_line_ending("a\rb"), LineEnding::Lf);
        assert_eq!(detect_line_ending("\n"), LineEnding::Lf);
        assert_eq!(detect_line_ending(""), LineEnding::Lf);
    }

    #[test]
    fn normalization_and_restoration() {
        assert_eq!(normalize_to_lf("a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(
            restore_line_endings("a\nb\n", LineEnding::CrLf),
            "a\r\nb\r\n"
        );
        assert_eq!(strip_bom("\u{FEFF}x"), (true, "x"));
        assert_eq!(strip_bom("x\u{FEFF}"), (false, "x\u{FEFF}"));
    }
}
