//! Models, the request context and per-request stream options.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::message::Message;
use crate::{ModelCost, ThinkLevel};

/// A wire API (pi's `Api`): the five clawloop speaks, plus any other name kept as is.
///
/// Serialized as its name, e.g. `"openai-completions"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Api {
    /// OpenAI Chat Completions and every compatible server.
    OpenaiCompletions,
    /// OpenAI Responses.
    OpenaiResponses,
    /// Anthropic Messages.
    AnthropicMessages,
    /// Google Generative AI (`streamGenerateContent?alt=sse`).
    GoogleGenerativeAi,
    /// Ollama's native `/api/chat` (NDJSON).
    Ollama,
    /// An API this version has no implementation for (pi's `Api` is open).
    Other(String),
}

impl Api {
    /// The five APIs clawloop implements, in SPEC §4 order.
    pub const KNOWN: [Api; 5] = [
        Api::OpenaiCompletions,
        Api::OpenaiResponses,
        Api::AnthropicMessages,
        Api::GoogleGenerativeAi,
        Api::Ollama,
    ];

    /// The wire name.
    pub fn as_str(&self) -> &str {
        match self {
            Api::OpenaiCompletions => "openai-completions",
            Api::OpenaiResponses => "openai-responses",
            Api::AnthropicMessages => "anthropic-messages",
            Api::GoogleGenerativeAi => "google-generative-ai",
            Api::Ollama => "ollama",
            Api::Other(name) => name,
        }
    }

    /// The API named `name`; unknown names become [`Api::Other`].
    pub fn parse(name: &str) -> Api {
        Api::KNOWN
            .into_iter()
            .find(|api| api.as_str() == name)
            .unwrap_or_else(|| Api::Other(name.to_owned()))
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Api {
    type Err = Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Api::parse(s))
    }
}

impl From<&str> for Api {
    fn from(s: &str) -> Self {
        Api::parse(s)
    }
}

impl From<String> for Api {
    fn from(s: String) -> Self {
        match Api::parse(&s) {
            Api::Other(_) => Api::Other(s),
            known => known,
        }
    }
}

impl Serialize for Api {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Api {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Api::from)
    }
}

/// A kind of input a model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputKind {
    /// Text.
    Text,
    /// Images.
    Image,
}

fn default_input() -> Vec<InputKind> {
    vec![InputKind::Text]
}

/// A model and where to reach it (pi's `Model`, reference pi-mono §1.2).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Model id as the provider knows it.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Wire API.
    pub api: Api,
    /// Provider id (`openai`, `anthropic`, a configured id, …).
    pub provider: String,
    /// Base URL of the API.
    #[serde(default)]
    pub base_url: String,
    /// Whether the model supports reasoning.
    #[serde(default)]
    pub reasoning: bool,
    /// Accepted inputs (default: text only).
    #[serde(default = "default_input")]
    pub input: Vec<InputKind>,
    /// Prices in USD per million tokens.
    #[serde(default)]
    pub cost: ModelCost,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// Extra HTTP headers sent with every request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// API-specific compatibility flags (pi's `OpenAICompletionsCompat`), interpreted by the
    /// provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Model {
    /// Whether the model accepts image input.
    pub fn supports_images(&self) -> bool {
        self.input.contains(&InputKind::Image)
    }

    /// pi's `supportsXhigh`: only some models accept the `xhigh` reasoning level.
    pub fn supports_xhigh(&self) -> bool {
        ["gpt-5.2", "gpt-5.3", "gpt-5.4", "opus-4-6", "opus-4.6"]
            .iter()
            .any(|marker| self.id.contains(marker))
    }
}

/// A tool as the model sees it: name, description and a JSON schema for the arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Tool name.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

/// Everything a model call sends besides the options (pi's `Context`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The conversation, already converted for the model.
    pub messages: Vec<Message>,
    /// Tools the model may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
}

/// Token budgets for budget-style thinking APIs, per level (pi-mono §1.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ThinkingBudgets {
    /// Budget for `minimal`.
    pub minimal: u64,
    /// Budget for `low`.
    pub low: u64,
    /// Budget for `medium`.
    pub medium: u64,
    /// Budget for `high` (and `xhigh`, which budget APIs clamp to `high`).
    pub high: u64,
}

impl Default for ThinkingBudgets {
    fn default() -> Self {
        ThinkingBudgets {
            minimal: 1024,
            low: 2048,
            medium: 8192,
            high: 16384,
        }
    }
}

