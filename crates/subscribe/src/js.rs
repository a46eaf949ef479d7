//! JavaScript string semantics that the reference implementation relies on.
//!
//! OpenClaw's chunker and tag filter use `\s`, `.` and `String.prototype.trim`. Rust's
//! `char::is_whitespace` differs from JS `\s` (it includes U+0085 and excludes U+FEFF), so the
//! exact JS sets are spelled out here to keep the behaviour identical.

/// `true` for the characters JS `\s` matches (WhiteSpace plus LineTerminator, ECMA-262).
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{000B}' | '\u{000C}' | '\r' | ' ' | '\u{00A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `true` for the characters JS `.` (without the `s` flag) refuses to match.
pub(crate) fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `true` when JS `s.trim().length === 0`, i.e. every character is JS whitespace.
pub(crate) fn is_blank<I: IntoIterator<Item = char>>(chars: I) -> bool {
    chars.into_iter().all(is_js_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_space_set_differs_from_rust_where_js_does() {
        assert!(is_js_space('\u{FEFF}'));
        assert!(!'\u{FEFF}'.is_whitespace());
        assert!(!is_js_space('\u{0085}'));
        assert!('\u{0085}'.is_whitespace());
        assert!(is_js_space('\u{3000}'));
        assert!(!is_js_space('a'));
    }

    #[test]
    fn blank_detection() {
        assert!(is_blank("".chars()));
        assert!(is_blank(" \n\t\u{00A0}".chars()));
        assert!(!is_blank(" x ".chars()));
    }
}
