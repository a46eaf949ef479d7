//! Who the request authenticates as, and the headers that go with it (pi's
//! `createClient`, pi-mono §1.7).

use clawloop_core::message::{ContentBlock, Message, UserContent};
use clawloop_core::{Model, StreamOptions};

use super::claude_code::{CLAUDE_CODE_VERSION, is_oauth_token};
use super::thinking::supports_adaptive_thinking;

/// The `anthropic-version` every request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Streams tool arguments in small fragments instead of one block at the end.
pub const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";

/// Thinking between tool calls.
pub const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// Betas a Claude Code OAuth token needs.
const OAUTH_BETAS: &str = "claude-code-20250219,oauth-2025-04-20";

/// How a request authenticates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthKind {
    /// An Anthropic API key in `x-api-key`.
    ApiKey,
    /// A Claude Code OAuth token (`sk-ant-oat…`): Bearer auth and Claude Code's identity.
    OAuth,
    /// GitHub Copilot's Anthropic endpoint: Bearer auth, its own headers.
    Copilot,
}

impl AuthKind {
    /// The kind for `model` called with `api_key`.
    pub fn of(model: &Model, api_key: Option<&str>) -> Self {
        if model.provider == "github-copilot" {
            AuthKind::Copilot
        } else if api_key.is_some_and(is_oauth_token) {
            AuthKind::OAuth
        } else {
            AuthKind::ApiKey
        }
    }
}

/// The request headers, later entries winning: the SDK's own, the auth header, pi's defaults
/// for `kind`, Copilot's per-request headers, then the model's and the call's headers (so a
/// configured header can replace anything, as in pi).
pub fn request_headers(
    model: &Model,
    messages: &[Message],
    options: &StreamOptions,
    kind: AuthKind,
) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("accept".to_owned(), "application/json".to_owned()),
        ("anthropic-version".to_owned(), ANTHROPIC_VERSION.to_owned()),
    ];
    if let Some(key) = options.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.push(match kind {
            AuthKind::ApiKey => ("x-api-key".to_owned(), key.to_owned()),
            AuthKind::OAuth | AuthKind::Copilot => {
                ("authorization".to_owned(), format!("Bearer {key}"))
            }
        });
    }
    headers.push((
        "anthropic-dangerous-direct-browser-access".to_owned(),
        "true".to_owned(),
    ));
    // Adaptive-thinking models interleave on their own; the beta is for the older ones.
    let interleaved = !supports_adaptive_thinking(&model.id);
    let mut betas: Vec<&str> = match kind {
        AuthKind::ApiKey => vec![FINE_GRAINED_TOOL_STREAMING_BETA],
        AuthKind::OAuth => vec![OAUTH_BETAS, FINE_GRAINED_TOOL_STREAMING_BETA],
        // Copilot rejects the fine-grained streaming beta.
        AuthKind::Copilot => Vec::new(),
    };
    if interleaved {
        betas.push(INTERLEAVED_THINKING_BETA);
    }
    if !betas.is_empty() {
        headers.push(("anthropic-beta".to_owned(), betas.join(",")));
    }
    match kind {
        AuthKind::ApiKey => {}
        AuthKind::OAuth => {
            headers.push((
                "user-agent".to_owned(),
                format!("claude-cli/{CLAUDE_CODE_VERSION} (external, cli)"),
            ));
            headers.push(("x-app".to_owned(), "cli".to_owned()));
        }
        AuthKind::Copilot => headers.extend(copilot_headers(messages)),
    }
    headers.extend(model.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    headers
}

/// Copilot's per-request headers: who started the request (the user, or the agent following
/// up on tool results) and whether it holds images.
fn copilot_headers(messages: &[Message]) -> Vec<(String, String)> {
    let initiator = match messages.last() {
        Some(message) if !matches!(message, Message::User(_)) => "agent",
        _ => "user",
    };
    let mut headers = vec![
        ("x-initiator".to_owned(), initiator.to_owned()),
        ("openai-intent".to_owned(), "conversation-edits".to_owned()),
    ];
    let has_images = messages.iter().any(|message| {
        let blocks = match message {
            Message::User(user) => match &user.content {
                UserContent::Blocks(blocks) => blocks.as_slice(),
                UserContent::Text(_) => &[],
            },
            Message::ToolResult(result) => result.content.as_slice(),
            Message::Assistant(_) => &[],
        };
        blocks.iter().any(|b| matches!(b, ContentBlock::Image(_)))
    });
    if has_images {
        headers.push(("copilot-vision-request".to_owned(), "true".to_owned()));
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::UserMessage;
    use clawloop_core::message::ToolResultMessage;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn model(id: &str, provider: &str) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "anthropic-messages", "provider": provider,
            "contextWindow": 200000, "maxTokens": 64000, "headers": {"x-model": "m"}
        }))
        .unwrap()
    }

    fn keyed(key: &str) -> StreamOptions {
        StreamOptions {
            api_key: Some(key.into()),
            ..StreamOptions::default()
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn api_key() {
        let m = model("claude-sonnet-4-5", "anthropic");
        let options = keyed("sk-ant-api03-x");
        let kind = AuthKind::of(&m, options.api_key.as_deref());
        assert_eq!(kind, AuthKind::ApiKey);
        assert_eq!(
            request_headers(&m, &[], &options, kind),
            pairs(&[
                ("content-type", "application/json"),
                ("accept", "application/json"),
                ("anthropic-version", "2023-06-01"),
                ("x-api-key", "sk-ant-api03-x"),
                ("anthropic-dangerous-direct-browser-access", "true"),
                (
                    "anthropic-beta",
                    "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14"
                ),
                ("x-model", "m"),
            ])
        );
    }

    #[test]
    fn oauth_token_on_an_adaptive_model() {
        let m = model("claude-opus-4-6", "anthropic");
        let options = keyed("sk-ant-oat01-x");
        let kind = AuthKind::of(&m, options.api_key.as_deref());
        assert_eq!(kind, AuthKind::OAuth);
        let headers = request_headers(&m, &[], &options, kind);
        assert_eq!(
            headers[3..7].to_vec(),
            pairs(&[
                ("authorization", "Bearer sk-ant-oat01-x"),
                ("anthropic-dangerous-direct-browser-access", "true"),
                (
                    "anthropic-beta",
                    "claude-code-20250219,oauth-2025-04-20,fine-grained-tool-streaming-2025-05-14"
                ),
                ("user-agent", "claude-cli/2.1.75 (external, cli)"),
            ])
        );
        assert_eq!(headers[7], ("x-app".to_owned(), "cli".to_owned()));
    }

    #[test]
    fn copilot() {
        let m = model("claude-sonnet-4", "github-copilot");
        let mut result = ToolResultMessage::text("c", "read", "", false, 1);
        result.content = vec![ContentBlock::image("AA", "image/png")];
        let messages = [
            Message::User(UserMessage::text("hi", 1)),
            Message::ToolResult(result),
        ];
        let options = keyed("ghu_x");
        let kind = AuthKind::of(&m, options.api_key.as_deref());
        assert_eq!(
            request_headers(&m, &messages, &options, kind)[3..].to_vec(),
            pairs(&[
                ("authorization", "Bearer ghu_x"),
                ("anthropic-dangerous-direct-browser-access", "true"),
                ("anthropic-beta", "interleaved-thinking-2025-05-14"),
                ("x-initiator", "agent"),
                ("openai-intent", "conversation-edits"),
                ("copilot-vision-request", "true"),
                ("x-model", "m"),
            ])
        );
    }
}
