//! Workspace confinement: every escape route is refused, inside paths resolve, and the
//! `allow_outside_workspace` limit switches the check off.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use clawloop_core::ToolContext;
use clawloop_tools::workspace::{resolve_for_write, resolve_path};
use pretty_assertions::assert_eq;

/// A temp dir holding `ws/` (the workspace, with `ws/sub/`) and `outside/secret.txt`.
struct Layout {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    // Canonical so the expected paths do not depend on a symlinked temp dir (macOS `/tmp`).
    let base = dir.path().canonicalize().unwrap();
    let ws = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::fs::write(ws.join("sub/file.txt"), "inside").unwrap();
    Layout {
        _dir: dir,
        ws,
        outside,
    }
}

fn ctx(ws: &Path) -> ToolContext {
    ToolContext::new(ws)
}

fn err(result: Result<PathBuf, clawloop_tools::workspace::PathError>) -> String {
    result.unwrap_err().to_string()
}

#[test]
fn inside_paths_resolve_against_cwd_and_root() {
    let l = layout();
    let mut c = ctx(&l.ws);
    assert_eq!(
        resolve_path(&c, "sub/file.txt").unwrap(),
        l.ws.join("sub/file.txt")
    );
    assert_eq!(
        resolve_path(&c, "@sub/./x/../file.txt").unwrap(),
        l.ws.join("sub/file.txt")
    );
    let absolute = l.ws.join("sub/file.txt");
    assert_eq!(
        resolve_path(&c, absolute.to_str().unwrap()).unwrap(),
        absolute
    );
    // A relative cwd is taken relative to the workspace root.
    c.cwd = PathBuf::from("sub");
    assert_eq!(
        resolve_path(&c, "file.txt").unwrap(),
        l.ws.join("sub/file.txt")
    );
    assert_eq!(resolve_path(&c, "..").unwrap(), l.ws);
    // Not-yet-existing files in not-yet-existing directories are fine.
    assert_eq!(
        resolve_for_write(&c, "new/dir/f.txt").unwrap(),
        l.ws.join("sub/new/dir/f.txt")
    );
}

#[test]
fn dot_dot_escape_is_refused() {
    let l = layout();
    let c = ctx(&l.ws);
    assert_eq!(
        err(resolve_path(&c, "../outside/secret.txt")),
        format!(
            "Path is outside the workspace: ../outside/secret.txt (resolves to {}; workspace root: {})",
            l.outside.join("secret.txt").display(),
            l.ws.display()
        )
    );
    assert!(resolve_path(&c, "sub/../../outside").is_err());
    assert!(resolve_for_write(&c, "../new.txt").is_err());
    // The workspace's sibling with a common name prefix is not inside it.
    std::fs::create_dir_all(l.ws.with_file_name("ws2")).unwrap();
    assert!(resolve_path(&c, "../ws2").is_err());
}

#[test]
fn absolute_path_outside_is_refused() {
    let l = layout();
    let c = ctx(&l.ws);
    let secret = l.outside.join("secret.txt");
    assert_eq!(
        err(resolve_path(&c, secret.to_str().unwrap())),
        format!(
            "Path is outside the workspace: {} (resolves to {}; workspace root: {})",
            secret.display(),
            secret.display(),
            l.ws.display()
        )
    );
    assert!(resolve_for_write(&c, "/etc/passwd").is_err());
}

#[test]
fn symlink_pointing_outside_is_refused() {
    let l = layout();
    let c = ctx(&l.ws);
    symlink(l.outside.join("secret.txt"), l.ws.join("link.txt")).unwrap();
    assert_eq!(
        err(resolve_path(&c, "link.txt")),
        format!(
            "Path is outside the workspace: link.txt (a symlink leads to {}; workspace root: {})",
            l.outside.join("secret.txt").display(),
            l.ws.display()
        )
    );
    // A relative link target climbing out is caught too.
    symlink("../../outside/secret.txt", l.ws.join("sub/rel.txt")).unwrap();
    assert!(resolve_path(&c, "sub/rel.txt").is_err());
    // A dangling link whose target is outside: writing through it would create the file there.
    symlink(l.outside.join("created.txt"), l.ws.join("dangling.txt")).unwrap();
    assert!(resolve_for_write(&c, "dangling.txt").is_err());
    // A link staying inside is fine, and the lexical path is returned.
    symlink("sub/file.txt", l.ws.join("inner.txt")).unwrap();
    assert_eq!(
        resolve_path(&c, "inner.txt").unwrap(),
        l.ws.join("inner.txt")
    );
}

#[test]
fn symlinked_parent_directory_is_refused() {
    let l = layout();
    let c = ctx(&l.ws);
    symlink(&l.outside, l.ws.join("escape")).unwrap();
    assert_eq!(
        err(resolve_path(&c, "escape/secret.txt")),
        format!(
            "Path is outside the workspace: escape/secret.txt (a symlink leads to {}; workspace root: {})",
            l.outside.join("secret.txt").display(),
            l.ws.display()
        )
    );
    assert!(resolve_for_write(&c, "escape/new/file.txt").is_err());
    // `..` after a link is applied by name, as pi's `path.resolve` does (the OS would go to the
    // target's parent); the tool then uses that lexical path, which is the workspace itself.
    assert_eq!(resolve_path(&c, "escape/..").unwrap(), l.ws);
}

#[test]
fn symlink_cycles_are_reported() {
    let l = layout();
    let c = ctx(&l.ws);
    symlink("b", l.ws.join("a")).unwrap();
    symlink("a", l.ws.join("b")).unwrap();
    assert_eq!(
        err(resolve_path(&c, "a")),
        "Too many levels of symbolic links: a"
    );
}

#[test]
fn a_symlinked_workspace_root_still_confines() {
    let l = layout();
    let alias = l.ws.with_file_name("alias");
    symlink(&l.ws, &alias).unwrap();
    let c = ctx(&alias);
    assert_eq!(
        resolve_path(&c, "sub/file.txt").unwrap(),
        alias.join("sub/file.txt")
    );
    // The real root's spelling is inside as well.
    let real = l.ws.join("sub/file.txt");
    assert_eq!(resolve_path(&c, real.to_str().unwrap()).unwrap(), real);
    assert!(resolve_path(&c, "../outside/secret.txt").is_err());
}

#[test]
fn allow_outside_workspace_switches_the_check_off() {
    let l = layout();
    let mut c = ctx(&l.ws);
    c.limits.allow_outside_workspace = true;
    symlink(&l.outside, l.ws.join("escape")).unwrap();
    assert_eq!(
        resolve_path(&c, "../outside/secret.txt").unwrap(),
        l.outside.join("secret.txt")
    );
    assert_eq!(
        resolve_path(&c, "escape/secret.txt").unwrap(),
        l.ws.join("escape/secret.txt")
    );
    assert_eq!(
        resolve_for_write(&c, "/tmp/x").unwrap(),
        PathBuf::from("/tmp/x")
    );
}

#[test]
fn home_expansion_uses_the_context_env() {
    let l = layout();
    let mut c = ctx(&l.ws);
    c.env
        .insert("HOME".into(), l.ws.join("sub").display().to_string());
    assert_eq!(
        resolve_path(&c, "~/file.txt").unwrap(),
        l.ws.join("sub/file.txt")
    );
    c.env.insert("HOME".into(), l.outside.display().to_string());
    assert!(resolve_path(&c, "~/secret.txt").is_err());
}
