//! Which provider and wire API a request path addresses (FORMAT.md `run`: the server tells
//! providers apart by the `/p/<providerId>` prefix and speaks the format of the endpoint that
//! is called).

use clawloop_core::Api;

use super::url_text::percent_decode;

/// What a request path says about the call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoint {
    /// The provider id of a `/p/<providerId>/…` path.
    pub provider: Option<String>,
    /// The wire API of the endpoint, when the path is one of the five.
    pub api: Option<Api>,
    /// The model named by the path (Gemini's `models/<id>:streamGenerateContent`; a tuned
    /// model keeps its resource name, `tunedModels/<id>`).
    pub path_model: Option<String>,
}

impl Endpoint {
    /// Classifies `path` (with or without a query string):
    ///
    /// * `…/chat/completions` → `openai-completions`
    /// * `…/responses` → `openai-responses`
    /// * `…/messages` (`/v1/messages`) → `anthropic-messages`
    /// * `…/models/<id>:streamGenerateContent` (or `:generateContent`) → `google-generative-ai`
    /// * `…/api/chat` → `ollama`
    ///
    /// Anything else has no API; the provider prefix is read either way.
    pub fn from_path(path: &str) -> Endpoint {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let (provider, rest) = split_provider(path);
        let rest = rest.trim_end_matches('/');
        let (api, path_model) = if rest.ends_with("/chat/completions") {
            (Some(Api::OpenaiCompletions), None)
        } else if rest.ends_with("/responses") {
            (Some(Api::OpenaiResponses), None)
        } else if rest.ends_with("/api/chat") {
            (Some(Api::Ollama), None)
        } else if rest.ends_with("/messages") {
            (Some(Api::AnthropicMessages), None)
        } else if let Some(model) = gemini_model(rest) {
            (Some(Api::GoogleGenerativeAi), Some(model))
        } else {
            (None, None)
        };
        Endpoint {
            provider,
            api,
            path_model,
        }
    }
}

/// `("acme", "/v1/chat/completions")` for `/p/acme/v1/chat/completions`.
fn split_provider(path: &str) -> (Option<String>, &str) {
    let Some(after) = path.strip_prefix("/p/") else {
        return (None, path);
    };
    let (id, rest) = match after.find('/') {
        Some(end) => (&after[..end], &after[end..]),
        None => (after, ""),
    };
    if id.is_empty() {
        return (None, path);
    }
    (Some(percent_decode(id)), rest)
}

/// The model of `…/models/<id>:streamGenerateContent` (also `:generateContent`, and
/// `…/tunedModels/<id>:…` as `tunedModels/<id>`).
fn gemini_model(path: &str) -> Option<String> {
    let (before, method) = path.rsplit_once(':')?;
    if method != "streamGenerateContent" && method != "generateContent" {
        return None;
    }
    let (collection, id) = before.rsplit_once('/')?;
    if id.is_empty() {
        return None;
    }
    let id = percent_decode(id);
    if collection.ends_with("/tunedModels") {
        Some(format!("tunedModels/{id}"))
    } else {
        collection.ends_with("/models").then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn api(path: &str) -> Option<Api> {
        Endpoint::from_path(path).api
    }

    #[test]
    fn classifies_each_api() {
        assert_eq!(
            Endpoint::from_path("/p/acme/v1/chat/completions"),
            Endpoint {
                provider: Some("acme".into()),
                api: Some(Api::OpenaiCompletions),
                path_model: None
            }
        );
        assert_eq!(api("/p/o/v1/responses"), Some(Api::OpenaiResponses));
        assert_eq!(api("/p/bolt/v1/messages"), Some(Api::AnthropicMessages));
        assert_eq!(api("/p/bolt/messages"), Some(Api::AnthropicMessages));
        assert_eq!(api("/p/ol/api/chat"), Some(Api::Ollama));
        assert_eq!(api("/chat/completions?x=1"), Some(Api::OpenaiCompletions));
        let g = Endpoint::from_path(
            "/p/gem/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=k",
        );
        assert_eq!(g.provider.as_deref(), Some("gem"));
        assert_eq!(g.api, Some(Api::GoogleGenerativeAi));
        assert_eq!(g.path_model.as_deref(), Some("gemini-2.5-flash"));
    }

    #[test]
    fn unknown_paths_keep_the_provider() {
        let e = Endpoint::from_path("/p/my%20id/v1/embeddings");
        assert_eq!(e.provider.as_deref(), Some("my id"));
        assert_eq!(e.api, None);
        assert_eq!(Endpoint::from_path(""), Endpoint::default());
        assert_eq!(Endpoint::from_path("/p/"), Endpoint::default());
        assert_eq!(Endpoint::from_path("/p/x").provider.as_deref(), Some("x"));
        assert_eq!(api("/v1/models/:generateContent"), None);
        assert_eq!(api("/v1/other/a:generateContent"), None);
        assert_eq!(
            Endpoint::from_path("/v1beta/tunedModels/mine:streamGenerateContent").path_model,
            Some("tunedModels/mine".into())
        );
        assert_eq!(api("/v1/models/a:countTokens"), None);
        assert_eq!(
            api("/p/\u{1f99e}/%ff%/messages"),
            Some(Api::AnthropicMessages)
        );
    }
}
