//! The text the edit tool searches (LF line endings, or pi's fuzzy normalization on top) with a
//! map from its positions back to byte offsets in the file.
//!
//! pi matches in a normalized copy of the file and writes that copy back, so a fuzzy edit
//! rewrites every line (quotes, dashes, NFKC forms, trailing spaces, line endings). With the
//! map, only the bytes under the match are replaced and the rest of the file is kept as it was.
//!
//! The map is a sequence of spans, each a piece of the file and the text it became. A
//! *verbatim* span is copied unchanged, so every position inside it maps one to one. A
//! *rewritten* span (a line break turned into `\n`, an NFKC segment that changed, a folded
//! character, trimmed trailing whitespace) maps only at its two ends: a match that starts or
//! ends inside one takes the whole span, and the part of its new text outside the match is
//! kept as a prefix or suffix of the replacement.
//!
//! NFKC is applied per segment, a segment starting at every line start and at every character
//! whose decomposition begins with a starter that cannot combine with what precedes it
//! (combining class 0, `NFKC_Quick_Check=Yes`). Normalization never reaches across such a boundary, so the
//! segments' forms joined are the NFKC form of the whole text, and the fuzzy text here equals
//! pi's `normalizeForFuzzyMatch(normalizeToLF(text))`.

use std::ops::Range;

use clawloop_core::js_text::is_js_whitespace;
use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

use super::fuzzy::fold_char;

/// Searchable text with the map back to the file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappedText {
    text: String,
    spans: Vec<Span>,
    /// Byte length of the file text.
    source_len: usize,
}

/// A piece of the file and the text it became.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Span {
    source: Range<usize>,
    text: Range<usize>,
    /// Copied unchanged: `source` and `text` have the same length and map byte for byte.
    verbatim: bool,
}

impl Span {
    fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// Where a match lies in the file and what of the searched text around it must be written
/// with the replacement because a rewritten span was only partly matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRange<'a> {
    /// The bytes of the file to replace.
    pub source: Range<usize>,
    /// Searched text before the match that replaces file bytes in `source`.
    pub prefix: &'a str,
    /// Searched text after the match that replaces file bytes in `source`.
    pub suffix: &'a str,
}

impl MappedText {
    /// `source` with every `\r\n` and lone `\r` turned into `\n` (pi's `normalizeToLF`).
    pub fn line_feeds(source: &str) -> Self {
        let mut builder = Builder::new(source.len());
        for line in Lines::new(source) {
            builder.verbatim(line.content.start, &source[line.content.clone()]);
            builder.line_break(source, line.line_break);
        }
        builder.finish()
    }

    /// `source` after `normalizeToLF` and pi's `normalizeForFuzzyMatch`: NFKC, trailing
    /// whitespace of every line removed, quotes, dashes and special spaces folded to ASCII.
    pub fn fuzzy(source: &str) -> Self {
        let mut builder = Builder::new(source.len());
        let mut pieces: Vec<Piece<'_>> = Vec::new();
        for line in Lines::new(source) {
            pieces.clear();
            nfkc_pieces(source, line.content, &mut pieces);
            trim_end(&mut pieces);
            for piece in &pieces {
                builder.folded(piece);
            }
            builder.line_break(source, line.line_break);
        }
        builder.finish()
    }

    /// The searchable text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file bytes behind `matched`, a range of [`MappedText::text`] on character
    /// boundaries. Whitespace that was trimmed at either end of the match stays outside it.
    pub fn source_range(&self, matched: Range<usize>) -> SourceRange<'_> {
        let (start, prefix) = self.source_start(matched.start);
        let (end, suffix) = self.source_end(matched.end);
        if end < start {
            // An empty match between two spans that were both trimmed away.
            return SourceRange {
                source: start..start,
                prefix,
                suffix: "",
            };
        }
        SourceRange {
            source: start..end,
            prefix,
            suffix,
        }
    }

    /// The file offset where text from `at` on begins, and the text of a partly matched span
    /// before `at`.
    fn source_start(&self, at: usize) -> (usize, &str) {
        // The first span with text at or after `at`; spans whose text was trimmed away lie
        // before it and so stay outside the match.
        let index = self.spans.partition_point(|s| s.text.end <= at);
        let Some(span) = self.spans[index..].iter().find(|s| !s.is_empty()) else {
            return (self.source_len, "");
        };
        if at <= span.text.start {
            return (span.source.start, "");
        }
        if span.verbatim {
            return (span.source.start + (at - span.text.start), "");
        }
        (span.source.start, self.slice(span.text.start..at))
    }

    /// The file offset where text before `at` ends, and the text of a partly matched span
    /// from `at` on.
    fn source_end(&self, at: usize) -> (usize, &str) {
        let index = self.spans.partition_point(|s| s.text.start < at);
        let Some(span) = self.spans[..index].iter().rev().find(|s| !s.is_empty()) else {
            return (0, "");
        };
        if at >= span.text.end {
            return (span.source.end, "");
        }
        if span.verbatim {
            return (span.source.start + (at - span.text.start), "");
        }
        (span.source.end, self.slice(at..span.text.end))
    }

    fn slice(&self, range: Range<usize>) -> &str {
        self.text.get(range).unwrap_or_default()
    }
}

