//! Path confinement shared by every file tool.
//!
//! The model's paths go through pi's input clean-up (leading `@` stripped, Unicode spaces turned
//! into plain spaces, `~` expanded), are resolved against the context's cwd, normalized lexically,
//! and then checked against the workspace root *after following symlinks*: a path is refused
//! when `..` climbs out, when it is absolute and outside, or when any symlink on the way (the
//! file itself or a parent directory, even a dangling one a write would create through) points
//! outside. `ctx.limits.allow_outside_workspace` switches the check off.
//!
//! The returned path is the lexical one (no `..`, symlinks kept), as pi's `path.resolve` gives,
//! so tool messages show the path the model asked for.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use clawloop_core::ToolError;
use clawloop_core::tool::ToolContext;

/// How many symlinks one resolution may follow before giving up (Linux's `MAXSYMLINKS`).
const MAX_SYMLINK_HOPS: usize = 40;

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path (after `..` and absolute-path resolution) lies outside the workspace.
    #[error(
        "Path is outside the workspace: {raw} (resolves to {}; workspace root: {})",
        resolved.display(),
        root.display()
    )]
    OutsideWorkspace {
        /// The path as the model wrote it.
        raw: String,
        /// Where it resolves to.
        resolved: PathBuf,
        /// The workspace root.
        root: PathBuf,
    },
    /// The path lies inside the workspace by name, but a symlink on the way leads outside.
    #[error(
        "Path is outside the workspace: {raw} (a symlink leads to {}; workspace root: {})",
        resolved.display(),
        root.display()
    )]
    SymlinkOutsideWorkspace {
        /// The path as the model wrote it.
        raw: String,
        /// Where the symlinks lead.
        resolved: PathBuf,
        /// The workspace root.
        root: PathBuf,
    },
    /// Following the symlinks of the path did not end (a cycle or a very long chain).
    #[error("Too many levels of symbolic links: {raw}")]
    SymlinkLoop {
        /// The path as the model wrote it.
        raw: String,
    },
    /// The path could not be made absolute (the process's cwd is gone).
    #[error("Cannot resolve path {raw}: {source}")]
    Io {
        /// The path as the model wrote it.
        raw: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl From<PathError> for ToolError {
    fn from(err: PathError) -> Self {
        ToolError::Failed(err.to_string())
    }
}

/// Resolves a path the model gave to an absolute path, refusing it if it leaves the workspace.
///
/// The file need not exist (the tool reports a missing file with its own text); every symlink
/// that does exist on the way is followed for the check.
pub fn resolve_path(ctx: &ToolContext, raw: &str) -> Result<PathBuf, PathError> {
    let lexical = lexical_path(ctx, raw)?;
    if ctx.limits.allow_outside_workspace {
        return Ok(lexical);
    }
    let root = workspace_root(ctx, raw)?;
    let real_root = real_path(&root).map_err(|_| PathError::SymlinkLoop {
        raw: root.display().to_string(),
    })?;
    let real = real_path(&lexical).map_err(|_| PathError::SymlinkLoop {
        raw: raw.to_owned(),
    })?;
    if real.starts_with(&real_root) {
        return Ok(lexical);
    }
    // Which error: the name itself leaves the workspace, or only a symlink does. The lexical
    // test accepts either spelling of the root (it may itself be a symlink, e.g. macOS `/tmp`).
    let named_inside = lexical.starts_with(&root) || lexical.starts_with(&real_root);
    if named_inside {
        Err(PathError::SymlinkOutsideWorkspace {
            raw: raw.to_owned(),
            resolved: real,
            root,
        })
    } else {
        Err(PathError::OutsideWorkspace {
            raw: raw.to_owned(),
            resolved: lexical,
            root,
        })
    }
}

/// Resolves a path a tool is about to create or overwrite.
///
/// Same rules as [`resolve_path`]; named separately because a write must also refuse a dangling
/// symlink whose target lies outside (the write would create the file there), which the shared
/// resolution covers by following links whether or not their targets exist.
pub fn resolve_for_write(ctx: &ToolContext, raw: &str) -> Result<PathBuf, PathError> {
    resolve_path(ctx, raw)
}

/// The workspace root as written (absolute, lexically normalized) and as it really is (its
/// symlinks followed), for [`crate::confined`]; `None` when the root cannot be made absolute
/// or loops.
pub(crate) fn confinement_roots(ctx: &ToolContext) -> Option<(PathBuf, PathBuf)> {
    let root = workspace_root(ctx, "").ok()?;
    let real = real_path(&root).ok()?;
    Some((root, real))
}

/// pi's `expandPath`: strips a leading `@`, turns Unicode spaces into spaces, and expands `~`
/// (from the context's `HOME` overlay first, then the process environment).
pub fn expand_path(ctx: &ToolContext, raw: &str) -> PathBuf {
    let stripped = raw.strip_prefix('@').unwrap_or(raw);
    let cleaned: String = stripped
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    if cleaned == "~" {
        if let Some(home) = home_dir(ctx) {
            return home;
        }
    } else if let Some(rest) = cleaned.strip_prefix("~/")
        && let Some(home) = home_dir(ctx)
    {
        return home.join(rest);
    }
    PathBuf::from(cleaned)
}

/// The directory relative paths resolve against: the context's cwd, itself resolved against
/// the workspace root when relative (an empty cwd means the root).
pub fn base_dir(ctx: &ToolContext) -> PathBuf {
    if ctx.cwd.as_os_str().is_empty() {
        ctx.workspace_root.clone()
    } else {
        ctx.workspace_root.join(&ctx.cwd)
    }
}

/// The cleaned-up path made absolute and normalized without touching the file system.
fn lexical_path(ctx: &ToolContext, raw: &str) -> Result<PathBuf, PathError> {
    let expanded = expand_path(ctx, raw);
    let joined = base_dir(ctx).join(expanded);
    let absolute = std::path::absolute(&joined).map_err(|source| PathError::Io {
        raw: raw.to_owned(),
        source,
    })?;
    Ok(normalize_lexically(&absolute))
}

/// The workspace root, absolute and lexically normalized.
fn workspace_root(ctx: &ToolContext, raw: &str) -> Result<PathBuf, PathError> {
    let absolute = std::path::absolute(&ctx.workspace_root).map_err(|source| PathError::Io {
        raw: raw.to_owned(),
        source,
    })?;
    Ok(normalize_lexically(&absolute))
}

/// Removes `.` and applies `..` by name, as `path.resolve` does (`/..` stays `/`).
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The path with every existing symlink on the way followed, like `realpath -m`: components
/// that do not exist are appended by name, so a path to a file not yet created resolves to
/// where it would be created. Fails only on a symlink cycle.
pub(crate) fn real_path(path: &Path) -> io::Result<PathBuf> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    let mut resolved = PathBuf::new();
    push_front_components(&mut pending, &mut resolved, path);
    let mut hops = 0usize;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            resolved.pop();
            continue;
        }
        if part == "." {
            continue;
        }
        let candidate = resolved.join(&part);
        let is_link = std::fs::symlink_metadata(&candidate)
            .map(|meta| meta.file_type().is_symlink())
            .unwrap_or(false);
        if !is_link {
            // Missing components (and unreadable ones) are taken by name: nothing on disk can
            // redirect them.
            resolved = candidate;
            continue;
        }
        hops += 1;
        if hops > MAX_SYMLINK_HOPS {
            return Err(io::Error::other("too many levels of symbolic links"));
        }
        let target = std::fs::read_link(&candidate)?;
        // A relative target is relative to the link's directory, which `resolved` already is.
        push_front_components(&mut pending, &mut resolved, &target);
    }
    Ok(resolved)
}

