//! The `message` tool (SPEC §7): sends text to the user's channel through a sink the embedder
//! supplies (the CLI prints to the terminal). The subscription's messaging dedupe reads the
//! call's `message` (or `content`) and `target` arguments, so their names are fixed.

use std::sync::Arc;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::args_schema::parse_args;
use crate::schema::generate;

/// The tool's name.
pub const MESSAGE_TOOL_NAME: &str = "message";

/// What to do with the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MessageAction {
    /// A new message.
    Send,
    /// A reply in the current thread.
    ThreadReply,
}

impl MessageAction {
    /// The wire name (`send`, `thread-reply`).
    pub fn as_str(self) -> &'static str {
        match self {
            MessageAction::Send => "send",
            MessageAction::ThreadReply => "thread-reply",
        }
    }
}

/// The `message` tool's arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct MessageArgs {
    /// `send` for a new message, `thread-reply` to answer in the current thread.
    #[schemars(schema_with = "action_schema")]
    pub action: MessageAction,
    /// The text to send.
    #[serde(default)]
    pub message: Option<String>,
    /// Alias of `message`.
    #[serde(default)]
    pub content: Option<String>,
    /// Where to send it (a channel or user id); the current conversation when omitted.
    #[serde(default)]
    pub target: Option<String>,
}

/// A plain string enum: the derived schema (a `oneOf` of documented `const`s) is needlessly
/// heavy for the model and for Gemini.
fn action_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "enum": ["send", "thread-reply"]})
}

/// One message for the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// The call that sent it.
    pub tool_call_id: String,
    /// `send` or `thread-reply`.
    pub action: MessageAction,
    /// The text.
    pub text: String,
    /// The target, if the model named one.
    pub target: Option<String>,
}

/// Delivers messages to the user's channel; supplied by the embedder.
pub trait MessageSink: Send + Sync {
    /// Sends `message`; `Ok` may carry the channel's message id. The error text reaches the
    /// model.
    fn send<'a>(
        &'a self,
        message: OutgoingMessage,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<Option<String>, String>>;
}

/// The `message` tool.
#[derive(Clone)]
pub struct MessageTool {
    sink: Arc<dyn MessageSink>,
    parameters: Value,
}

impl std::fmt::Debug for MessageTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageTool").finish_non_exhaustive()
    }
}

impl MessageTool {
    /// The tool, sending through `sink`.
    pub fn new(sink: Arc<dyn MessageSink>) -> Self {
        MessageTool {
            sink,
            parameters: generate::<MessageArgs>(),
        }
    }
}

impl Tool for MessageTool {
    fn name(&self) -> &str {
        MESSAGE_TOOL_NAME
    }

    fn label(&self) -> &str {
        "Message"
    }

    fn description(&self) -> &str {
        "Send a message to the user's channel. Use action \"send\" for a new message or \
         \"thread-reply\" to answer in the current thread; put the text in \"message\"."
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn execute<'a>(
        &'a self,
        tool_call_id: &'a str,
        args: Value,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(ToolError::Aborted);
            }
            let args: MessageArgs = parse_args(args)?;
            // OpenClaw reads `content ?? message`; `message` is the documented name, so it wins
            // when both are given.
            let text = args
                .message
                .or(args.content)
                .filter(|text| !text.trim().is_empty())
                .ok_or_else(|| {
                    ToolError::InvalidArguments("message is required (or content)".to_owned())
                })?;
            let outgoing = OutgoingMessage {
                tool_call_id: tool_call_id.to_owned(),
                action: args.action,
                text,
                target: args.target.clone(),
            };
            let sent = tokio::select! {
                sent = self.sink.send(outgoing, cancel.clone()) => sent,
                () = cancel.cancelled() => return Err(ToolError::Aborted),
            };
            let message_id =
                sent.map_err(|err| ToolError::Failed(format!("Message not sent: {err}")))?;
            let mut payload = json!({"ok": true, "action": args.action.as_str()});
            if let Some(target) = args.target {
                payload["target"] = Value::String(target);
            }
            if let Some(id) = message_id {
                payload["messageId"] = Value::String(id);
            }
            let text = serde_json::to_string_pretty(&payload)
                .map_err(|err| ToolError::Failed(err.to_string()))?;
            let mut result = ToolResult::text(text);
            result.details = Some(payload);
            Ok(result)
        })
    }
}
