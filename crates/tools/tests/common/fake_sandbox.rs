//! The sandbox test double and one-call helpers of the sandbox and approval tests.

use std::sync::{Arc, Mutex};

use clawloop_core::sandbox::{
    CommandOutcome, CommandSandbox, ConfinedCommand, SandboxCommand, SandboxError, SandboxPolicy,
    StopBy,
};
use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A test double of core's sandbox seam: runs the command as asked but with a three-variable
/// environment (`PATH`, `ONLY=this`, `CONFINED=yes`), keeps every command it confined, refuses
/// all when `refuse`, and notes every failure.
#[derive(Debug, Default)]
pub struct FakeSandbox {
    /// Refuse to confine anything.
    pub refuse: bool,
    /// What it was asked to confine.
    pub seen: Mutex<Vec<SandboxCommand>>,
}

impl CommandSandbox for FakeSandbox {
    fn confine(
        &self,
        command: &SandboxCommand,
        _policy: &SandboxPolicy,
    ) -> Result<ConfinedCommand, SandboxError> {
        self.seen.lock().unwrap().push(command.clone());
        if self.refuse {
            return Err(SandboxError("sandbox: no backend works here".into()));
        }
        Ok(ConfinedCommand {
            program: command.program.clone(),
            args: command.args.clone(),
            cwd: command.cwd.clone(),
            env: vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("ONLY".into(), "this".into()),
                ("CONFINED".into(), "yes".into()),
            ],
            stop: StopBy::KillGroup,
        })
    }

    fn denial_note(&self, outcome: &CommandOutcome<'_>, _policy: &SandboxPolicy) -> Option<String> {
        (outcome.code != Some(0)).then(|| format!("[clawloop sandbox: code {:?}]", outcome.code))
    }

    fn describe(&self, _policy: &SandboxPolicy) -> Result<String, SandboxError> {
        Ok("fake".into())
    }
}

/// One call of `tool` with a fresh cancellation token.
pub async fn call(
    tool: &dyn Tool,
    args: Value,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolError> {
    tool.execute("id", args, ctx, CancellationToken::new(), Arc::new(|_| {}))
        .await
}

/// The text of a result's first block.
pub fn text(result: &ToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}
