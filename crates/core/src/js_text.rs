//! JavaScript string semantics that OpenClaw's behavior depends on.
//!
//! OpenClaw's classifiers, chunker and tag filter use JS `\s`, `.` and `String.prototype.trim`.
//! Rust's `char::is_whitespace` differs from JS `\s` (it includes U+0085 and excludes U+FEFF),
//! so the exact JS sets are spelled out here, once, for every crate that must match OpenClaw.

/// True for the code points JavaScript's `\s` and `trim` treat as whitespace (ECMA-262
/// WhiteSpace plus LineTerminator).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// True for the code points JavaScript's `.` (without the `s` flag) does not match.
pub fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JavaScript's `String.prototype.trim`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// JavaScript's `String.prototype.trimStart`.
pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_whitespace)
}

/// JavaScript's `String.prototype.trimEnd`.
pub fn js_trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_whitespace)
}

/// True when JavaScript's `s.trim().length === 0`: every char is JS whitespace.
pub fn is_js_blank<I: IntoIterator<Item = char>>(chars: I) -> bool {
    chars.into_iter().all(is_js_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_space_set_differs_from_rust_where_js_does() {
        assert!(is_js_whitespace('\u{FEFF}'));
        assert!(!'\u{FEFF}'.is_whitespace());
        assert!(!is_js_whitespace('\u{0085}'));
        assert!('\u{0085}'.is_whitespace());
        assert!(is_js_whitespace('\u{3000}'));
        assert!(!is_js_whitespace('a'));
    }

    #[test]
    fn trim_and_blank_follow_js() {
        assert_eq!(js_trim("\u{FEFF} x \u{3000}"), "x");
        assert_eq!(js_trim("\u{0085}x"), "\u{0085}x");
        assert_eq!(js_trim_start("\u{FEFF} x \u{3000}"), "x \u{3000}");
        assert_eq!(js_trim_end("\u{FEFF} x \u{3000}"), "\u{FEFF} x");
        assert_eq!(js_trim_start("\u{0085}x"), "\u{0085}x");
        assert_eq!(js_trim_end("x\u{0085}"), "x\u{0085}");
        assert!(is_js_blank("".chars()));
        assert!(is_js_blank(" \n\t\u{00A0}".chars()));
        assert!(!is_js_blank(" x ".chars()));
        assert!(is_js_line_terminator('\u{2028}'));
        assert!(!is_js_line_terminator('\t'));
    }
}
