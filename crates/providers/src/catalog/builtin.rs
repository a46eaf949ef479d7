//! The built-in model table: a curated set of current models for the providers with
//! environment keys in SPEC §2, plus local Ollama. Values follow pi's generated catalog
//! (`models.generated.ts`) where pi has the model; prices are USD per million tokens.
//!
//! The table is data, not policy: anything here can be overridden or extended through
//! `models.providers` in the config.

use clawloop_core::model::InputKind;
use clawloop_core::{Api, Model, ModelCost};
use serde_json::{Map, Value};

/// A provider the catalog knows without configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuiltinProvider {
    /// Provider id (`openai`, `anthropic`, …).
    pub id: &'static str,
    /// Wire API of its models (by name, see [`Api::parse`]).
    pub api: &'static str,
    /// Base URL of its API.
    pub base_url: &'static str,
    /// pi's OpenAI-compat flags for all its models (JSON), if the API needs any.
    pub compat: Option<&'static str>,
}

/// One built-in model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BuiltinModel {
    /// Provider id; the provider's API, base URL and compat flags apply.
    pub provider: &'static str,
    /// Model id as the provider knows it.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// Whether the model reasons.
    pub reasoning: bool,
    /// Whether it accepts images (text is always accepted).
    pub images: bool,
    /// Prices per million tokens.
    pub cost: ModelCost,
}

impl BuiltinProvider {
    /// The compat flags as JSON (`None` when there are none or, impossibly, they do not
    /// parse).
    pub fn compat_value(&self) -> Option<Value> {
        self.compat.and_then(|c| serde_json::from_str(c).ok())
    }
}

impl BuiltinModel {
    /// The full [`Model`], with the provider's API, base URL and compat flags.
    pub fn to_model(&self) -> Model {
        let provider = builtin_provider(self.provider);
        let mut input = vec![InputKind::Text];
        if self.images {
            input.push(InputKind::Image);
        }
        Model {
            id: self.id.to_owned(),
            name: self.name.to_owned(),
            api: Api::parse(provider.map_or("openai-completions", |p| p.api)),
            provider: self.provider.to_owned(),
            base_url: provider.map_or("", |p| p.base_url).to_owned(),
            reasoning: self.reasoning,
            input,
            cost: self.cost,
            context_window: self.context_window,
            max_tokens: self.max_tokens,
            headers: Default::default(),
            compat: provider.and_then(BuiltinProvider::compat_value),
            extra: Map::new(),
        }
    }
}

/// The built-in provider with id `id`.
pub fn builtin_provider(id: &str) -> Option<&'static BuiltinProvider> {
    BUILTIN_PROVIDERS.iter().find(|p| p.id == id)
}

/// Every built-in provider, sorted by id.
pub const BUILTIN_PROVIDERS: &[BuiltinProvider] = &[
    BuiltinProvider {
        id: "anthropic",
        api: "anthropic-messages",
        base_url: "https://api.anthropic.com",
        compat: None,
    },
    BuiltinProvider {
        id: "deepseek",
        api: "openai-completions",
        base_url: "https://api.deepseek.com",
        compat: None,
    },
    BuiltinProvider {
        id: "google",
        api: "google-generative-ai",
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        compat: None,
    },
    BuiltinProvider {
        id: "groq",
        api: "openai-completions",
        base_url: "https://api.groq.com/openai/v1",
        compat: None,
    },
    // Mistral's OpenAI-compatible endpoint wants what pi ≤ 0.55 auto-detected for it.
    BuiltinProvider {
        id: "mistral",
        api: "openai-completions",
        base_url: "https://api.mistral.ai/v1",
        compat: Some(
            r#"{"supportsStore":false,"supportsDeveloperRole":false,"maxTokensField":"max_tokens","requiresToolResultName":true,"requiresThinkingAsText":true}"#,
        ),
    },
    BuiltinProvider {
        id: "ollama",
        api: "ollama",
        base_url: "http://127.0.0.1:11434",
        compat: None,
    },
    BuiltinProvider {
        id: "openai",
        api: "openai-responses",
        base_url: "https://api.openai.com/v1",
        compat: None,
    },
    BuiltinProvider {
        id: "openrouter",
        api: "openai-completions",
        base_url: "https://openrouter.ai/api/v1",
        compat: None,
    },
    BuiltinProvider {
        id: "xai",
        api: "openai-completions",
        base_url: "https://api.x.ai/v1",
        compat: None,
    },
];