impl ThinkingBudgets {
    /// The budget for `level`; `None` for `off` and for `adaptive`, which has no fixed budget.
    pub fn budget(&self, level: ThinkLevel) -> Option<u64> {
        match level {
            ThinkLevel::Minimal => Some(self.minimal),
            ThinkLevel::Low => Some(self.low),
            ThinkLevel::Medium => Some(self.medium),
            ThinkLevel::High | ThinkLevel::Xhigh => Some(self.high),
            ThinkLevel::Off | ThinkLevel::Adaptive => None,
        }
    }
}

/// Output limit and thinking budget of one budget-style request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThinkingTokens {
    /// `max_tokens` to send (thinking included).
    pub max_tokens: u64,
    /// Thinking budget to send.
    pub thinking_budget: u64,
}

/// Output tokens always left for the answer when the budget would eat the whole limit.
const MIN_OUTPUT_TOKENS: u64 = 1024;

/// pi's `adjustMaxTokensForThinking`: `max_tokens = min(base + budget, model max)`; when that
/// leaves no room beyond the budget, the budget shrinks to `max_tokens - 1024` (at least 0).
/// `None` when `level` has no budget.
pub fn adjust_max_tokens_for_thinking(
    base_max_tokens: u64,
    model_max_tokens: u64,
    level: ThinkLevel,
    budgets: &ThinkingBudgets,
) -> Option<ThinkingTokens> {
    let budget = budgets.budget(level)?;
    let max_tokens = base_max_tokens.saturating_add(budget).min(model_max_tokens);
    let thinking_budget = if max_tokens <= budget {
        max_tokens.saturating_sub(MIN_OUTPUT_TOKENS)
    } else {
        budget
    };
    Some(ThinkingTokens {
        max_tokens,
        thinking_budget,
    })
}

/// How long a provider should keep the prompt cache (pi's `cacheRetention`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheRetention {
    /// Do not ask for caching (`"none"`).
    #[serde(rename = "none")]
    Disabled,
    /// The provider's short retention (pi's default).
    #[default]
    Short,
    /// The provider's long retention.
    Long,
}

/// Options of one model call (pi's `SimpleStreamOptions`).
///
/// `Debug` never prints the API key.
#[derive(Clone, Default)]
pub struct StreamOptions {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Output token limit; `None` (or 0) means [`StreamOptions::base_max_tokens`].
    pub max_tokens: Option<u64>,
    /// API key for this request (resolved by the runner from auth profiles or the environment).
    pub api_key: Option<String>,
    /// Reasoning level; `None` means no reasoning option is sent.
    pub reasoning: Option<ThinkLevel>,
    /// Budgets for budget-style thinking APIs.
    pub thinking_budgets: ThinkingBudgets,
    /// Prompt-cache retention; `None` means the provider's default (short).
    pub cache_retention: Option<CacheRetention>,
    /// Session id, forwarded to providers that key caches by it.
    pub session_id: Option<String>,
    /// Extra HTTP headers for this request (over the model's).
    pub headers: BTreeMap<String, String>,
    /// Cancelling it aborts the request; the stream then ends with an `aborted` error event.
    pub cancel: CancellationToken,
    /// Which tools the model may or must call; `None` sends nothing (the provider's `auto`).
    /// Providers send it only when the request offers tools.
    pub tool_choice: Option<crate::ToolChoice>,
}

impl StreamOptions {
    /// The output limit before thinking is added: `max_tokens` when set and non-zero, else
    /// `min(model.max_tokens, 32000)` (pi's `streamSimple` base options).
    pub fn base_max_tokens(&self, model: &Model) -> u64 {
        match self.max_tokens {
            Some(n) if n > 0 => n,
            _ => model.max_tokens.min(32_000),
        }
    }
}

/// Header values may be credentials (`Authorization`, `x-api-key`): only their names print.
impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("api", &self.api)
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("reasoning", &self.reasoning)
            .field("input", &self.input)
            .field("cost", &self.cost)
            .field("context_window", &self.context_window)
            .field("max_tokens", &self.max_tokens)
            .field("headers", &crate::redacted_debug::keys_only(&self.headers))
            .field("compat", &self.compat)
            .field("extra", &crate::redacted_debug::keys_only(&self.extra))
            .finish()
    }
}