/// Queues `path`'s components in front of `pending`; an absolute path (root or Windows prefix)
/// restarts `resolved` from that root.
fn push_front_components(pending: &mut VecDeque<OsString>, resolved: &mut PathBuf, path: &Path) {
    let mut names = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                if names.is_empty() && !path.is_relative() {
                    // Rebuild the root once from all root-ish components.
                    *resolved = root_of(path);
                }
            }
            Component::CurDir => {}
            Component::ParentDir => names.push(OsString::from("..")),
            Component::Normal(name) => names.push(name.to_owned()),
        }
    }
    for name in names.into_iter().rev() {
        pending.push_front(name);
    }
}

/// The root (prefix and root directory) of an absolute path.
fn root_of(path: &Path) -> PathBuf {
    path.components()
        .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
        .map(|c| c.as_os_str())
        .collect()
}

/// The home directory for `~`: the context's environment overlay wins over the process's.
fn home_dir(ctx: &ToolContext) -> Option<PathBuf> {
    if let Some(home) = ctx.env.get("HOME") {
        return Some(PathBuf::from(home));
    }
    std::env::var_os("HOME").map(PathBuf::from)
}

/// pi's `normalizeUnicodeSpaces` set: NBSP, U+2000–U+200A, narrow NBSP, medium math space,
/// ideographic space.
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn lexical_normalization_matches_path_resolve() {
        assert_eq!(
            normalize_lexically(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize_lexically(Path::new("/../..")), PathBuf::from("/"));
    }

    #[test]
    fn input_cleanup_strips_at_and_unicode_spaces_and_expands_home() {
        let mut ctx = ToolContext::new("/ws");
        ctx.env.insert("HOME".into(), "/home/me".into());
        assert_eq!(expand_path(&ctx, "@a\u{00A0}b"), PathBuf::from("a b"));
        assert_eq!(expand_path(&ctx, "~"), PathBuf::from("/home/me"));
        assert_eq!(expand_path(&ctx, "~/x"), PathBuf::from("/home/me/x"));
        assert_eq!(expand_path(&ctx, "~x"), PathBuf::from("~x"));
    }
}
