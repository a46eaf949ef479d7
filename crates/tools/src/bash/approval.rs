//! Whether a `bash` call runs, asks first, or is refused: a pure decision over the context's
//! approval policy, whether a sandbox is active and whether the model asked to leave it
//! (`sandbox: "off"`); [`run_gate`] carries it out with the context's approver.

use clawloop_core::approval::{ApprovalDecision, ApprovalPolicy, ApprovalRequest};
use clawloop_core::tool::{ToolContext, ToolError};
use tokio_util::sync::CancellationToken;

/// The property the `bash` schema gains under `on-request`.
pub(crate) const SANDBOX_PROPERTY: &str = "sandbox";

/// How the call goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Run it now; `confined`: in the context's sandbox.
    Run { confined: bool },
    /// Ask the approver first; `unsandboxed`: the command would run outside the sandbox.
    Ask { unsandboxed: bool },
    /// Do not run it; the model reads this.
    Refuse(&'static str),
}

/// What the model is told when it asks to leave the sandbox where it may not.
pub(crate) const NOT_OFFERED: &str = "Refused: this session cannot run commands outside the \
sandbox (approval is not on-request); run the command sandboxed, or tell the user what it needs.";

/// The gate of one call. `active`: the context's sandbox confines commands; `wants_out`: the
/// model passed `sandbox: "off"`.
pub(crate) fn gate(policy: ApprovalPolicy, active: bool, wants_out: bool) -> Gate {
    // Without an active sandbox there is nothing to leave.
    let wants_out = wants_out && active;
    match (policy, wants_out) {
        (ApprovalPolicy::Never, false) | (ApprovalPolicy::OnRequest, false) => {
            Gate::Run { confined: active }
        }
        (ApprovalPolicy::Never, true) => Gate::Refuse(NOT_OFFERED),
        (ApprovalPolicy::OnRequest, true) => Gate::Ask { unsandboxed: true },
        (ApprovalPolicy::Always, unsandboxed) => Gate::Ask { unsandboxed },
    }
}

/// Carries the gate out: `Ok(confined)` when the command may run, else the tool error the
/// model reads. An abort while the host decides is [`ToolError::Aborted`].
pub(crate) async fn run_gate(
    ctx: &ToolContext,
    tool_call_id: &str,
    command: &str,
    wants_out: bool,
    cancel: &CancellationToken,
) -> Result<bool, ToolError> {
    let active = ctx.sandbox.as_ref().is_some_and(|s| s.is_active());
    let approval = ctx.approval.as_ref();
    let policy = approval.map(|a| a.policy).unwrap_or_default();
    let unsandboxed = match gate(policy, active, wants_out) {
        Gate::Run { confined } => return Ok(confined),
        Gate::Refuse(text) => return Err(ToolError::Failed(text.to_owned())),
        Gate::Ask { unsandboxed } => unsandboxed,
    };
    // `gate` asks only under a policy an approval brings; were there none, nothing runs.
    let Some(approval) = approval else {
        return Err(ToolError::Failed(NOT_OFFERED.to_owned()));
    };
    let request = ApprovalRequest {
        tool_call_id: tool_call_id.to_owned(),
        tool: "bash".to_owned(),
        command: command.to_owned(),
        cwd: ctx.cwd.clone(),
        unsandboxed,
    };
    let decision = tokio::select! {
        () = cancel.cancelled() => return Err(ToolError::Aborted),
        decision = approval.approver.decide(&request) => decision,
    };
    match decision {
        ApprovalDecision::Approve => Ok(active && !unsandboxed),
        ApprovalDecision::Deny(why) => Err(ToolError::Failed(format!("Command not run: {why}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ApprovalPolicy::{Always, Never, OnRequest};
    use pretty_assertions::assert_eq;

    #[test]
    fn each_policy_runs_asks_or_refuses() {
        let run = |confined| Gate::Run { confined };
        let ask = |unsandboxed| Gate::Ask { unsandboxed };
        // (case, policy, sandbox active, model wants out) → gate
        let table = [
            ("never, sandboxed", Never, true, false, run(true)),
            ("never, no sandbox", Never, false, false, run(false)),
            (
                "never, asks out",
                Never,
                true,
                true,
                Gate::Refuse(NOT_OFFERED),
            ),
            (
                "never, asks out of no sandbox",
                Never,
                false,
                true,
                run(false),
            ),
            ("on-request, sandboxed", OnRequest, true, false, run(true)),
            ("on-request, asks out", OnRequest, true, true, ask(true)),
            (
                "on-request, no sandbox, asks out",
                OnRequest,
                false,
                true,
                run(false),
            ),
            ("always, sandboxed", Always, true, false, ask(false)),
            ("always, asks out", Always, true, true, ask(true)),
            ("always, no sandbox", Always, false, true, ask(false)),
        ];
        for (case, policy, active, wants_out, expected) in table {
            assert_eq!(gate(policy, active, wants_out), expected, "{case}");
        }
    }
}
