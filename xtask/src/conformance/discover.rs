//! Finding scenario files: default directories and a deterministic recursive walk.

use std::fs;
use std::path::{Path, PathBuf};

/// Directories nested deeper than this are not walked (guards against symlink loops).
const MAX_DEPTH: usize = 32;

pub use crate::workspace::workspace_root;

/// The default scenario directories that exist: the shared public scenarios
/// (`<root>/../shared/conformance/scenarios`) and the project's own `<root>/conformance`.
pub fn default_dirs() -> Vec<PathBuf> {
    let root = workspace_root();
    let shared = match root.parent() {
        Some(parent) => parent.join("shared/conformance/scenarios"),
        None => root.join("../shared/conformance/scenarios"),
    };
    [shared, root.join("conformance")]
        .into_iter()
        .filter(|d| d.is_dir())
        .map(|d| shorten(&d))
        .collect()
}

/// `path` relative to the current directory when it lies below it, so output stays short.
fn shorten(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_path_buf())
}

/// A scenario file found under a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The path to open (the given directory joined with the relative path).
    pub path: PathBuf,
}

/// All `*.json` files below `dir` (or `dir` itself when it is a file), sorted by path
/// component so the order does not depend on the file system.
pub fn walk(dir: &Path) -> Result<Vec<Found>, String> {
    if dir.is_file() {
        return Ok(vec![Found {
            path: dir.to_path_buf(),
        }]);
    }
    if !dir.is_dir() {
        return Err("no such directory".to_owned());
    }
    let mut out = Vec::new();
    walk_into(dir, 0, &mut out)?;
    Ok(out)
}

fn walk_into(dir: &Path, depth: usize, out: &mut Vec<Found>) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk_into(&path, depth + 1, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(Found { path });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_recursively_sorted() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fs::create_dir_all(root.join("b/c")).unwrap();
        fs::create_dir_all(root.join("a")).unwrap();
        for f in ["b/c/z.json", "b/a.json", "a/y.json", "top.json", "skip.txt"] {
            fs::write(root.join(f), "{}").unwrap();
        }
        let found: Vec<String> = walk(root)
            .unwrap()
            .into_iter()
            .map(|f| f.path.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(found, ["a/y.json", "b/a.json", "b/c/z.json", "top.json"]);
    }

    #[test]
    fn missing_dir_is_an_error() {
        assert!(walk(Path::new("/definitely/not/here")).is_err());
    }

    #[test]
    fn workspace_root_holds_the_workspace_manifest() {
        assert!(workspace_root().join("Cargo.toml").is_file());
        assert!(workspace_root().join("xtask").is_dir());
    }
}
