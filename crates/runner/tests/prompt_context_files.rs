//! Workspace context files from a real temp workspace: order, budgets with OpenClaw's truncation
//! marker, missing files, links that leave the workspace, FIFOs and other non-regular files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use clawloop_runner::prompt::PromptMode;
use clawloop_runner::prompt::context_files::{
    ContextBudget, ContextFile, LoadedContextFiles, RawContextFile, apply_context_budget,
    context_files_for_mode, load_context_files,
};
use pretty_assertions::assert_eq;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn file(ws: &Path, name: &str, content: &str, raw_chars: usize, truncated: bool) -> ContextFile {
    ContextFile {
        name: name.into(),
        path: ws.join(name),
        content: content.into(),
        raw_chars,
        truncated,
    }
}

#[test]
fn files_load_in_openclaw_order_without_trailing_whitespace_and_missing_ones_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    write(ws, "USER.md", "Name: Ada\n\n");
    write(ws, "AGENTS.md", "Run tests first.\r\n");
    write(ws, "SOUL.md", "Be warm.  \t\n");
    write(ws, "CLAUDE.md", "Claude notes");
    write(ws, "MEMORY.md", "Likes tea");
    write(ws, "EMPTY.md", "");
    write(ws, "TOOLS.md", "   \n\n");
    write(ws, "README.md", "not a context file");
    let loaded = load_context_files(ws, PromptMode::Full, ContextBudget::default());
    assert_eq!(
        loaded,
        LoadedContextFiles {
            files: vec![
                file(ws, "AGENTS.md", "Run tests first.", 16, false),
                file(ws, "CLAUDE.md", "Claude notes", 12, false),
                file(ws, "SOUL.md", "Be warm.", 8, false),
                file(ws, "USER.md", "Name: Ada", 9, false),
                file(ws, "MEMORY.md", "Likes tea", 9, false),
            ],
            warnings: vec![],
        }
    );
}

#[test]
fn minimal_mode_loads_only_the_subagent_allowlist() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    for name in ["AGENTS.md", "SOUL.md", "TOOLS.md", "USER.md"] {
        write(ws, name, name);
    }
    let names = |files: &[ContextFile]| files.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    let minimal = load_context_files(ws, PromptMode::Minimal, ContextBudget::default());
    assert_eq!(names(&minimal.files), vec!["AGENTS.md", "TOOLS.md"]);
    let full = load_context_files(ws, PromptMode::Full, ContextBudget::default());
    assert_eq!(
        names(&context_files_for_mode(full.files, PromptMode::Minimal)),
        vec!["AGENTS.md", "TOOLS.md"]
    );
}

#[test]
fn a_file_over_its_budget_keeps_head_and_tail_around_the_marker() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    // 100 distinct chars: 70 % head, 20 % tail.
    let text: String = (0..100)
        .map(|i| char::from(b'!' + (i % 90) as u8))
        .collect();
    write(ws, "AGENTS.md", &text);
    let budget = ContextBudget {
        max_chars_per_file: 100 - 1,
        max_total_chars: 10_000,
    };
    let loaded = load_context_files(ws, PromptMode::Full, budget);
    let head: String = text.chars().take(69).collect();
    let tail: String = text.chars().skip(100 - 19).collect();
    let expected = format!(
        "{head}\n\n[...truncated, read AGENTS.md for full content...]\n…(truncated AGENTS.md: kept 69+19 chars of 100)…\n\n{tail}"
    );
    assert_eq!(
        loaded,
        LoadedContextFiles {
            files: vec![file(ws, "AGENTS.md", &expected, 100, true)],
            warnings: vec![
                "workspace bootstrap file AGENTS.md is 100 chars (limit 99); truncating in injected context"
                    .into()
            ],
        }
    );
}

#[test]
fn the_total_budget_cuts_a_later_file_with_an_ellipsis_and_stops_below_64_chars() {
    let raw = |name: &str, content: String| RawContextFile {
        name: name.into(),
        path: PathBuf::from("/ws").join(name),
        content,
    };
    let budget = ContextBudget {
        max_chars_per_file: 1_000,
        max_total_chars: 200,
    };
    let loaded = apply_context_budget(
        vec![
            raw("AGENTS.md", "a".repeat(120)),
            raw("SOUL.md", "é".repeat(100)),
            raw("TOOLS.md", "t".repeat(10)),
        ],
        budget,
    );
    let agents = ContextFile {
        name: "AGENTS.md".into(),
        path: "/ws/AGENTS.md".into(),
        content: "a".repeat(120),
        raw_chars: 120,
        truncated: false,
    };
    // 80 chars left: SOUL.md gets a head-and-tail cut to 80 (56 + 16 around the marker), and
    // the result is clamped to the 80 chars left, the last one an ellipsis.
    let soul_trimmed = format!(
        "{}\n\n[...truncated, read SOUL.md for full content...]\n…(truncated SOUL.md: kept 56+16 chars of 100)…\n\n{}",
        "é".repeat(56),
        "é".repeat(16)
    );
    let soul_clamped: String = soul_trimmed.chars().take(79).chain(['…']).collect();
    assert_eq!(
        loaded,
        LoadedContextFiles {
            files: vec![
                agents,
                ContextFile {
                    name: "SOUL.md".into(),
                    path: "/ws/SOUL.md".into(),
                    content: soul_clamped,
                    raw_chars: 100,
                    truncated: true,
                },
            ],
            warnings: vec![
                "workspace bootstrap file SOUL.md is 100 chars (limit 80); truncating in injected context".into(),
            ],
        }
    );

    let starved = apply_context_budget(
        vec![
            raw("AGENTS.md", "a".repeat(150)),
            raw("TOOLS.md", "t".repeat(10)),
        ],
        ContextBudget {
            max_chars_per_file: 1_000,
            max_total_chars: 200,
        },
    );
    assert_eq!(starved.files.len(), 1);
    assert_eq!(
        starved.warnings,
        vec!["remaining bootstrap budget is 50 chars (<64); skipping additional bootstrap files"]
    );
}

