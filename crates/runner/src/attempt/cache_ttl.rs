//! The prompt-cache TTL marker (OpenClaw `cache-ttl.ts`, reference §11): a `custom` entry
//! `openclaw.cache-ttl` `{timestamp, provider, modelId}` appended after an attempt when context
//! pruning runs in `cache-ttl` mode, so a later run knows when the provider's cache was last warm.

use clawloop_core::model::{Api, Model};
use serde_json::{Value, json};

/// The custom entry's type (OpenClaw's name, kept so the files interoperate).
pub const CACHE_TTL_CUSTOM_TYPE: &str = "openclaw.cache-ttl";

/// Whether the model's provider caches prompts in a way the marker tracks: the Anthropic
/// family (and Anthropic models behind `kilocode`), and Gemini models with implicit caching.
pub fn is_cache_ttl_eligible(model: &Model) -> bool {
    let provider = model.provider.to_ascii_lowercase();
    let id = model.id.to_ascii_lowercase();
    match &model.api {
        Api::AnthropicMessages => true,
        Api::GoogleGenerativeAi => id.contains("gemini-2.5") || id.contains("gemini-3"),
        Api::OpenaiCompletions | Api::OpenaiResponses | Api::Ollama | Api::Other(_) => {
            provider == "anthropic" || (provider == "kilocode" && id.contains("anthropic/"))
        }
    }
}

/// The entry's data.
pub fn cache_ttl_data(model: &Model, now_ms: u64) -> Value {
    json!({"timestamp": now_ms, "provider": model.provider, "modelId": model.id})
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn model(api: &str, provider: &str, id: &str) -> Model {
        serde_json::from_value(
            json!({"id": id, "api": api, "provider": provider, "contextWindow": 1, "maxTokens": 1}),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn eligibility_by_family() {
        let rows = [
            ("anthropic-messages", "anthropic", "claude-sonnet-4-5", true),
            ("anthropic-messages", "proxy", "claude-haiku-4-5", true),
            (
                "openai-completions",
                "kilocode",
                "anthropic/claude-sonnet-4",
                true,
            ),
            ("openai-completions", "kilocode", "openai/gpt-5", false),
            ("google-generative-ai", "google", "gemini-2.5-pro", true),
            ("google-generative-ai", "google", "gemini-1.5-flash", false),
            ("openai-responses", "openai", "gpt-5", false),
            ("ollama", "ollama", "llama3", false),
        ];
        for (api, provider, id, expected) in rows {
            assert_eq!(
                is_cache_ttl_eligible(&model(api, provider, id)),
                expected,
                "{provider}/{id}"
            );
        }
    }

    #[test]
    fn data_names_provider_and_model() {
        assert_eq!(
            cache_ttl_data(&model("anthropic-messages", "anthropic", "claude"), 7),
            json!({"timestamp": 7, "provider": "anthropic", "modelId": "claude"})
        );
    }
}
