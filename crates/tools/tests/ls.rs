//! The `ls` tool on real directories: order, markers, limits and notices, every error text,
//! confinement and cancellation.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_tools::ls::LsTool;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn no_updates() -> ToolUpdate {
    Arc::new(|_| {})
}

async fn call(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    LsTool::new()
        .execute("call-1", args, ctx, CancellationToken::new(), no_updates())
        .await
}

async fn ls_ok(ctx: &ToolContext, args: Value) -> ToolResult {
    match call(ctx, args).await {
        Ok(result) => result,
        Err(err) => panic!("ls failed: {err}"),
    }
}

async fn ls_err(ctx: &ToolContext, args: Value) -> String {
    match call(ctx, args).await {
        Ok(result) => panic!("ls succeeded: {result:?}"),
        Err(err) => err.to_string(),
    }
}

fn workspace() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

#[test]
fn the_schema_and_metadata_are_pis() {
    let tool = LsTool::new();
    assert_eq!((tool.name(), tool.label()), ("ls", "ls"));
    assert!(!tool.is_mutating());
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"}
            }
        })
    );
}

#[tokio::test]
async fn lists_dotfiles_and_marks_directories_in_collation_order() {
    let (dir, ctx) = workspace();
    for file in [
        "b.txt",
        "A.txt",
        ".hidden-file",
        "_private",
        "10.log",
        "9.log",
    ] {
        std::fs::write(dir.path().join(file), "").unwrap();
    }
    for sub in [".hidden-dir", "src"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    // A symlink to a directory is marked like one; a dangling one is skipped, as pi skips
    // entries it cannot stat.
    std::os::unix::fs::symlink(dir.path().join("src"), dir.path().join("src-link")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("dangling")).unwrap();
    let expected = ToolResult::text(
        "_private\n.hidden-dir/\n.hidden-file\n10.log\n9.log\nA.txt\nb.txt\nsrc/\nsrc-link/",
    );
    assert_eq!(ls_ok(&ctx, json!({})).await, expected);
    assert_eq!(ls_ok(&ctx, json!({"path": ""})).await, expected);
    assert_eq!(ls_ok(&ctx, json!({"path": "."})).await, expected);
}

#[tokio::test]
async fn an_empty_directory_says_so() {
    let (dir, ctx) = workspace();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    assert_eq!(
        ls_ok(&ctx, json!({"path": "empty"})).await,
        ToolResult::text("(empty directory)")
    );
}

#[tokio::test]
async fn the_entry_limit_cuts_with_a_notice_and_details() {
    let (dir, ctx) = workspace();
    for file in ["a", "b", "c"] {
        std::fs::write(dir.path().join(file), "").unwrap();
    }
    assert_eq!(
        ls_ok(&ctx, json!({"limit": 2})).await,
        ToolResult {
            details: Some(json!({"entryLimitReached": 2})),
            ..ToolResult::text("a\nb\n\n[2 entries limit reached. Use limit=4 for more]")
        }
    );
    // Exactly at the limit there is nothing more to announce.
    assert_eq!(
        ls_ok(&ctx, json!({"limit": 3})).await,
        ToolResult::text("a\nb\nc")
    );
}

#[tokio::test]
async fn the_byte_limit_cuts_with_a_notice_and_truncation_details() {
    let (dir, mut ctx) = workspace();
    for n in 0..5 {
        std::fs::write(dir.path().join(format!("file-{n}.txt")), "").unwrap();
    }
    // Each name is 10 bytes; 25 bytes fit two names and their newline (21).
    ctx.limits.max_output_bytes = 25;
    assert_eq!(
        ls_ok(&ctx, json!({"limit": 3})).await,
        ToolResult {
            details: Some(json!({
                "entryLimitReached": 3,
                "truncation": {
                    "content": "file-0.txt\nfile-1.txt",
                    "truncated": true,
                    "truncatedBy": "bytes",
                    "totalLines": 3,
                    "totalBytes": 32,
                    "outputLines": 2,
                    "outputBytes": 21,
                    "lastLinePartial": false,
                    "firstLineExceedsLimit": false,
                    "maxLines": 9_007_199_254_740_991_u64,
                    "maxBytes": 25
                }
            })),
            ..ToolResult::text(
                "file-0.txt\nfile-1.txt\n\n[3 entries limit reached. Use limit=6 for more. 25B limit reached]"
            )
        }
    );
}

#[tokio::test]
async fn missing_paths_and_files_have_pis_errors() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("file.txt"), "x").unwrap();
    assert_eq!(
        ls_err(&ctx, json!({"path": "nope"})).await,
        format!("Path not found: {}", dir.path().join("nope").display())
    );
    assert_eq!(
        ls_err(&ctx, json!({"path": "file.txt"})).await,
        format!("Not a directory: {}", dir.path().join("file.txt").display())
    );
}

/// Set in the child process that repeats the unreadable-directory test as an unprivileged user.
const LOCKED_WORKSPACE_ENV: &str = "CLAWLOOP_TEST_LS_LOCKED_WORKSPACE";

/// The expected text for the workspace's `locked` directory.
async fn assert_cannot_read(workspace: &Path) {
    let ctx = ToolContext::new(workspace);
    assert_eq!(
        ls_err(&ctx, json!({"path": "locked"})).await,
        format!(
            "Cannot read directory: EACCES: permission denied, scandir '{}'",
            workspace.join("locked").display()
        )
    );
}

#[tokio::test]
async fn an_unreadable_directory_reports_cannot_read_directory() {
    use std::os::unix::fs::PermissionsExt;
    if let Some(workspace) = std::env::var_os(LOCKED_WORKSPACE_ENV) {
        assert_cannot_read(Path::new(&workspace)).await;
        return;
    }
    let (dir, _ctx) = workspace();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read_dir(&locked).is_err() {
        assert_cannot_read(dir.path()).await;
    } else {
        // Root reads any directory: repeat this test in a child process as `nobody`.
        let status = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "an_unreadable_directory_reports_cannot_read_directory",
                "--test-threads=1",
            ])
            .env(LOCKED_WORKSPACE_ENV, dir.path())
            .status();
        match status {
            Ok(status) if status.code() == Some(126) || status.code() == Some(127) => {
                eprintln!("skipped: `nobody` cannot run the test binary here");
            }
            Ok(status) => assert!(status.success(), "child run failed: {status}"),
            Err(err) => eprintln!("skipped: setpriv unavailable ({err})"),
        }
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn paths_leaving_the_workspace_are_refused() {
    let (dir, ctx) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    let err = ls_err(&ctx, json!({"path": "out"})).await;
    assert!(
        err.starts_with("Path is outside the workspace: out (a symlink leads to"),
        "{err}"
    );
    let err = ls_err(&ctx, json!({"path": ".."})).await;
    assert!(
        err.starts_with("Path is outside the workspace: .."),
        "{err}"
    );
    let err = ls_err(&ctx, json!({"path": "/"})).await;
    assert!(err.starts_with("Path is outside the workspace: /"), "{err}");
}

#[tokio::test]
async fn a_cancelled_call_is_aborted() {
    let (_dir, ctx) = workspace();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = LsTool::new()
        .execute("c", json!({}), &ctx, cancel, no_updates())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
}

#[tokio::test]
async fn bad_arguments_are_reported() {
    let (_dir, ctx) = workspace();
    let err = call(&ctx, json!({"limit": "many"})).await.unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
}
