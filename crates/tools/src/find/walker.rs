//! The directory walk `grep` and `find` share: ripgrep's and fd's defaults as pi calls them
//! (`--hidden`, ignore files respected), made deterministic and confined.
//!
//! * Hidden files are included (pi passes `--hidden`); `.gitignore`, `.ignore`,
//!   `.git/info/exclude` and the global excludes file are respected, in and above the search
//!   directory, whether or not it is inside a git repository (fd's `--no-require-git`, which
//!   newer pi passes too; rg and pi 0.58's fd honoured `.gitignore` only inside a repository).
//! * `.git` directories are skipped: with `--hidden` rg and fd would list and search git's own
//!   object store, which is never what a model looking at the project wants.
//! * Symlinks are not followed (rg's and fd's default), so a walk cannot leave the workspace
//!   through a link.
//! * Entries come sorted by name, depth first: the same tree always gives the same output
//!   (rg and fd walk in parallel and print in whatever order threads finish).

use std::path::Path;

use ignore::WalkBuilder;
use ignore::overrides::Override;

/// A walker over `root` with the rules above; `overrides` are rg's `--glob` filters.
pub(crate) fn walker(root: &Path, overrides: Option<Override>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        // Global excludes are matched relative to this; without it the walker would consult
        // the process's cwd.
        .current_dir(root)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.depth() == 0 || entry.file_name() != ".git");
    if let Some(overrides) = overrides {
        builder.overrides(overrides);
    }
    builder
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn hidden_files_count_and_ignored_ones_and_git_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(root.join("ignored.txt"), "").unwrap();
        std::fs::write(root.join(".hidden"), "").unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git").join("HEAD"), "").unwrap();
        std::fs::create_dir(root.join("b")).unwrap();
        std::fs::write(root.join("b").join("a.txt"), "").unwrap();
        let seen: Vec<String> = walker(root, None)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0)
            .map(|e| {
                e.path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(seen, [".gitignore", ".hidden", "b", "b/a.txt"]);
    }
}