impl fmt::Debug for StreamOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamOptions")
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("reasoning", &self.reasoning)
            .field("thinking_budgets", &self.thinking_budgets)
            .field("cache_retention", &self.cache_retention)
            .field("session_id", &self.session_id)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("cancelled", &self.cancel.is_cancelled())
            .field("tool_choice", &self.tool_choice)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn api_names_round_trip() {
        for api in Api::KNOWN {
            let json = serde_json::to_string(&api).unwrap();
            assert_eq!(json, format!("\"{api}\""));
            assert_eq!(serde_json::from_str::<Api>(&json).unwrap(), api);
            assert_eq!(api.as_str().parse::<Api>(), Ok(api.clone()));
        }
        assert_eq!(
            Api::from("bedrock-converse-stream"),
            Api::Other("bedrock-converse-stream".into())
        );
        assert_eq!(
            serde_json::to_string(&Api::Other("x".into())).unwrap(),
            "\"x\""
        );
    }

    #[test]
    fn model_reads_pi_shape_with_defaults() {
        let model: Model = serde_json::from_value(json!({
            "id": "m", "api": "ollama", "provider": "ollama", "baseUrl": "http://localhost:11434",
            "contextWindow": 128000, "maxTokens": 16384, "compat": {"supportsStore": false}, "future": true
        }))
        .unwrap();
        assert_eq!(
            model,
            Model {
                id: "m".into(),
                name: String::new(),
                api: Api::Ollama,
                provider: "ollama".into(),
                base_url: "http://localhost:11434".into(),
                reasoning: false,
                input: vec![InputKind::Text],
                cost: ModelCost::default(),
                context_window: 128_000,
                max_tokens: 16_384,
                headers: BTreeMap::new(),
                compat: Some(json!({"supportsStore": false})),
                extra: json!({"future": true}).as_object().unwrap().clone(),
            }
        );
        assert!(!model.supports_images());
        assert!(!model.supports_xhigh());
    }

    #[test]
    fn thinking_budget_adjustment_follows_pi() {
        let budgets = ThinkingBudgets::default();
        let adjust = |base, model_max, level| {
            adjust_max_tokens_for_thinking(base, model_max, level, &budgets)
        };
        assert_eq!(
            adjust(32_000, 64_000, ThinkLevel::Medium),
            Some(ThinkingTokens {
                max_tokens: 40_192,
                thinking_budget: 8192
            })
        );
        assert_eq!(
            adjust(32_000, 32_000, ThinkLevel::High),
            Some(ThinkingTokens {
                max_tokens: 32_000,
                thinking_budget: 16_384
            })
        );
        // The budget would take everything: shrink it so 1024 tokens stay for the answer.
        assert_eq!(
            adjust(0, 4096, ThinkLevel::High),
            Some(ThinkingTokens {
                max_tokens: 4096,
                thinking_budget: 3072
            })
        );
        assert_eq!(
            adjust(0, 512, ThinkLevel::Low),
            Some(ThinkingTokens {
                max_tokens: 512,
                thinking_budget: 0
            })
        );
        assert_eq!(
            adjust(1000, 64_000, ThinkLevel::Xhigh),
            Some(ThinkingTokens {
                max_tokens: 17_384,
                thinking_budget: 16_384
            })
        );
        assert_eq!(adjust(1000, 64_000, ThinkLevel::Off), None);
        assert_eq!(adjust(1000, 64_000, ThinkLevel::Adaptive), None);
    }

    #[test]
    fn base_max_tokens_and_redacted_debug() {
        let model: Model = serde_json::from_value(json!({
            "id": "m", "api": "openai-completions", "provider": "p", "contextWindow": 1, "maxTokens": 100000
        }))
        .unwrap();
        let mut options = StreamOptions {
            api_key: Some("sk-secret".into()),
            ..StreamOptions::default()
        };
        assert_eq!(options.base_max_tokens(&model), 32_000);
        options.max_tokens = Some(0);
        assert_eq!(options.base_max_tokens(&model), 32_000);
        options.max_tokens = Some(500);
        assert_eq!(options.base_max_tokens(&model), 500);
        let debug = format!("{options:?}");
        assert!(
            !debug.contains("sk-secret") && debug.contains("<redacted>"),
            "{debug}"
        );
    }

    #[test]
    fn context_omits_empty_parts() {
        let context = Context::default();
        assert_eq!(
            serde_json::to_string(&context).unwrap(),
            r#"{"messages":[]}"#
        );
    }
}
