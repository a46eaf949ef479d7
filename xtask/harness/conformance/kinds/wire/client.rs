//! The provider client and model a `wire` case is decoded with, per `input.api`.

use clawloop_core::{Api, AssistantEventStream, Context, Model, StreamOptions, UserMessage};
use clawloop_providers::{
    AnthropicMessages, CallDiagnostics, GoogleGenerativeAi, HttpTransport, Ollama,
    OpenAiCompletions, OpenAiResponses,
};
use serde_json::{Value, json};

use crate::conformance::scenario::vocab::{self, Modality};
use crate::conformance::scenario::wire::WireModel;

/// A provider client of one of the five APIs.
pub enum Client {
    /// `openai-completions`
    OpenAiCompletions(OpenAiCompletions),
    /// `openai-responses`
    OpenAiResponses(OpenAiResponses),
    /// `anthropic-messages`
    AnthropicMessages(AnthropicMessages),
    /// `google-generative-ai`
    GoogleGenerativeAi(GoogleGenerativeAi),
    /// `ollama`
    Ollama(Ollama),
}

impl Client {
    /// The client for `api` over `transport`; an API without a client module fails the case.
    pub fn for_api(api: &Api, transport: HttpTransport) -> Result<Client, String> {
        Ok(match api {
            Api::OpenaiCompletions => Client::OpenAiCompletions(OpenAiCompletions::new(transport)),
            Api::OpenaiResponses => Client::OpenAiResponses(OpenAiResponses::new(transport)),
            Api::AnthropicMessages => Client::AnthropicMessages(AnthropicMessages::new(transport)),
            Api::GoogleGenerativeAi => {
                Client::GoogleGenerativeAi(GoogleGenerativeAi::new(transport))
            }
            Api::Ollama => Client::Ollama(Ollama::new(transport)),
            Api::Other(name) => return Err(format!("api {name} is not implemented yet")),
        })
    }

    /// Starts one call.
    pub fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> (AssistantEventStream, CallDiagnostics) {
        match self {
            Client::OpenAiCompletions(c) => c.stream_with_diagnostics(model, context, options),
            Client::OpenAiResponses(c) => c.stream_with_diagnostics(model, context, options),
            Client::AnthropicMessages(c) => c.stream_with_diagnostics(model, context, options),
            Client::GoogleGenerativeAi(c) => c.stream_with_diagnostics(model, context, options),
            Client::Ollama(c) => c.stream_with_diagnostics(model, context, options),
        }
    }
}

/// The core API of a scenario API name.
pub fn core_api(api: vocab::Api) -> Api {
    match api {
        vocab::Api::OpenaiCompletions => Api::OpenaiCompletions,
        vocab::Api::OpenaiResponses => Api::OpenaiResponses,
        vocab::Api::AnthropicMessages => Api::AnthropicMessages,
        vocab::Api::GoogleGenerativeAi => Api::GoogleGenerativeAi,
        vocab::Api::Ollama => Api::Ollama,
    }
}

/// The default model id and provider per API: a current model of the API's home provider,
/// so provider-specific request rules apply as they would in real use.
fn default_model(api: &Api) -> (&'static str, &'static str) {
    match api {
        Api::OpenaiCompletions => ("gpt-4o-mini", "openai"),
        Api::OpenaiResponses => ("gpt-5-mini", "openai"),
        Api::AnthropicMessages => ("claude-sonnet-4-5", "anthropic"),
        Api::GoogleGenerativeAi => ("gemini-2.5-flash", "google"),
        Api::Ollama | Api::Other(_) => ("qwen3:8b", "ollama"),
    }
}

/// The model the request is made for: `input.model` over the API's default, served from
/// `base_url`.
pub fn model_for(
    api: &Api,
    described: Option<&WireModel>,
    base_url: &str,
) -> Result<Model, String> {
    let (default_id, provider) = default_model(api);
    let mut json = json!({
        "id": default_id, "name": default_id, "api": api.as_str(), "provider": provider,
        "baseUrl": base_url, "contextWindow": 128_000, "maxTokens": 16_384,
    });
    if let Some(m) = described {
        if let Some(id) = &m.id {
            json["id"] = Value::from(id.0.clone());
            json["name"] = Value::from(id.0.clone());
        }
        if let Some(reasoning) = m.reasoning {
            json["reasoning"] = Value::from(reasoning);
        }
        if let Some(input) = &m.input {
            let kinds: Vec<&str> = input
                .iter()
                .map(|k| match k {
                    Modality::Text => "text",
                    Modality::Image => "image",
                })
                .collect();
            json["input"] = json!(kinds);
        }
        if let Some(window) = &m.context_window {
            json["contextWindow"] = Value::from(window.0);
        }
        if let Some(max) = &m.max_tokens {
            json["maxTokens"] = Value::from(max.0);
        }
        if let Some(compat) = &m.compat {
            json["compat"] = Value::Object(compat.clone());
        }
    }
    serde_json::from_value(json).map_err(|e| format!("input.model: not a usable model: {e}"))
}

/// The conversation every `wire` request carries: a system prompt and one user message.
pub fn context() -> Context {
    Context {
        system_prompt: Some("You are a helpful assistant.".to_owned()),
        messages: vec![clawloop_core::Message::User(UserMessage::text("Hello", 0))],
        tools: Vec::new(),
    }
}

/// Call options: an API key so every API sends its usual auth headers.
pub fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("sk-conformance-wire".to_owned()),
        ..StreamOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::model::InputKind;

    #[test]
    fn defaults_and_descriptions() {
        let m = model_for(&Api::Ollama, None, "http://h").unwrap();
        assert_eq!((m.id.as_str(), m.provider.as_str()), ("qwen3:8b", "ollama"));
        assert_eq!(m.base_url, "http://h");
        let described: WireModel = serde_json::from_value(json!({
            "id": "o4-mini", "reasoning": true, "input": ["text", "image"],
            "contextWindow": 1000, "maxTokens": 10, "compat": {"supportsStore": false}
        }))
        .unwrap();
        let m = model_for(&Api::OpenaiCompletions, Some(&described), "http://h").unwrap();
        assert_eq!(m.id, "o4-mini");
        assert!(m.reasoning);
        assert_eq!(m.input, vec![InputKind::Text, InputKind::Image]);
        assert_eq!((m.context_window, m.max_tokens), (1000, 10));
        assert_eq!(m.compat, Some(json!({"supportsStore": false})));
        assert!(Client::for_api(&Api::Other("x".into()), transport()).is_err());
        for api in Api::KNOWN {
            assert!(Client::for_api(&api, transport()).is_ok());
        }
    }

    fn transport() -> HttpTransport {
        HttpTransport::new(clawloop_providers::TransportConfig::default()).unwrap()
    }
}
