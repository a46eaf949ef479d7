//! The `grep` tool on real files: pi's output lines, context, notices and error texts, ignore
//! rules, workspace confinement, and the sanity check against `git ls-files` on this repository.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult};
use clawloop_tools::grep::GrepTool;
use clawloop_tools::truncate::{TruncationOptions, truncate_head};
use common::{
    abort_during_the_walk, git_working_tree_entries, repo_root, run_tool, text_result,
    workspace_with,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

async fn grep(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    run_tool(&GrepTool::new(), ctx, args).await
}

#[tokio::test]
async fn a_single_file_is_shown_by_its_name() {
    let (_dir, ctx) = workspace_with(&[("example.txt", "first line\nmatch line\nlast line\n")]);
    let result = grep(&ctx, json!({"pattern": "match", "path": "example.txt"})).await;
    assert_eq!(
        result.unwrap(),
        text_result("example.txt:2: match line", None)
    );
}

#[tokio::test]
async fn context_lines_and_the_match_limit_read_like_pi() {
    let (_dir, ctx) = workspace_with(&[(
        "context.txt",
        "before\nmatch one\nafter\nmiddle\nmatch two\nend\n",
    )]);
    let result = grep(
        &ctx,
        json!({"pattern": "match", "path": "context.txt", "limit": 1, "context": 1}),
    )
    .await;
    assert_eq!(
        result.unwrap(),
        text_result(
            "context.txt-1- before\ncontext.txt:2: match one\ncontext.txt-3- after\n\n\
             [1 matches limit reached. Use limit=2 for more, or refine pattern]",
            Some(json!({"matchLimitReached": 1}))
        )
    );
}

#[tokio::test]
async fn a_directory_search_shows_relative_paths_in_name_order() {
    let (_dir, ctx) = workspace_with(&[
        ("b.txt", "needle b\n"),
        ("a/deep/c.txt", "x\nneedle c\n"),
        ("a/a.txt", "needle a\n"),
        (".hidden/h.txt", "needle hidden\n"),
        ("ignored/i.txt", "needle ignored\n"),
        ("skip.log", "needle log\n"),
        (".gitignore", "ignored/\n*.log\n"),
        (".git/config", "needle in git\n"),
    ]);
    let result = grep(&ctx, json!({"pattern": "needle"})).await;
    assert_eq!(
        result.unwrap(),
        text_result(
            ".hidden/h.txt:1: needle hidden\na/a.txt:1: needle a\na/deep/c.txt:2: needle c\n\
             b.txt:1: needle b",
            None
        )
    );
}

#[tokio::test]
async fn ignore_case_literal_and_glob_filter_like_rg() {
    let (_dir, ctx) = workspace_with(&[
        ("a.rs", "let x = a.b(1);\nNEEDLE\n"),
        ("b.txt", "a.b(1)\nneedle\n"),
    ]);
    let ci = grep(&ctx, json!({"pattern": "needle", "ignoreCase": true})).await;
    assert_eq!(
        ci.unwrap(),
        text_result("a.rs:2: NEEDLE\nb.txt:2: needle", None)
    );
    let literal = grep(&ctx, json!({"pattern": "a.b(1)", "literal": true})).await;
    assert_eq!(
        literal.unwrap(),
        text_result("a.rs:1: let x = a.b(1);\nb.txt:1: a.b(1)", None)
    );
    let globbed = grep(&ctx, json!({"pattern": "needle", "glob": "*.txt"})).await;
    assert_eq!(globbed.unwrap(), text_result("b.txt:2: needle", None));
    let negated = grep(&ctx, json!({"pattern": "(?i)needle", "glob": "!*.txt"})).await;
    assert_eq!(negated.unwrap(), text_result("a.rs:2: NEEDLE", None));
}

#[tokio::test]
async fn no_match_says_so() {
    let (_dir, ctx) = workspace_with(&[("a.txt", "hay\n")]);
    let result = grep(&ctx, json!({"pattern": "needle"})).await;
    assert_eq!(result.unwrap(), ToolResult::text("No matches found"));
}

#[tokio::test]
async fn long_lines_are_cut_with_a_notice() {
    let long = "y".repeat(700);
    let (_dir, ctx) = workspace_with(&[("a.txt", &format!("{long}\n"))]);
    let result = grep(&ctx, json!({"pattern": "y"})).await;
    assert_eq!(
        result.unwrap(),
        text_result(
            &format!(
                "a.txt:1: {}... [truncated]\n\n[Some lines truncated to 500 chars. Use read \
                 tool to see full lines]",
                "y".repeat(500)
            ),
            Some(json!({"linesTruncated": true}))
        )
    );
}

#[tokio::test]
async fn output_over_50kb_is_cut_with_every_notice_in_pis_order() {
    // 300 matches of 450 characters: about 138 KB of output.
    let line = "z".repeat(450);
    let content: String = (0..300).map(|_| format!("{line}\n")).collect();
    let (_dir, ctx) = workspace_with(&[("big.txt", &content)]);
    let result = grep(&ctx, json!({"pattern": "z", "limit": 200}))
        .await
        .unwrap();
    let ContentBlock::Text(text) = &result.content[0] else {
        panic!("text expected")
    };
    // Each output line is "big.txt:N: " + 450 characters; whole lines within 51,200 bytes.
    let lines: Vec<String> = (1..=200).map(|n| format!("big.txt:{n}: {line}")).collect();
    let mut kept = 0;
    let mut bytes = 0;
    for l in &lines {
        let add = l.len() + usize::from(kept > 0);
        if bytes + add > 51_200 {
            break;
        }
        bytes += add;
        kept += 1;
    }
    assert_eq!(
        text.text,
        format!(
            "{}\n\n[200 matches limit reached. Use limit=400 for more, or refine pattern. \
             50.0KB limit reached]",
            lines[..kept].join("\n")
        )
    );
    let details = result.details.unwrap();
    assert_eq!(details["matchLimitReached"], json!(200));
    assert_eq!(details["truncation"]["truncatedBy"], json!("bytes"));
    assert_eq!(details["truncation"]["outputLines"], json!(kept));
    assert_eq!(details.get("linesTruncated"), None);
}

#[tokio::test]
async fn a_missing_path_is_reported_with_its_absolute_form() {
    let (dir, ctx) = workspace_with(&[]);
    let err = grep(&ctx, json!({"pattern": "x", "path": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("Path not found: {}", dir.path().join("nope").display())
    );
}

#[tokio::test]
async fn a_bad_regex_gets_rgs_error_text() {
    let (_dir, ctx) = workspace_with(&[("a.txt", "x\n")]);
    let err = grep(&ctx, json!({"pattern": "("})).await.unwrap_err();
    // rg 14 prints the pattern as its regex layer wrapped it, `(?:…)`.
    assert_eq!(
        err.to_string(),
        "regex parse error:\n    (?:()\n    ^\nerror: unclosed group"
    );
    let err = grep(&ctx, json!({"pattern": "a\nb"})).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the literal \"\\n\" is not allowed in a regex"
    );
    let err = grep(&ctx, json!({"pattern": "x", "glob": "a{"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "error parsing glob 'a{': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
    );
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("secret.txt"), "needle\n").unwrap();
    let ws = outer.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    std::os::unix::fs::symlink(outer.path(), ws.join("link")).unwrap();
    let ctx = ToolContext::new(&ws);
    for path in ["..", "../secret.txt", "link"] {
        let err = grep(&ctx, json!({"pattern": "needle", "path": path}))
            .await
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Path is outside the workspace: "),
            "{path}: {err}"
        );
    }
    let abs = outer.path().join("secret.txt");
    let err = grep(&ctx, json!({"pattern": "needle", "path": abs}))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Path is outside the workspace: ")
    );
    // A walk does not follow the symlink either.
    let result = grep(&ctx, json!({"pattern": "needle"})).await;
    assert_eq!(result.unwrap(), ToolResult::text("No matches found"));
}

#[tokio::test]
async fn an_abort_before_the_start_is_operation_aborted() {
    let (_dir, ctx) = workspace_with(&[("a.txt", "x\n")]);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = GrepTool::new()
        .execute("c", json!({"pattern": "x"}), &ctx, cancel, Arc::new(|_| {}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
}

#[tokio::test]
async fn an_abort_during_the_walk_ends_the_call_with_operation_aborted() {
    let err = abort_during_the_walk(&GrepTool::new(), json!({"pattern": "needle"})).await;
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
}

#[tokio::test]
async fn the_tool_describes_itself_as_pi_does() {
    let tool = GrepTool::new();
    assert_eq!(
        (tool.name(), tool.label(), tool.is_mutating()),
        ("grep", "grep", false)
    );
    assert_eq!(
        tool.description(),
        "Search file contents for a pattern. Returns matching lines with file paths and line \
         numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is \
         hit first). Long lines are truncated to 500 chars."
    );
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Search pattern (regex or literal string)"},
                "path": {"type": "string", "description": "Directory or file to search (default: current directory)"},
                "glob": {"type": "string", "description": "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},
                "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
                "literal": {"type": "boolean", "description": "Treat pattern as literal string instead of regex (default: false)"},
                "context": {"type": "number", "description": "Number of lines to show before and after each match (default: 0)"},
                "limit": {"type": "number", "description": "Maximum number of matches to return (default: 100)"}
            },
            "required": ["pattern"]
        })
    );
}

