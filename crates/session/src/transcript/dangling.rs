//! Answering the tool calls a killed run left without results, in the file: what a run does
//! before its turn, and what `clawloop doctor --fix` does to a resting session.

use super::Transcript;
use crate::error::SessionError;
use crate::transforms::dangling_tool_call_results;

impl Transcript {
    /// Appends a synthetic error result (the pairing repair's text) for every call of the
    /// branch's last assistant message that no tool result answers, in call order, as
    /// [`dangling_tool_call_results`] finds them, stamped `now_ms`. Returns the answered call
    /// ids; nothing is written when there are none.
    pub fn answer_dangling_tool_calls(&mut self, now_ms: u64) -> Result<Vec<String>, SessionError> {
        let context = self.build_context();
        let results = dangling_tool_call_results(&context.messages, now_ms);
        let mut answered = Vec::with_capacity(results.len());
        for result in results {
            answered.push(result.tool_call_id.clone());
            self.append_message(result)?;
        }
        Ok(answered)
    }
}

#[cfg(test)]
mod tests {
    use clawloop_core::StopReason;
    use clawloop_core::message::{
        AgentMessage, AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, UserMessage,
    };
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use crate::{SessionOptions, Transcript};

    #[test]
    fn unanswered_calls_are_answered_in_the_file_once() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("s.jsonl");
        let mut t = Transcript::open(&path, SessionOptions::default())?;
        t.append_message(UserMessage::text("go", 1))?;
        let mut call = AssistantMessage::empty("openai-completions", "acme", "m1", 2);
        call.content.push(ContentBlock::ToolCall(ToolCall::new(
            "c1",
            "read",
            json!({}),
        )));
        call.content
            .push(ContentBlock::ToolCall(ToolCall::new("c2", "ls", json!({}))));
        call.stop_reason = StopReason::ToolUse;
        t.append_message(call)?;
        t.append_message(ToolResultMessage::text("c1", "read", "ok", false, 3))?;
        drop(t);

        let mut t = Transcript::open_locked(&path, SessionOptions::default())?;
        assert_eq!(t.answer_dangling_tool_calls(9)?, vec!["c2".to_owned()]);
        assert_eq!(t.answer_dangling_tool_calls(10)?, Vec::<String>::new());
        drop(t);

        let reopened = Transcript::open(&path, SessionOptions::default())?;
        let last = reopened.build_context().messages.last().cloned();
        let Some(AgentMessage::ToolResult(result)) = last else {
            return Err(format!("last message is not a tool result: {last:?}").into());
        };
        assert_eq!(
            (
                result.tool_call_id.as_str(),
                result.tool_name.as_str(),
                result.is_error,
                result.timestamp
            ),
            ("c2", "ls", true, 9)
        );
        Ok(())
    }
}
