//! Secret masking for tool details (OpenClaw `redactToolDetail` with its default patterns and
//! the default `tools` redaction mode): API keys, tokens, passwords, bearer credentials and
//! private-key blocks in a call's description are masked before anyone sees it.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::{utf16_len, utf16_prefix, utf16_suffix};

/// Tokens shorter than this (in UTF-16 units) are replaced by `***` entirely.
const MIN_MASKED_LEN: usize = 18;
/// Leading UTF-16 units kept of a long token.
const KEEP_START: usize = 6;
/// Trailing UTF-16 units kept of a long token.
const KEEP_END: usize = 4;

/// OpenClaw's `DEFAULT_REDACT_PATTERNS`, compiled case-insensitively as OpenClaw does.
///
/// Rewritten for the `regex` crate: `\b` is the ASCII word boundary of a JS regex without the
/// `u` flag, ASCII classes fold case only within ASCII, `\d` is `[0-9]`, and the back-reference
/// that closes an optional quote (`(["']?)value\1`) is spelled out as three alternatives (the
/// value cannot contain quotes, so both forms match the same text). The masked token is the
/// last non-empty capture group, or the whole match when there is none.
static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r#"(?-u:\b)(?i-u:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD))(?-u:\b)\s*[=:]\s*(?:"([^\s"'\\]+)"|'([^\s"'\\]+)'|([^\s"'\\]+))"#,
        r#"(?i-u:"(?:apiKey|token|secret|password|passwd|accessToken|refreshToken)")\s*:\s*"([^"]+)""#,
        r#"(?i-u:--(?:api[-_]?key|hook[-_]?token|token|secret|password|passwd))\s+(?:"([^\s"']+)"|'([^\s"']+)'|([^\s"']+))"#,
        r"(?i-u:Authorization)\s*[:=]\s*(?i-u:Bearer)\s+((?i-u:[A-Z0-9._+=-])+)",
        r"(?-u:\b)(?i-u:Bearer)\s+((?i-u:[A-Z0-9._+=-]){18,})(?-u:\b)",
        r"(?i-u:-----BEGIN [A-Z ]*PRIVATE KEY-----)(?s:.+?)(?i-u:-----END [A-Z ]*PRIVATE KEY-----)",
        r"(?-u:\b)((?i-u:sk-[A-Z0-9_-]{8,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:ghp_[A-Z0-9]{20,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:github_pat_[A-Z0-9_]{20,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:xox[baprs]-[A-Z0-9-]{10,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:xapp-[A-Z0-9-]{10,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:gsk_[A-Z0-9_-]{10,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:AIza[0-9A-Z_-]{20,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:pplx-[A-Z0-9_-]{10,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:npm_[A-Z0-9]{10,}))(?-u:\b)",
        r"(?-u:\b)(?i-u:bot)((?i-u:[0-9]{6,}:[A-Z0-9_-]{20,}))(?-u:\b)",
        r"(?-u:\b)((?i-u:[0-9]{6,}:[A-Z0-9_-]{20,}))(?-u:\b)",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// Masks secrets in a tool detail, pattern after pattern.
///
/// OpenClaw processes texts longer than 32,768 UTF-16 units in 16,384-unit slices; details are
/// far shorter (their parts are capped), so the whole text is processed at once here.
pub(super) fn redact_tool_detail(detail: &str) -> String {
    let mut text = detail.to_owned();
    for pattern in PATTERNS.iter() {
        if pattern.is_match(&text) {
            text = pattern.replace_all(&text, redact_match).into_owned();
        }
    }
    text
}

fn redact_match(caps: &Captures<'_>) -> String {
    let whole = caps.get(0).map_or("", |m| m.as_str());
    if whole.contains("PRIVATE KEY-----") {
        return redact_pem_block(whole);
    }
    let token = caps
        .iter()
        .skip(1)
        .flatten()
        .map(|m| m.as_str())
        .filter(|s| !s.is_empty())
        .last()
        .unwrap_or(whole);
    let masked = mask_token(token);
    if token == whole {
        masked
    } else {
        // JS `match.replace(token, masked)`: the first occurrence, which may precede the value.
        whole.replacen(token, &masked, 1)
    }
}

fn mask_token(token: &str) -> String {
    if utf16_len(token) < MIN_MASKED_LEN {
        return "***".to_owned();
    }
    format!(
        "{}…{}",
        utf16_prefix(token, KEEP_START),
        utf16_suffix(token, KEEP_END)
    )
}

/// Keeps the `BEGIN` and `END` lines of a private key.
fn redact_pem_block(block: &str) -> String {
    let lines: Vec<&str> = block
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        [first, .., last] => format!("{first}\n…redacted…\n{last}"),
        _ => "***".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Expected values computed with OpenClaw 2026.4.12's `redactToolDetail`.
    #[test]
    fn masks_like_openclaw() {
        let cases = [
            (
                "export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuv && TOKEN=TOKEN",
                "export OPENAI_API_KEY=sk-abc…stuv && ***=TOKEN",
            ),
            ("curl --token 'abc123' x", "curl --token '***' x"),
            (
                "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123",
                "Authorization: Bearer abcdef…0123",
            ),
            ("{\"apiKey\": \"short\"}", "{\"apiKey\": \"***\"}"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nAAAA\nBBBB\n-----END RSA PRIVATE KEY-----",
                "-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----",
            ),
            ("bot123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ", "bot123456…WXYZ"),
            ("password=\"hunter2\"", "password=\"***\""),
            ("nothing secret here", "nothing secret here"),
            ("KEY=\"abc def", "KEY=\"abc def"),
            ("éKEY=abcdefghijklmnopqrstuvwxyz", "éKEY=abcdef…wxyz"),
            (
                "x-api-key: ghp_abcdefghijklmnopqrstuvwxyz",
                "x-api-key: ghp_ab…wxyz",
            ),
            ("sk-abcdefgh=", "***="),
            ("Bearer abcdefghijklmnopqrst==", "Bearer abcdef…qrst=="),
        ];
        let actual: Vec<String> = cases.iter().map(|(i, _)| redact_tool_detail(i)).collect();
        let expected: Vec<String> = cases.iter().map(|(_, e)| (*e).to_owned()).collect();
        assert_eq!(actual, expected);
        assert_eq!(PATTERNS.len(), 17);
    }
}
