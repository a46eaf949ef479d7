//! Prompt caching: which `cache_control` marker a request carries (pi's `getCacheControl`).

use clawloop_core::model::CacheRetention;
use serde_json::{Value, json};

/// The `cache_control` object for `retention` (default short), or `None` when caching is
/// off. The one-hour TTL is only asked of Anthropic itself: compatible endpoints reject or
/// ignore the field.
pub fn cache_control(base_url: &str, retention: Option<CacheRetention>) -> Option<Value> {
    match retention.unwrap_or_default() {
        CacheRetention::Disabled => None,
        CacheRetention::Long if base_url.contains("api.anthropic.com") => {
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        }
        CacheRetention::Short | CacheRetention::Long => Some(json!({"type": "ephemeral"})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retention_levels() {
        let anthropic = "https://api.anthropic.com";
        assert_eq!(
            cache_control(anthropic, None),
            Some(json!({"type": "ephemeral"}))
        );
        assert_eq!(
            cache_control(anthropic, Some(CacheRetention::Disabled)),
            None
        );
        assert_eq!(
            cache_control(anthropic, Some(CacheRetention::Long)),
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        );
        assert_eq!(
            cache_control(
                "https://api.minimax.io/anthropic",
                Some(CacheRetention::Long)
            ),
            Some(json!({"type": "ephemeral"}))
        );
    }
}
