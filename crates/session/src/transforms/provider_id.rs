//! Provider id normalization (OpenClaw `agents/provider-id.ts` `normalizeProviderId`).
//!
//! The history limit looks channel configs up by provider, and OpenClaw compares both sides
//! through this function, so `Telegram` and `telegram` find the same config and legacy
//! spellings (`z.ai`, `bedrock`) find the canonical one.
//!
//! This belongs in `clawloop-core` (auth profiles and model selection need it too); it lives
//! here until core grows it.

use clawloop_core::js_text::js_trim;

/// Legacy or alternative spellings and the canonical provider id they mean.
const ALIASES: [(&str, &str); 14] = [
    ("modelstudio", "qwen"),
    ("qwencloud", "qwen"),
    ("z.ai", "zai"),
    ("z-ai", "zai"),
    ("opencode-zen", "opencode"),
    ("opencode-go-auth", "opencode-go"),
    ("kimi-code", "kimi"),
    ("kimi-coding", "kimi"),
    ("moonshotai", "moonshot"),
    ("moonshot-ai", "moonshot"),
    ("bedrock", "amazon-bedrock"),
    ("aws-bedrock", "amazon-bedrock"),
    ("bytedance", "volcengine"),
    ("doubao", "volcengine"),
];

/// The canonical provider id: trimmed (JS `trim`), lowercased, aliases resolved
/// (`"Z.AI "` → `zai`, `doubao` → `volcengine`); any other id is returned lowercased.
pub fn normalize_provider_id(provider: &str) -> String {
    let normalized = js_trim(provider).to_lowercase();
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == normalized)
        .map_or(normalized, |(_, canonical)| (*canonical).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn vectors() {
        let cases = [
            ("telegram", "telegram"),
            ("  Telegram ", "telegram"),
            ("Z.AI", "zai"),
            ("z-ai", "zai"),
            ("bedrock", "amazon-bedrock"),
            ("AWS-Bedrock", "amazon-bedrock"),
            ("doubao", "volcengine"),
            ("kimi-code", "kimi"),
            ("opencode-zen", "opencode"),
            ("", ""),
            ("\u{FEFF}slack", "slack"),
        ];
        let actual: Vec<(&str, String)> = cases
            .iter()
            .map(|(input, _)| (*input, normalize_provider_id(input)))
            .collect();
        let expected: Vec<(&str, String)> = cases
            .iter()
            .map(|(input, out)| (*input, (*out).to_owned()))
            .collect();
        assert_eq!(actual, expected);
    }
}
