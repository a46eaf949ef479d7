//! Provider ids as the auth code compares them.

use clawloop_session::transforms::normalize_provider_id;
use indexmap::IndexMap;

/// The canonical form two provider ids are compared in (`"Z.AI"` and `zai` are one provider).
pub fn provider_key(provider: &str) -> String {
    normalize_provider_id(provider)
}

/// Providers whose profiles never cool down: OpenRouter and Kilocode route each request to
/// many upstream accounts, so one failure says nothing about the next request.
pub fn is_cooldown_bypassed(provider: &str) -> bool {
    matches!(provider_key(provider).as_str(), "openrouter" | "kilocode")
}

/// The value whose key is the same provider as `provider_key` (already normalized), taking
/// the first such key in map order (OpenClaw `findNormalizedProviderValue`).
pub fn find_for_provider<'a, T>(map: &'a IndexMap<String, T>, key: &str) -> Option<&'a T> {
    map.iter()
        .find(|(k, _)| provider_key(k) == key)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_case_compare_equal() {
        assert_eq!(provider_key(" Z.AI "), "zai");
        assert!(is_cooldown_bypassed("OpenRouter"));
        assert!(is_cooldown_bypassed("kilocode"));
        assert!(!is_cooldown_bypassed("openai"));
        let map: IndexMap<String, u8> = [("OpenAI".to_owned(), 1), ("openai".to_owned(), 2)]
            .into_iter()
            .collect();
        assert_eq!(find_for_provider(&map, "openai"), Some(&1));
        assert_eq!(find_for_provider(&map, "xai"), None);
    }
}
