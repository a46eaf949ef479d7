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
//!
//! The bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the
//! invisible direction marks (U+200E, U+200F, U+061C) make a terminal show text in another
//! order than it is ("Trojan Source"): a command that reads as harmless runs something else.
//! They are shown in the same `<U+202E>` form.

use std::borrow::Cow;
use std::io::IsTerminal as _;
use std::sync::OnceLock;

/// `text` for stdout: neutralized when stdout is a terminal, unchanged when it is a file or a
/// pipe (scripts get the bytes). For every line a command prints that quotes a file, a server,
/// a config value or an argument.
pub fn for_stdout(text: &str) -> Cow<'_, str> {
    shown_if(stdout_is_terminal(), text)
}

/// `bytes` of text for stdout, as [`for_stdout`] shows text: on a terminal read as UTF-8
/// (what is not is shown as U+FFFD) and neutralized, elsewhere unchanged.
pub fn bytes_for_stdout(bytes: &[u8]) -> Cow<'_, [u8]> {
    if stdout_is_terminal() {
        let text = String::from_utf8_lossy(bytes);
        Cow::Owned(neutralize(&text).into_owned().into_bytes())
    } else {
        Cow::Borrowed(bytes)
    }
}

/// `text` for stderr, as [`for_stdout`] is for stdout.
pub fn for_stderr(text: &str) -> Cow<'_, str> {
    static TTY: OnceLock<bool> = OnceLock::new();
    shown_if(*TTY.get_or_init(|| std::io::stderr().is_terminal()), text)
}

/// Whether stdout is a terminal, looked up once.
fn stdout_is_terminal() -> bool {
    static TTY: OnceLock<bool> = OnceLock::new();
    *TTY.get_or_init(|| std::io::stdout().is_terminal())
}

fn shown_if(terminal: bool, text: &str) -> Cow<'_, str> {
    if terminal {
        neutralize(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` with every control character other than `\n`, `\t` and a CRLF's `\r`, and every
/// bidirectional formatting character, shown visibly.
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

/// Whether `c` is a character [`neutralize`] replaces (a CRLF's `\r` aside).
fn is_shown_visibly(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_format(c)
}

/// The characters that reorder or mark the direction of text without showing themselves.
fn is_bidi_format(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
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
        let table: [(&str, &str); 17] = [
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
            ("a\u{202E}txt.exe", "a<U+202E>txt.exe"),
            (
                "\u{202A}\u{202B}\u{202C}\u{202D}",
                "<U+202A><U+202B><U+202C><U+202D>",
            ),
            (
                "if x\u{2066}\u{2067}\u{2068}\u{2069}",
                "if x<U+2066><U+2067><U+2068><U+2069>",
            ),
            (
                "mark\u{200E}\u{200F}\u{061C}",
                "mark<U+200E><U+200F><U+061C>",
            ),
            // Neighbours of the ranges are ordinary text (a zero-width joiner, Arabic letters).
            (
                "\u{200D}\u{2029}\u{206A}\u{061B}",
                "\u{200D}\u{2029}\u{206A}\u{061B}",
            ),
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
