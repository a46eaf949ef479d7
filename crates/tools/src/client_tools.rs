//! Client (hosted) tools (SPEC §7): tools the embedder's client runs itself. Their definitions
//! come with the run and are offered to the model like any tool; a call is not executed here but
//! recorded as pending, and the runner ends the run with `stopReason: "tool_calls"` and the
//! pending calls (OpenClaw's `pendingToolCalls`: `[{id, name, arguments}]`, `arguments` being
//! the JSON text of the call's arguments).

use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::{Arc, Mutex, PoisonError};

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::schema::strip_root_metadata;

/// A client tool as the client supplies it (the OpenAI function-tool shape OpenClaw accepts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientToolDefinition {
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The function.
    pub function: ClientFunction,
}

/// The function of a [`ClientToolDefinition`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientFunction {
    /// Tool name.
    pub name: String,
    /// What it does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON schema of the arguments (an empty object schema when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

fn function_type() -> String {
    "function".to_owned()
}

impl ClientToolDefinition {
    /// A definition with the given name, description and parameters schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ClientToolDefinition {
            kind: function_type(),
            function: ClientFunction {
                name: name.into(),
                description: Some(description.into()),
                parameters: Some(parameters),
            },
        }
    }
}

/// A client tool call waiting for the client (one entry of `pendingToolCalls`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingToolCall {
    /// A fresh id of 9 hex digits, as OpenClaw issues.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
    /// The model's tool call id, to match the client's answer to the transcript (not part of
    /// OpenClaw's wire shape).
    #[serde(skip)]
    pub tool_call_id: String,
}

/// The pending calls of one run, shared between the client tools and the runner.
#[derive(Debug, Clone, Default)]
pub struct PendingToolCalls {
    calls: Arc<Mutex<Vec<PendingToolCall>>>,
}

impl PendingToolCalls {
    /// An empty list.
    pub fn new() -> Self {
        PendingToolCalls::default()
    }

    /// Records a call.
    pub fn record(&self, call: PendingToolCall) {
        self.lock().push(call);
    }

    /// The calls recorded so far.
    pub fn snapshot(&self) -> Vec<PendingToolCall> {
        self.lock().clone()
    }

    /// Removes and returns the calls recorded so far.
    pub fn take(&self) -> Vec<PendingToolCall> {
        std::mem::take(&mut *self.lock())
    }

    /// Whether a client tool was called.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PendingToolCall>> {
        // A panic while holding the lock cannot leave the list half-updated (push/clone only).
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A client tool: offered to the model, recorded as pending when called.
#[derive(Debug, Clone)]
pub struct ClientTool {
    name: String,
    description: String,
    parameters: Value,
    pending: PendingToolCalls,
}

impl ClientTool {
    /// A client tool from its definition, recording calls into `pending`.
    pub fn new(definition: ClientToolDefinition, pending: PendingToolCalls) -> Self {
        let mut parameters = definition
            .function
            .parameters
            .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
        strip_root_metadata(&mut parameters);
        ClientTool {
            name: definition.function.name,
            description: definition.function.description.unwrap_or_default(),
            parameters,
            pending,
        }
    }
}

/// Client tools for `definitions`, all recording into `pending`.
pub fn client_tools(
    definitions: impl IntoIterator<Item = ClientToolDefinition>,
    pending: &PendingToolCalls,
) -> Vec<Arc<dyn Tool>> {
    definitions
        .into_iter()
        .map(|definition| Arc::new(ClientTool::new(definition, pending.clone())) as Arc<dyn Tool>)
        .collect()
}

impl Tool for ClientTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
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
            // OpenClaw passes non-object arguments on as `{}`.
            let args = if args.is_object() { args } else { json!({}) };
            self.pending.record(PendingToolCall {
                id: pending_id(tool_call_id),
                name: self.name.clone(),
                arguments: args.to_string(),
                tool_call_id: tool_call_id.to_owned(),
            });
            // OpenClaw's `jsonResult`: the payload pretty-printed as text and as details.
            let payload = json!({
                "status": "pending",
                "tool": self.name,
                "message": "Tool execution delegated to client",
            });
            let text = serde_json::to_string_pretty(&payload)
                .map_err(|err| ToolError::Failed(err.to_string()))?;
            let mut result = ToolResult::text(text);
            result.details = Some(payload);
            Ok(result)
        })
    }
}

/// 9 random hex digits (std's randomly keyed hasher; no RNG dependency for one id per call).
fn pending_id(tool_call_id: &str) -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write(tool_call_id.as_bytes());
    format!("{:09x}", hasher.finish() & 0xf_ffff_ffff)
}
