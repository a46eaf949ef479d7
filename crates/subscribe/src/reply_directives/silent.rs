//! The silent token (`NO_REPLY`): whole-text, JSON-payload and streamed-prefix checks, and the
//! token glued to the start of a text.

use std::sync::LazyLock;

use clawloop_core::js_text::{js_trim, js_trim_start};
use regex::Regex;
use serde_json::Value;

/// The reply a model gives when it has nothing to say (OpenClaw `SILENT_REPLY_TOKEN`).
pub const SILENT_REPLY_TOKEN: &str = "NO_REPLY";

/// `[\p{L}\p{N}]` at the start of a text.
static LETTER_OR_NUMBER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[\p{L}\p{N}]").ok());

/// `/^\s*TOKEN\s*$/i` (OpenClaw `isSilentReplyText`).
pub(super) fn is_silent_reply_text(text: &str, token: &str) -> bool {
    !text.is_empty() && eq_ignore_case(js_trim(text), token)
}

/// [`is_silent_reply_text`], or a JSON object whose only key is `action` with the token as
/// its value (OpenClaw `isSilentReplyPayloadText`).
pub(super) fn is_silent_reply_payload_text(text: &str, token: &str) -> bool {
    if is_silent_reply_text(text, token) {
        return true;
    }
    let trimmed = js_trim(text);
    if trimmed.is_empty()
        || !trimmed.starts_with('{')
        || !trimmed.ends_with('}')
        || !trimmed.contains(token)
    {
        return false;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => {
            map.len() == 1 && map.get("action").and_then(Value::as_str).map(js_trim) == Some(token)
        }
        _ => false,
    }
}

/// OpenClaw `isSilentReplyPrefixText`: an upper-case start of the token, streamed (`NO_`,
/// `NO_RE`, or `NO` for `NO_REPLY`).
pub(super) fn is_silent_reply_prefix_text(text: &str, token: &str) -> bool {
    let trimmed = js_trim_start(text);
    if trimmed.len() < 2 || !trimmed.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
        return false;
    }
    let token_upper = token.to_uppercase();
    if !token_upper.starts_with(trimmed) {
        return false;
    }
    trimmed.contains('_') || (token_upper == SILENT_REPLY_TOKEN && trimmed == "NO")
}

/// `/^\s*(?:TOKEN\s+)*TOKEN(?=[\p{L}\p{N}])/iu` (OpenClaw `startsWithSilentToken`): the token
/// glued to the text after it.
pub(super) fn starts_with_silent_token(text: &str, token: &str) -> bool {
    if text.is_empty() || token.is_empty() {
        return false;
    }
    let mut rest = js_trim_start(text);
    loop {
        let Some(after) = strip_prefix_ignore_case(rest, token) else {
            return false;
        };
        if LETTER_OR_NUMBER
            .as_ref()
            .is_some_and(|regex| regex.is_match(after))
        {
            return true;
        }
        let spaced = js_trim_start(after);
        if spaced.len() == after.len() {
            return false;
        }
        rest = spaced;
    }
}

/// `text.replace(/^(?:\s*TOKEN)+\s*/i, "").trim()` (OpenClaw `stripLeadingSilentToken`).
pub(super) fn strip_leading_silent_token<'t>(text: &'t str, token: &str) -> &'t str {
    if token.is_empty() {
        return js_trim(text);
    }
    let mut rest = text;
    while let Some(after) = strip_prefix_ignore_case(js_trim_start(rest), token) {
        rest = after;
    }
    js_trim(rest)
}

/// JavaScript's case-insensitive comparison without the `u` flag: each char compared in
/// upper case, except that a non-ASCII char never equals an ASCII one.
fn eq_ignore_case(a: &str, b: &str) -> bool {
    let mut a = a.chars();
    let mut b = b.chars();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if canonicalize(x) == canonicalize(y) => {}
            _ => return false,
        }
    }
}

/// `text` without a case-insensitive `prefix`, if it starts with one.
fn strip_prefix_ignore_case<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let mut rest = text.chars();
    for p in prefix.chars() {
        let c = rest.next()?;
        if canonicalize(c) != canonicalize(p) {
            return None;
        }
    }
    Some(rest.as_str())
}

/// ECMA-262 `Canonicalize` for non-Unicode case-insensitive regexes.
fn canonicalize(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) if u.len_utf16() == 1 && !(c as u32 >= 128 && (u as u32) < 128) => u,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regexes_compile() {
        assert!(LETTER_OR_NUMBER.is_some());
    }
}
