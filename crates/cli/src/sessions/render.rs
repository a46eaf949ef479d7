//! A session's current branch as a conversation: the entries `show` and `export --format md`
//! render, each reduced to what a reader needs (texts, tool calls, results, summaries).

use clawloop_core::message::{AgentMessage, ContentBlock};
use clawloop_session::{SessionEntry, Transcript};
use serde_json::Value;

/// One step of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// What the user said.
    User {
        /// Its text (images are counted, not shown).
        text: String,
    },
    /// What the model answered.
    Assistant {
        /// `provider/model`.
        model: String,
        /// Its visible text.
        text: String,
        /// Tool calls, as name and arguments.
        tool_calls: Vec<(String, Value)>,
        /// The provider's error, for a failed reply.
        error: Option<String>,
    },
    /// A tool's result.
    ToolResult {
        /// The tool.
        name: String,
        /// Its text output.
        text: String,
        /// Whether the tool failed.
        is_error: bool,
    },
    /// A shell command run by the user (`!cmd`).
    Bash {
        /// The command.
        command: String,
        /// Its output.
        output: String,
    },
    /// A compaction: the history before it replaced by a summary.
    Compaction {
        /// The summary.
        summary: String,
        /// Context tokens before it.
        tokens_before: u64,
    },
    /// The summary of a branch the conversation left.
    BranchSummary {
        /// The summary.
        summary: String,
    },
    /// An extension's message.
    Custom {
        /// Its type.
        kind: String,
        /// Its text.
        text: String,
    },
    /// A note: a model or thinking-level change.
    Note(String),
}

/// One step of the conversation and the id of the entry it is (what `sessions fork --at`
/// takes).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The entry's id.
    pub id: String,
    /// What it says.
    pub item: Item,
}

/// The conversation on the transcript's current branch, root first.
pub fn conversation(transcript: &Transcript) -> Vec<Item> {
    steps(transcript)
        .into_iter()
        .map(|step| step.item)
        .collect()
}

/// The conversation with each step's entry id. Model and thinking-level changes before the
/// first message are the session's initial settings, not events, and are left out.
pub fn steps(transcript: &Transcript) -> Vec<Step> {
    let Some(leaf) = transcript.leaf_id() else {
        return Vec::new();
    };
    let mut steps: Vec<Step> = Vec::new();
    for entry in transcript.branch_path(leaf) {
        let Some(item) = item(entry) else {
            continue;
        };
        if matches!(item, Item::Note(_)) && steps.is_empty() {
            continue;
        }
        steps.push(Step {
            id: entry.id().to_owned(),
            item,
        });
    }
    steps
}

fn item(entry: &SessionEntry) -> Option<Item> {
    match entry {
        SessionEntry::Message(m) => message_item(&m.message),
        SessionEntry::Compaction(c) => Some(Item::Compaction {
            summary: c.summary.clone(),
            tokens_before: c.tokens_before,
        }),
        SessionEntry::BranchSummary(b) if !b.summary.is_empty() => Some(Item::BranchSummary {
            summary: b.summary.clone(),
        }),
        SessionEntry::CustomMessage(c) if c.display => Some(Item::Custom {
            kind: c.custom_type.clone(),
            text: c.content.text(),
        }),
        SessionEntry::ModelChange(c) => Some(Item::Note(format!(
            "model changed to {}/{}",
            c.provider, c.model_id
        ))),
        SessionEntry::ThinkingLevelChange(c) => Some(Item::Note(format!(
            "thinking level changed to {}",
            c.thinking_level
        ))),
        _ => None,
    }
}

fn message_item(message: &AgentMessage) -> Option<Item> {
    Some(match message {
        AgentMessage::User(_) => Item::User {
            text: with_images(message),
        },
        AgentMessage::Assistant(a) => Item::Assistant {
            model: format!("{}/{}", a.provider, a.model),
            text: a.text(),
            tool_calls: a
                .content
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::ToolCall(call) => {
                        Some((call.name.clone(), call.arguments.clone()))
                    }
                    _ => None,
                })
                .collect(),
            error: a.error_message.clone(),
        },
        AgentMessage::ToolResult(r) => Item::ToolResult {
            name: r.tool_name.clone(),
            text: with_images(message),
            is_error: r.is_error,
        },
        AgentMessage::BashExecution(b) => Item::Bash {
            command: b.command.clone(),
            output: b.output.clone(),
        },
        AgentMessage::Custom(c) => Item::Custom {
            kind: c.custom_type.clone(),
            text: c.content.text(),
        },
        AgentMessage::BranchSummary(b) => Item::BranchSummary {
            summary: b.summary.clone(),
        },
        AgentMessage::CompactionSummary(c) => Item::Compaction {
            summary: c.summary.clone(),
            tokens_before: c.tokens_before,
        },
        AgentMessage::Other(_) => return None,
    })
}

/// The message's text, with a note for each image (their bytes are not shown).
fn with_images(message: &AgentMessage) -> String {
    let blocks: &[ContentBlock] = match message {
        AgentMessage::User(u) => match &u.content {
            clawloop_core::message::UserContent::Blocks(blocks) => blocks,
            clawloop_core::message::UserContent::Text(_) => &[],
        },
        AgentMessage::ToolResult(r) => &r.content,
        _ => &[],
    };
    let images = blocks
        .iter()
        .filter(|b| matches!(b, ContentBlock::Image(_)))
        .count();
    let text = message.text();
    match images {
        0 => text,
        1 if text.is_empty() => "[image]".to_owned(),
        1 => format!("{text}\n[image]"),
        n if text.is_empty() => format!("[{n} images]"),
        n => format!("{text}\n[{n} images]"),
    }
}

/// A tool call's arguments on one line: `key=value` pairs (strings unquoted, their first line
/// only), cut to `max` characters.
pub fn args_summary(args: &Value, max: usize) -> String {
    let text = match args {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| match value {
                Value::String(s) => format!("{key}={}", first_line(s)),
                other => format!("{key}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    cut(&text, max)
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn first_line(s: &str) -> String {
    let mut lines = s.lines();
    let first = lines.next().unwrap_or("");
    if lines.next().is_some() {
        format!("{first}…")
    } else {
        first.to_owned()
    }
}

/// The first `max` lines of `text`, then how many more there were.
pub fn head_lines(text: &str, max: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= max {
        return lines.join("\n");
    }
    let more = lines.len() - max;
    format!(
        "{}\n… ({more} more line{})",
        lines[..max].join("\n"),
        if more == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn args_summary_is_one_short_line() {
        assert_eq!(
            args_summary(&json!({"path": "a.txt", "limit": 5}), 80),
            "path=a.txt limit=5"
        );
        assert_eq!(
            args_summary(&json!({"command": "ls\nrm -rf x"}), 80),
            "command=ls…"
        );
        assert_eq!(args_summary(&json!({"text": "abcdefgh"}), 8), "text=ab…");
    }

    #[test]
    fn head_lines_counts_what_it_left_out() {
        assert_eq!(head_lines("a\nb\nc", 3), "a\nb\nc");
        assert_eq!(head_lines("a\nb\nc\nd", 2), "a\nb\n… (2 more lines)");
        assert_eq!(head_lines("a\nb", 1), "a\n… (1 more line)");
    }
}
