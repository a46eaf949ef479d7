//! A symlink flipped between an inside and an outside target while the file tools run: the
//! outside file is never returned by `read`/`grep`/`ls` and never modified by `write`/`edit`.
//!
//! A thread swaps the link atomically (a new link renamed over it) as fast as it can while the
//! tool is called many times; each call sees the inside target, a refusal, or (for a write
//! through a dangling moment) an error, but never the outside file.
//!
//! The walks of `find` and `grep` are raced the other way too: a directory they walk is
//! swapped, by renames, between a real directory and a symlink to an outside one holding a
//! uniquely named file; that name (and its content) never appears in their output.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use clawloop_core::tool::{Tool, ToolContext, ToolResult};
use clawloop_tools::edit::EditTool;
use clawloop_tools::find::FindTool;
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

/// The file only the outside directory holds.
const OUTSIDE_NAME: &str = "outside_only_4b1d9e.txt";

/// Swaps the directory `path` with a symlink to `target` and back, by renames through parking
/// places outside the workspace, until dropped; `path` is the real directory again after.
struct DirSwapper {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<usize>>,
}

impl DirSwapper {
    fn start(path: &Path, target: &Path, park: &Path) -> Self {
        std::fs::create_dir_all(park).unwrap();
        let (park_dir, park_link) = (park.join("dir"), park.join("link"));
        std::os::unix::fs::symlink(target, &park_link).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (path, flag) = (path.to_owned(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut swaps = 0usize;
            while !flag.load(Ordering::Relaxed) {
                std::fs::rename(&path, &park_dir).unwrap();
                std::fs::rename(&park_link, &path).unwrap();
                std::fs::rename(&path, &park_link).unwrap();
                std::fs::rename(&park_dir, &path).unwrap();
                swaps += 2;
            }
            swaps
        });
        DirSwapper {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops swapping; how many swaps happened.
    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for DirSwapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// `ws/` with 150 files sorted before `ws/sub/tree/` (so a walk lists `sub` long before it
/// enters `tree`), `tree` holding `in.txt`; `outside/` holding [`OUTSIDE_NAME`] and a
/// subdirectory. Returns the layout and every path a walk of the workspace may list (`sub/tree`
/// also as the link it is half the time, listed but not followed).
fn walk_layout() -> (Layout, Vec<String>) {
    let l = layout();
    let mut inside = vec![
        "inside.txt".to_owned(),
        "real/".to_owned(),
        "real/f.txt".to_owned(),
        "sub/".to_owned(),
        "sub/tree".to_owned(),
        "sub/tree/".to_owned(),
        "sub/tree/in.txt".to_owned(),
    ];
    std::fs::create_dir_all(l.ws.join("sub/tree")).unwrap();
    std::fs::write(l.ws.join("sub/tree/in.txt"), "inside content\n").unwrap();
    for i in 0..150 {
        let name = format!("sub/a{i:03}.txt");
        std::fs::write(l.ws.join(&name), "inside content\n").unwrap();
        inside.push(name);
    }
    std::fs::write(l.outside.join(OUTSIDE_NAME), SECRET).unwrap();
    std::fs::create_dir_all(l.outside.join("nested")).unwrap();
    std::fs::write(l.outside.join("nested").join(OUTSIDE_NAME), SECRET).unwrap();
    (l, inside)
}

/// Calls `tool` [`CALLS`] times while `sub/tree` is swapped; every output line must pass
/// `allowed`, and neither the outside name nor its content may appear anywhere.
async fn walk_never_leaks(tool: &dyn Tool, args: Value, allowed: impl Fn(&str) -> bool) -> usize {
    let (l, _) = walk_layout();
    let ctx = ToolContext::new(&l.ws);
    let park = l.ws.parent().unwrap().join("park");
    let swapper = DirSwapper::start(&l.ws.join("sub/tree"), &l.outside, &park);
    let mut ok = 0;
    for _ in 0..CALLS {
        match run_tool(tool, &ctx, args.clone()).await {
            Ok(result) => {
                let shown = text(&result);
                assert!(
                    !shown.contains(OUTSIDE_NAME) && !shown.contains("SECRET"),
                    "leaked: {shown}"
                );
                for line in shown.lines() {
                    assert!(allowed(line), "not an inside entry: {line:?} in {shown}");
                }
                ok += 1;
            }
            Err(err) => {
                let err = err.to_string();
                assert!(
                    !err.contains(OUTSIDE_NAME) && !err.contains("SECRET"),
                    "{err}"
                );
            }
        }
    }
    assert!(swapper.finish() > 0, "the directory was never swapped");
    ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_never_lists_an_outside_name_through_a_directory_swapped_for_a_link() {
    let (_, inside) = walk_layout();
    let is_inside = |line: &str| inside.iter().any(|p| p == line);
    // The whole workspace, then from the directory above the swapped one.
    let ok = walk_never_leaks(&FindTool::new(), json!({"pattern": "*"}), is_inside).await;
    assert_eq!(ok, CALLS, "find of the workspace never fails");
    let in_sub = |line: &str| inside.iter().any(|p| p.strip_prefix("sub/") == Some(line));
    let args = json!({"pattern": "*", "path": "sub"});
    walk_never_leaks(&FindTool::new(), args, in_sub).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_of_a_swapped_directory_itself_never_lists_an_outside_name() {
    // Only the inside directory's entry, or a refusal, or nothing when it went away between
    // being looked up and being opened.
    let args = json!({"pattern": "*.txt", "path": "sub/tree"});
    let allowed = |line: &str| line == "in.txt" || line == "No files found matching pattern";
    walk_never_leaks(&FindTool::new(), args, allowed).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grep_walk_never_shows_an_outside_file_through_a_directory_swapped_for_a_link() {
    let (_, inside) = walk_layout();
    let shows_inside = |line: &str| {
        line == "No matches found"
            || line.split_once(':').is_some_and(|(path, rest)| {
                rest.ends_with(": inside content")
                    && (inside.iter().any(|p| p == path)
                        || inside.iter().any(|p| p.strip_prefix("sub/") == Some(path))
                        || path == "in.txt")
            })
    };
    // A pattern that matches the outside file's content too, so a leak would show.
    let args = json!({"pattern": "content", "limit": 100_000});
    let ok = walk_never_leaks(&GrepTool::new(), args, shows_inside).await;
    assert_eq!(ok, CALLS, "grep of the workspace never fails");
    let args = json!({"pattern": "content", "path": "sub", "limit": 100_000});
    walk_never_leaks(&GrepTool::new(), args, shows_inside).await;
    let args = json!({"pattern": "content", "path": "sub/tree"});
    walk_never_leaks(&GrepTool::new(), args, shows_inside).await;
}