/// Collects spans, merging neighbouring verbatim ones so plain text costs one span per run.
struct Builder {
    text: String,
    spans: Vec<Span>,
    source_len: usize,
}

impl Builder {
    fn new(source_len: usize) -> Self {
        Builder {
            text: String::with_capacity(source_len),
            spans: Vec::new(),
            source_len,
        }
    }

    fn verbatim(&mut self, source_start: usize, piece: &str) {
        if piece.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(piece);
        let end = self.text.len();
        if let Some(last) = self.spans.last_mut()
            && last.verbatim
            && last.source.end == source_start
            && last.text.end == start
        {
            last.source.end += piece.len();
            last.text.end = end;
            return;
        }
        self.spans.push(Span {
            source: source_start..source_start + piece.len(),
            text: start..end,
            verbatim: true,
        });
    }

    fn rewritten(&mut self, source: Range<usize>, piece: &str) {
        let start = self.text.len();
        self.text.push_str(piece);
        self.spans.push(Span {
            source,
            text: start..self.text.len(),
            verbatim: false,
        });
    }

    /// A line break: `\n` is kept, `\r\n` and `\r` become `\n`.
    fn line_break(&mut self, source: &str, range: Range<usize>) {
        match source.get(range.clone()) {
            None | Some("") => {}
            Some("\n") => self.verbatim(range.start, "\n"),
            Some(_) => self.rewritten(range, "\n"),
        }
    }

    /// A piece after NFKC and trimming, with pi's character folds applied; in a verbatim piece
    /// each folded character becomes its own span, so the rest stays verbatim.
    fn folded(&mut self, piece: &Piece<'_>) {
        if !piece.verbatim {
            let folded: String = piece.text.chars().map(fold_char).collect();
            self.rewritten(piece.source.clone(), &folded);
            return;
        }
        let mut run_start = 0;
        for (at, c) in piece.text.char_indices() {
            let folded = fold_char(c);
            if folded != c {
                let base = piece.source.start;
                self.verbatim(base + run_start, &piece.text[run_start..at]);
                let end = at + c.len_utf8();
                self.rewritten(base + at..base + end, folded.encode_utf8(&mut [0; 4]));
                run_start = end;
            }
        }
        self.verbatim(piece.source.start + run_start, &piece.text[run_start..]);
    }

    fn finish(self) -> MappedText {
        MappedText {
            text: self.text,
            spans: self.spans,
            source_len: self.source_len,
        }
    }
}

/// One NFKC segment of a line: its bytes in the file and its normalized text.
#[derive(Debug)]
struct Piece<'a> {
    source: Range<usize>,
    text: std::borrow::Cow<'a, str>,
    /// `text` is the file's bytes unchanged.
    verbatim: bool,
}

/// Splits the line `source[range]` into NFKC segments and normalizes each.
fn nfkc_pieces<'a>(source: &'a str, range: Range<usize>, pieces: &mut Vec<Piece<'a>>) {
    let line = &source[range.clone()];
    let mut start = 0;
    for (at, c) in line.char_indices() {
        if at > start && starts_segment(c) {
            pieces.push(nfkc_piece(line, start..at, range.start));
            start = at;
        }
    }
    if start < line.len() {
        pieces.push(nfkc_piece(line, start..line.len(), range.start));
    }
}

fn nfkc_piece<'a>(line: &'a str, range: Range<usize>, line_start: usize) -> Piece<'a> {
    let segment = &line[range.clone()];
    let source = line_start + range.start..line_start + range.end;
    if is_nfkc_quick(segment.chars()) == IsNormalized::Yes {
        return Piece {
            source,
            text: segment.into(),
            verbatim: true,
        };
    }
    let normalized: String = segment.nfkc().collect();
    let verbatim = normalized == segment;
    Piece {
        source,
        text: normalized.into(),
        verbatim,
    }
}

