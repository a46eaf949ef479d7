//! The tool seam: what the agent loop calls when the model asks for a tool.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::approval::ToolApproval;
use crate::message::ContentBlock;
use crate::model::ToolDefinition;
use crate::sandbox::ToolSandbox;

/// A boxed, sendable future: what the object-safe async traits of this crate return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a tool produced, as pi's agent events carry it (`{content, details}`): the `result` of
/// `tool_execution_end` and the `partialResult` of `tool_execution_update`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentToolResult {
    /// Text and image blocks for the model.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Tool-specific data for the UI; never sent to the model.
    #[serde(
        default,
        deserialize_with = "crate::message::present",
        skip_serializing_if = "Option::is_none"
    )]
    pub details: Option<Value>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AgentToolResult {
    /// A result with one text block and `details: {}` (pi's shape for error results).
    pub fn text(text: impl Into<String>) -> Self {
        AgentToolResult {
            content: vec![ContentBlock::text(text)],
            details: Some(Value::Object(Map::new())),
            extra: Map::new(),
        }
    }
}

/// The outcome of a tool call that ran.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResult {
    /// Text and image blocks for the model.
    pub content: Vec<ContentBlock>,
    /// Tool-specific data for the UI; never sent to the model.
    pub details: Option<Value>,
    /// Whether the call failed in a way the model should see as an error (a tool may also
    /// return [`ToolError`], which the loop turns into an error result).
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![ContentBlock::text(text)],
            details: None,
            is_error: false,
        }
    }

    /// An error result with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        ToolResult {
            content: vec![ContentBlock::text(text)],
            details: None,
            is_error: true,
        }
    }

    /// The event payload and the error flag.
    pub fn into_parts(self) -> (AgentToolResult, bool) {
        let result = AgentToolResult {
            content: self.content,
            details: self.details,
            extra: Map::new(),
        };
        (result, self.is_error)
    }
}

/// Why a tool call failed. The `Display` text is what the model reads in the error result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not fit the tool (after schema validation).
    #[error("{0}")]
    InvalidArguments(String),
    /// The call was cancelled.
    #[error("Operation aborted")]
    Aborted,
    /// The call ran past its time limit.
    #[error("{0}")]
    Timeout(String),
    /// An I/O operation failed; `message` says which and on what.
    #[error("{message}")]
    Io {
        /// The text for the model, naming the operation and path.
        message: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Any other failure, described for the model.
    #[error("{0}")]
    Failed(String),
}

/// Limits a tool must respect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolLimits {
    /// Output kept for the model, in lines (pi: 2000).
    pub max_output_lines: usize,
    /// Output kept for the model, in bytes (pi: 50 KB).
    pub max_output_bytes: usize,
    /// Time limit of one call; `None` for none.
    pub timeout: Option<Duration>,
    /// Whether paths may leave the workspace (`..`, absolute paths, symlinks).
    pub allow_outside_workspace: bool,
}

impl Default for ToolLimits {
    fn default() -> Self {
        ToolLimits {
            max_output_lines: 2000,
            max_output_bytes: 50 * 1024,
            timeout: None,
            allow_outside_workspace: false,
        }
    }
}

/// Where and how a tool runs. It replaces process-global state: tools resolve paths against
/// `cwd` and give child processes `env` explicitly — nothing calls `chdir` or `set_var`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolContext {
    /// The workspace root; paths may not leave it unless the limits allow.
    pub workspace_root: PathBuf,
    /// Working directory for relative paths and child processes.
    pub cwd: PathBuf,
    /// Environment variables set for child processes, over the inherited environment.
    pub env: BTreeMap<String, String>,
    /// Output, time and path limits.
    pub limits: ToolLimits,
    /// The sandbox commands run in; `None` runs them unconfined (pi's behavior).
    pub sandbox: Option<ToolSandbox>,
    /// When commands need the host's approval, and who gives it; `None` never asks.
    pub approval: Option<ToolApproval>,
}

impl ToolContext {
    /// A context rooted at `workspace_root`, working there, default limits.
    pub fn new(workspace_root: impl Into<PathBuf>) -> Self {
        let workspace_root = workspace_root.into();
        ToolContext {
            cwd: workspace_root.clone(),
            workspace_root,
            env: BTreeMap::new(),
            limits: ToolLimits::default(),
            sandbox: None,
            approval: None,
        }
    }
}

/// Receives partial results while a tool runs (each becomes a `tool_execution_update`).
pub type ToolUpdate = Arc<dyn Fn(AgentToolResult) + Send + Sync>;

