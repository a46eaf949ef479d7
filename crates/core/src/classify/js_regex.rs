//! JavaScript-compatible regexes and string helpers.
//!
//! The reference patterns are JavaScript regexes. [`compile`] translates a JavaScript source
//! into the `regex` crate's syntax with JavaScript's (non-Unicode-mode) meaning of the classes:
//! `\d`, `\w` and `\b` are ASCII, `\s` is JavaScript's whitespace set, and `.` stops at every
//! JavaScript line terminator (`\n`, `\r`, U+2028, U+2029) unless the `s` flag is given. Every
//! pattern is written in its original JavaScript spelling next to the code that uses it.
//!
//! The `i` flag folds ASCII letters only (each letter becomes a two-case class), as
//! JavaScript's non-Unicode `i` does for these all-ASCII patterns: `s` does not match LATIN
//! SMALL LETTER LONG S and `k` does not match KELVIN SIGN, which the `regex` crate's `(?i)`
//! would allow.

use regex::Regex;

/// JavaScript's `WhiteSpace` and `LineTerminator` code points, as the body of a class.
const JS_WS_CLASS_BODY: &str = r"\t\n\x0B\x0C\r\x20\u{A0}\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}";

/// Declares lazily compiled JavaScript regexes, plus a test-only function that compiles all of
/// them (`force_all_regexes`), which the module tests call: that is what proves the `expect` in
/// [`compile`] never fires.
macro_rules! js_regexes {
    ($( $(#[$meta:meta])* $vis:vis $name:ident = ($src:expr, $flags:expr); )*) => {
        $(
            $(#[$meta])*
            $vis static $name: std::sync::LazyLock<regex::Regex> =
                std::sync::LazyLock::new(|| $crate::classify::js_regex::compile($src, $flags));
        )*
        /// Compiles every regex of this module (test support).
        #[cfg(test)]
        pub(crate) fn force_all_regexes() -> usize {
            let all: &[&regex::Regex] = &[$( &*$name ),*];
            all.len()
        }
    };
}
pub(crate) use js_regexes;

/// Compiles a JavaScript regex source with the given JavaScript flags (`i`, `s`; `g` is
/// ignored).
///
/// Proof that this never panics: every call site is a `js_regexes!` static with a constant
/// source, and each module's tests call `force_all_regexes`, which compiles them all.
#[allow(clippy::expect_used)]
pub(crate) fn compile(source: &str, flags: &str) -> Regex {
    let translated = translate(source, flags);
    Regex::new(&translated).expect("constant JavaScript regex compiles (proven by unit tests)")
}

/// Translates a JavaScript regex source into the `regex` crate's syntax (see the module doc).
pub(crate) fn translate(source: &str, flags: &str) -> String {
    let dot_all = flags.contains('s');
    let fold = flags.contains('i');
    let mut out = String::with_capacity(source.len() * 3);
    let mut in_class = false;
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if fold && c.is_ascii_alphabetic() && !in_class => {
                out.push('[');
                out.push(c.to_ascii_lowercase());
                out.push(c.to_ascii_uppercase());
                out.push(']');
            }
            c if fold && c.is_ascii_alphabetic() => {
                // Inside a class: a single letter or a letter range, plus its other case.
                let mut probe = chars.clone();
                let range_end = match (probe.next(), probe.next()) {
                    (Some('-'), Some(end)) if end.is_ascii_alphabetic() => Some(end),
                    _ => None,
                };
                match range_end {
                    Some(end) => {
                        chars.next();
                        chars.next();
                        out.push_str(&format!("{c}-{end}"));
                        out.push_str(&format!("{}-{}", swap_ascii_case(c), swap_ascii_case(end)));
                    }
                    None => {
                        out.push(c);
                        out.push(swap_ascii_case(c));
                    }
                }
            }
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push_str(r"\\");
                    break;
                };
                out.push_str(&translate_escape(e, in_class));
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    out.push('^');
                }
                // A leading `]` is an empty class in JavaScript; none of our patterns use it.
            }
            '[' => out.push_str(r"\["),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '.' if !in_class => {
                if dot_all {
                    out.push_str("(?s:.)");
                } else {
                    out.push_str(r"[^\n\r\u{2028}\u{2029}]");
                }
            }
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn swap_ascii_case(c: char) -> char {
    if c.is_ascii_lowercase() {
        c.to_ascii_uppercase()
    } else {
        c.to_ascii_lowercase()
    }
}

fn translate_escape(e: char, in_class: bool) -> String {
    let ws = JS_WS_CLASS_BODY;
    match (e, in_class) {
        ('d', false) => "[0-9]".to_owned(),
        ('d', true) => "0-9".to_owned(),
        ('D', _) => "[^0-9]".to_owned(),
        ('w', false) => "[0-9A-Za-z_]".to_owned(),
        ('w', true) => "0-9A-Za-z_".to_owned(),
        ('W', _) => "[^0-9A-Za-z_]".to_owned(),
        ('s', false) => format!("[{ws}]"),
        ('s', true) => ws.to_owned(),
        ('S', _) => format!("[^{ws}]"),
        ('b', false) => r"(?-u:\b)".to_owned(),
        ('b', true) => r"\x08".to_owned(),
        ('B', false) => r"(?-u:\B)".to_owned(),
        ('/', _) => "/".to_owned(),
        (other, _) => format!("\\{other}"),
    }
}

pub(crate) use crate::js_text::{is_js_whitespace, js_trim};

/// OpenClaw's `normalizeLowercaseStringOrEmpty`: trimmed, then lowercased.
pub(crate) fn lower_trim(s: &str) -> String {
    js_trim(s).to_lowercase()
}

/// Length in UTF-16 code units (JavaScript's `String.length`).
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// The longest prefix of `s` of at most `max` UTF-16 code units that does not split a
/// character (JavaScript's `s.slice(0, max)`, minus a dangling half surrogate pair).
pub(crate) fn utf16_prefix(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (idx, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..idx];
        }
    }
    s
}