#[test]
fn links_out_of_the_workspace_are_refused_and_links_inside_are_read_once() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    let secret = write(tmp.path(), "secret.md", "outside secret");
    symlink(&secret, ws.join("SOUL.md")).unwrap();
    // A relative link that climbs out is refused the same way.
    symlink("../secret.md", ws.join("USER.md")).unwrap();
    write(&ws, "AGENTS.md", "shared rules");
    symlink("AGENTS.md", ws.join("CLAUDE.md")).unwrap();
    std::fs::create_dir(ws.join("docs")).unwrap();
    write(&ws.join("docs"), "tools.md", "tool notes");
    symlink("docs/tools.md", ws.join("TOOLS.md")).unwrap();
    symlink("does-not-exist.md", ws.join("IDENTITY.md")).unwrap();
    let loaded = load_context_files(&ws, PromptMode::Full, ContextBudget::default());
    let real_secret = std::fs::canonicalize(&secret).unwrap();
    let real_ws = std::fs::canonicalize(&ws).unwrap();
    assert_eq!(
        loaded,
        LoadedContextFiles {
            files: vec![
                file(&ws, "AGENTS.md", "shared rules", 12, false),
                file(&ws, "TOOLS.md", "tool notes", 10, false),
            ],
            warnings: vec![
                format!(
                    "context file SOUL.md skipped: {} resolves to {}, outside {}",
                    ws.join("SOUL.md").display(),
                    real_secret.display(),
                    real_ws.display()
                ),
                format!(
                    "context file USER.md skipped: {} resolves to {}, outside {}",
                    ws.join("USER.md").display(),
                    real_secret.display(),
                    real_ws.display()
                ),
            ],
        }
    );
    assert!(!loaded.files.iter().any(|f| f.content.contains("secret")));
}

#[test]
fn a_fifo_a_directory_and_an_oversized_file_are_refused_without_hanging() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let fifo = ws.join("AGENTS.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::create_dir(ws.join("SOUL.md")).unwrap();
    let big = std::fs::File::create(ws.join("MEMORY.md")).unwrap();
    big.set_len(2 * 1024 * 1024 + 1).unwrap();
    write(ws, "TOOLS.md", "fine");
    // No writer ever opens the FIFO: a blocking open would never return.
    let loaded = load_context_files(ws, PromptMode::Full, ContextBudget::default());
    assert_eq!(
        loaded,
        LoadedContextFiles {
            files: vec![file(ws, "TOOLS.md", "fine", 4, false)],
            warnings: vec![
                format!(
                    "context file AGENTS.md skipped: {} is a FIFO, not a regular file",
                    fifo.display()
                ),
                format!(
                    "context file SOUL.md skipped: {} is a directory, not a regular file",
                    ws.join("SOUL.md").display()
                ),
                format!(
                    "context file MEMORY.md skipped: {} is larger than the 2097152-byte limit",
                    ws.join("MEMORY.md").display()
                ),
            ],
        }
    );
}

#[test]
fn an_unreadable_file_is_a_warning_and_a_missing_workspace_is_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let locked = write(ws, "AGENTS.md", "locked");
    write(ws, "TOOLS.md", "open");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let loaded = load_context_files(ws, PromptMode::Full, ContextBudget::default());
    // Root reads anything; the point is that either way the run goes on.
    let names: Vec<_> = loaded.files.iter().map(|f| f.name.as_str()).collect();
    if names.contains(&"AGENTS.md") {
        assert_eq!(loaded.warnings, Vec::<String>::new());
    } else {
        assert_eq!(names, vec!["TOOLS.md"]);
        assert_eq!(loaded.warnings.len(), 1);
        assert!(
            loaded.warnings[0].starts_with("context file AGENTS.md skipped: cannot open "),
            "{:?}",
            loaded.warnings
        );
    }
    assert_eq!(
        load_context_files(&ws.join("gone"), PromptMode::Full, ContextBudget::default()),
        LoadedContextFiles::default()
    );
}
