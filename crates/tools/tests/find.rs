//! The `find` tool on real trees: pi's output, limits, notices and error texts, ignore rules,
//! confinement, and the sanity check of `**/*.rs` against `git ls-files` on this repository.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult};
use clawloop_tools::find::FindTool;
use common::{
    abort_during_the_walk, git_working_tree_entries, repo_root, run_tool, text_result,
    workspace_with,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

async fn find(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    run_tool(&FindTool::new(), ctx, args).await
}

fn tree() -> (TempDir, ToolContext) {
    workspace_with(&[
        ("a.txt", ""),
        ("sub/b.txt", ""),
        ("sub/deeper/c.txt", ""),
        ("sub/d.rs", ""),
        (".secret/hidden.txt", ""),
        ("ignored/e.txt", ""),
        ("notes.txt.d/keep", ""),
        (".gitignore", "ignored/\n"),
        (".git/x.txt", ""),
    ])
}

#[tokio::test]
async fn matches_by_name_include_hidden_files_and_respect_gitignore() {
    let (_dir, ctx) = tree();
    let result = find(&ctx, json!({"pattern": "*.txt"})).await;
    assert_eq!(
        result.unwrap(),
        text_result(
            ".secret/hidden.txt\na.txt\nsub/b.txt\nsub/deeper/c.txt",
            None
        )
    );
}

#[tokio::test]
async fn directories_keep_a_trailing_slash() {
    let (_dir, ctx) = tree();
    let result = find(&ctx, json!({"pattern": "*.d"})).await;
    assert_eq!(result.unwrap(), text_result("notes.txt.d/", None));
    let result = find(&ctx, json!({"pattern": "sub"})).await;
    assert_eq!(result.unwrap(), text_result("sub/", None));
}

#[tokio::test]
async fn patterns_with_a_slash_match_the_relative_path() {
    let (_dir, ctx) = tree();
    let result = find(&ctx, json!({"pattern": "sub/*.txt"})).await;
    assert_eq!(result.unwrap(), text_result("sub/b.txt", None));
    let result = find(&ctx, json!({"pattern": "sub/**/*.txt"})).await;
    assert_eq!(
        result.unwrap(),
        text_result("sub/b.txt\nsub/deeper/c.txt", None)
    );
    let result = find(&ctx, json!({"pattern": "**/*.rs"})).await;
    assert_eq!(result.unwrap(), text_result("sub/d.rs", None));
}

#[tokio::test]
async fn a_search_below_the_root_is_relative_to_that_directory() {
    let (_dir, ctx) = tree();
    let result = find(&ctx, json!({"pattern": "*.txt", "path": "sub"})).await;
    assert_eq!(result.unwrap(), text_result("b.txt\ndeeper/c.txt", None));
}

#[tokio::test]
async fn nothing_found_says_so() {
    let (_dir, ctx) = tree();
    let result = find(&ctx, json!({"pattern": "*.md"})).await;
    assert_eq!(
        result.unwrap(),
        ToolResult::text("No files found matching pattern")
    );
}

#[tokio::test]
async fn the_result_limit_cuts_with_pis_notice() {
    let (_dir, ctx) = tree();
    let result = find(&ctx, json!({"pattern": "*.txt", "limit": 2})).await;
    assert_eq!(
        result.unwrap(),
        text_result(
            ".secret/hidden.txt\na.txt\n\n[2 results limit reached]",
            Some(json!({"resultLimitReached": 2}))
        )
    );
}

#[tokio::test]
async fn the_byte_limit_cuts_with_pis_notice() {
    // Names of 250 bytes, 251 with the joining newline: 203 of them fit 51,200 bytes
    // (250 + 202 * 251 = 50,952; one more would make 51,203).
    let name = |i: usize| format!("{i:03}{}", "n".repeat(247));
    let files: Vec<(String, &str)> = (0..210).map(|i| (name(i), "")).collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    let (_dir, ctx) = workspace_with(&refs);
    let result = find(&ctx, json!({"pattern": "*n", "limit": 210}))
        .await
        .unwrap();
    let kept: Vec<String> = (0..203).map(name).collect();
    let ContentBlock::Text(text) = &result.content[0] else {
        panic!("text expected")
    };
    assert_eq!(
        text.text,
        format!(
            "{}\n\n[210 results limit reached. 50.0KB limit reached]",
            kept.join("\n")
        )
    );
    let details = result.details.unwrap();
    assert_eq!(details["resultLimitReached"], json!(210));
    assert_eq!(details["truncation"]["outputLines"], json!(203));
    assert_eq!(details["truncation"]["totalLines"], json!(210));
    assert_eq!(details["truncation"]["truncatedBy"], json!("bytes"));
    // One result fewer than the limit: only the byte notice.
    let result = find(&ctx, json!({"pattern": "*n", "limit": 211}))
        .await
        .unwrap();
    let ContentBlock::Text(text) = &result.content[0] else {
        panic!("text expected")
    };
    assert!(text.text.ends_with("\n\n[50.0KB limit reached]"));
}

#[tokio::test]
async fn a_missing_path_and_a_file_path_are_errors() {
    let (dir, ctx) = tree();
    let err = find(&ctx, json!({"pattern": "*", "path": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("Path not found: {}", dir.path().join("nope").display())
    );
    let err = find(&ctx, json!({"pattern": "*", "path": "a.txt"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "[fd error]: Search path '{}' is not a directory.",
            dir.path().join("a.txt").display()
        )
    );
}

#[tokio::test]
async fn a_bad_glob_is_an_error() {
    let (_dir, ctx) = tree();
    let err = find(&ctx, json!({"pattern": "[a"})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "error parsing glob '[a': unclosed character class; missing ']'"
    );
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let outer = tempfile::tempdir().unwrap();
    let ws = outer.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::fs::write(outer.path().join("secret.txt"), "").unwrap();
    std::os::unix::fs::symlink(outer.path(), ws.join("link")).unwrap();
    let ctx = ToolContext::new(&ws);
    for path in ["..", "link", "/"] {
        let err = find(&ctx, json!({"pattern": "*", "path": path}))
            .await
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Path is outside the workspace: "),
            "{path}: {err}"
        );
    }
    // The link itself is listed (it is an entry of the workspace) but not followed.
    let result = find(&ctx, json!({"pattern": "*"})).await;
    assert_eq!(result.unwrap(), text_result("link", None));
}

#[tokio::test]
async fn an_abort_before_the_start_is_operation_aborted() {
    let (_dir, ctx) = tree();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = FindTool::new()
        .execute("c", json!({"pattern": "*"}), &ctx, cancel, Arc::new(|_| {}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
}

#[tokio::test]
async fn an_abort_during_the_walk_ends_the_call_with_operation_aborted() {
    let err = abort_during_the_walk(&FindTool::new(), json!({"pattern": "*.txt"})).await;
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
}

#[tokio::test]
async fn the_tool_describes_itself_as_pi_does() {
    let tool = FindTool::new();
    assert_eq!(
        (tool.name(), tool.label(), tool.is_mutating()),
        ("find", "find", false)
    );
    assert_eq!(
        tool.description(),
        "Search for files by glob pattern. Returns matching file paths relative to the search \
         directory. Respects .gitignore. Output is truncated to 1000 results or 50KB \
         (whichever is hit first)."
    );
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "pattern": {
                    "type": "string",
                    "description": "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"
                },
                "path": {"type": "string", "description": "Directory to search in (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of results (default: 1000)"}
            },
            "required": ["pattern"]
        })
    );
}

/// The sanity bound: `find **/*.rs` over this repository lists exactly the `.rs` files
/// `git` knows of (tracked, or untracked and not ignored).
#[tokio::test]
async fn sanity_find_of_rust_files_matches_git_ls_files() {
    let repo = repo_root();
    let ctx = ToolContext::new(&repo);
    // Other work may add or remove files while this runs: a mismatch is re-checked a few
    // times before it counts.
    let mut last = None;
    for _ in 0..3 {
        let expected: BTreeSet<String> = git_working_tree_entries(&repo)
            .into_iter()
            // The pattern is lower case, so fd's smart case matches `.RS` too.
            .filter(|p| p.to_lowercase().ends_with(".rs"))
            .collect();
        let result = find(&ctx, json!({"pattern": "**/*.rs", "limit": 100_000}))
            .await
            .unwrap();
        assert_eq!(result.details, None, "no notice expected");
        let ContentBlock::Text(text) = &result.content[0] else {
            panic!("text expected")
        };
        let found: BTreeSet<String> = text.text.lines().map(str::to_owned).collect();
        assert_eq!(found.len(), text.text.lines().count(), "duplicate paths");
        if found == expected {
            assert!(found.len() > 50, "this repository has many .rs files");
            return;
        }
        last = Some((found, expected));
    }
    let (found, expected) = last.unwrap();
    assert_eq!(found, expected);
}
