//! The `bash` tool with the real sandbox in its context, once per backend: a refused command's
//! result ends with the sandbox line, a confined command works, and an abort leaves nothing.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use clawloop_core::sandbox::{SandboxMode, SandboxPolicy, ToolSandbox};
use clawloop_core::tool::{Tool, ToolContext, ToolError};
use clawloop_sandbox::{Backend, LinuxSandbox};
use clawloop_tools::bash::BashTool;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn context(dir: &tempfile::TempDir, backend: Backend) -> Option<ToolContext> {
    let sandbox = LinuxSandbox::new()
        .with_helper(env!("CARGO_BIN_EXE_clawloop-sandbox-helper"))
        .with_backend(backend);
    let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    policy.network = false;
    if let Err(err) = sandbox.backend(&policy) {
        println!(
            "skipped: the {} backend does not work here: {err}",
            backend.name()
        );
        return None;
    }
    let mut ctx = ToolContext::new(dir.path().canonicalize().unwrap());
    ctx.sandbox = Some(ToolSandbox::new(Arc::new(sandbox), policy));
    Some(ctx)
}

fn live(marker: &str) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .filter(|cmdline| {
            let cmdline = String::from_utf8_lossy(cmdline).replace('\0', " ");
            cmdline.starts_with("sleep ") && cmdline.contains(marker)
        })
        .count()
}

async fn refused_with_the_line(backend: Backend) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let Some(ctx) = context(&dir, backend) else {
        return;
    };
    let tool = BashTool::new();
    let ok = tool
        .execute(
            "1",
            json!({"command": "echo in > f && cat f"}),
            &ctx,
            CancellationToken::new(),
            Arc::new(|_| {}),
        )
        .await
        .unwrap();
    assert!(format!("{:?}", ok.content).contains("in\\n"), "{ok:?}");
    let marker = format!("clawloop-bash-tool-{}", std::process::id());
    let err = tool
        .execute(
            "2",
            json!({"command": format!("touch /etc/{marker}")}),
            &ctx,
            CancellationToken::new(),
            Arc::new(|_| {}),
        )
        .await
        .unwrap_err();
    let text = err.to_string();
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("[clawloop sandbox: this failure may be the sandbox (workspace-write;"),
        "{text}"
    );
    assert!(last.contains("network off"), "{text}");
    assert!(!std::path::Path::new("/etc").join(marker).exists());
}

async fn an_abort_leaves_nothing_running(backend: Backend) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let Some(ctx) = context(&dir, backend) else {
        return;
    };
    let id = std::process::id();
    // The backends' tests run at once in this process: each needs its own marker, or one
    // test's processes would trigger the other's abort before its command started.
    let digit = match backend {
        Backend::Landlock => 1,
        Backend::Bwrap => 2,
    };
    let marker = format!("7{digit}.{id}");
    let command = format!("sleep 1{marker} & (setsid sleep 2{marker} &); sleep 3{marker}");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let watcher = marker.clone();
    tokio::spawn(async move {
        let deadline = Instant::now() + Duration::from_secs(10);
        while live(&watcher) < 3 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        trigger.cancel();
    });
    let tool = BashTool::new();
    let err = tool
        .execute(
            "1",
            json!({"command": command}),
            &ctx,
            cancel,
            Arc::new(|_| {}),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, ToolError::Failed(ref t) if t.ends_with("Command aborted")),
        "{err}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while live(&marker) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(live(&marker), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn landlock_refused_with_the_line() {
    refused_with_the_line(Backend::Landlock).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bwrap_refused_with_the_line() {
    refused_with_the_line(Backend::Bwrap).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn landlock_an_abort_leaves_nothing_running() {
    an_abort_leaves_nothing_running(Backend::Landlock).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bwrap_an_abort_leaves_nothing_running() {
    an_abort_leaves_nothing_running(Backend::Bwrap).await;
}
