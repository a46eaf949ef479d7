//! `bash` under an approval policy from the context (test doubles of the core seams): under
//! `on-request` the model may ask to leave the sandbox and the approver decides; a denial is
//! a tool error and nothing runs; `never` refuses the request; `always` asks every call; an
//! abort while the host decides aborts the call.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawloop_core::approval::{
    ApprovalDecision, ApprovalPolicy, ApprovalRequest, Approver, ToolApproval,
};
use clawloop_core::sandbox::{SandboxMode, SandboxPolicy, ToolSandbox};
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use clawloop_tools::bash::BashTool;
use common::fake_sandbox::{FakeSandbox, text};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Answers every request with its decision (or never, when `None`) and keeps the requests.
#[derive(Debug)]
struct Recording {
    decision: Option<ApprovalDecision>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Recording {
    fn new(decision: Option<ApprovalDecision>) -> Arc<Self> {
        Arc::new(Recording {
            decision,
            asked: Mutex::new(Vec::new()),
        })
    }

    fn asked(&self) -> Vec<(String, bool)> {
        let asked = self.asked.lock().unwrap();
        asked
            .iter()
            .map(|r| (r.command.clone(), r.unsandboxed))
            .collect()
    }
}

impl Approver for Recording {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalDecision> {
        self.asked.lock().unwrap().push(request.clone());
        Box::pin(async move {
            match &self.decision {
                Some(decision) => decision.clone(),
                None => std::future::pending().await,
            }
        })
    }
}

fn context(
    dir: &tempfile::TempDir,
    policy: ApprovalPolicy,
    approver: &Arc<Recording>,
) -> ToolContext {
    let mut ctx = ToolContext::new(dir.path());
    ctx.sandbox = Some(ToolSandbox::new(
        Arc::new(FakeSandbox::default()),
        SandboxPolicy::new(SandboxMode::WorkspaceWrite),
    ));
    ctx.approval = Some(ToolApproval::new(policy, approver.clone()));
    ctx
}

/// One call of the `bash` that offers `sandbox: "off"`.
async fn call(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    common::fake_sandbox::call(&BashTool::new().offering_unsandboxed(), args, ctx).await
}

const SHOW: &str = "echo confined=${CONFINED:-no}";

#[tokio::test]
async fn on_request_an_approved_request_runs_outside_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Recording::new(Some(ApprovalDecision::Approve));
    let ctx = context(&dir, ApprovalPolicy::OnRequest, &approver);
    let out = call(json!({"command": SHOW, "sandbox": "off"}), &ctx)
        .await
        .unwrap();
    assert_eq!(text(&out), "confined=no\n");
    // Without the argument the command runs confined, and nobody is asked.
    let out = call(json!({"command": SHOW}), &ctx).await.unwrap();
    assert_eq!(text(&out), "confined=yes\n");
    assert_eq!(approver.asked(), [(SHOW.to_owned(), true)]);
    assert_eq!(approver.asked.lock().unwrap()[0].tool_call_id, "id");
}

#[tokio::test]
async fn a_denied_command_is_a_tool_error_and_does_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Recording::new(Some(ApprovalDecision::Deny("the user said no".into())));
    let ctx = context(&dir, ApprovalPolicy::OnRequest, &approver);
    let err = call(json!({"command": "touch ran", "sandbox": "off"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Command not run: the user said no");
    assert!(!dir.path().join("ran").exists());
}

#[tokio::test]
async fn never_refuses_a_request_to_leave_the_sandbox_without_asking() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Recording::new(Some(ApprovalDecision::Approve));
    let ctx = context(&dir, ApprovalPolicy::Never, &approver);
    let err = call(json!({"command": "touch ran", "sandbox": "off"}), &ctx)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Refused: this session cannot run commands outside")
    );
    assert!(!dir.path().join("ran").exists());
    assert_eq!(approver.asked(), []);
    let err = call(json!({"command": "true", "sandbox": "on"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "sandbox: expected \"off\" or no value, got \"on\""
    );
}

#[tokio::test]
async fn always_asks_before_every_call_and_keeps_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Recording::new(Some(ApprovalDecision::Approve));
    let ctx = context(&dir, ApprovalPolicy::Always, &approver);
    let out = call(json!({"command": SHOW}), &ctx).await.unwrap();
    assert_eq!(text(&out), "confined=yes\n");
    call(json!({"command": "true"}), &ctx).await.unwrap();
    assert_eq!(
        approver.asked(),
        [(SHOW.to_owned(), false), ("true".to_owned(), false)]
    );
}

#[tokio::test]
async fn an_abort_while_the_host_decides_aborts_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let approver = Recording::new(None);
    let ctx = context(&dir, ApprovalPolicy::Always, &approver);
    let cancel = CancellationToken::new();
    let bash = BashTool::new();
    let call = bash.execute(
        "c",
        json!({"command": "touch ran"}),
        &ctx,
        cancel.clone(),
        Arc::new(|_| {}),
    );
    let abort = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(call, abort);
    assert!(matches!(result, Err(ToolError::Aborted)), "{result:?}");
    assert!(!dir.path().join("ran").exists());
}

#[test]
fn only_an_offering_bash_has_the_sandbox_argument() {
    let plain = BashTool::new();
    assert!(plain.parameters()["properties"].get("sandbox").is_none());
    let offering = BashTool::new().offering_unsandboxed();
    assert_eq!(
        offering.parameters()["properties"]["sandbox"]["enum"],
        json!(["off"])
    );
    assert_eq!(
        offering.parameters()["properties"]["command"],
        plain.parameters()["properties"]["command"]
    );
}