/// Builds a [`BuiltinModel`] row: provider, id, name, context window, max output,
/// reasoning, images, `[input, output, cache read, cache write]` per million tokens.
macro_rules! m {
    ($p:literal, $id:literal, $name:literal, $ctx:expr, $max:expr, $reasoning:expr, $images:expr,
     [$i:expr, $o:expr, $cr:expr, $cw:expr]) => {
        BuiltinModel {
            provider: $p,
            id: $id,
            name: $name,
            context_window: $ctx,
            max_tokens: $max,
            reasoning: $reasoning,
            images: $images,
            cost: ModelCost {
                input: $i,
                output: $o,
                cache_read: $cr,
                cache_write: $cw,
            },
        }
    };
}

const R: bool = true;
const NO_R: bool = false;
const IMG: bool = true;
const TEXT: bool = false;

/// Every built-in model, grouped by provider.
#[rustfmt::skip]
pub const BUILTIN_MODELS: &[BuiltinModel] = &[
    // --- anthropic ------------------------------------------------------------------------
    m!("anthropic", "claude-opus-4-6", "Claude Opus 4.6", 200_000, 128_000, R, IMG, [5.0, 25.0, 0.5, 6.25]),
    m!("anthropic", "claude-sonnet-4-6", "Claude Sonnet 4.6", 200_000, 64_000, R, IMG, [3.0, 15.0, 0.3, 3.75]),
    m!("anthropic", "claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, R, IMG, [5.0, 25.0, 0.5, 6.25]),
    m!("anthropic", "claude-opus-4-5-20251101", "Claude Opus 4.5", 200_000, 64_000, R, IMG, [5.0, 25.0, 0.5, 6.25]),
    m!("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, R, IMG, [3.0, 15.0, 0.3, 3.75]),
    m!("anthropic", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", 200_000, 64_000, R, IMG, [3.0, 15.0, 0.3, 3.75]),
    m!("anthropic", "claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, R, IMG, [1.0, 5.0, 0.1, 1.25]),
    m!("anthropic", "claude-haiku-4-5-20251001", "Claude Haiku 4.5", 200_000, 64_000, R, IMG, [1.0, 5.0, 0.1, 1.25]),
    m!("anthropic", "claude-opus-4-1", "Claude Opus 4.1", 200_000, 32_000, R, IMG, [15.0, 75.0, 1.5, 18.75]),
    m!("anthropic", "claude-sonnet-4-0", "Claude Sonnet 4", 200_000, 64_000, R, IMG, [3.0, 15.0, 0.3, 3.75]),
    m!("anthropic", "claude-3-7-sonnet-latest", "Claude Sonnet 3.7", 200_000, 64_000, R, IMG, [3.0, 15.0, 0.3, 3.75]),
    m!("anthropic", "claude-3-5-haiku-latest", "Claude Haiku 3.5", 200_000, 8_192, NO_R, IMG, [0.8, 4.0, 0.08, 1.0]),
    // --- deepseek (V3.2 behind both names) -------------------------------------------------
    m!("deepseek", "deepseek-chat", "DeepSeek V3.2", 128_000, 8_192, NO_R, TEXT, [0.28, 0.42, 0.028, 0.0]),
    m!("deepseek", "deepseek-reasoner", "DeepSeek V3.2 (thinking)", 128_000, 65_536, R, TEXT, [0.28, 0.42, 0.028, 0.0]),
    // --- google ---------------------------------------------------------------------------
    m!("google", "gemini-3-pro-preview", "Gemini 3 Pro Preview", 1_000_000, 64_000, R, IMG, [2.0, 12.0, 0.2, 0.0]),
    m!("google", "gemini-3-flash-preview", "Gemini 3 Flash Preview", 1_048_576, 65_536, R, IMG, [0.5, 3.0, 0.05, 0.0]),
    m!("google", "gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576, 65_536, R, IMG, [1.25, 10.0, 0.31, 0.0]),
    m!("google", "gemini-2.5-flash", "Gemini 2.5 Flash", 1_048_576, 65_536, R, IMG, [0.3, 2.5, 0.075, 0.0]),
    m!("google", "gemini-2.5-flash-lite", "Gemini 2.5 Flash Lite", 1_048_576, 65_536, R, IMG, [0.1, 0.4, 0.025, 0.0]),
    m!("google", "gemini-2.0-flash", "Gemini 2.0 Flash", 1_048_576, 8_192, NO_R, IMG, [0.1, 0.4, 0.025, 0.0]),
    // --- groq -----------------------------------------------------------------------------
    m!("groq", "llama-3.3-70b-versatile", "Llama 3.3 70B Versatile", 131_072, 32_768, NO_R, TEXT, [0.59, 0.79, 0.0, 0.0]),
    m!("groq", "llama-3.1-8b-instant", "Llama 3.1 8B Instant", 131_072, 131_072, NO_R, TEXT, [0.05, 0.08, 0.0, 0.0]),
    m!("groq", "openai/gpt-oss-120b", "GPT OSS 120B", 131_072, 65_536, R, TEXT, [0.15, 0.6, 0.0, 0.0]),
    m!("groq", "openai/gpt-oss-20b", "GPT OSS 20B", 131_072, 65_536, R, TEXT, [0.075, 0.3, 0.0, 0.0]),
    m!("groq", "qwen/qwen3-32b", "Qwen3 32B", 131_072, 16_384, R, TEXT, [0.29, 0.59, 0.0, 0.0]),
    m!("groq", "moonshotai/kimi-k2-instruct-0905", "Kimi K2 Instruct 0905", 262_144, 16_384, NO_R, TEXT, [1.0, 3.0, 0.0, 0.0]),
    m!("groq", "meta-llama/llama-4-scout-17b-16e-instruct", "Llama 4 Scout 17B", 131_072, 8_192, NO_R, IMG, [0.11, 0.34, 0.0, 0.0]),
    // --- mistral --------------------------------------------------------------------------
    m!("mistral", "mistral-large-latest", "Mistral Large", 262_144, 262_144, NO_R, IMG, [0.5, 1.5, 0.0, 0.0]),
    m!("mistral", "mistral-medium-latest", "Mistral Medium", 128_000, 16_384, NO_R, IMG, [0.4, 2.0, 0.0, 0.0]),
    m!("mistral", "mistral-small-latest", "Mistral Small", 128_000, 16_384, NO_R, IMG, [0.1, 0.3, 0.0, 0.0]),
    m!("mistral", "devstral-medium-latest", "Devstral 2", 262_144, 262_144, NO_R, TEXT, [0.4, 2.0, 0.0, 0.0]),
    m!("mistral", "codestral-latest", "Codestral", 256_000, 4_096, NO_R, TEXT, [0.3, 0.9, 0.0, 0.0]),
    m!("mistral", "magistral-medium-latest", "Magistral Medium", 128_000, 16_384, R, TEXT, [2.0, 5.0, 0.0, 0.0]),
    m!("mistral", "ministral-8b-latest", "Ministral 8B", 128_000, 128_000, NO_R, TEXT, [0.1, 0.1, 0.0, 0.0]),
    // --- ollama (local; free; the window is the model's, not Ollama's default num_ctx) ----
    m!("ollama", "gpt-oss:20b", "GPT OSS 20B (local)", 131_072, 32_768, R, TEXT, [0.0, 0.0, 0.0, 0.0]),
    m!("ollama", "qwen3:8b", "Qwen3 8B (local)", 40_960, 8_192, R, TEXT, [0.0, 0.0, 0.0, 0.0]),
    m!("ollama", "llama3.2", "Llama 3.2 3B (local)", 131_072, 8_192, NO_R, TEXT, [0.0, 0.0, 0.0, 0.0]),
    m!("ollama", "llama3.1:8b", "Llama 3.1 8B (local)", 131_072, 8_192, NO_R, TEXT, [0.0, 0.0, 0.0, 0.0]),
    m!("ollama", "qwen2.5-coder:7b", "Qwen2.5 Coder 7B (local)", 32_768, 8_192, NO_R, TEXT, [0.0, 0.0, 0.0, 0.0]),
    m!("ollama", "gemma3:12b", "Gemma 3 12B (local)", 131_072, 8_192, NO_R, IMG, [0.0, 0.0, 0.0, 0.0]),
    // --- openai ---------------------------------------------------------------------------
    // OpenClaw's default model when none is configured (`openai/gpt-5.4`).
    m!("openai", "gpt-5.4", "GPT-5.4", 1_050_000, 128_000, R, IMG, [2.5, 15.0, 0.25, 0.0]),
    m!("openai", "gpt-5.4-mini", "GPT-5.4 mini", 400_000, 128_000, R, IMG, [0.75, 4.5, 0.075, 0.0]),
    m!("openai", "gpt-5.2", "GPT-5.2", 400_000, 128_000, R, IMG, [1.75, 14.0, 0.175, 0.0]),
    m!("openai", "gpt-5.1", "GPT-5.1", 400_000, 128_000, R, IMG, [1.25, 10.0, 0.13, 0.0]),
    m!("openai", "gpt-5.1-codex", "GPT-5.1 Codex", 400_000, 128_000, R, IMG, [1.25, 10.0, 0.125, 0.0]),
    m!("openai", "gpt-5", "GPT-5", 400_000, 128_000, R, IMG, [1.25, 10.0, 0.125, 0.0]),
    m!("openai", "gpt-5-mini", "GPT-5 Mini", 400_000, 128_000, R, IMG, [0.25, 2.0, 0.025, 0.0]),
    m!("openai", "gpt-5-nano", "GPT-5 Nano", 400_000, 128_000, R, IMG, [0.05, 0.4, 0.005, 0.0]),
    m!("openai", "gpt-4.1", "GPT-4.1", 1_047_576, 32_768, NO_R, IMG, [2.0, 8.0, 0.5, 0.0]),
    m!("openai", "gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, NO_R, IMG, [0.4, 1.6, 0.1, 0.0]),
    m!("openai", "gpt-4o", "GPT-4o", 128_000, 16_384, NO_R, IMG, [2.5, 10.0, 1.25, 0.0]),
    m!("openai", "gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, NO_R, IMG, [0.15, 0.6, 0.08, 0.0]),
    m!("openai", "o3", "o3", 200_000, 100_000, R, IMG, [2.0, 8.0, 0.5, 0.0]),
    m!("openai", "o4-mini", "o4-mini", 200_000, 100_000, R, IMG, [1.1, 4.4, 0.28, 0.0]),
    // --- openrouter (pass-through prices of the upstream provider) ------------------------
    m!("openrouter", "anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5", 1_000_000, 64_000, R, IMG, [3.0, 15.0, 0.3, 3.75]),
    m!("openrouter", "anthropic/claude-opus-4.5", "Anthropic: Claude Opus 4.5", 200_000, 64_000, R, IMG, [5.0, 25.0, 0.5, 6.25]),
    m!("openrouter", "openai/gpt-5", "OpenAI: GPT-5", 400_000, 128_000, R, IMG, [1.25, 10.0, 0.125, 0.0]),
    m!("openrouter", "openai/gpt-5-mini", "OpenAI: GPT-5 Mini", 400_000, 128_000, R, IMG, [0.25, 2.0, 0.025, 0.0]),
    m!("openrouter", "openai/gpt-oss-120b", "OpenAI: gpt-oss-120b", 131_072, 32_768, R, TEXT, [0.1, 0.5, 0.0, 0.0]),
    m!("openrouter", "google/gemini-2.5-pro", "Google: Gemini 2.5 Pro", 1_048_576, 65_536, R, IMG, [1.25, 10.0, 0.31, 0.0]),
    m!("openrouter", "google/gemini-2.5-flash", "Google: Gemini 2.5 Flash", 1_048_576, 65_536, R, IMG, [0.3, 2.5, 0.075, 0.0]),
    m!("openrouter", "deepseek/deepseek-v3.2", "DeepSeek: DeepSeek V3.2", 163_840, 65_536, R, TEXT, [0.28, 0.4, 0.0, 0.0]),
    m!("openrouter", "x-ai/grok-4", "xAI: Grok 4", 256_000, 64_000, R, IMG, [3.0, 15.0, 0.75, 0.0]),
    // --- xai ------------------------------------------------------------------------------
    m!("xai", "grok-4", "Grok 4", 256_000, 64_000, R, TEXT, [3.0, 15.0, 0.75, 0.0]),
    m!("xai", "grok-4-1-fast", "Grok 4.1 Fast", 2_000_000, 30_000, R, IMG, [0.2, 0.5, 0.05, 0.0]),
    m!("xai", "grok-4-fast", "Grok 4 Fast", 2_000_000, 30_000, R, IMG, [0.2, 0.5, 0.05, 0.0]),
    m!("xai", "grok-code-fast-1", "Grok Code Fast 1", 256_000, 10_000, R, TEXT, [0.2, 1.5, 0.02, 0.0]),
    m!("xai", "grok-3", "Grok 3", 131_072, 8_192, NO_R, TEXT, [3.0, 15.0, 0.75, 0.0]),
    m!("xai", "grok-3-mini", "Grok 3 Mini", 131_072, 8_192, R, TEXT, [0.3, 0.5, 0.075, 0.0]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashSet;

    #[test]
    fn table_is_consistent() {
        let mut seen = HashSet::new();
        for m in BUILTIN_MODELS {
            assert!(builtin_provider(m.provider).is_some(), "{}", m.provider);
            assert!(
                seen.insert((m.provider, m.id)),
                "duplicate {}/{}",
                m.provider,
                m.id
            );
            assert!(m.context_window > 0 && m.max_tokens > 0, "{}", m.id);
            assert!(m.max_tokens <= m.context_window, "{}", m.id);
        }
        for p in BUILTIN_PROVIDERS {
            assert!(
                BUILTIN_MODELS.iter().any(|m| m.provider == p.id),
                "{}",
                p.id
            );
            if p.compat.is_some() {
                assert!(p.compat_value().is_some_and(|v| v.is_object()), "{}", p.id);
            }
        }
        let ids: Vec<_> = BUILTIN_PROVIDERS.iter().map(|p| p.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted);
        assert_eq!(
            builtin_provider("mistral").and_then(BuiltinProvider::compat_value),
            Some(
                json!({"supportsStore":false,"supportsDeveloperRole":false,"maxTokensField":"max_tokens","requiresToolResultName":true,"requiresThinkingAsText":true})
            )
        );
    }
}