/// The sanity bound: `grep` for a fixed string over this repository finds exactly the
/// lines `git` knows of (tracked files plus untracked ones not ignored — what a
/// `.gitignore`-aware walk sees).
#[tokio::test]
async fn sanity_grep_over_this_repository_matches_git_ls_files() {
    const NEEDLE: &str = "pretty_assertions::assert_eq";
    let repo = repo_root();
    let ctx = ToolContext::new(&repo);
    // Other work may edit the tree while this runs: a mismatch is re-checked a few times
    // before it counts.
    let mut last = None;
    for _ in 0..3 {
        let expected = git_matches(&repo, NEEDLE);
        let result = grep(
            &ctx,
            json!({"pattern": NEEDLE, "literal": true, "limit": 100_000}),
        )
        .await
        .unwrap();
        assert_eq!(result.details, None, "no notice expected: {result:?}");
        let ContentBlock::Text(text) = &result.content[0] else {
            panic!("text expected")
        };
        let found: BTreeSet<(String, usize)> = text
            .text
            .lines()
            .map(|line| {
                let (path, rest) = line.split_once(':').unwrap();
                let (number, _) = rest.split_once(": ").unwrap();
                (path.to_owned(), number.parse().unwrap())
            })
            .collect();
        assert_eq!(found.len(), text.text.lines().count(), "duplicate lines");
        if found == expected {
            assert!(
                found.len() > 10,
                "the needle should be common: {}",
                found.len()
            );
            return;
        }
        last = Some((found, expected));
    }
    let (found, expected) = last.unwrap();
    assert_eq!(found, expected);
}

