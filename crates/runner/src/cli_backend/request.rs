//! What one CLI call needs, taken out of pi's [`Context`]: a CLI keeps its own history, so only
//! the newest user message is sent (its text and images), plus the system prompt.

use clawloop_core::{ContentBlock, Context, ImageContent, Message, UserContent};

use super::session::find_cli_session;

/// One call of a CLI backend, owned (nothing borrows the caller's context).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliRequest {
    /// The prompt: the text of the newest user message.
    pub prompt: String,
    /// The images of that message.
    pub images: Vec<ImageContent>,
    /// The system prompt, sent per the backend's `systemPromptWhen`.
    pub system_prompt: Option<String>,
    /// The model id as clawloop names it (aliases are applied when the call is planned).
    pub model_id: String,
    /// The CLI session to resume, if one is bound.
    pub cli_session_id: Option<String>,
}

impl CliRequest {
    /// The request for `context`: the newest user message, the system prompt and the CLI
    /// session bound to `backend_id` in the history. `None` when there is no user message.
    pub fn from_context(backend_id: &str, model_id: &str, context: &Context) -> Option<CliRequest> {
        let user = context.messages.iter().rev().find_map(|m| match m {
            Message::User(user) => Some(user),
            _ => None,
        })?;
        let (prompt, images) = match &user.content {
            UserContent::Text(text) => (text.clone(), Vec::new()),
            UserContent::Blocks(blocks) => {
                let mut texts = Vec::new();
                let mut images = Vec::new();
                for block in blocks {
                    match block {
                        ContentBlock::Text(t) => texts.push(t.text.as_str()),
                        ContentBlock::Image(image) => images.push(image.clone()),
                        _ => {}
                    }
                }
                (texts.join("\n"), images)
            }
        };
        Some(CliRequest {
            prompt,
            images,
            system_prompt: context.system_prompt.clone(),
            model_id: model_id.to_owned(),
            cli_session_id: find_cli_session(context, backend_id),
        })
    }
}
