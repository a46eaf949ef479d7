//! `[sandbox]`: how the `bash` tool's commands are confined (SPEC §12).

use std::path::PathBuf;

use clawloop_core::approval::{ApprovalPolicy, UnknownApprovalPolicy};
use clawloop_core::sandbox::{SandboxMode, SandboxPolicy, UnknownSandboxMode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `[sandbox]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct SandboxConfig {
    /// `workspace-write` (writes only in the workspace, `$TMPDIR`, `/tmp` and
    /// `writableRoots`), `read-only` or `off`; the clawloop home is off limits in every mode
    /// but `off`. `--sandbox` wins over it.
    pub mode: String,
    /// Whether sandboxed commands may use the network (Unix sockets always work).
    pub network: bool,
    /// More directories sandboxed commands may write to in `workspace-write`.
    pub writable_roots: Vec<PathBuf>,
    /// Environment variables sandboxed commands keep although their names contain `KEY`,
    /// `SECRET` or `TOKEN`.
    pub env_passthrough: Vec<String>,
    /// When `bash` calls wait for the user's yes: `never`, `on-request` (the model may ask
    /// to run one command outside the sandbox) or `always` (before every call). `--approval`
    /// wins over it.
    pub approval: String,
    /// Keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            mode: SandboxMode::WorkspaceWrite.as_str().to_owned(),
            network: true,
            writable_roots: Vec::new(),
            env_passthrough: Vec::new(),
            approval: ApprovalPolicy::Never.as_str().to_owned(),
            extra: Map::new(),
        }
    }
}

impl SandboxConfig {
    /// The configured mode.
    pub fn mode(&self) -> Result<SandboxMode, UnknownSandboxMode> {
        self.mode.parse()
    }

    /// The configured approval policy.
    pub fn approval(&self) -> Result<ApprovalPolicy, UnknownApprovalPolicy> {
        self.approval.parse()
    }

    /// The policy of `mode` (the configured one unless the command line chose) with the rest
    /// of this table.
    pub fn policy(&self, mode: SandboxMode) -> SandboxPolicy {
        let mut policy = SandboxPolicy::new(mode);
        policy.network = self.network;
        policy.writable_roots = self.writable_roots.clone();
        policy.env_passthrough = self.env_passthrough.clone();
        policy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn the_table_becomes_a_policy_and_a_bad_mode_names_its_key() {
        let config = Config::from_value(json!({"sandbox": {
            "mode": "read-only", "network": false,
            "writableRoots": ["/cache"], "envPassthrough": ["GH_TOKEN"],
        }}))
        .unwrap();
        let policy = config.sandbox.policy(config.sandbox.mode().unwrap());
        let mut expected = SandboxPolicy::new(SandboxMode::ReadOnly);
        expected.network = false;
        expected.writable_roots = vec!["/cache".into()];
        expected.env_passthrough = vec!["GH_TOKEN".into()];
        assert_eq!(policy, expected);
        let default = Config::from_value(json!({})).unwrap().sandbox;
        assert_eq!(
            (default.mode().unwrap(), default.network),
            (SandboxMode::WorkspaceWrite, true)
        );
        assert_eq!(default.approval(), Ok(ApprovalPolicy::Never));
        let asked = Config::from_value(json!({"sandbox": {"approval": "on-request"}})).unwrap();
        assert_eq!(asked.sandbox.approval(), Ok(ApprovalPolicy::OnRequest));
        let err = Config::from_value(json!({"sandbox": {"approval": "ask"}})).unwrap_err();
        assert_eq!(
            (err.path.as_str(), err.message.as_str()),
            (
                "sandbox.approval",
                "unknown approval policy `ask` (expected never, on-request or always)"
            )
        );
        let err = Config::from_value(json!({"sandbox": {"mode": "strict"}})).unwrap_err();
        assert_eq!(
            (err.path.as_str(), err.message.as_str()),
            (
                "sandbox.mode",
                "unknown sandbox mode `strict` (expected off, read-only or workspace-write)"
            )
        );
    }
}
