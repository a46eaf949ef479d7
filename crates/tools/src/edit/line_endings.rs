//! The envelope of a text file the edit tool keeps intact: a UTF-8 byte-order mark and the
//! line endings (pi-mono §3.7.1 steps 1 and 4).
//!
//! Models write `\n` and never the invisible BOM, so matching happens on LF text without BOM.
//! The BOM is put back on write; the replacement's line breaks take the style of the text it
//! replaces (pi converts the whole file to the style of its first line break instead, which
//! rewrites every other line of a file with mixed endings).

/// The byte-order mark pi strips before matching and restores on write.
pub const BOM: char = '\u{FEFF}';

/// A line-ending style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// A lone `\r` (classic Mac OS).
    Cr,
}

/// Splits off a leading BOM: `(had_bom, rest)`.
pub fn strip_bom(content: &str) -> (bool, &str) {
    match content.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, content),
    }
}

/// The line-ending style that text replacing `text[range]` should use: that of the first line
/// break inside the range; for a range within one line, that of the break ending the line;
/// on a last line without one, that of the break before it; LF in a file of one line.
pub fn line_ending_of(text: &str, range: std::ops::Range<usize>) -> LineEnding {
    let bytes = text.as_bytes();
    let is_break = |b: &u8| *b == b'\n' || *b == b'\r';
    let first_inside = || {
        let inside = bytes.get(range.clone())?;
        inside.iter().position(is_break).map(|at| range.start + at)
    };
    let ending_the_line = || {
        let after = bytes.get(range.end..)?;
        after.iter().position(is_break).map(|at| range.end + at)
    };
    let before = || {
        let at = bytes.get(..range.start)?.iter().rposition(is_break)?;
        // The `\n` of a `\r\n` is found first going backwards; the style starts at its `\r`.
        match at.checked_sub(1).and_then(|cr| bytes.get(cr..=at)) {
            Some(b"\r\n") => Some(at - 1),
            _ => Some(at),
        }
    };
    let at = first_inside().or_else(ending_the_line).or_else(before);
    match at.map(|at| (bytes.get(at), bytes.get(at + 1))) {
        Some((Some(b'\r'), Some(b'\n'))) => LineEnding::CrLf,
        Some((Some(b'\r'), _)) => LineEnding::Cr,
        _ => LineEnding::Lf,
    }
}

/// pi's `normalizeToLF`: `\r\n` and then every lone `\r` become `\n`.
pub fn normalize_to_lf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// pi's `restoreLineEndings`: LF text in the given style.
pub fn restore_line_endings(text: &str, ending: LineEnding) -> String {
    match ending {
        LineEnding::Lf => text.to_owned(),
        LineEnding::CrLf => text.replace('\n', "\r\n"),
        LineEnding::Cr => text.replace('\n', "\r"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_replaced_text_decides_the_style() {
        let mixed = "a\r\nb\nc\rd";
        // The first break inside the range.
        assert_eq!(line_ending_of(mixed, 0..6), LineEnding::CrLf);
        assert_eq!(line_ending_of(mixed, 3..8), LineEnding::Lf);
        assert_eq!(line_ending_of(mixed, 6..8), LineEnding::Cr);
        // Within one line: the break that ends it.
        assert_eq!(line_ending_of(mixed, 0..1), LineEnding::CrLf);
        assert_eq!(line_ending_of(mixed, 3..4), LineEnding::Lf);
        assert_eq!(line_ending_of(mixed, 5..5), LineEnding::Cr);
        // The last line has none: the break before it.
        assert_eq!(line_ending_of(mixed, 7..8), LineEnding::Cr);
        assert_eq!(line_ending_of("a\r\nb", 3..4), LineEnding::CrLf);
        assert_eq!(line_ending_of("a\nb", 2..3), LineEnding::Lf);
        assert_eq!(line_ending_of("one line", 0..3), LineEnding::Lf);
        assert_eq!(line_ending_of("", 0..0), LineEnding::Lf);
    }

    #[test]
    fn normalization_and_restoration() {
        assert_eq!(normalize_to_lf("a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(
            restore_line_endings("a\nb\n", LineEnding::CrLf),
            "a\r\nb\r\n"
        );
        assert_eq!(restore_line_endings("a\nb", LineEnding::Cr), "a\rb");
        assert_eq!(strip_bom("\u{FEFF}x"), (true, "x"));
        assert_eq!(strip_bom("x\u{FEFF}"), (false, "x\u{FEFF}"));
    }
}