/// True if `text` contains any of `needles`.
pub(crate) fn contains_any(text: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| text.contains(n))
}

/// JavaScript's `Number(digits)` followed by `Math.floor` for a string of ASCII digits:
/// saturates instead of losing the value when it exceeds `u64`.
pub(crate) fn parse_js_uint(digits: &str) -> Option<u64> {
    let value: f64 = digits.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    // Saturating float-to-int conversion is the intent (JavaScript keeps a float).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(value.floor() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn translation_follows_javascript_classes() {
        assert_eq!(translate(r"\b429\b", ""), r"(?-u:\b)429(?-u:\b)");
        assert_eq!(translate(r"a.b", ""), r"a[^\n\r\u{2028}\u{2029}]b");
        assert_eq!(translate(r"a.b", "s"), r"a(?s:.)b");
        assert_eq!(translate(r"[\d,]+", "i"), r"[0-9,]+");
        assert_eq!(translate(r"ab", "i"), r"[aA][bB]");
        assert_eq!(translate(r"[a-z0-9_x]", "i"), r"[a-zA-Z0-9_xX]");
        assert_eq!(translate(r"\bx\d", "i"), r"(?-u:\b)[xX][0-9]");
        assert_eq!(translate(r"[^\n.]+", ""), r"[^\n.]+");
        assert_eq!(translate(r"models\/x", ""), r"models/x");
    }

    #[test]
    fn javascript_semantics_hold() {
        // ASCII word boundary: a non-ASCII letter is not a word character in JavaScript.
        assert!(compile(r"\b429\b", "").is_match("é429"));
        // `\d` is ASCII only.
        assert!(!compile(r"^\d{3}$", "").is_match("٤٢٩"));
        // `.` stops at `\r`.
        assert!(!compile(r"a.b", "").is_match("a\rb"));
        assert!(compile(r"a.b", "s").is_match("a\rb"));
        // `\s` matches U+FEFF but not U+0085.
        assert!(compile(r"a\sb", "").is_match("a\u{FEFF}b"));
        assert!(!compile(r"a\sb", "").is_match("a\u{85}b"));
        // ASCII-only case folding.
        assert!(compile(r"requests", "i").is_match("REQUESTS"));
        assert!(!compile(r"requests", "i").is_match("reque\u{17F}ts"));
        assert!(!compile(r"key", "i").is_match("\u{212A}ey"));
        assert!(compile(r"^[a-z]+$", "i").is_match("AbC"));
        // `[` inside a class is literal.
        assert!(compile(r"x[[]", "").is_match("x["));
    }

    #[test]
    fn string_helpers() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
        assert_eq!(lower_trim("  ABC "), "abc");
        assert_eq!(utf16_len("a😀"), 3);
        assert_eq!(utf16_prefix("ab😀c", 3), "ab");
        assert_eq!(utf16_prefix("ab😀c", 4), "ab😀");
        assert_eq!(utf16_prefix("abc", 10), "abc");
        assert_eq!(parse_js_uint("277403"), Some(277_403));
        assert_eq!(parse_js_uint("99999999999999999999999"), Some(u64::MAX));
        assert_eq!(parse_js_uint(""), None);
    }
}
