//! The built-in tool set (pi-mono §3.7) and pi's named subsets.

use std::sync::Arc;

use clawloop_core::tool::Tool;

use crate::bash::BashTool;
use crate::edit::EditTool;
use crate::find::FindTool;
use crate::grep::GrepTool;
use crate::ls::LsTool;
use crate::message_tool::{MessageSink, MessageTool};
use crate::read::ReadTool;
use crate::write::WriteTool;

/// Every built-in coding tool's name, in [`builtin_tools`] order (pi's `allTools`).
pub const ALL_TOOLS: [&str; 7] = ["read", "write", "edit", "bash", "grep", "find", "ls"];

/// pi's `codingTools`, the default active set.
pub const CODING_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// pi's `readOnlyTools`.
pub const READ_ONLY_TOOLS: [&str; 4] = ["read", "grep", "find", "ls"];

/// The built-in tools: `read`, `write`, `edit`, `bash`, `grep`, `find`, `ls`, and `message`
/// when a sink is given. Narrow the set with a [`ToolPolicy`](crate::policy::ToolPolicy).
pub fn builtin_tools(message_sink: Option<Arc<dyn MessageSink>>) -> Vec<Arc<dyn Tool>> {
    builtin_tools_with_bash(message_sink, BashTool::new())
}

/// [`builtin_tools`] with this `bash` (e.g. [`BashTool::offering_unsandboxed`] for an
/// `approval = "on-request"` session).
pub fn builtin_tools_with_bash(
    message_sink: Option<Arc<dyn MessageSink>>,
    bash: BashTool,
) -> Vec<Arc<dyn Tool>> {
    let mut tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(ReadTool::new()),
        Arc::new(WriteTool::new()),
        Arc::new(EditTool::new()),
        Arc::new(bash),
        Arc::new(GrepTool::new()),
        Arc::new(FindTool::new()),
        Arc::new(LsTool::new()),
    ];
    if let Some(sink) = message_sink {
        tools.push(Arc::new(MessageTool::new(sink)));
    }
    tools
}
