//! A symlink flipped between an inside and an outside target while the file tools run: the
//! outside file is never returned by `read`/`grep`/`ls` and never modified by `write`/`edit`.
//!
//! A thread swaps the link atomically (a new link renamed over it) as fast as it can while the
//! tool is called many times; each call sees the inside target, a refusal, or (for a write
//! through a dangling moment) an error, but never the outside file.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use clawloop_core::tool::{Tool, ToolContext, ToolResult};
use clawloop_tools::edit::EditTool;
use clawloop_tools::grep::GrepTool;
use clawloop_tools::ls::LsTool;
use clawloop_tools::read::ReadTool;
use clawloop_tools::write::WriteTool;
use common::run_tool;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Calls per tool and link kind.
const CALLS: usize = 300;
const SECRET: &str = "SECRET outside content\n";

/// `ws/` (the workspace) and `outside/`, side by side.
struct Layout {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let ws = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(ws.join("real")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(ws.join("inside.txt"), "inside content\n").unwrap();
    std::fs::write(ws.join("real/f.txt"), "inside content\n").unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("f.txt"), SECRET).unwrap();
    Layout {
        _dir: dir,
        ws,
        outside,
    }
}

/// Flips the symlink `link` between `a` and `b` until dropped.
struct Flipper {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<usize>>,
}

impl Flipper {
    fn start(link: &Path, a: &Path, b: &Path) -> Self {
        std::os::unix::fs::symlink(a, link).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (link, a, b, flag) = (link.to_owned(), a.to_owned(), b.to_owned(), stop.clone());
        let thread = std::thread::spawn(move || {
            let staging = link.with_extension("flip");
            let mut flips = 0usize;
            while !flag.load(Ordering::Relaxed) {
                let target = if flips.is_multiple_of(2) { &b } else { &a };
                let _ = std::fs::remove_file(&staging);
                std::os::unix::fs::symlink(target, &staging).unwrap();
                std::fs::rename(&staging, &link).unwrap();
                flips += 1;
            }
            flips
        });
        Flipper {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops flipping; how many flips happened.
    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Flipper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn text(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .collect()
}

/// Runs `tool` with `args` [`CALLS`] times while `link` flips; every successful output must
/// not contain the secret. Returns how many calls succeeded.
async fn never_leaks(tool: &dyn Tool, ctx: &ToolContext, args: Value, flipper: Flipper) -> usize {
    let mut ok = 0;
    for _ in 0..CALLS {
        match run_tool(tool, ctx, args.clone()).await {
            Ok(result) => {
                let shown = text(&result);
                assert!(!shown.contains("SECRET"), "leaked: {shown}");
                ok += 1;
            }
            Err(err) => assert!(!err.to_string().contains("SECRET"), "{err}"),
        }
    }
    assert!(flipper.finish() > 0, "the link never flipped");
    ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_never_returns_the_outside_file_through_a_flipping_file_link() {
    let l = layout();
    let ctx = ToolContext::new(&l.ws);
    let flipper = Flipper::start(
        &l.ws.join("link.txt"),
        &l.ws.join("inside.txt"),
        &l.outside.join("secret.txt"),
    );
    never_leaks(&ReadTool::new(), &ctx, json!({"path": "link.txt"}), flipper).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_never_returns_the_outside_file_through_a_flipping_directory_link() {
    let l = layout();
    let ctx = ToolContext::new(&l.ws);
    let flipper = Flipper::start(&l.ws.join("dir"), &l.ws.join("real"), &l.outside);
    never_leaks(
        &ReadTool::new(),
        &ctx,
        json!({"path": "dir/f.txt"}),
        flipper,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_never_shows_the_outside_file_through_flipping_links() {
    let l = layout();
    let ctx = ToolContext::new(&l.ws);
    let grep = GrepTool::new();
    let args = json!({"pattern": "content", "path": "link.txt"});
    let flipper = Flipper::start(
        &l.ws.join("link.txt"),
        &l.ws.join("inside.txt"),
        &l.outside.join("secret.txt"),
    );
    never_leaks(&grep, &ctx, args, flipper).await;
    std::fs::remove_file(l.ws.join("link.txt")).unwrap();
    let flipper = Flipper::start(&l.ws.join("dir"), &l.ws.join("real"), &l.outside);
    let args = json!({"pattern": "content", "path": "dir"});
    never_leaks(&grep, &ctx, args, flipper).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ls_never_lists_the_outside_directory_through_a_flipping_link() {
    let l = layout();
    let ctx = ToolContext::new(&l.ws);
    let flipper = Flipper::start(&l.ws.join("dir"), &l.ws.join("real"), &l.outside);
    let ls = LsTool::new();
    for _ in 0..CALLS {
        // The inside directory holds only `f.txt`; the outside one `secret.txt` too.
        if let Ok(result) = run_tool(&ls, &ctx, json!({"path": "dir"})).await {
            assert_eq!(text(&result), "f.txt");
        }
    }
    assert!(flipper.finish() > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_never_modifies_the_outside_file_through_flipping_links() {
    let l = layout();
    let ctx = ToolContext::new(&l.ws);
    let write = WriteTool::new();
    let flipper = Flipper::start(
        &l.ws.join("link.txt"),
        &l.ws.join("inside.txt"),
        &l.outside.join("secret.txt"),
    );
    let args = json!({"path": "link.txt", "content": "overwritten\n"});
    never_leaks(&write, &ctx, args, flipper).await;
    assert_eq!(
        std::fs::read_to_string(l.outside.join("secret.txt")).unwrap(),
        SECRET
    );
    let flipper = Flipper::start(&l.ws.join("dir"), &l.ws.join("real"), &l.outside);
    let args = json!({"path": "dir/f.txt", "content": "overwritten\n"});
    never_leaks(&write, &ctx, args, flipper).await;
    assert_eq!(
        std::fs::read_to_string(l.outside.join("f.txt")).unwrap(),
        SECRET
    );
    // Nothing was created outside either (a write through a link to a new name).
    let mut names: Vec<String> = std::fs::read_dir(&l.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["f.txt", "secret.txt"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_never_modifies_the_outside_file_through_flipping_links() {
    let l = layout();
    let ctx = ToolContext::new(&l.ws);
    let edit = EditTool::new();
    for (link, inside, outside, path) in [
        (
            l.ws.join("link.txt"),
            l.ws.join("inside.txt"),
            l.outside.join("secret.txt"),
            "link.txt",
        ),
        (
            l.ws.join("dir"),
            l.ws.join("real"),
            l.outside.clone(),
            "dir/f.txt",
        ),
    ] {
        let flipper = Flipper::start(&link, &inside, &outside);
        let edited_file = if path == "link.txt" {
            l.ws.join("inside.txt")
        } else {
            l.ws.join("real/f.txt")
        };
        for _ in 0..CALLS {
            // The inside file always holds the text again; the outside one always does.
            std::fs::write(&edited_file, "inside content\n").unwrap();
            let args = json!({"path": path, "oldText": "content", "newText": "EDITED"});
            let _ = run_tool(&edit, &ctx, args).await;
        }
        assert!(flipper.finish() > 0);
        std::fs::remove_file(&link).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(l.outside.join("secret.txt")).unwrap(),
        SECRET
    );
    assert_eq!(
        std::fs::read_to_string(l.outside.join("f.txt")).unwrap(),
        SECRET
    );
}
