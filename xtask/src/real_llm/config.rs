//! The `config.toml` of the temporary clawloop home: one provider `local` at the recording
//! proxy in front of `llama-server`, with two entries for the same model — `smollm2` as is
//! and `smollm2-tools` with `toolChoice = "required"` (llama-server serves one model whatever
//! the request names).

use super::server::CONTEXT_WINDOW;

/// The model of the text turns.
pub const TEXT_MODEL: &str = "local/smollm2";
/// The model of the tool-call turn: the same model, forced to call a tool when it answers
/// a prompt.
pub const TOOL_MODEL: &str = "local/smollm2-tools";

/// The config for a server at `base_url` (no trailing slash). The key is a placeholder:
/// llama-server checks none, and clawloop wants one to send.
pub fn config_toml(base_url: &str) -> String {
    format!(
        r#"[agents.defaults.model]
primary = "{TEXT_MODEL}"

[models.providers.local]
api = "openai-completions"
baseUrl = "{base_url}/v1"
apiKey = "local-no-key"
# llama-server takes the classic field; `store` is an OpenAI-only field.
compat = {{ maxTokensField = "max_tokens", supportsStore = false }}
models = [
  {{ id = "smollm2", contextWindow = {CONTEXT_WINDOW}, maxTokens = 256 }},
  {{ id = "smollm2-tools", contextWindow = {CONTEXT_WINDOW}, maxTokens = 256, toolChoice = "required" }},
]
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_runner::config::Config;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// The text must be what clawloop reads: parsed as TOML and through the runner's config.
    #[test]
    fn the_config_points_both_models_at_the_server() {
        let text = config_toml("http://127.0.0.1:4242");
        let value: toml::Value = toml::from_str(&text).unwrap();
        let json = serde_json::to_value(value).unwrap();
        let local = &json["models"]["providers"]["local"];
        assert_eq!(local["baseUrl"], "http://127.0.0.1:4242/v1");
        assert_eq!(local["api"], "openai-completions");
        assert_eq!(
            local["models"],
            json!([
                {"id": "smollm2", "contextWindow": crate::real_llm::server::CONTEXT_WINDOW, "maxTokens": 256},
                {"id": "smollm2-tools", "contextWindow": crate::real_llm::server::CONTEXT_WINDOW, "maxTokens": 256,
                 "toolChoice": "required"},
            ])
        );
        let config = Config::from_value(json).unwrap();
        assert!(config.extra.is_empty(), "{:?}", config.extra);
    }
}