/// A tool the model can call. The runner holds tools as `Arc<dyn Tool>`.
///
/// `execute` gets arguments already validated against [`Tool::parameters`]. It must stop soon
/// after `cancel` fires (returning [`ToolError::Aborted`]) and must not touch process-global
/// state (see [`ToolContext`]). Calls may run in parallel.
pub trait Tool: Send + Sync {
    /// The name the model calls.
    fn name(&self) -> &str;

    /// A human-readable name for the UI.
    fn label(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// JSON schema of the arguments object.
    fn parameters(&self) -> &Value;

    /// Whether a call may change state outside the conversation (files, processes, messages).
    /// Defaults to `true`: assuming side effects is the safe mistake.
    fn is_mutating(&self) -> bool {
        true
    }

    /// Runs one call.
    fn execute<'a>(
        &'a self,
        tool_call_id: &'a str,
        args: Value,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
        on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>>;

    /// The definition sent to the model.
    fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters().clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::sync::Mutex;
    use std::task::{Context, Poll, Waker};

    struct Echo {
        schema: Value,
    }

    impl Tool for Echo {
        fn name(&self) -> &str {
            "echo"
        }
        fn label(&self) -> &str {
            "Echo"
        }
        fn description(&self) -> &str {
            "Repeats its text."
        }
        fn parameters(&self) -> &Value {
            &self.schema
        }
        fn is_mutating(&self) -> bool {
            false
        }
        fn execute<'a>(
            &'a self,
            _tool_call_id: &'a str,
            args: Value,
            ctx: &'a ToolContext,
            cancel: CancellationToken,
            on_update: ToolUpdate,
        ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
            Box::pin(async move {
                if cancel.is_cancelled() {
                    return Err(ToolError::Aborted);
                }
                let text = args["text"]
                    .as_str()
                    .ok_or_else(|| ToolError::InvalidArguments("text is required".into()))?;
                on_update(AgentToolResult::text("working"));
                Ok(ToolResult::text(format!("{text} in {}", ctx.cwd.display())))
            })
        }
    }

    fn run(fut: BoxFuture<'_, Result<ToolResult, ToolError>>) -> Result<ToolResult, ToolError> {
        let mut fut = fut;
        match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(ToolError::Failed("pending".into())),
        }
    }

    #[test]
    fn a_tool_runs_through_the_trait_object() {
        let tool: Arc<dyn Tool> = Arc::new(Echo {
            schema: json!({"type": "object"}),
        });
        let ctx = ToolContext::new("/ws");
        let updates = Arc::new(Mutex::new(Vec::new()));
        let sink = updates.clone();
        let on_update: ToolUpdate = Arc::new(move |r| sink.lock().unwrap().push(r));
        let result = run(tool.execute(
            "c1",
            json!({"text": "hi"}),
            &ctx,
            CancellationToken::new(),
            on_update.clone(),
        ));
        assert_eq!(result.unwrap(), ToolResult::text("hi in /ws"));
        assert_eq!(
            *updates.lock().unwrap(),
            vec![AgentToolResult::text("working")]
        );

        let err = run(tool.execute(
            "c2",
            json!({}),
            &ctx,
            CancellationToken::new(),
            on_update.clone(),
        ))
        .unwrap_err();
        assert_eq!(err.to_string(), "text is required");
        let cancel = CancellationToken::new();
        cancel.cancel();
        let err =
            run(tool.execute("c3", json!({"text": "x"}), &ctx, cancel, on_update)).unwrap_err();
        assert_eq!(err.to_string(), "Operation aborted");

        assert_eq!(
            tool.definition(),
            ToolDefinition {
                name: "echo".into(),
                description: "Repeats its text.".into(),
                parameters: json!({"type": "object"})
            }
        );
        assert!(!tool.is_mutating());
    }

    #[test]
    fn agent_tool_result_is_pi_shaped() {
        let json = serde_json::to_string(&AgentToolResult::text("boom")).unwrap();
        assert_eq!(
            json,
            r#"{"content":[{"type":"text","text":"boom"}],"details":{}}"#
        );
        let (result, is_error) = ToolResult::error("bad").into_parts();
        assert!(is_error);
        assert_eq!(
            serde_json::to_string(&result).unwrap(),
            r#"{"content":[{"type":"text","text":"bad"}]}"#
        );
        assert_eq!(ToolContext::new("/ws").limits.max_output_bytes, 51_200);
    }
}