/// `(path, line)` of every line containing `needle` in the files git lists (binary files,
/// which rg skips, excluded).
fn git_matches(repo: &Path, needle: &str) -> BTreeSet<(String, usize)> {
    let mut matches = BTreeSet::new();
    let files = git_working_tree_entries(repo)
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(repo.join(p)).is_ok_and(|m| m.file_type().is_file()));
    for path in files {
        let Ok(bytes) = std::fs::read(repo.join(&path)) else {
            continue;
        };
        if bytes.contains(&0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.split('\n').enumerate() {
            if line.contains(needle) {
                matches.insert((path.clone(), index + 1));
            }
        }
    }
    matches
}

#[tokio::test]
async fn one_match_in_a_big_file_is_found_in_one_streaming_pass() {
    // 64 MB of hay with one needle in the middle: the file is searched once, as a stream;
    // its lines are never all held, re-read or split.
    let (dir, ctx) = workspace_with(&[]);
    let hay = format!("{}hay\n", "hay ".repeat(99));
    let lines = 160_000;
    let file = std::fs::File::create(dir.path().join("big.txt")).unwrap();
    let mut writer = std::io::BufWriter::new(file);
    for n in 1..=lines {
        let line = if n == lines / 2 {
            "the needle is here\n"
        } else {
            hay.as_str()
        };
        std::io::Write::write_all(&mut writer, line.as_bytes()).unwrap();
    }
    drop(writer);
    let middle = lines / 2;
    let result = grep(&ctx, json!({"pattern": "needle", "context": 1})).await;
    let hay_line = hay.trim_end();
    assert_eq!(
        result.unwrap(),
        text_result(
            &format!(
                "big.txt-{}- {hay_line}\nbig.txt:{middle}: the needle is here\nbig.txt-{}- {hay_line}",
                middle - 1,
                middle + 1
            ),
            None
        )
    );
}

