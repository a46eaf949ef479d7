//! The tools under a sandbox from the context (a test double of the core seam): `bash` runs
//! exactly what the sandbox returns, fails closed when it cannot confine, appends its note;
//! `write` and `edit` refuse in `read-only`.

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use clawloop_core::sandbox::{SandboxMode, SandboxPolicy, ToolSandbox};
use clawloop_core::tool::ToolContext;
use clawloop_tools::bash::BashTool;
use clawloop_tools::edit::EditTool;
use clawloop_tools::write::WriteTool;
use common::fake_sandbox::{FakeSandbox, call, text};
use pretty_assertions::assert_eq;
use serde_json::json;

fn context(dir: &tempfile::TempDir, sandbox: &Arc<FakeSandbox>, mode: SandboxMode) -> ToolContext {
    let mut ctx = ToolContext::new(dir.path());
    ctx.env.insert("HOME".into(), "/somewhere".into());
    ctx.sandbox = Some(ToolSandbox::new(sandbox.clone(), SandboxPolicy::new(mode)));
    ctx
}

#[tokio::test]
async fn bash_runs_what_the_sandbox_returns_with_its_environment_only() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Arc::new(FakeSandbox::default());
    let ctx = context(&dir, &sandbox, SandboxMode::WorkspaceWrite);
    let result = call(
        &BashTool::new(),
        json!({"command": "echo $ONLY ${HOME:-no-home}"}),
        &ctx,
    )
    .await
    .unwrap();
    assert_eq!(text(&result), "this no-home\n");
    let seen = sandbox.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].workspace_root, dir.path());
    assert_eq!(
        seen[0].env.get("HOME").map(String::as_str),
        Some("/somewhere")
    );
    assert_eq!(seen[0].args.last().unwrap(), "echo $ONLY ${HOME:-no-home}");
}

#[tokio::test]
async fn bash_fails_closed_when_the_sandbox_cannot_confine() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Arc::new(FakeSandbox {
        refuse: true,
        ..FakeSandbox::default()
    });
    let ctx = context(&dir, &sandbox, SandboxMode::WorkspaceWrite);
    let err = call(&BashTool::new(), json!({"command": "touch ran"}), &ctx)
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "sandbox: no backend works here");
    assert!(!dir.path().join("ran").exists());
}

#[tokio::test]
async fn a_failure_gets_the_sandbox_note_as_its_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Arc::new(FakeSandbox::default());
    let ctx = context(&dir, &sandbox, SandboxMode::WorkspaceWrite);
    let err = call(
        &BashTool::new(),
        json!({"command": "echo no; exit 3"}),
        &ctx,
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "no\n\n\nCommand exited with code 3\n[clawloop sandbox: code Some(3)]"
    );
}

#[tokio::test]
async fn mode_off_does_not_consult_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Arc::new(FakeSandbox::default());
    let ctx = context(&dir, &sandbox, SandboxMode::Off);
    let result = call(&BashTool::new(), json!({"command": "echo ${HOME}"}), &ctx)
        .await
        .unwrap();
    assert_eq!(text(&result), "/somewhere\n");
    assert!(sandbox.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn write_and_edit_refuse_in_read_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "old\n").unwrap();
    let sandbox = Arc::new(FakeSandbox::default());
    let ctx = context(&dir, &sandbox, SandboxMode::ReadOnly);
    let err = call(
        &WriteTool::new(),
        json!({"path": "a.txt", "content": "new\n"}),
        &ctx,
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Refused: the sandbox is read-only, so write cannot change a.txt."
    );
    let err = call(
        &EditTool::new(),
        json!({"path": "a.txt", "oldText": "old", "newText": "new"}),
        &ctx,
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Refused: the sandbox is read-only, so edit cannot change a.txt."
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "old\n"
    );
    // workspace-write leaves them alone.
    let ctx = context(&dir, &sandbox, SandboxMode::WorkspaceWrite);
    call(
        &WriteTool::new(),
        json!({"path": "a.txt", "content": "new\n"}),
        &ctx,
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "new\n"
    );
}
