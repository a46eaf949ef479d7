//! Session binding: which CLI session a conversation continues.
//!
//! The CLI keeps its own history under its own session id, so the next call must resume that
//! session. The id travels **in the transcript**: the final assistant message of a successful
//! call carries `extra.cliSessionBinding = {"backend": "<id>", "sessionId": "<cli id>"}` (the
//! shape of OpenClaw's `agentMeta.cliSessionBinding`). The agent session persists that
//! message like any other, unknown fields survive every read-modify-write, and the next call
//! finds the newest binding for its backend in the history it is given. So resuming needs no
//! side table, survives restarts, follows branches and forks of the transcript, and a caller
//! that wants to choose differently can pass [`super::CliRequest::cli_session_id`] itself.

use clawloop_core::{AssistantMessage, Context, Message};
use serde::{Deserialize, Serialize};

use super::config::normalize_backend_id;

/// The `extra` key holding the binding on an assistant message.
pub const CLI_SESSION_BINDING_KEY: &str = "cliSessionBinding";

/// A CLI session bound to a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CliSessionBinding {
    /// The backend id (`claude-cli`, …).
    pub backend: String,
    /// The CLI's own session id.
    pub session_id: String,
}

impl CliSessionBinding {
    /// The binding stored on `message`, if any (a malformed one is ignored).
    pub fn of(message: &AssistantMessage) -> Option<CliSessionBinding> {
        let value = message.extra.get(CLI_SESSION_BINDING_KEY)?;
        let binding: CliSessionBinding = serde_json::from_value(value.clone()).ok()?;
        (!binding.session_id.trim().is_empty()).then_some(binding)
    }

    /// Stores the binding on `message`.
    pub fn attach(&self, message: &mut AssistantMessage) {
        if let Ok(value) = serde_json::to_value(self) {
            message
                .extra
                .insert(CLI_SESSION_BINDING_KEY.to_owned(), value);
        }
    }
}

/// The CLI session id of the newest assistant message in `context` bound to `backend_id`.
pub fn find_cli_session(context: &Context, backend_id: &str) -> Option<String> {
    let backend_id = normalize_backend_id(backend_id);
    context.messages.iter().rev().find_map(|m| match m {
        Message::Assistant(a) => CliSessionBinding::of(a)
            .filter(|b| normalize_backend_id(&b.backend) == backend_id)
            .map(|b| b.session_id),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::UserMessage;
    use pretty_assertions::assert_eq;
    use serde_json::Value;

    fn answer(backend: Option<&str>, id: &str) -> Message {
        let mut message = AssistantMessage::empty("cli", "p", "m", 1);
        if let Some(backend) = backend {
            CliSessionBinding {
                backend: backend.into(),
                session_id: id.into(),
            }
            .attach(&mut message);
        }
        Message::Assistant(message)
    }

    #[test]
    fn the_newest_binding_of_the_backend_wins() {
        let context = Context {
            messages: vec![
                Message::User(UserMessage::text("a", 1)),
                answer(Some("claude-cli"), "old"),
                answer(Some("claude-cli"), "new"),
                answer(Some("codex-cli"), "other"),
                answer(None, "none"),
            ],
            ..Context::default()
        };
        assert_eq!(
            find_cli_session(&context, "Claude-CLI").as_deref(),
            Some("new")
        );
        assert_eq!(
            find_cli_session(&context, "codex-cli").as_deref(),
            Some("other")
        );
        assert_eq!(find_cli_session(&context, "x"), None);
        let mut bad = AssistantMessage::empty("cli", "p", "m", 1);
        bad.extra
            .insert(CLI_SESSION_BINDING_KEY.into(), Value::from(3));
        assert_eq!(CliSessionBinding::of(&bad), None);
    }
}