/// Whether NFKC never reaches across the boundary before `c`: the first character of `c`'s
/// compatibility decomposition is a starter (so no reordering crosses it) that does not
/// compose with a preceding character (those have `NFKC_Quick_Check=Maybe`). `c` itself may
/// change (`ﬁ`, NBSP, `²` start segments of their own); `e` + U+0301 or U+0F73 (which
/// decomposes to two non-starters) do not split.
fn starts_segment(c: char) -> bool {
    if c.is_ascii() {
        return true;
    }
    let mut first = None;
    decompose_compatible(c, |d| {
        first.get_or_insert(d);
    });
    first.is_some_and(|d| {
        canonical_combining_class(d) == 0 && is_nfkc_quick(std::iter::once(d)) == IsNormalized::Yes
    })
}

/// pi's per-line `trimEnd` on the normalized line: trailing JS whitespace is cut from the last
/// pieces; a piece that loses text is no longer verbatim.
fn trim_end(pieces: &mut [Piece<'_>]) {
    for piece in pieces.iter_mut().rev() {
        let kept = piece.text.trim_end_matches(is_js_whitespace).len();
        if kept == piece.text.len() {
            return;
        }
        piece.text = piece.text[..kept].to_owned().into();
        piece.verbatim = false;
        if kept > 0 {
            return;
        }
    }
}

/// One line of the file: its content and its line break (empty on the last line).
struct Line {
    content: Range<usize>,
    line_break: Range<usize>,
}

/// The lines of a text split at `\r\n`, `\r` and `\n`. Every range ends next to an ASCII byte,
/// so slicing the text with it stays on character boundaries.
struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    done: bool,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            bytes: text.as_bytes(),
            at: 0,
            done: false,
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.done {
            return None;
        }
        let start = self.at;
        let rest = self.bytes.get(start..).unwrap_or_default();
        let Some(offset) = rest.iter().position(|&b| b == b'\n' || b == b'\r') else {
            self.done = true;
            return Some(Line {
                content: start..self.bytes.len(),
                line_break: self.bytes.len()..self.bytes.len(),
            });
        };
        let end = start + offset;
        let crlf = self.bytes.get(end..end + 2) == Some(b"\r\n");
        self.at = end + if crlf { 2 } else { 1 };
        Some(Line {
            content: start..end,
            line_break: end..self.at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::fuzzy::normalize_for_fuzzy_match;
    use crate::edit::line_endings::normalize_to_lf;
    use pretty_assertions::assert_eq;

    /// Texts where a per-segment normalization could go wrong: composition across characters
    /// (decomposed accents, Hangul jamo), reordering of combining marks, expansions,
    /// compatibility forms, and whitespace that NFKC creates or that is trimmed.
    const TRICKY: &[&str] = &[
        "",
        "plain ascii\n",
        "cafe\u{301} na\u{308}ive\r\nx",
        "\u{1100}\u{1161}\u{11A8} \u{AC00}\u{11A8}",
        "a\u{323}\u{302}b\u{302}\u{323} \u{1E0B}\u{323}",
        "\u{FB01}le \u{2026} x\u{B2} \u{2460} \u{3300}",
        "\u{FF21}\u{FF22} \u{FF0C}\u{FF08}\u{FF09}",
        "tail\u{A0}\u{2003} \t\r\n\u{301}start\r",
        "\u{2018}q\u{2019} \u{201C}d\u{201D} 1\u{2013}2\u{2212}3 \u{3000}",
        "\u{A8} \u{2FC} \u{1E9B}\u{323} \u{FDFA}",
        "\r\r\n\n\r",
        "x   ",
        "\u{0F73}\u{0F75}\u{0F81}",
    ];

    #[test]
    fn the_fuzzy_text_is_pis_normalization() {
        for text in TRICKY {
            assert_eq!(
                MappedText::fuzzy(text).text(),
                normalize_for_fuzzy_match(&normalize_to_lf(text)),
                "{text:?}"
            );
            assert_eq!(
                MappedText::line_feeds(text).text(),
                normalize_to_lf(text),
                "{text:?}"
            );
        }
    }

    /// Every span's text is what its source bytes normalize to, and spans tile both texts.
    #[test]
    fn spans_tile_the_source_and_the_text() {
        for text in TRICKY {
            for mapped in [MappedText::fuzzy(text), MappedText::line_feeds(text)] {
                let mut source_at = 0;
                let mut text_at = 0;
                for span in &mapped.spans {
                    assert_eq!(
                        (span.source.start, span.text.start),
                        (source_at, text_at),
                        "{text:?}"
                    );
                    if span.verbatim {
                        assert_eq!(&text[span.source.clone()], &mapped.text[span.text.clone()]);
                    }
                    source_at = span.source.end;
                    text_at = span.text.end;
                }
                assert_eq!((source_at, text_at), (text.len(), mapped.text.len()));
            }
        }
    }

    /// Characters that interact under the normalization: starters that compose with what
    /// follows, combining marks of different classes, Hangul jamo, expansions, folds, spaces
    /// and line breaks.
    const ALPHABET: &[char] = &[
        'a', 'e', ' ', '\t', '\n', '\r', '\u{301}', '\u{308}', '\u{323}', '\u{302}', '\u{1100}',
        '\u{1161}', '\u{11A8}', '\u{AC00}', '\u{FB01}', '\u{2026}', '\u{B2}', '\u{A0}', '\u{2003}',
        '\u{3000}', '\u{2018}', '\u{201D}', '\u{2014}', '\u{FF0C}', '\u{0F73}', '\u{0F71}',
        '\u{0F72}', '\u{A8}', '\u{1E9B}', '\u{212B}', '\u{FEFF}', '\u{3099}', '\u{304B}',
    ];

    proptest::proptest! {
        #[test]
        fn segment_wise_normalization_equals_pis(
            indices in proptest::collection::vec(0..ALPHABET.len(), 0..40)
        ) {
            let text: String = indices.iter().map(|&i| ALPHABET[i]).collect();
            let mapped = MappedText::fuzzy(&text);
            let expected = normalize_for_fuzzy_match(&normalize_to_lf(&text));
            proptest::prop_assert_eq!(mapped.text(), expected.as_str());
            // Verbatim spans map byte for byte.
            for span in &mapped.spans {
                if span.verbatim {
                    proptest::prop_assert_eq!(
                        &text[span.source.clone()],
                        &mapped.text[span.text.clone()]
                    );
                }
            }
        }
    }

    #[test]
    fn a_match_maps_to_the_bytes_it_covers() {
        let source = "a = \u{2018}x\u{2019};  \r\nb\u{A0}= 1;\n";
        let mapped = MappedText::fuzzy(source);
        assert_eq!(mapped.text(), "a = 'x';\nb = 1;\n");
        // `'x'` covers the smart quotes.
        let range = mapped.source_range(4..7);
        assert_eq!(
            (&source[range.source.clone()], range.prefix, range.suffix),
            ("\u{2018}x\u{2019}", "", "")
        );
        // A match ending at a line's end leaves its trimmed spaces and line break alone.
        let range = mapped.source_range(0..8);
        assert_eq!(&source[range.source], "a = \u{2018}x\u{2019};");
        // A match taking the line break takes the trailing spaces before it.
        let range = mapped.source_range(4..10);
        assert_eq!(&source[range.source], "\u{2018}x\u{2019};  \r\nb");
        // A match starting at a line's start after trimmed spaces does not take them.
        let range = mapped.source_range(8..10);
        assert_eq!(&source[range.source], "\r\nb");
    }

    #[test]
    fn a_match_inside_an_expansion_keeps_the_rest_of_it() {
        let source = "the \u{FB01}ne print";
        let mapped = MappedText::fuzzy(source);
        assert_eq!(mapped.text(), "the fine print");
        // `ine` starts inside the ligature `ﬁ` (NFKC `fi`).
        let range = mapped.source_range(5..8);
        assert_eq!(
            (&source[range.source], range.prefix, range.suffix),
            ("\u{FB01}ne", "f", "")
        );
        let range = mapped.source_range(0..5);
        assert_eq!(
            (&source[range.source], range.prefix, range.suffix),
            ("the \u{FB01}", "", "i")
        );
    }

    #[test]
    fn empty_matches_map_to_a_point() {
        let source = "ab  \ncd";
        let mapped = MappedText::fuzzy(source);
        assert_eq!(mapped.source_range(2..2).source, 4..4);
        assert_eq!(mapped.source_range(0..0).source, 0..0);
        assert_eq!(mapped.source_range(5..5).source, 7..7);
        let empty = MappedText::fuzzy("   ");
        assert_eq!(empty.source_range(0..0).source, 3..3);
    }
}
