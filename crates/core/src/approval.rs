//! Approvals: when a command must be approved before it runs, and the [`Approver`] seam the
//! host answers through (the CLI asks y/N on a terminal; an embedder supplies its own).
//!
//! The policy is codex's three-way choice, spelled as clawloop's config spells it:
//! `never` asks nothing (a command the sandbox refuses fails, and the model reads why),
//! `on-request` lets the model ask to run one command outside the sandbox (the `bash` schema
//! gains `sandbox: "off"` only then), `always` asks before every `bash` call.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use crate::tool::BoxFuture;

/// When a `bash` call needs the host's approval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ApprovalPolicy {
    /// Never ask; the model cannot ask to leave the sandbox.
    #[default]
    Never,
    /// Ask only when the model asks to run a command outside the sandbox.
    OnRequest,
    /// Ask before every `bash` call.
    Always,
}

impl ApprovalPolicy {
    /// The config spelling: `never`, `on-request` or `always`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::Never => "never",
            ApprovalPolicy::OnRequest => "on-request",
            ApprovalPolicy::Always => "always",
        }
    }
}

impl fmt::Display for ApprovalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A policy name that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval policy `{0}` (expected never, on-request or always)")]
pub struct UnknownApprovalPolicy(pub String);

impl FromStr for ApprovalPolicy {
    type Err = UnknownApprovalPolicy;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "never" => Ok(ApprovalPolicy::Never),
            "on-request" => Ok(ApprovalPolicy::OnRequest),
            "always" => Ok(ApprovalPolicy::Always),
            other => Err(UnknownApprovalPolicy(other.to_owned())),
        }
    }
}

/// What the host is asked to approve: one command, as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// The tool call's id.
    pub tool_call_id: String,
    /// The tool (`bash`).
    pub tool: String,
    /// The command, unmodified (a host shows it neutralized: it is the model's text).
    pub command: String,
    /// Where it would run.
    pub cwd: PathBuf,
    /// Whether it would run outside the sandbox.
    pub unsandboxed: bool,
}

/// The host's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run the command.
    Approve,
    /// Do not run it; the sentence says why (the model reads it in the tool result).
    Deny(String),
}

/// The host's side of approvals. Calls may come from parallel tool calls; an implementation
/// that asks a person serializes them itself. The future is dropped when the turn is aborted.
pub trait Approver: Send + Sync + fmt::Debug {
    /// Approves or denies `request`.
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalDecision>;
}

/// The approvals a tool context carries: the policy and who answers.
#[derive(Debug, Clone)]
pub struct ToolApproval {
    /// When to ask.
    pub policy: ApprovalPolicy,
    /// Who answers.
    pub approver: Arc<dyn Approver>,
}

impl ToolApproval {
    /// `approver` answering under `policy`.
    pub fn new(policy: ApprovalPolicy, approver: Arc<dyn Approver>) -> Self {
        ToolApproval { policy, approver }
    }
}

impl PartialEq for ToolApproval {
    fn eq(&self, other: &Self) -> bool {
        self.policy == other.policy
            && std::ptr::addr_eq(Arc::as_ptr(&self.approver), Arc::as_ptr(&other.approver))
    }
}

impl Eq for ToolApproval {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn policies_parse_from_their_config_spelling() {
        for policy in [
            ApprovalPolicy::Never,
            ApprovalPolicy::OnRequest,
            ApprovalPolicy::Always,
        ] {
            assert_eq!(policy.as_str().parse(), Ok(policy));
        }
        assert_eq!(
            "ask".parse::<ApprovalPolicy>().unwrap_err().to_string(),
            "unknown approval policy `ask` (expected never, on-request or always)"
        );
        assert_eq!(ApprovalPolicy::default(), ApprovalPolicy::Never);
    }
}
