//! Image and empty-block sanitation of replayed history (reference openclaw-runner §9 step 3,
//! OpenClaw 2026.4 `sanitizeSessionMessagesImages(…, "session:history")`).
//!
//! OpenClaw also downsizes oversized images here (longest side 1200 px, byte cap) with an
//! image codec; clawloop has none yet, so image payloads other than empty ones pass through
//! unchanged. Thought-signature stripping for Gemini (`stripThoughtSignatures`) and tool-call
//! id rewriting for Cloud Code Assist are not part of this step yet either.

use clawloop_core::StopReason;
use clawloop_core::js_text::js_trim;
use clawloop_core::message::{AgentMessage, ContentBlock, UserContent};

/// Which parts of the sanitation run (OpenClaw's transcript policy `sanitizeMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SanitizeMode {
    /// Images, and blank text blocks of assistant messages (and assistant messages left
    /// empty by that).
    #[default]
    Full,
    /// Images only.
    ImagesOnly,
}

/// The label OpenClaw gives replayed history in its notices.
const LABEL: &str = "session:history";

/// History with image payloads sanitized (an image with blank data becomes the text
/// `[session:history] omitted empty image payload`) in tool results, user messages with block
/// content and assistant messages. In [`SanitizeMode::Full`], assistant messages that did not
/// fail also lose blank text blocks, and are dropped when nothing is left.
pub fn sanitize_session_messages_images(
    messages: &[AgentMessage],
    mode: SanitizeMode,
) -> Vec<AgentMessage> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            AgentMessage::ToolResult(m) => {
                let mut m = m.clone();
                m.content = sanitize_images(m.content);
                out.push(AgentMessage::ToolResult(m));
            }
            AgentMessage::User(u) if matches!(u.content, UserContent::Blocks(_)) => {
                let mut u = u.clone();
                if let UserContent::Blocks(blocks) = u.content {
                    u.content = UserContent::Blocks(sanitize_images(blocks));
                }
                out.push(AgentMessage::User(u));
            }
            AgentMessage::Assistant(a) => {
                let mut a = a.clone();
                let failed = a.stop_reason == StopReason::Error;
                if mode == SanitizeMode::Full && !failed {
                    a.content
                        .retain(|b| !b.as_text().is_some_and(|t| js_trim(t).is_empty()));
                    a.content = sanitize_images(a.content);
                    if a.content.is_empty() {
                        continue;
                    }
                } else {
                    a.content = sanitize_images(a.content);
                }
                out.push(AgentMessage::Assistant(a));
            }
            other => out.push(other.clone()),
        }
    }
    out
}

fn sanitize_images(blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    blocks
        .into_iter()
        .map(|block| match block {
            ContentBlock::Image(img) if js_trim(&img.data).is_empty() => {
                ContentBlock::text(format!("[{LABEL}] omitted empty image payload"))
            }
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ToolResultMessage, UserMessage};
    use pretty_assertions::assert_eq;

    fn assistant(blocks: Vec<ContentBlock>, stop: StopReason) -> AgentMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
        m.content = blocks;
        m.stop_reason = stop;
        m.into()
    }

    #[test]
    fn empty_images_become_notices_and_blank_assistant_text_goes() {
        let mut tool = ToolResultMessage::text("c", "shot", "see", false, 0);
        tool.content.push(ContentBlock::image("  ", "image/png"));
        tool.content.push(ContentBlock::image("AAAA", "image/png"));
        let user = AgentMessage::User(UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::image("", "image/jpeg")]),
            timestamp: 0,
            extra: Default::default(),
        });
        let input = vec![
            user,
            tool.clone().into(),
            assistant(
                vec![ContentBlock::text(" "), ContentBlock::text("ok")],
                StopReason::Stop,
            ),
            assistant(vec![ContentBlock::text("  ")], StopReason::Stop),
            assistant(vec![ContentBlock::text(" ")], StopReason::Error),
        ];
        let notice = || ContentBlock::text("[session:history] omitted empty image payload");
        let mut tool_out = tool;
        tool_out.content[1] = notice();
        let want_user = AgentMessage::User(UserMessage {
            content: UserContent::Blocks(vec![notice()]),
            timestamp: 0,
            extra: Default::default(),
        });
        assert_eq!(
            sanitize_session_messages_images(&input, SanitizeMode::Full),
            vec![
                want_user.clone(),
                tool_out.clone().into(),
                assistant(vec![ContentBlock::text("ok")], StopReason::Stop),
                input[4].clone(),
            ]
        );
        assert_eq!(
            sanitize_session_messages_images(&input, SanitizeMode::ImagesOnly),
            vec![
                want_user,
                tool_out.into(),
                input[2].clone(),
                input[3].clone(),
                input[4].clone()
            ]
        );
    }
}
