//! A request as the endpoint-aware scripted server saw it: which provider, API, model and key
//! it was for, and which scripted response it took.

use std::borrow::Cow;

use clawloop_core::Api;
use serde_json::Value;

use super::body_facts;
use super::credentials::request_api_key;
use super::dispatch::wire_roles;
use super::{Endpoint, RecordedRequest};

/// One request to a [`ProviderScriptServer`](super::ProviderScriptServer).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderRequest {
    /// The request as received.
    pub request: RecordedRequest,
    /// Provider id (`/p/<providerId>` prefix), API and path model.
    pub endpoint: Endpoint,
    /// The model: the body's `model`, else the one in the path (Gemini).
    pub model: Option<String>,
    /// The API key sent (see [`request_api_key`]).
    pub api_key: Option<String>,
    /// The body parsed as JSON, if it is JSON.
    pub json: Option<Value>,
    /// The turn the request arrived in (0 before the first turn started).
    pub turn: usize,
    /// The index, in its turn's script, of the response it took; `None` when no scripted
    /// response was left (it got HTTP 500 `{"error":"unscripted request"}`).
    pub response: Option<usize>,
    /// Why the response it took does not fit it (its `expectRequest` failed), if so.
    pub mismatch: Option<String>,
    /// Why the scripted reply could not be played as written (e.g. no encoder for the API).
    pub problem: Option<String>,
}

impl ProviderRequest {
    /// Reads provider, API, model and key out of `request`; nothing is matched yet.
    pub fn new(request: RecordedRequest, turn: usize) -> Self {
        let endpoint = Endpoint::from_path(&request.path);
        let json = request.json();
        let model = json
            .as_ref()
            .and_then(|j| j.get("model"))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| endpoint.path_model.clone());
        let api_key = request_api_key(&request);
        ProviderRequest {
            request,
            endpoint,
            model,
            api_key,
            json,
            turn,
            response: None,
            mismatch: None,
            problem: None,
        }
    }

    /// The provider id.
    pub fn provider(&self) -> Option<&str> {
        self.endpoint.provider.as_deref()
    }

    /// The wire API.
    pub fn api(&self) -> Option<&Api> {
        self.endpoint.api.as_ref()
    }

    /// The normalized roles of the messages sent (FORMAT.md `roles`); `None` for a request
    /// whose API is unknown or whose API has no roles reader yet.
    pub fn roles(&self) -> Option<Vec<String>> {
        let body = self.json.as_ref().unwrap_or(&Value::Null);
        wire_roles(self.api()?, body)
    }

    /// The system prompt sent (see [`body_facts::system_text`]).
    pub fn system_text(&self) -> String {
        body_facts::system_text(self.json.as_ref().unwrap_or(&Value::Null))
    }

    /// The text of the last user message.
    pub fn last_user_text(&self) -> Option<String> {
        body_facts::last_user_text(self.json.as_ref().unwrap_or(&Value::Null))
    }

    /// The offered tool names, sorted.
    pub fn tool_names(&self) -> Vec<String> {
        body_facts::tool_names(self.json.as_ref().unwrap_or(&Value::Null))
    }

    /// The raw body as text (invalid UTF-8 replaced).
    pub fn body_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.request.body)
    }

    /// A short label for messages: `POST /p/acme/v1/chat/completions`.
    pub fn label(&self) -> String {
        format!("{} {}", self.request.method, self.request.path)
    }
}
