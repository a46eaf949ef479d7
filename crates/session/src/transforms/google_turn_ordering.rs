//! Google turn ordering (reference openclaw-runner §9 step 11, OpenClaw
//! `sanitizeGoogleTurnOrdering`): Google's chat APIs (and strict OpenAI-compatible servers)
//! reject a history that starts with a model turn, which happens after a reset that kept a
//! delivered assistant message.

use clawloop_core::message::{AgentMessage, UserContent, UserMessage};

/// The user message put before a history that starts with an assistant message.
pub const GOOGLE_TURN_ORDER_BOOTSTRAP_TEXT: &str = "(session bootstrap)";

/// `messages` with a `(session bootstrap)` user message (string content, timestamp `now_ms`)
/// in front when the first message is an assistant message; otherwise unchanged. Applying it
/// twice changes nothing more.
pub fn sanitize_google_turn_ordering(messages: &[AgentMessage], now_ms: u64) -> Vec<AgentMessage> {
    match messages.first() {
        Some(AgentMessage::Assistant(_)) => {
            let mut out = Vec::with_capacity(messages.len() + 1);
            out.push(AgentMessage::User(UserMessage {
                content: UserContent::Text(GOOGLE_TURN_ORDER_BOOTSTRAP_TEXT.to_owned()),
                timestamp: now_ms,
                extra: Default::default(),
            }));
            out.extend_from_slice(messages);
            out
        }
        // A history that already starts with the bootstrap (or any user turn) is fine.
        _ => messages.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::AssistantMessage;
    use pretty_assertions::assert_eq;

    #[test]
    fn prepends_once() {
        let a: AgentMessage =
            AssistantMessage::empty("google-generative-ai", "google", "g", 1).into();
        let once = sanitize_google_turn_ordering(std::slice::from_ref(&a), 5);
        let bootstrap = AgentMessage::User(UserMessage {
            content: UserContent::Text("(session bootstrap)".into()),
            timestamp: 5,
            extra: Default::default(),
        });
        assert_eq!(once, vec![bootstrap.clone(), a.clone()]);
        assert_eq!(sanitize_google_turn_ordering(&once, 9), once);
        let u: AgentMessage = UserMessage::text("hi", 0).into();
        assert_eq!(
            sanitize_google_turn_ordering(&[u.clone(), a.clone()], 5),
            vec![u, a]
        );
        assert_eq!(
            sanitize_google_turn_ordering(&[], 5),
            Vec::<AgentMessage>::new()
        );
    }
}
