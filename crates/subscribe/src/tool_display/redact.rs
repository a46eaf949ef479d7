//! Secret masking for tool details (OpenClaw `redactToolDetail` with its default patterns and
//! the default `tools` redaction mode): API keys, tokens, passwords, bearer credentials and
//! private-key blocks in a call's description are masked before anyone sees it.

use std::sync::OnceLock;

use regex::{Captures, Regex};

use super::{utf16_len, utf16_prefix, utf16_suffix};

/// Tokens shorter than this (in UTF-16 units) are replaced by `***` entirely.
const MIN_MASKED_LEN: usize = 18;
/// Leading UTF-16 units kept of a long token.
const KEEP_START: usize = 6;
/// Trailing UTF-16 units kept of a long token.
const KEEP_END: usize = 4;

/// One of OpenClaw's `DEFAULT_REDACT_PATTERNS`, compiled on first need.
///
/// Compiling all of them costs milliseconds of CPU, paid at the first tool call of a process,
/// between a model's response and the next request. Each pattern names ASCII literals of which
/// every match contains at least one (compared ASCII-case-insensitively, as the pattern
/// matches them), so a pattern whose literals are absent cannot match and is neither compiled
/// nor run.
struct Pattern {
    /// ASCII-lowercase literals; a match contains at least one of them.
    needs: &'static [&'static str],
    source: &'static str,
    regex: OnceLock<Option<Regex>>,
}

impl Pattern {
    const fn new(needs: &'static [&'static str], source: &'static str) -> Self {
        Pattern {
            needs,
            source,
            regex: OnceLock::new(),
        }
    }

    /// The compiled pattern when `lowercase` (the text, ASCII-lowercased) may hold a match.
    fn for_text(&self, lowercase: &str) -> Option<&Regex> {
        if !self.needs.iter().any(|needle| lowercase.contains(needle)) {
            return None;
        }
        self.regex
            .get_or_init(|| Regex::new(self.source).ok())
            .as_ref()
    }
}

/// OpenClaw's `DEFAULT_REDACT_PATTERNS`, compiled case-insensitively as OpenClaw does.
///
/// Rewritten for the `regex` crate: `\b` is the ASCII word boundary of a JS regex without the
/// `u` flag, ASCII classes fold case only within ASCII, `\d` is `[0-9]`, and the back-reference
/// that closes an optional quote (`(["']?)value\1`) is spelled out as three alternatives (the
/// value cannot contain quotes, so both forms match the same text). The masked token is the
/// last non-empty capture group, or the whole match when there is none.
static PATTERNS: [Pattern; 17] = [
    Pattern::new(
        &["key", "token", "secret", "passw"],
        r#"(?-u:\b)(?i-u:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD))(?-u:\b)\s*[=:]\s*(?:"([^\s"'\\]+)"|'([^\s"'\\]+)'|([^\s"'\\]+))"#,
    ),
    Pattern::new(
        &["apikey", "token", "secret", "passw"],
        r#"(?i-u:"(?:apiKey|token|secret|password|passwd|accessToken|refreshToken)")\s*:\s*"([^"]+)""#,
    ),
    Pattern::new(
        &["--"],
        r#"(?i-u:--(?:api[-_]?key|hook[-_]?token|token|secret|password|passwd))\s+(?:"([^\s"']+)"|'([^\s"']+)'|([^\s"']+))"#,
    ),
    Pattern::new(
        &["authorization"],
        r"(?i-u:Authorization)\s*[:=]\s*(?i-u:Bearer)\s+((?i-u:[A-Z0-9._+=-])+)",
    ),
    Pattern::new(
        &["bearer"],
        r"(?-u:\b)(?i-u:Bearer)\s+((?i-u:[A-Z0-9._+=-]){18,})(?-u:\b)",
    ),
    Pattern::new(
        &["private key-----"],
        r"(?i-u:-----BEGIN [A-Z ]*PRIVATE KEY-----)(?s:.+?)(?i-u:-----END [A-Z ]*PRIVATE KEY-----)",
    ),
    Pattern::new(&["sk-"], r"(?-u:\b)((?i-u:sk-[A-Z0-9_-]{8,}))(?-u:\b)"),
    Pattern::new(&["ghp_"], r"(?-u:\b)((?i-u:ghp_[A-Z0-9]{20,}))(?-u:\b)"),
    Pattern::new(
        &["github_pat_"],
        r"(?-u:\b)((?i-u:github_pat_[A-Z0-9_]{20,}))(?-u:\b)",
    ),
    Pattern::new(
        &["xox"],
        r"(?-u:\b)((?i-u:xox[baprs]-[A-Z0-9-]{10,}))(?-u:\b)",
    ),
    Pattern::new(&["xapp-"], r"(?-u:\b)((?i-u:xapp-[A-Z0-9-]{10,}))(?-u:\b)"),
    Pattern::new(&["gsk_"], r"(?-u:\b)((?i-u:gsk_[A-Z0-9_-]{10,}))(?-u:\b)"),
    Pattern::new(&["aiza"], r"(?-u:\b)((?i-u:AIza[0-9A-Z_-]{20,}))(?-u:\b)"),
    Pattern::new(&["pplx-"], r"(?-u:\b)((?i-u:pplx-[A-Z0-9_-]{10,}))(?-u:\b)"),
    Pattern::new(&["npm_"], r"(?-u:\b)((?i-u:npm_[A-Z0-9]{10,}))(?-u:\b)"),
    Pattern::new(
        &[":"],
        r"(?-u:\b)(?i-u:bot)((?i-u:[0-9]{6,}:[A-Z0-9_-]{20,}))(?-u:\b)",
    ),
    Pattern::new(
        &[":"],
        r"(?-u:\b)((?i-u:[0-9]{6,}:[A-Z0-9_-]{20,}))(?-u:\b)",
    ),
];