/// pi's blocks for `matches` (1-based line numbers) of `lines` with `context`, untruncated.
fn pi_blocks(name: &str, lines: &[String], matches: &[usize], context: usize) -> Vec<String> {
    let mut out = Vec::new();
    for &line in matches {
        let start = line.saturating_sub(context).max(1);
        let end = (line + context).min(lines.len());
        for current in start..=end {
            let text = &lines[current - 1];
            let mark = if current == line { ':' } else { '-' };
            out.push(format!("{name}{mark}{current}{mark} {text}"));
        }
    }
    out
}

#[tokio::test]
async fn a_huge_context_with_many_matches_is_bounded_and_still_pis_output() {
    // 800 matching lines: with `context: 1e12` every block is the whole file (as in pi), and
    // the 100 blocks of 801 lines (the last one pi's empty line after the final newline) are
    // cut at 50 KB. Nothing holds more than the shown output.
    let content: String = (1..=800).map(|n| format!("match {n}\n")).collect();
    let (_dir, ctx) = workspace_with(&[("m.txt", &content)]);
    let result = grep(&ctx, json!({"pattern": "match", "context": 1e12}))
        .await
        .unwrap();
    let lines: Vec<String> = content.split('\n').map(str::to_owned).collect();
    let matches: Vec<usize> = (1..=100).collect();
    let all = pi_blocks("m.txt", &lines, &matches, usize::MAX / 2);
    assert_eq!(all.len(), 100 * 801);
    let joined = all.join("\n");
    let kept = truncate_head(
        &joined,
        TruncationOptions {
            max_lines: usize::MAX,
            max_bytes: 51_200,
        },
    );
    assert!(kept.content.len() <= 51_200);
    assert_eq!(
        result,
        text_result(
            &format!(
                "{}\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern. \
                 50.0KB limit reached]",
                kept.content
            ),
            Some(json!({
                "matchLimitReached": 100,
                "truncation": serde_json::to_value(&kept).unwrap(),
            }))
        )
    );
}

#[tokio::test]
async fn context_and_limit_are_clamped() {
    // 5000 lines, one match in the middle: the context is cut to 1000 lines each side.
    let content: String = (1..=5000)
        .map(|n| {
            if n == 2500 {
                "needle\n".to_owned()
            } else {
                format!("line {n}\n")
            }
        })
        .collect();
    let (_dir, mut ctx) = workspace_with(&[("c.txt", &content)]);
    ctx.limits.max_output_bytes = 10 * 1024 * 1024;
    let result = grep(
        &ctx,
        json!({"pattern": "needle", "context": 1e12, "limit": 1e300}),
    )
    .await
    .unwrap();
    let text = result.content[0].as_text().unwrap();
    let shown: Vec<&str> = text.lines().collect();
    assert_eq!(shown.len(), 2001);
    assert_eq!(
        (shown[0], shown[1000], shown[2000]),
        (
            "c.txt-1500- line 1500",
            "c.txt:2500: needle",
            "c.txt-3500- line 3500"
        )
    );
}

#[tokio::test]
async fn special_files_are_skipped_in_a_walk_and_refused_by_name() {
    let (dir, ctx) = workspace_with(&[("a.txt", "needle\n")]);
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    // No writer ever opens the FIFO: searching it would wait forever.
    let result = grep(&ctx, json!({"pattern": "needle"})).await;
    assert_eq!(result.unwrap(), text_result("a.txt:1: needle", None));
    let err = grep(&ctx, json!({"pattern": "needle", "path": "pipe"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Not a regular file: pipe is a FIFO (named pipe)"
    );
}
