//! The `models.providers.<id>` section of the config (SPEC §2, pi-mono §3.9), as serde types.
//!
//! Every field is optional so a provider entry can override a single setting of a built-in
//! provider. Keys this version does not know are kept in `extra` (OpenClaw has more, such as
//! `authHeader` or `modelOverrides`), so a caller can warn about them instead of failing.

use std::collections::BTreeMap;

use clawloop_core::model::InputKind;
use clawloop_core::{Api, ModelCost, ToolChoice};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use clawloop_core::redacted_debug::{keys_only, secret};

/// `[models]`: custom providers and overrides of built-in ones.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelsConfig {
    /// `[models.providers.<id>]`, by provider id.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `[models.providers.<id>]`.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// Wire API of the provider's models (`openai-completions`, `openai-responses`,
    /// `anthropic-messages`, `google-generative-ai`, `ollama`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// Base URL of the API.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// API key: an environment variable name, a literal key, or `!command` (see
    /// [`crate::api_key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Extra HTTP headers for every request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// pi's OpenAI-compat flags (pi-mono §3.9), merged under each model's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
    /// Models added, or built-in models overridden, by id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelConfig>,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One entry of `models.providers.<id>.models`.
#[derive(Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelConfig {
    /// Model id as the provider knows it (required).
    pub id: String,
    /// Display name (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Wire API, when it differs from the provider's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// Base URL, when it differs from the provider's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Context window in tokens (default for a new model: 128000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Tokens to actually use of the window (wins over `contextWindow` when resolving the
    /// context window, reference §12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// Maximum output tokens (default for a new model: 16384).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Whether the model reasons (default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<bool>,
    /// Accepted inputs (default: `["text"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Vec<InputKind>>,
    /// Prices per million tokens (default: zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<ModelCost>,
    /// Extra HTTP headers, over the provider's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Compat flags, merged over the provider's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
    /// The tool choice sent with the first model call after each user prompt
    /// (`"auto"`, `"none"`, `"required"` or `{ name = "<tool>" }`); kept in the resolved
    /// model's `extra` as `toolChoice`, read back by [`ToolChoice::configured`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

// The config types print which keys and headers are set, never their values: a `{:?}` of a
// config ends up in logs and error reports, and `apiKey`, header values and unknown keys may
// all be secrets.

impl std::fmt::Debug for ModelsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelsConfig")
            .field("providers", &self.providers)
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}

impl std::fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("api", &self.api)
            .field("base_url", &self.base_url)
            .field("api_key", &secret(&self.api_key))
            .field("headers", &keys_only(&self.headers))
            .field("compat", &self.compat)
            .field("models", &self.models)
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("api", &self.api)
            .field("base_url", &self.base_url)
            .field("context_window", &self.context_window)
            .field("context_tokens", &self.context_tokens)
            .field("max_tokens", &self.max_tokens)
            .field("reasoning", &self.reasoning)
            .field("input", &self.input)
            .field("cost", &self.cost)
            .field("headers", &keys_only(&self.headers))
            .field("compat", &self.compat)
            .field("extra", &keys_only(&self.extra))
            .finish()
    }
}
