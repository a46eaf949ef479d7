//! A scripted reply in API-neutral terms (FORMAT.md `run` kind, `reply`), which each wire API
//! encodes in its own format.
//!
//! The same script drives every endpoint: the server looks at the called path, picks the API
//! and asks that API's encoder for the body. Tests and users write one reply and get a faithful
//! OpenAI, Anthropic, Gemini or Ollama stream for it.

use serde::Deserialize;
use serde_json::{Map, Value};

/// One scripted HTTP response for an endpoint-aware scripted server.
///
/// Field names and meanings follow FORMAT.md's `reply` object. When `status` is not 2xx or
/// `raw` is set, the body is sent as given and no encoder runs.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScriptedReply {
    /// The whole answer text (one text delta), when `text_chunks` is not given.
    pub text: Option<String>,
    /// The answer text as separate deltas, in order.
    pub text_chunks: Option<Vec<String>>,
    /// Reasoning text streamed before the answer.
    pub thinking: Option<String>,
    /// Tool calls streamed after the text.
    pub tool_calls: Option<Vec<ScriptedToolCall>>,
    /// Token usage the client must decode into pi's `Usage` (`input` excludes cached tokens).
    pub usage: Option<ScriptedUsage>,
    /// The finish reason; defaults to `toolUse` when there are tool calls, else `stop`.
    pub stop_reason: Option<ScriptedStopReason>,
    /// HTTP status (default 200).
    pub status: Option<u16>,
    /// A body sent verbatim (a JSON value is serialized; a string is sent as is).
    pub body: Option<Value>,
    /// Extra response headers.
    pub headers: Option<Map<String, Value>>,
    /// Start the stream, then send the API's in-stream error event with this message.
    pub stream_error: Option<String>,
    /// Close the connection after this many data chunks, without a terminal event.
    pub drop_after_chunks: Option<usize>,
    /// Wait this long before the first body byte (or after `stall_after_chunks` chunks).
    pub stall_ms: Option<u64>,
    /// The number of data chunks after which `stall_ms` applies.
    pub stall_after_chunks: Option<usize>,
    /// Wait this long between data chunks.
    pub chunk_delay_ms: Option<u64>,
    /// A raw body sent verbatim instead of an encoded stream.
    pub raw: Option<String>,
    /// The `content-type` of a `raw` or `body` response.
    pub content_type: Option<String>,
}

/// A scripted tool call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScriptedToolCall {
    /// The call id; encoders make one up (`call_<n>`) when absent.
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// The arguments as a JSON object.
    pub arguments: Option<Value>,
    /// The arguments as raw text, sent verbatim (may be malformed on purpose).
    pub arguments_raw: Option<String>,
}

/// Scripted token usage, in pi's terms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScriptedUsage {
    /// Non-cached input tokens.
    #[serde(default)]
    pub input: u64,
    /// Output tokens.
    #[serde(default)]
    pub output: u64,
    /// Cached input tokens read.
    #[serde(default)]
    pub cache_read: u64,
    /// Cached input tokens written.
    #[serde(default)]
    pub cache_write: u64,
}

/// The finish reason a scripted reply ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ScriptedStopReason {
    /// A normal end.
    Stop,
    /// The output token limit.
    Length,
    /// Tool calls follow.
    ToolUse,
}

impl ScriptedReply {
    /// The answer text deltas: `text_chunks`, else `text` as one delta, else none.
    pub fn text_deltas(&self) -> Vec<&str> {
        match (&self.text_chunks, &self.text) {
            (Some(chunks), _) => chunks.iter().map(String::as_str).collect(),
            (None, Some(text)) => vec![text.as_str()],
            (None, None) => Vec::new(),
        }
    }

    /// The effective finish reason: the scripted one, else `toolUse` with tool calls, else
    /// `stop`.
    pub fn effective_stop_reason(&self) -> ScriptedStopReason {
        match self.stop_reason {
            Some(reason) => reason,
            None if self.tool_calls.as_ref().is_some_and(|c| !c.is_empty()) => {
                ScriptedStopReason::ToolUse
            }
            None => ScriptedStopReason::Stop,
        }
    }

    /// The tool calls with ids filled in (`call_1`, `call_2`, … for missing ones).
    pub fn tool_calls_with_ids(&self) -> Vec<(String, &ScriptedToolCall)> {
        self.tool_calls
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, call)| {
                let id = call.id.clone().unwrap_or_else(|| format!("call_{}", i + 1));
                (id, call)
            })
            .collect()
    }
}

impl ScriptedToolCall {
    /// The arguments as the JSON text to stream: `arguments_raw` verbatim, else `arguments`
    /// serialized, else `{}`.
    pub fn arguments_text(&self) -> String {
        if let Some(raw) = &self.arguments_raw {
            return raw.clone();
        }
        match &self.arguments {
            Some(value) => value.to_string(),
            None => "{}".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_format_md_reply_and_derives_defaults() {
        let reply: ScriptedReply = serde_json::from_value(serde_json::json!({
            "textChunks": ["Hel", "lo"],
            "toolCalls": [{"name": "read", "arguments": {"path": "a"}}, {"id": "x", "name": "ls", "argumentsRaw": "{bad"}],
            "usage": {"input": 3, "cacheRead": 2}
        }))
        .unwrap();
        assert_eq!(reply.text_deltas(), vec!["Hel", "lo"]);
        assert_eq!(reply.effective_stop_reason(), ScriptedStopReason::ToolUse);
        let calls: Vec<(String, String)> = reply
            .tool_calls_with_ids()
            .into_iter()
            .map(|(id, c)| (id, c.arguments_text()))
            .collect();
        assert_eq!(
            calls,
            vec![
                ("call_1".to_owned(), r#"{"path":"a"}"#.to_owned()),
                ("x".to_owned(), "{bad".to_owned())
            ]
        );
        assert_eq!(
            reply.usage,
            Some(ScriptedUsage {
                input: 3,
                output: 0,
                cache_read: 2,
                cache_write: 0
            })
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let err = serde_json::from_value::<ScriptedReply>(serde_json::json!({"txt": "x"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `txt`"), "{err}");
    }
}