/// Masks secrets in a tool detail, pattern after pattern.
///
/// OpenClaw processes texts longer than 32,768 UTF-16 units in 16,384-unit slices; details are
/// far shorter (their parts are capped), so the whole text is processed at once here.
pub(super) fn redact_tool_detail(detail: &str) -> String {
    let mut text = detail.to_owned();
    let mut lowercase = text.to_ascii_lowercase();
    for pattern in &PATTERNS {
        let Some(regex) = pattern.for_text(&lowercase) else {
            continue;
        };
        if regex.is_match(&text) {
            text = regex.replace_all(&text, redact_match).into_owned();
            lowercase = text.to_ascii_lowercase();
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
        assert!(PATTERNS.iter().all(|p| Regex::new(p.source).is_ok()));
    }

    /// Skipping a pattern whose literals are absent changes nothing: every pattern run on
    /// every input (no skipping) gives the same text.
    #[test]
    fn skipping_patterns_without_their_literals_changes_nothing() {
        let inputs = [
            "read notes.txt",
            "ls -la /tmp",
            "export OPENAI_API_KEY=sk-abcdefghijklmnopqrstuv && TOKEN=TOKEN",
            "curl --Password 'abc123' -H 'AUTHORIZATION: bearer abcdefghijklmnopqrstuvwxyz0123'",
            "{\"accessToken\": \"abcdef\", \"RefreshToken\": \"x\"}",
            "-----begin ec private key-----\nAAAA\n-----END EC PRIVATE KEY-----",
            "GHP_abcdefghijklmnopqrstuvwxyz xoxb-1234567890ab XAPP-1234567890ab",
            "GSK_abcdefghijk aizaABCDEFGHIJKLMNOPQRSTUV PPLX-abcdefghijk NPM_abcdefghijk",
            "Bot123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ and 123456:abcdefghijklmnopqrstuv",
            "github_pat_ABCDEFGHIJKLMNOPQRSTUVWXYZ éSecret: ünïcode",
            "MY_PASSWD=hunter2 --hook-token t0k3n --api_key=k",
        ];
        for input in inputs {
            let mut everything = input.to_owned();
            for pattern in &PATTERNS {
                let regex = Regex::new(pattern.source).unwrap();
                if regex.is_match(&everything) {
                    everything = regex.replace_all(&everything, redact_match).into_owned();
                }
            }
            assert_eq!(redact_tool_detail(input), everything, "{input}");
        }
    }

    #[test]
    fn a_detail_without_any_literal_compiles_no_pattern() {
        let pattern = Pattern::new(&["sk-"], r"sk-[a-z]+");
        assert!(pattern.for_text("read notes.txt").is_none());
        assert!(pattern.regex.get().is_none());
        assert!(pattern.for_text("key sk-abc").is_some());
    }
}
