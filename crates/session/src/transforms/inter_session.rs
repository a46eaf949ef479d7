//! Marking messages that came from another session (reference openclaw-runner §9 step 2,
//! OpenClaw `annotateInterSessionUserMessages`): a user message with inter-session provenance
//! is text another agent sent, and the model must not mistake it for its user's words.

use serde_json::Value;

use clawloop_core::message::{AgentMessage, ContentBlock, UserContent, UserMessage};

use super::tool_ids::trimmed_non_empty;

/// The start of the prefix put on inter-session user messages.
pub const INTER_SESSION_PREFIX_BASE: &str = "[Inter-session message]";

/// User messages whose `provenance.kind` is `inter_session` get the prefix
/// `[Inter-session message]` (plus ` sourceSession=… sourceChannel=… sourceTool=…` for the
/// provenance fields present) and a newline before their text: a string content is prefixed,
/// else the first text block, else a text block holding only the prefix is put first. A text
/// that already starts with the prefix is left alone, so the step can run on every replay.
pub fn annotate_inter_session_user_messages(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    messages
        .iter()
        .map(|message| match message {
            AgentMessage::User(u) => match inter_session_prefix(u) {
                Some(prefix) => AgentMessage::User(annotate(u, &prefix)),
                None => message.clone(),
            },
            _ => message.clone(),
        })
        .collect()
}

/// The prefix for a user message with inter-session provenance.
fn inter_session_prefix(message: &UserMessage) -> Option<String> {
    let provenance = message.extra.get("provenance")?.as_object()?;
    if provenance.get("kind").and_then(Value::as_str) != Some("inter_session") {
        return None;
    }
    let details: Vec<String> = [
        ("sourceSession", "sourceSessionKey"),
        ("sourceChannel", "sourceChannel"),
        ("sourceTool", "sourceTool"),
    ]
    .iter()
    .filter_map(|(label, field)| {
        trimmed_non_empty(provenance.get(*field)).map(|v| format!("{label}={v}"))
    })
    .collect();
    Some(if details.is_empty() {
        INTER_SESSION_PREFIX_BASE.to_owned()
    } else {
        format!("{INTER_SESSION_PREFIX_BASE} {}", details.join(" "))
    })
}

fn annotate(message: &UserMessage, prefix: &str) -> UserMessage {
    let mut out = message.clone();
    match &mut out.content {
        UserContent::Text(text) => {
            if !text.starts_with(prefix) {
                *text = format!("{prefix}\n{text}");
            }
        }
        UserContent::Blocks(blocks) => {
            match blocks.iter_mut().find_map(|b| match b {
                ContentBlock::Text(t) => Some(t),
                _ => None,
            }) {
                Some(t) => {
                    if !t.text.starts_with(prefix) {
                        t.text = format!("{prefix}\n{}", t.text);
                    }
                }
                None => blocks.insert(0, ContentBlock::text(prefix)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn user(content: UserContent, provenance: Option<Value>) -> AgentMessage {
        let mut m = UserMessage {
            content,
            timestamp: 0,
            extra: Default::default(),
        };
        if let Some(p) = provenance {
            m.extra.insert("provenance".into(), p);
        }
        m.into()
    }

    #[test]
    fn prefixes_once() {
        let full = json!({"kind": "inter_session", "sourceSessionKey": " agent:x ", "sourceTool": "sessions_send", "sourceChannel": ""});
        let bare = json!({"kind": "inter_session"});
        let input = vec![
            user(UserContent::Text("hello".into()), Some(full.clone())),
            user(
                UserContent::Blocks(vec![
                    ContentBlock::image("AA", "image/png"),
                    ContentBlock::text("t"),
                ]),
                Some(bare.clone()),
            ),
            user(
                UserContent::Blocks(vec![ContentBlock::image("AA", "image/png")]),
                Some(bare.clone()),
            ),
            user(
                UserContent::Text("mine".into()),
                Some(json!({"kind": "external_user"})),
            ),
            user(UserContent::Text("plain".into()), None),
        ];
        let once = annotate_inter_session_user_messages(&input);
        assert_eq!(
            once,
            vec![
                user(UserContent::Text("[Inter-session message] sourceSession=agent:x sourceTool=sessions_send\nhello".into()), Some(full)),
                user(UserContent::Blocks(vec![ContentBlock::image("AA", "image/png"), ContentBlock::text("[Inter-session message]\nt")]), Some(bare.clone())),
                user(UserContent::Blocks(vec![ContentBlock::text("[Inter-session message]"), ContentBlock::image("AA", "image/png")]), Some(bare)),
                input[3].clone(),
                input[4].clone(),
            ]
        );
        assert_eq!(annotate_inter_session_user_messages(&once), once);
    }
}
