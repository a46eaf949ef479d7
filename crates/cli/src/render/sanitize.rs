//! Text from a model, a tool, a file or a server, made safe to show on a terminal: every
//! control character except `\n` and `\t` is shown as visible characters, so only clawloop's
//! own styling is ever an escape sequence (OSC 52 would write the clipboard, OSC 0 the title,
//! `ESC[2J` would clear the screen).
//!
//! C0 controls and DEL are shown in caret notation (`^[`, `^G`, `^?`), as `cat -v`, `less`,
//! vim and the shell's own echo of control keys show them: the form developers already read.
//! C1 controls (U+0080–U+009F, which some terminals take as 8-bit `ESC` sequences) have no
//! caret form and are shown as `<U+009B>`, as `less` shows them. A `\r` directly before `\n`
//! (a CRLF line end) cannot hide anything and is kept.

use std::borrow::Cow;

/// `text` with every control character other than `\n`, `\t` and a CRLF's `\r` shown visibly.
pub fn neutralize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_shown_visibly) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            shown.push(c);
        } else if is_shown_visibly(c) {
            push_visible(&mut shown, c);
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// Whether `c` is a control character [`neutralize`] replaces (a CRLF's `\r` aside).
fn is_shown_visibly(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

fn push_visible(shown: &mut String, c: char) {
    let code = u32::from(c);
    match code {
        // `^@` … `^_`: the control key that types it, as caret notation writes it.
        0x00..=0x1f => {
            shown.push('^');
            shown.push(char::from(b'@' + code as u8));
        }
        0x7f => shown.push_str("^?"),
        _ => shown.push_str(&format!("<U+{code:04X}>")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn control_characters_are_shown_and_text_is_kept() {
        let table: [(&str, &str); 12] = [
            ("plain text, ünïcødé ✓", "plain text, ünïcødé ✓"),
            ("lines\nand\ttabs", "lines\nand\ttabs"),
            ("crlf\r\nline", "crlf\r\nline"),
            ("bare\rreturn", "bare^Mreturn"),
            ("\u{1b}]52;c;aGk=\u{7}", "^[]52;c;aGk=^G"),
            ("\u{1b}]0;pwned\u{1b}\\", "^[]0;pwned^[\\"),
            ("\u{1b}[2J\u{1b}[H", "^[[2J^[[H"),
            ("nul\u{0}del\u{7f}", "nul^@del^?"),
            ("back\u{8}space", "back^Hspace"),
            ("\u{9b}2J csi", "<U+009B>2J csi"),
            ("\u{9d}52;c;x\u{9c}", "<U+009D>52;c;x<U+009C>"),
            ("ends with \r", "ends with ^M"),
        ];
        for (text, shown) in table {
            assert_eq!(neutralize(text), shown, "{text:?}");
        }
    }

    #[test]
    fn clean_text_is_not_copied() {
        assert!(matches!(neutralize("fine\n"), Cow::Borrowed(_)));
    }
}
