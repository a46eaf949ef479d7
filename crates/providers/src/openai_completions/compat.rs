//! pi's `OpenAICompletionsCompat`: per-server quirks, auto-detected from the provider and base
//! URL and overridden field by field by `model.compat` (pi-mono §1.5).

use clawloop_core::Model;
use serde_json::{Map, Value};

/// Which field carries the output limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI's current name, pi's default).
    MaxCompletionTokens,
    /// `max_tokens` (older servers).
    MaxTokens,
}

/// How reasoning is switched on in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingFormat {
    /// `reasoning_effort: <level>`.
    Openai,
    /// z.ai: top-level `enable_thinking`.
    Zai,
    /// Qwen (DashScope): top-level `enable_thinking`.
    Qwen,
    /// Qwen chat template: `chat_template_kwargs.enable_thinking`.
    QwenChatTemplate,
}

/// Compatibility flags of an OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiCompat {
    /// Send `store: false`.
    pub supports_store: bool,
    /// Send the system prompt as `developer` for reasoning models.
    pub supports_developer_role: bool,
    /// Send `reasoning_effort`.
    pub supports_reasoning_effort: bool,
    /// Level → value sent as `reasoning_effort` (default: the level's name).
    pub reasoning_effort_map: Map<String, Value>,
    /// Ask for usage in the stream (`stream_options.include_usage`).
    pub supports_usage_in_streaming: bool,
    /// Field for the output limit.
    pub max_tokens_field: MaxTokensField,
    /// Tool results carry `name`.
    pub requires_tool_result_name: bool,
    /// A user message may not directly follow tool results.
    pub requires_assistant_after_tool_result: bool,
    /// Earlier thinking is replayed as text.
    pub requires_thinking_as_text: bool,
    /// How reasoning is requested.
    pub thinking_format: ThinkingFormat,
    /// Tools carry `strict: false`.
    pub supports_strict_mode: bool,
    /// OpenRouter `provider` routing object, sent as is.
    pub open_router_routing: Option<Value>,
}

impl OpenAiCompat {
    /// pi's `detectCompat` for `model`, then `model.compat` on top.
    pub fn for_model(model: &Model) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.as_str();
        let non_standard = matches!(provider, "cerebras" | "xai" | "zai" | "opencode")
            || [
                "cerebras.ai",
                "api.x.ai",
                "chutes.ai",
                "deepseek.com",
                "api.z.ai",
                "opencode.ai",
            ]
            .iter()
            .any(|host| url.contains(host));
        let is_xai = provider == "xai" || url.contains("api.x.ai");
        let is_zai = provider == "zai" || url.contains("api.z.ai");
        let mut reasoning_effort_map = Map::new();
        if provider == "groq" && model.id == "qwen/qwen3-32b" {
            for level in ["minimal", "low", "medium", "high", "xhigh"] {
                reasoning_effort_map.insert(level.into(), Value::from("default"));
            }
        }
        let mut compat = OpenAiCompat {
            supports_store: !non_standard,
            supports_developer_role: !non_standard,
            supports_reasoning_effort: !is_xai && !is_zai,
            reasoning_effort_map,
            supports_usage_in_streaming: true,
            max_tokens_field: if url.contains("chutes.ai") {
                MaxTokensField::MaxTokens
            } else {
                MaxTokensField::MaxCompletionTokens
            },
            requires_tool_result_name: false,
            requires_assistant_after_tool_result: false,
            requires_thinking_as_text: false,
            thinking_format: if is_zai {
                ThinkingFormat::Zai
            } else {
                ThinkingFormat::Openai
            },
            supports_strict_mode: true,
            open_router_routing: None,
        };
        if let Some(Value::Object(overrides)) = &model.compat {
            compat.apply(overrides);
        }
        compat
    }

    /// Applies explicit flags (pi's camelCase names); unknown or mistyped flags are ignored.
    fn apply(&mut self, o: &Map<String, Value>) {
        let flag = |name: &str, slot: &mut bool| {
            if let Some(v) = o.get(name).and_then(Value::as_bool) {
                *slot = v;
            }
        };
        flag("supportsStore", &mut self.supports_store);
        flag("supportsDeveloperRole", &mut self.supports_developer_role);
        flag(
            "supportsReasoningEffort",
            &mut self.supports_reasoning_effort,
        );
        flag(
            "supportsUsageInStreaming",
            &mut self.supports_usage_in_streaming,
        );
        flag(
            "requiresToolResultName",
            &mut self.requires_tool_result_name,
        );
        flag(
            "requiresAssistantAfterToolResult",
            &mut self.requires_assistant_after_tool_result,
        );
        flag(
            "requiresThinkingAsText",
            &mut self.requires_thinking_as_text,
        );
        flag("supportsStrictMode", &mut self.supports_strict_mode);
        match o.get("maxTokensField").and_then(Value::as_str) {
            Some("max_tokens") => self.max_tokens_field = MaxTokensField::MaxTokens,
            Some("max_completion_tokens") => {
                self.max_tokens_field = MaxTokensField::MaxCompletionTokens;
            }
            _ => {}
        }
        match o.get("thinkingFormat").and_then(Value::as_str) {
            Some("openai") => self.thinking_format = ThinkingFormat::Openai,
            Some("zai") => self.thinking_format = ThinkingFormat::Zai,
            Some("qwen") => self.thinking_format = ThinkingFormat::Qwen,
            Some("qwen-chat-template") => {
                self.thinking_format = ThinkingFormat::QwenChatTemplate;
            }
            _ => {}
        }
        if let Some(Value::Object(map)) = o.get("reasoningEffortMap") {
            self.reasoning_effort_map = map.clone();
        }
        if let Some(routing) = o.get("openRouterRouting") {
            self.open_router_routing = Some(routing.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(provider: &str, base_url: &str, compat: Option<Value>) -> Model {
        let mut m: Model = serde_json::from_value(json!({
            "id": "m", "api": "openai-completions", "provider": provider, "baseUrl": base_url,
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap();
        m.compat = compat;
        m
    }

    #[test]
    fn detection_and_overrides() {
        let openai = OpenAiCompat::for_model(&model("openai", "https://api.openai.com/v1", None));
        assert!(openai.supports_store && openai.supports_developer_role);
        assert_eq!(openai.max_tokens_field, MaxTokensField::MaxCompletionTokens);
        let zai = OpenAiCompat::for_model(&model("zai", "https://api.z.ai/api/paas/v4", None));
        assert!(!zai.supports_store && !zai.supports_reasoning_effort);
        assert_eq!(zai.thinking_format, ThinkingFormat::Zai);
        let chutes = OpenAiCompat::for_model(&model("x", "https://llm.chutes.ai/v1", None));
        assert_eq!(chutes.max_tokens_field, MaxTokensField::MaxTokens);
        let ollama = OpenAiCompat::for_model(&model(
            "ollama",
            "http://localhost:11434/v1",
            Some(
                json!({"supportsDeveloperRole": false, "maxTokensField": "max_tokens",
                        "supportsUsageInStreaming": false, "thinkingFormat": "qwen"}),
            ),
        ));
        assert!(!ollama.supports_developer_role && !ollama.supports_usage_in_streaming);
        assert_eq!(ollama.max_tokens_field, MaxTokensField::MaxTokens);
        assert_eq!(ollama.thinking_format, ThinkingFormat::Qwen);
    }
}
